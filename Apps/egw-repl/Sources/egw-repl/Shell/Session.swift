import HeadlessBrowser
import ReplCore

/// The gateway URLs and settings the shell pays with (`config`).
struct ShellConfiguration: Equatable {
    var apiBaseURL: String?
    var checkoutAPIBaseURL: String?
    var checkoutBaseURL: String?
    var merchantBaseURL: String?
    var environment = "sandbox"
    var timeout: Double = 30
    var challengeTimeout: Double = 600
    var hostedTimeout: Double = 1800
    var logLevel = "warning"

    func value(of key: ConfigKey) -> String {
        switch key {
        case .apiBaseURL: apiBaseURL ?? "(not set)"
        case .checkoutAPIBaseURL: checkoutAPIBaseURL ?? "(not set)"
        case .checkoutBaseURL: checkoutBaseURL ?? "(not set)"
        case .merchantBaseURL: merchantBaseURL ?? "(not set)"
        case .environment: environment
        case .timeout: Self.seconds(timeout)
        case .challengeTimeout: Self.seconds(challengeTimeout)
        case .hostedTimeout: Self.seconds(hostedTimeout)
        case .logLevel: logLevel
        }
    }

    mutating func set(_ key: ConfigKey, _ value: String) {
        let url: String? = (value == "none" || value == "-") ? nil : value
        switch key {
        case .apiBaseURL: apiBaseURL = url
        case .checkoutAPIBaseURL: checkoutAPIBaseURL = url
        case .checkoutBaseURL: checkoutBaseURL = url
        case .merchantBaseURL: merchantBaseURL = url
        case .environment: environment = value.lowercased()
        case .timeout: timeout = Double(value) ?? timeout
        case .challengeTimeout: challengeTimeout = Double(value) ?? challengeTimeout
        case .hostedTimeout: hostedTimeout = Double(value) ?? hostedTimeout
        case .logLevel: logLevel = value.lowercased()
        }
    }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value))s" : "\(value)s"
    }
}

/// The payment `pay` works on: created by `payment create` or given by `payment use`.
struct CurrentPayment: Equatable {
    var paymentId: String
    var verificationKey: String
    var checkoutURL: String?
    var returnURL: String?
    var amount: Int?
    var currency: String?
    var orderNumber: String?
}

/// One scripted buyer action (`buyer ...`).
enum BuyerStep: Equatable, CustomStringConvertible {
    case hosted(HostedChoice)
    case challenge(code: String)
    case close

    var description: String {
        switch self {
        case .hosted(let choice): "hosted \(choice.rawValue)"
        case .challenge: "challenge ••••"
        case .close: "close"
        }
    }
}
