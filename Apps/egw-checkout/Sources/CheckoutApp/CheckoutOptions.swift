import Foundation

/// egw-checkout's command line, parsed as egw-repl parses its own: the embedded sandbox by default,
/// `--no-sandbox` with the URLs of a gateway and a merchant backend otherwise (live mode: the kit's
/// `.live` rules, `https` only, and the trust `--ca-file` and `--pin` give, for both page presenters).
public struct CheckoutOptions: Sendable, Equatable {
    /// Start the embedded sandbox (default).
    public var sandbox = true
    /// The status-lookup base URL (`--api-base-url`).
    public var apiBaseURL: URL?
    /// The checkout API (`--checkout-api-base-url`).
    public var checkoutAPIBaseURL: URL?
    /// The checkout page host (`--checkout-base-url`).
    public var checkoutBaseURL: URL?
    /// Where payments are created (`--merchant-base-url`: `POST {url}/sandbox/payments`).
    public var merchantBaseURL: URL?
    /// With `--no-sandbox`: a PEM file of certificate authorities trusted instead of the system's
    /// (`--ca-file`), by the kit, both page presenters and the merchant backend calls.
    public var certificateAuthorityFile: String?
    /// With `--no-sandbox`: public-key pins per host (`--pin HOST=sha256//BASE64`, repeatable), for the kit
    /// and both page presenters.
    public var pinnedPublicKeys: [String: [String]] = [:]
    /// Where the issuer's challenge and the hosted checkout show (`--browser`).
    public var browser = Browser.webkit
    /// Quit once the first frame is drawn, printing the time it took (`--exit-when-shown`).
    public var exitWhenShown = false
    /// A measurement for `measure.sh` (`--measure`), then quit; nil: the shop as usual.
    public var measure: Measurement?

    /// What `--measure` times once the shop's first frame is drawn (measure.sh).
    public enum Measurement: Sendable, Equatable {
        /// Opens the wallet sheet and prints the time to its first frame (`--measure sheet`).
        case sheet
        /// Pays with the sandbox's challenged card, the sandbox buyer answering, and prints the time from
        /// the challenge window's `present` to its first painted frame (`--measure challenge`).
        case challenge
        /// Makes this many challenged card payments in a row and prints the RSS of WebKit's processes
        /// after 10 and after all of them (`--measure payments=N`, N >= 10).
        case payments(Int)
    }

    /// The defaults: the embedded sandbox, pages in the WebKit window.
    public init() {}

    /// What shows the 3-D Secure challenge and the hosted checkout.
    public enum Browser: String, Sendable, Equatable, CaseIterable {
        /// A modal WebKit window over the shop, answered by the person at the screen (default).
        case webkit
        /// No window: the headless browser answers with the sandbox's code and pays (for machines
        /// without WebKitGTK's display).
        case headless
    }

    /// The usage text.
    public static let usage = """
        usage: egw-checkout [options]
          --no-sandbox                  do not start the embedded sandbox; then give every URL below
          --api-base-url URL            merchant backend for status lookups
          --checkout-api-base-url URL   checkout API: card sessions, 3-D Secure
          --checkout-base-url URL       checkout page host: card-encryption key, 3-D Secure notification
          --merchant-base-url URL       where payments are created (POST URL/sandbox/payments)
          --ca-file FILE                with --no-sandbox: trust only the CAs in this PEM file
          --pin HOST=sha256//BASE64     with --no-sandbox: pin HOST's public key (repeatable)
          --browser webkit|headless     challenge and hosted page in a WebKit window (default), or played
                                        by the headless buyer (the sandbox's code, Pay)
          --exit-when-shown             quit after the first frame, printing the start-up time
          --measure sheet|challenge|payments=N
                                        after the first frame: time the wallet sheet's first frame, or the
                                        challenge window's, or the RSS of WebKit's processes after 10 and
                                        N challenged payments; then quit (measure.sh)
          --help                        this text
        """

    /// A usage error: what was wrong.
    public struct UsageError: Error, Equatable, CustomStringConvertible {
        /// What was wrong with the command line.
        public let description: String
    }

    /// Parses `arguments` (without the program name); nil for `--help`.
    public static func parse(_ arguments: [String]) throws(UsageError) -> CheckoutOptions? {
        var options = CheckoutOptions()
        var rest = arguments[...]
        func value(_ flag: String) throws(UsageError) -> String {
            guard let next = rest.popFirst() else { throw UsageError(description: "\(flag) needs a value") }
            return next
        }
        func url(_ flag: String) throws(UsageError) -> URL {
            let text = try value(flag)
            guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https", url.host != nil else {
                throw UsageError(description: "\(flag): not an http or https URL: \(text)")
            }
            return url
        }
        while let flag = rest.popFirst() {
            switch flag {
            case "--help", "-h": return nil
            case "--no-sandbox": options.sandbox = false
            case "--api-base-url": options.apiBaseURL = try url(flag)
            case "--checkout-api-base-url": options.checkoutAPIBaseURL = try url(flag)
            case "--checkout-base-url": options.checkoutBaseURL = try url(flag)
            case "--merchant-base-url": options.merchantBaseURL = try url(flag)
            case "--ca-file": options.certificateAuthorityFile = try value(flag)
            case "--pin":
                let text = try value(flag)
                guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
                    throw UsageError(description: "--pin: HOST=sha256//BASE64, not \(text)")
                }
                options.pinnedPublicKeys[String(text[..<equals]), default: []].append(
                    String(text[text.index(after: equals)...]))
            case "--browser":
                let name = try value(flag)
                guard let browser = Browser(rawValue: name) else {
                    throw UsageError(description: "--browser: webkit or headless, not \(name)")
                }
                options.browser = browser
            case "--exit-when-shown": options.exitWhenShown = true
            case "--measure":
                let what = try value(flag)
                switch what {
                case "sheet": options.measure = .sheet
                case "challenge": options.measure = .challenge
                case _ where what.hasPrefix("payments="):
                    guard let count = Int(what.dropFirst("payments=".count)), count >= 10 else {
                        throw UsageError(description: "--measure payments=N needs N >= 10, not \(what)")
                    }
                    options.measure = .payments(count)
                default: throw UsageError(description: "--measure: sheet, challenge or payments=N, not \(what)")
                }
            default: throw UsageError(description: "unknown option \(flag)")
            }
        }
        if !options.sandbox
            && (options.checkoutAPIBaseURL == nil || options.checkoutBaseURL == nil
                || options.merchantBaseURL == nil)
        {
            throw UsageError(
                description: "--no-sandbox needs --checkout-api-base-url, --checkout-base-url and --merchant-base-url")
        }
        if options.sandbox && (options.certificateAuthorityFile != nil || !options.pinnedPublicKeys.isEmpty) {
            throw UsageError(description: "--ca-file and --pin apply with --no-sandbox only")
        }
        return options
    }
}
