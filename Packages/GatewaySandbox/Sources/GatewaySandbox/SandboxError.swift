/// Why a sandbox could not start (or a sandbox call was refused).
///
/// Compare `code`, not `reason`: the reason is prose for a developer and may change.
public struct SandboxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, for callers that switch on it.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The configuration cannot be used (host not numeric, bad key file, ...).
        public static let invalidConfiguration = Code(rawValue: "invalidConfiguration")
        /// The listening socket could not be opened (port in use, permission, ...).
        public static let bindFailed = Code(rawValue: "bindFailed")
        /// The card-encryption key could not be generated or loaded.
        public static let keyUnavailable = Code(rawValue: "keyUnavailable")
        /// HTTPS was asked for and cannot be served: libmicrohttpd was built without TLS,
        /// libcrypto could not make the test certificates, or GnuTLS refused them.
        public static let tlsUnavailable = Code(rawValue: "tlsUnavailable")

        /// The code's stable name.
        public let rawValue: String
        /// The code's stable name.
        public var description: String { rawValue }
    }

    /// The kind of failure.
    public var code: Code
    /// A sentence a developer can act on.
    public var reason: String

    /// Creates an error with a code and a reason.
    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    /// `code: reason`.
    public var description: String { "\(code): \(reason)" }
}
