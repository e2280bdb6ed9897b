import BuyerVocabulary

/// A parsed, validated command: what the shell will run.
///
/// Produced by ``CommandParser`` from one input line; carries values already
/// checked for shape (numbers are numbers, choices are canonical), not for
/// meaning in the current state (that is the shell's job when it runs them).
/// Grouped by family, one value per family (``WalletCommand`` was the first):
/// the shell hands each family's value to the code that runs that family.
public enum Command: Equatable, Sendable {
    /// `help [COMMAND [SUB-COMMAND]]`.
    case help(topic: [String])
    /// `quit`, `exit`.
    case quit
    /// `config ...`.
    case config(ConfigCommand)
    /// `payment ...`.
    case payment(PaymentCommand)
    /// `card ...`.
    case card(CardCommand)
    /// `buyer ...`.
    case buyer(BuyerCommand)
    /// `pay ...`, `step`, `continue`, `cancel`, `result`, `status`: running payments and their results.
    case pay(PayCommand)
    /// `brand`, `luhn`, `format`, `jwe header`: the SDK's card and token tools, with no state.
    case tool(ToolCommand)
    /// `sandbox ...`.
    case sandbox(SandboxCommand)
    /// `wallet ...`, `sheet ...`, `merchant ...` (WalletCommands.swift).
    case wallet(WalletCommand)
}

/// `config` and `config set KEY VALUE`.
public enum ConfigCommand: Equatable, Sendable {
    /// `config`: show the configuration.
    case show
    /// `config set KEY VALUE`.
    case set(key: ConfigKey, value: String)
}

/// The payment the shell pays: made here, or given.
public enum PaymentCommand: Equatable, Sendable {
    /// `payment create [AMOUNT] [CURRENCY] [--order N]`.
    case create(amount: Int?, currency: String?, orderNumber: String?)
    /// `payment use ID VERIFICATION_KEY [CHECKOUT_URL RETURN_URL]`.
    case use(paymentId: String, verificationKey: String, checkoutURL: String?, returnURL: String?)
    /// `payment show`.
    case show
}

/// The card `pay card` pays with.
public enum CardCommand: Equatable, Sendable {
    /// `card number [N]`; `nil` asks on the terminal.
    case number(String?)
    /// `card name NAME`.
    case name(String)
    /// `card expiry MM/YY`, split into two-digit month and year.
    case expiry(month: String, year: String)
    /// `card cvc [CODE]`; `nil` asks on the terminal, masked.
    case securityCode(String?)
    /// `card test NAME`.
    case test(name: String)
    /// `card show`.
    case show
    /// `card check`.
    case check
    /// `card clear`.
    case clear
}

/// What the buyer does on the pages the SDK opens, queued before they open.
public enum BuyerCommand: Equatable, Sendable {
    /// `buyer hosted pay|decline|cancel|abandon|pending`.
    case hosted(HostedChoice)
    /// `buyer challenge CODE`.
    case challenge(code: String)
    /// `buyer close`.
    case close
    /// `buyer show`.
    case show
    /// `buyer clear`.
    case clear
}

/// Running a payment, driving it in step mode, and reading its result.
public enum PayCommand: Equatable, Sendable {
    /// `pay card [--step]`.
    case card(step: Bool)
    /// `pay hosted [--method M] [--step]`.
    case hosted(method: String?, step: Bool)
    /// `step` (in step mode: perform the next action).
    case step
    /// `continue` (in step mode: run to the end).
    case `continue`
    /// `cancel` (cancel the running payment).
    case cancel
    /// `result [--json]`.
    case result(json: Bool)
    /// `status [PAYMENT_ID]`.
    case status(paymentId: String?)
}

/// The SDK's tools on a number or a token: no state.
public enum ToolCommand: Equatable, Sendable {
    /// `brand N`.
    case brand(String)
    /// `luhn N`.
    case luhn(String)
    /// `format N`.
    case format(String)
    /// `jwe header TOKEN`.
    case jweHeader(String)
}

/// The embedded sandbox gateway.
public enum SandboxCommand: Equatable, Sendable {
    /// `sandbox cards [--numbers]`.
    case cards(numbers: Bool)
    /// `sandbox fault ENDPOINT KIND [ARG] [--times N | --probability P]`.
    case fault(endpoint: String, kind: String, argument: Int?, times: Int?, probability: Double?)
    /// `sandbox faults`.
    case faults
    /// `sandbox faults clear`.
    case faultsClear
    /// `sandbox log`.
    case log
    /// `sandbox pages js|html`: how the embedded sandbox builds its issuer and checkout pages.
    case pages(String)
}

/// The settings `config set` changes.
public enum ConfigKey: String, Sendable, CaseIterable {
    /// Merchant backend for the hosted-checkout status lookup.
    case apiBaseURL = "api-base-url"
    /// Checkout API: card sessions and 3-D Secure.
    case checkoutAPIBaseURL = "checkout-api-base-url"
    /// Checkout page host: card-encryption key, 3-D Secure notification page.
    case checkoutBaseURL = "checkout-base-url"
    /// Where `payment create` creates payments (`POST {url}/sandbox/payments`).
    case merchantBaseURL = "merchant-base-url"
    /// `sandbox` or `live`.
    case environment
    /// Seconds allowed for each network call.
    case timeout
    /// Seconds a 3-D Secure challenge may stay open (then the SDK asks the gateway).
    case challengeTimeout = "challenge-timeout"
    /// Seconds the hosted checkout page may stay open (then the SDK looks the status up).
    case hostedTimeout = "hosted-timeout"
    /// SDK log level shown in the shell.
    case logLevel = "log-level"
    /// `on`: bodies and JWE headers of each exchange (as `-v`); `off`: one line per exchange.
    case verbose
}
