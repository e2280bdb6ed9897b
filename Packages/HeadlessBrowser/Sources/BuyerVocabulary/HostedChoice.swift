// The buyer's words, with no dependency: what a pure interpreter (egw-repl's ReplCore) needs to parse
// a buyer script without linking a browser, libcurl or OpenSSL. HeadlessBrowser re-exports it.

/// The buyer's choices on a hosted checkout page. Each presses a submit
/// button: the sandbox's (`name="choice"`, `value=` the raw value), or on any
/// gateway's page one whose value is the raw value or whose label is one of
/// ``labels``.
public enum HostedChoice: String, CaseIterable, Sendable {
    /// Pay (the sandbox records `SETTLED`).
    case pay
    /// The bank declines (`FAILED`).
    case decline
    /// The buyer cancels (`CANCELLED`).
    case cancel
    /// The buyer walks away (`ABANDONED`).
    case abandon
    /// The payment stays pending (`SENT_FOR_PROCESSING`).
    case pending

    /// The button labels that mean this choice on a page, lower case. Labels
    /// are compared case-insensitively, whitespace collapsed, without
    /// punctuation or symbols at either end (`Pay now »` reads `pay now`); a
    /// `pay` button may also read `pay` and an amount (`Pay 12.50 EUR`).
    ///
    /// | choice    | labels                                                        |
    /// |-----------|---------------------------------------------------------------|
    /// | `pay`     | pay, pay now, confirm, confirm payment, authorize, authorise, authorize payment, authorise payment |
    /// | `decline` | decline, decline payment                                      |
    /// | `cancel`  | cancel, cancel payment                                        |
    /// | `abandon` | abandon, back to shop, back to the shop                       |
    /// | `pending` | pending, leave pending, later                                 |
    public var labels: [String] {
        switch self {
        case .pay:
            [
                "pay", "pay now", "confirm", "confirm payment", "authorize", "authorise", "authorize payment",
                "authorise payment",
            ]
        case .decline: ["decline", "decline payment"]
        case .cancel: ["cancel", "cancel payment"]
        case .abandon: ["abandon", "back to shop", "back to the shop"]
        case .pending: ["pending", "leave pending", "later"]
        }
    }
}
