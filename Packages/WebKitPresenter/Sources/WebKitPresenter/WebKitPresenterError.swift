/// Why the WebKit presenter cannot do something: a code to compare, a reason
/// a developer can act on.
public struct WebKitPresenterError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong. Codes can grow: a struct with static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// GTK cannot open a display.
        public static let noDisplay = Code(name: "noDisplay")
        /// GTK was started on another thread than this call's.
        public static let wrongThread = Code(name: "wrongThread")
        /// libdispatch's main-queue handle is unavailable.
        public static let mainQueueBridge = Code(name: "mainQueueBridge")

        /// The code's name.
        public let name: String
        /// The name.
        public var description: String { name }
    }

    /// The code.
    public let code: Code
    /// What happened, in words (never card data).
    public let reason: String

    init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    /// `code: reason`.
    public var description: String { "\(code): \(reason)" }
}
