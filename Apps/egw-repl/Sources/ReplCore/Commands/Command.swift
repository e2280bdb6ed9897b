import BuyerVocabulary

/// A parsed, validated command: what the shell will run.
///
/// Produced by ``CommandParser`` from one input line; carries values already
/// checked for shape (numbers are numbers, choices are canonical), not for
/// meaning in the current state (that is the shell's job when it runs them).
public enum Command: Equatable, Sendable {
    /// `help [COMMAND [SUB-COMMAND]]`.
    case help(topic: [String])
    /// `quit`, `exit`.
    case quit
    /// `config`: show the configuration.
    case configShow
    /// `config set KEY VALUE`.
    case configSet(key: ConfigKey, value: String)
    /// `payment create [AMOUNT] [CURRENCY] [--order N]`.
    case paymentCreate(amount: Int?, currency: String?, orderNumber: String?)
    /// `payment use ID VERIFICATION_KEY [CHECKOUT_URL RETURN_URL]`.
    case paymentUse(paymentId: String, verificationKey: String, checkoutURL: String?, returnURL: String?)
    /// `payment show`.
    case paymentShow
    /// `card number [N]`; `nil` asks on the terminal.
    case cardNumber(String?)
    /// `card name NAME`.
    case cardName(String)
    /// `card expiry MM/YY`, split into two-digit month and year.
    case cardExpiry(month: String, year: String)
    /// `card cvc [CODE]`; `nil` asks on the terminal, masked.
    case cardSecurityCode(String?)
    /// `card test NAME`.
    case cardTest(name: String)
    /// `card show`.
    case cardShow
    /// `card check`.
    case cardCheck
    /// `card clear`.
    case cardClear
    /// `buyer hosted pay|decline|cancel|abandon|pending`.
    case buyerHosted(HostedChoice)
    /// `buyer challenge CODE`.
    case buyerChallenge(code: String)
    /// `buyer close`.
    case buyerClose
    /// `buyer show`.
    case buyerShow
    /// `buyer clear`.
    case buyerClear
    /// `pay card [--step]`.
    case payCard(step: Bool)
    /// `pay hosted [--method M] [--step]`.
    case payHosted(method: String?, step: Bool)
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
    /// `brand N`.
    case brand(String)
    /// `luhn N`.
    case luhn(String)
    /// `format N`.
    case format(String)
    /// `jwe header TOKEN`.
    case jweHeader(String)
    /// `sandbox cards [--numbers]`.
    case sandboxCards(numbers: Bool)
    /// `sandbox fault ENDPOINT KIND [ARG] [--times N | --probability P]`.
    case sandboxFault(endpoint: String, kind: String, argument: Int?, times: Int?, probability: Double?)
    /// `sandbox faults`.
    case sandboxFaults
    /// `sandbox faults clear`.
    case sandboxFaultsClear
    /// `sandbox log`.
    case sandboxLog
    /// `sandbox pages js|html`: how the embedded sandbox builds its issuer and checkout pages.
    case sandboxPages(String)
    /// `wallet ...`, `sheet ...`, `merchant ...` (WalletCommands.swift).
    case wallet(WalletCommand)
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
