import Foundation
import PaymentFlow

/// What a presented page may load: the kit's own trust rules, not WebKit's
/// defaults. Made from the payment's `Configuration`, so pages
/// and the SDK's own requests trust the same servers.
///
/// - In an environment without plain HTTP (`.live`), a navigation to
///   `http:` is refused (never loaded; reported as a load failure).
/// - Only `http:` and `https:` navigations are asked about; any other scheme
///   (`file:`, `data:`, a custom one) is refused and reported.
/// - A TLS error is never accepted, except a certificate that chains to a CA
///   of ``certificateAuthorityFile``, checked by this package (GLib's
///   verification against that file alone, for the page's host), and then
///   only for that host in that payment's ephemeral session.
/// - ``pinnedPublicKeys`` (`"sha256//<base64 SPKI SHA-256>"` per host, as
///   `TransportSecurity/pinnedPublicKeys`) are checked on every
///   main-frame load over TLS; a mismatch stops the page as a load failure.
///   A certificate admitted through the CA rule is checked before it is
///   admitted (no request reaches the host); on a certificate the system
///   trusts, the check runs when the response arrives, before the page is
///   shown or reported loaded.
public struct PageTrust: Sendable, Equatable {
    /// Whether `http:` pages may load (`.sandbox`).
    public var allowsPlainHTTP: Bool
    /// A PEM file of certificate authorities trusted besides the system's, for pages.
    public var certificateAuthorityFile: String?
    /// Public-key pins per host (case-insensitive).
    public var pinnedPublicKeys: [String: [String]]
    /// Which proxy the pages' network session uses, as the SDK's own requests do
    /// (`Configuration.proxy`): `.direct` (the default) loads every page straight from its host,
    /// whatever `http_proxy` or `https_proxy` say; `.environment` reads the variables as libcurl does,
    /// when each page opens; `.url(_:)` sends every load through that proxy.
    public var proxy: NetworkProxy

    /// The rules of `configuration`: its environment and its `transportSecurity` (the proxy included).
    public init(configuration: PaymentFlow.Configuration) {
        self.init(
            allowsPlainHTTP: configuration.environment.allowsPlainHTTP,
            transportSecurity: configuration.transportSecurity)
    }

    /// Rules from parts.
    public init(allowsPlainHTTP: Bool, transportSecurity: TransportSecurity = .systemTrust) {
        self.allowsPlainHTTP = allowsPlainHTTP
        self.certificateAuthorityFile = transportSecurity.certificateAuthorityFile
        self.pinnedPublicKeys = Dictionary(
            transportSecurity.pinnedPublicKeys.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: +)
        self.proxy = transportSecurity.proxy
    }

    /// Why the page may not go to `url` at all, or nil when the SDK is to be asked.
    func navigationProblem(_ url: URL) -> String? {
        switch url.scheme?.lowercased() {
        case "https": return nil
        case "http":
            return allowsPlainHTTP ? nil : "plain http is refused outside the sandbox environment"
        case let scheme:
            return "the \(scheme.map { "'\($0)'" } ?? "missing") scheme is refused"
        }
    }

    /// Why a TLS server at `host` with this SPKI hash is refused by the pins, or nil.
    func pinProblem(host: String, spkiSHA256: [UInt8]?) -> String? {
        guard let pins = pinnedPublicKeys[host.lowercased()], !pins.isEmpty else { return nil }
        guard let spkiSHA256 else { return "the server's public key could not be read for its pin" }
        let pin = "sha256//" + Data(spkiSHA256).base64EncodedString()
        return pins.contains(pin) ? nil : "the server's public key does not match the pins for \(host)"
    }
}
