import Foundation
import PaymentFlow
import ReplCore

/// The gateway URLs and settings the shell pays with (`config`), typed: a URL is a
/// `URL`, the environment and log level are the SDK's own values, and a value that
/// does not parse is an error, never a silent fallback.
struct ShellConfiguration: Equatable {
    /// What the session's ``PaymentKit`` is built from: a change here (and only here)
    /// rebuilds the kit.
    struct KitSettings: Equatable {
        var apiBaseURL: URL?
        var checkoutAPIBaseURL: URL?
        var checkoutBaseURL: URL?
        var environment: Configuration.Environment = .sandbox
        var timeout: TimeInterval = 30
        var challengeTimeout: TimeInterval = 600
        var hostedTimeout: TimeInterval = 1800
        var logLevel: LogLevel = .warning
    }

    var kit = KitSettings()
    /// Where `payment create` goes; not something the kit uses.
    var merchantBaseURL: URL?
    /// How much a payment prints.
    var verbosity: Verbosity = .normal

    func value(of key: ConfigKey) -> String {
        func shown(_ url: URL?) -> String { url?.absoluteString ?? "(not set)" }
        return switch key {
        case .apiBaseURL: shown(kit.apiBaseURL)
        case .checkoutAPIBaseURL: shown(kit.checkoutAPIBaseURL)
        case .checkoutBaseURL: shown(kit.checkoutBaseURL)
        case .merchantBaseURL: shown(merchantBaseURL)
        case .environment: kit.environment.name
        case .timeout: Self.seconds(kit.timeout)
        case .challengeTimeout: Self.seconds(kit.challengeTimeout)
        case .hostedTimeout: Self.seconds(kit.hostedTimeout)
        case .logLevel: kit.logLevel.description
        case .verbose: verbosity == .verbose ? "on" : "off"
        }
    }

    /// Sets `key` from its text (`none` or `-` unsets a URL).
    ///
    /// - Throws: ``ReplError`` `.invalidValue` when `text` is not a value of the key,
    ///   `.commandFailed` when the live environment would get a plain-http URL.
    mutating func set(_ key: ConfigKey, _ text: String) throws(ReplError) {
        var updated = self
        switch key {
        case .apiBaseURL: updated.kit.apiBaseURL = try Self.url(text, key)
        case .checkoutAPIBaseURL: updated.kit.checkoutAPIBaseURL = try Self.url(text, key)
        case .checkoutBaseURL: updated.kit.checkoutBaseURL = try Self.url(text, key)
        case .merchantBaseURL: updated.merchantBaseURL = try Self.url(text, key)
        case .environment: updated.kit.environment = try Self.environment(text)
        case .timeout: updated.kit.timeout = try Self.seconds(text, key)
        case .challengeTimeout: updated.kit.challengeTimeout = try Self.seconds(text, key)
        case .hostedTimeout: updated.kit.hostedTimeout = try Self.seconds(text, key)
        case .logLevel: updated.kit.logLevel = try Self.logLevel(text)
        case .verbose:
            switch text.lowercased() {
            case "on": updated.verbosity = .verbose
            case "off": updated.verbosity = .normal
            default: throw ReplError(.invalidValue, "verbose must be on or off")
            }
        }
        try updated.requireHTTPSWhenLive()
        self = updated
    }

    /// The live environment takes only https URLs.
    func requireHTTPSWhenLive() throws(ReplError) {
        guard kit.environment == .live else {
            return
        }
        let urls = [kit.apiBaseURL, kit.checkoutAPIBaseURL, kit.checkoutBaseURL].compactMap { $0 }
        if let plain = urls.first(where: { $0.scheme?.lowercased() != "https" }) {
            throw ReplError(.commandFailed, "the live environment needs https URLs (\(plain.absoluteString) is not)")
        }
    }

    /// The SDK configuration; observers and gates are per payment, not here.
    func sdkConfiguration(logSink: PaymentLogSink?) -> Configuration {
        var sdk = Configuration(
            apiBaseURL: kit.apiBaseURL, checkoutAPIBaseURL: kit.checkoutAPIBaseURL,
            checkoutBaseURL: kit.checkoutBaseURL, environment: kit.environment)
        sdk.requestTimeout = kit.timeout
        sdk.challengeTimeout = kit.challengeTimeout
        sdk.hostedPageTimeout = kit.hostedTimeout
        // The shell's step gate is a person at the prompt (`pay ... --step`): they take as long as they like.
        sdk.stepGateTimeout = nil
        sdk.logLevel = kit.logLevel
        sdk.logSink = logSink
        return sdk
    }

    static func url(_ text: String, _ key: ConfigKey) throws(ReplError) -> URL? {
        if text == "none" || text == "-" {
            return nil
        }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            url.host?.isEmpty == false
        else {
            throw ReplError(.invalidValue, "\(key.rawValue) must be an http or https URL")
        }
        return url
    }

    static func environment(_ text: String) throws(ReplError) -> Configuration.Environment {
        switch text.lowercased() {
        case "sandbox": .sandbox
        case "live": .live
        default: throw ReplError(.invalidValue, "environment must be sandbox or live")
        }
    }

    static func seconds(_ text: String, _ key: ConfigKey) throws(ReplError) -> TimeInterval {
        guard let value = Double(text), value > 0, value.isFinite else {
            throw ReplError(.invalidValue, "\(key.rawValue) must be a positive number of seconds")
        }
        return value
    }

    static func logLevel(_ text: String) throws(ReplError) -> LogLevel {
        guard let level = LogLevel.allCases.first(where: { $0.description == text.lowercased() }) else {
            throw ReplError(
                .invalidValue,
                "log-level must be one of: \(LogLevel.allCases.map(\.description).joined(separator: ", "))")
        }
        return level
    }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value))s" : "\(value)s"
    }
}

/// The payment `pay` works on: created by `payment create` or given by `payment use`.
struct CurrentPayment: Equatable {
    var paymentId: String
    var verificationKey: String
    var checkoutURL: URL?
    var returnURL: URL?
    var amount: Int?
    var currency: String?
    var orderNumber: String?
}
