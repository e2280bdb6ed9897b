import Foundation

extension CardInput {
    /// Every field of a ``CardInput`` as read under one lock acquisition
    /// (``CardInput/snapshot()``): a value that validates itself with the same
    /// rules as the card and never changes afterwards.
    ///
    /// Take one snapshot at submit time, validate it, and send that same
    /// snapshot: what was validated is what is sent, even if the UI keeps
    /// editing the ``CardInput``.
    ///
    /// ```swift
    /// let card = input.snapshot()
    /// if let issue = card.firstIssue { return show(issue.message) }
    /// pay(card.cardNumber, card.expiryMonth, ...)
    /// ```
    ///
    /// The rules are those of ``CardInput`` (one implementation: the same
    /// reasons, states and `NSError`s). The expiry is judged when it is asked,
    /// against the card's ``clock``. ``description``, ``debugDescription`` and
    /// the reflection mirror never show the number (last four digits at most),
    /// the security code or the name.
    ///
    /// Two snapshots are equal when they hold the same five fields, character
    /// for character. The ``clock`` is not compared: it is where "now" comes
    /// from, not part of the card (and a clock, a function, cannot be
    /// compared). Equal snapshots judged at the same moment give the same
    /// answers.
    ///
    /// Thread safety: a value; use it from any thread.
    public struct Snapshot: Equatable, Sendable, CustomStringConvertible, CustomDebugStringConvertible,
        CustomReflectable
    {
        let fields: Fields

        /// The clock the expiry check reads (the card's).
        public let clock: CardClock

        init(fields: Fields, clock: CardClock) {
            self.fields = fields
            self.clock = clock
        }

        /// The same five fields (the ``clock`` is not part of the value; see above).
        public static func == (lhs: Snapshot, rhs: Snapshot) -> Bool {
            lhs.fields == rhs.fields
        }

        /// ``CardInput/cardholderName`` when the snapshot was taken.
        public var cardholderName: String { fields.cardholderName }
        /// ``CardInput/cardNumber`` when the snapshot was taken (as typed): a `String` copy your app
        /// owns (the snapshot itself keeps the number in protected memory; the SDK never calls this).
        public var cardNumber: String { fields.cardNumber.string }
        /// ``CardInput/expiryMonth`` when the snapshot was taken.
        public var expiryMonth: String { fields.expiryMonth }
        /// ``CardInput/expiryYear`` when the snapshot was taken.
        public var expiryYear: String { fields.expiryYear }
        /// ``CardInput/securityCode`` when the snapshot was taken: a `String` copy your app owns.
        public var securityCode: String { fields.securityCode.string }

        /// The number's bytes as typed, in protected memory (for the encryption plaintext).
        @_spi(SensitiveMemory) public var cardNumberBytes: SensitiveBytes { fields.cardNumber }
        /// The code's bytes as typed, in protected memory (for the encryption plaintext).
        @_spi(SensitiveMemory) public var securityCodeBytes: SensitiveBytes { fields.securityCode }
        /// The number in its one masked form (``CardNumberRedaction/masked(_:)``), read in place.
        @_spi(SensitiveMemory) public var maskedCardNumber: String {
            fields.cardNumber.withUTF8 { CardNumberRedaction.masked(utf8: $0) }
        }

        /// The brand of ``cardNumber``, for display only (see ``CardInput/brand``).
        public var brand: CardBrand { fields.brand }

        /// `nil` when `field` is valid, else its issue (as ``CardInput/validationIssue(for:)``).
        public func validationIssue(for field: CardField) -> CardValidationIssue? {
            fields.failure(for: field, today: currentMonth).map {
                CardValidationIssue(field: field, reason: $0.reason, state: $0.state)
            }
        }

        /// `nil` when `field` is valid, else the contract's `NSError` (domain
        /// `com.egw.egwpay`, code 7, field and reason in `userInfo`), as
        /// ``CardInput/validationError(for:)``.
        public func validationError(for field: CardField) -> NSError? {
            validationIssue(for: field)?.nsError
        }

        /// The field's live state, as ``CardInput/fieldState(for:)``.
        public func fieldState(for field: CardField) -> FieldState {
            validationIssue(for: field)?.state ?? .valid
        }

        /// The first failing field's issue in form order (name, number,
        /// expiry, security code); `nil` when the snapshot is valid.
        public var firstIssue: CardValidationIssue? {
            Fields.firstIssue { fields.failure(for: $0, today: currentMonth) }
        }

        /// `true` when every field passes validation.
        public var isValid: Bool { firstIssue == nil }

        /// The month it is now on the clock, in its time zone (asked only by the expiry rule).
        private func currentMonth() -> YearMonth {
            MonthWindow(containing: clock.now(), timeZone: clock.timeZone).month
        }

        /// As ``CardInput/description``: brand, masked number, expiry, presence of
        /// code and name, each field's state.
        public var description: String {
            let today = currentMonth()
            return fields.summary(
                named: "CardInput.Snapshot",
                failures: CardField.allCases.map { fields.failure(for: $0, today: { today }) })
        }

        /// Same as ``description``.
        public var debugDescription: String { description }

        /// Masked children only, so `dump(snapshot)` shows no card data either.
        public var customMirror: Mirror { Mirror(self, children: fields.maskedChildren, displayStyle: .struct) }
    }
}

// MARK: - The rules and the safe views, shared by CardInput and its snapshots

extension CardInput.Fields {
    /// The order a form shows its fields in, which ``firstIssue(_:)`` follows.
    static let formOrder: [CardField] = [.cardholderName, .cardNumber, .expiry, .securityCode]

    /// The rule for `field` applied to these fields; `today` is asked only by
    /// the expiry rule, and only when the answer depends on it.
    func failure(for field: CardField, today: () -> YearMonth) -> FieldRules.Failure? {
        switch field {
        case .cardholderName: FieldRules.cardholderName(cardholderName)
        case .cardNumber: cardNumber.withUTF8 { FieldRules.number(utf8: $0) }
        case .securityCode: securityCode.withUTF8 { FieldRules.securityCode(utf8: $0) }
        case .expiry: FieldRules.expiry(month: expiryMonth, year: expiryYear, today: today)
        }
    }

    /// The first failure in ``formOrder`` as an issue.
    static func firstIssue(_ failure: (CardField) -> FieldRules.Failure?) -> CardValidationIssue? {
        for field in formOrder {
            if let found = failure(field) {
                return CardValidationIssue(field: field, reason: found.reason, state: found.state)
            }
        }
        return nil
    }

    /// `Name(brand: visa, cardNumber: •••• 4242, expiry: 12/30, securityCode: •••,
    /// cardholderName: <set>, cardholderName=valid ...)`; `failures` in `CardField.allCases` order.
    func summary(named name: String, failures: [FieldRules.Failure?]) -> String {
        let states = zip(CardField.allCases, failures).map { "\($0)=\($1?.state ?? .valid)" }.joined(separator: " ")
        return "\(name)(brand: \(brand), "
            + "cardNumber: \(Self.shown(maskedNumber)), "
            + "expiry: \(safeExpiry), "
            + "securityCode: \(securityCode.count == 0 ? "<empty>" : "•••"), "
            + "cardholderName: \(Self.presence(cardholderName, shownAs: "<set>")), "
            + "\(states))"
    }

    /// The mirror's children: the same masked views as ``summary(named:failures:)``.
    var maskedChildren: KeyValuePairs<String, Any> {
        [
            "brand": brand,
            "cardNumber": Self.shown(maskedNumber),
            "expiry": safeExpiry,
            "securityCode": securityCode.count == 0 ? "<empty>" : "•••",
            "cardholderName": Self.presence(cardholderName, shownAs: "<set>"),
        ]
    }

    /// The brand of the number, read in place.
    var brand: CardBrand { cardNumber.withUTF8 { IINTable.detect(utf8: $0) } }

    /// The number's one masked form, read in place.
    private var maskedNumber: String { cardNumber.withUTF8 { CardNumberRedaction.masked(utf8: $0) } }

    private static func shown(_ text: String) -> String { text.isEmpty ? "<empty>" : text }

    private static func presence(_ text: String, shownAs mask: String) -> String {
        text.isEmpty ? "<empty>" : mask
    }

    /// `MM/YY` when both parts are at most two ASCII digits (anything else
    /// could be a misplaced card number or code, so it is not shown).
    private var safeExpiry: String {
        func isShort(_ text: String) -> Bool {
            text.utf8.count <= 2 && text.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        }
        if expiryMonth.isEmpty && expiryYear.isEmpty { return "<empty>" }
        guard isShort(expiryMonth), isShort(expiryYear) else { return "<not shown>" }
        return "\(expiryMonth)/\(expiryYear)"
    }
}
