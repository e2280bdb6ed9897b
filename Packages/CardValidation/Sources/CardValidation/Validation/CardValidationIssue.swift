import Foundation

/// Why one field of a card form fails validation: the field, a reason code a
/// program can switch on, the field's live state, and a message a buyer can
/// act on.
///
/// Messages are fixed sentences: they never contain what was typed, so they
/// are safe to log and to show. Compare ``reason`` in code, not the prose.
public struct CardValidationIssue: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, independent of the wording.
    public enum Reason: String, Sendable, CaseIterable {
        /// Empty (the name: empty or only whitespace). Every field.
        case missing
        /// A character the field does not allow: in the number anything other
        /// than digits, spaces and dashes; in the expiry and security code
        /// anything other than digits; in the name a control character.
        case invalidCharacters
        /// Fewer digits than the field needs (number: under 12; security code:
        /// under 3). More typing can fix it.
        case tooShort
        /// More than the field allows (number: over 19 digits; security code:
        /// over 4 digits; name: over 45 characters).
        case tooLong
        /// The number fails the Luhn check digit test.
        case checksumFailed
        /// Expiry: the month or the year has fewer than two digits.
        case incomplete
        /// Expiry: the month is not `01` to `12` (or has more than two digits).
        case invalidMonth
        /// Expiry: the year has more than two digits.
        case invalidYear
        /// Expiry: the last day of the expiry month is in the past.
        case expired
    }

    /// The error domain of ``nsError``, shared with the rest of the SDK.
    public static let errorDomain = "com.egw.egwpay"
    /// The code of ``nsError``: `cardValidationFailed` in the SDK's error table.
    public static let errorCode = 7
    /// `userInfo` key of ``nsError`` holding ``field``'s raw value (`Int`).
    public static let fieldUserInfoKey = "com.egw.egwpay.cardField"
    /// `userInfo` key of ``nsError`` holding ``reason``'s raw value (`String`).
    public static let reasonUserInfoKey = "com.egw.egwpay.cardValidationReason"
    /// `userInfo` key of ``nsError`` holding the issue itself (a `CardValidationIssue`). Read it with
    /// `NSError.cardValidationIssue`.
    public static let issueUserInfoKey = "com.egw.egwpay.cardValidationIssue"

    /// The field that failed.
    public let field: CardField
    /// What is wrong with it.
    public let reason: Reason
    /// `.incomplete` when more typing could still fix it, `.invalid` when not.
    /// Never `.valid`.
    public let state: FieldState

    /// An issue; ``CardInput`` creates these, and tests may.
    public init(field: CardField, reason: Reason, state: FieldState) {
        self.field = field
        self.reason = reason
        self.state = state == .valid ? .invalid : state
    }

    /// A sentence naming the problem, e.g. `"The card has expired."`. Never
    /// contains card data.
    public var message: String {
        switch (field, reason) {
        case (.cardNumber, .missing): "The card number is missing."
        case (.cardNumber, .invalidCharacters): "The card number can contain only digits, spaces and dashes."
        case (.cardNumber, .tooShort): "The card number is incomplete: a card number has 12 to 19 digits."
        case (.cardNumber, .tooLong): "The card number is too long: a card number has at most 19 digits."
        case (.cardNumber, .checksumFailed): "The card number is not valid: check it for typing mistakes."
        case (.expiry, .missing): "The expiry date is missing."
        case (.expiry, .invalidCharacters): "The expiry date can contain only digits."
        case (.expiry, .incomplete): "The expiry date is incomplete: enter a two-digit month and a two-digit year."
        case (.expiry, .invalidMonth): "The expiry month must be from 01 to 12."
        case (.expiry, .invalidYear): "The expiry year must have two digits."
        case (.expiry, .expired): "The card has expired."
        case (.securityCode, .missing): "The security code is missing."
        case (.securityCode, .invalidCharacters): "The security code can contain only digits."
        case (.securityCode, .tooShort): "The security code is incomplete: it has 3 or 4 digits."
        case (.securityCode, .tooLong): "The security code is too long: it has 3 or 4 digits."
        case (.cardholderName, .missing): "The cardholder name is missing."
        case (.cardholderName, .tooLong): "The cardholder name is too long: it can have at most 45 characters."
        case (.cardholderName, .invalidCharacters):
            "The cardholder name cannot contain control characters such as line breaks or tabs."
        case (_, _): "The \(field.displayName) is not valid."
        }
    }

    /// The issue as the SDK's public error: domain `com.egw.egwpay`, code 7,
    /// `localizedDescription` = ``message``, the issue itself under
    /// ``issueUserInfoKey`` (read it back with `NSError.cardValidationIssue`),
    /// and, for code that reads the older keys, ``field`` and ``reason`` under
    /// ``fieldUserInfoKey`` and ``reasonUserInfoKey``.
    public var nsError: NSError {
        NSError(
            domain: Self.errorDomain,
            code: Self.errorCode,
            userInfo: [
                NSLocalizedDescriptionKey: message,
                Self.issueUserInfoKey: self,
                Self.fieldUserInfoKey: field.rawValue,
                Self.reasonUserInfoKey: reason.rawValue,
            ])
    }

    /// `"cardNumber checksumFailed (invalid): The card number is not valid: ..."`.
    public var description: String {
        "\(field) \(reason.rawValue) (\(state)): \(message)"
    }
}

extension NSError {
    /// The card validation issue this error reports: the value under
    /// ``CardValidationIssue/issueUserInfoKey`` when the error is a card
    /// validation error (domain `com.egw.egwpay`, code 7), else `nil`.
    ///
    /// Both ``CardValidationIssue/nsError`` and the error of a card payment
    /// that failed validation (PaymentFlow's `PaymentResult.error`) carry it, so
    /// an app can point at the field and switch on the reason without reading
    /// prose or raw `userInfo` values:
    ///
    /// ```swift
    /// if let issue = result.error?.cardValidationIssue { highlight(issue.field, issue.reason) }
    /// ```
    ///
    /// Only this error's own `userInfo` is read (not its underlying errors).
    /// Safe from any thread.
    public var cardValidationIssue: CardValidationIssue? {
        guard domain == CardValidationIssue.errorDomain, code == CardValidationIssue.errorCode else { return nil }
        return userInfo[CardValidationIssue.issueUserInfoKey] as? CardValidationIssue
    }
}
