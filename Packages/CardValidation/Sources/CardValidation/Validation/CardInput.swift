import Foundation
import Synchronization

/// The headless card model: what the buyer typed, read at submit time.
///
/// Fill it from any UI (the three editors of this package, your own fields, a
/// REPL) and ask ``isValid`` or ``validationError(for:)`` before paying:
///
/// ```swift
/// let card = CardInput()
/// card.cardholderName = "Jane Doe"
/// card.cardNumber = "4242 4242 4242 4242"
/// card.expiryMonth = "12"
/// card.expiryYear = "30"
/// card.securityCode = "123"
/// if let error = card.validationError(for: .cardNumber) { show(error.localizedDescription) }
/// ```
///
/// Rules (brand-agnostic; the brand never rejects a card):
/// - number: digits after removing spaces and dashes, any other character is
///   an error, 12 to 19 digits, Luhn check digit;
/// - expiry: two-digit month `01`–`12` and two-digit year, valid through the
///   last day of the expiry month in the clock's time zone;
/// - security code: 3 or 4 digits;
/// - cardholder name: not blank, at most 45 characters, no control characters.
///
/// Thread safety: every property and method may be used from any thread; each
/// call sees a consistent set of fields. ``description``, ``debugDescription``
/// and the reflection mirror never show the number (last four digits at most)
/// or the security code.
public final class CardInput: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The fields as stored: the number and the code in ``SensitiveBytes`` (out of core dumps, locked
    /// against swap where the kernel allows, wiped when replaced or released), the name and the expiry in
    /// `String`s.
    struct Fields: Equatable, Sendable {
        var cardholderName = ""
        var cardNumber = SensitiveBytes.empty
        var expiryMonth = ""
        var expiryYear = ""
        var securityCode = SensitiveBytes.empty
    }

    struct State: Sendable {
        var fields = Fields()
        var window: MonthWindow?
    }

    private let state: Mutex<State>

    /// The clock the expiry check reads.
    public let clock: CardClock

    /// An empty card judged against the system clock in the current time zone.
    public convenience init() {
        self.init(clock: .system)
    }

    /// An empty card judged against `clock` (inject a fixed clock in tests).
    public init(clock: CardClock) {
        self.clock = clock
        self.state = Mutex(State())
    }

    /// A filled card; every field defaults to `""`.
    public convenience init(
        cardholderName: String = "", cardNumber: String = "", expiryMonth: String = "", expiryYear: String = "",
        securityCode: String = "", clock: CardClock = .system
    ) {
        self.init(clock: clock)
        state.withLock {
            $0.fields = Fields(
                cardholderName: cardholderName, cardNumber: Self.stored(cardNumber), expiryMonth: expiryMonth,
                expiryYear: expiryYear, securityCode: Self.stored(securityCode))
        }
    }

    /// The name as printed on the card. Default `""`.
    public var cardholderName: String {
        get { state.withLock { $0.fields.cardholderName } }
        set { state.withLock { $0.fields.cardholderName = newValue } }
    }

    /// The card number; spaces and dashes are accepted. Default `""`.
    ///
    /// Stored in memory kept out of core dumps and wiped when replaced (see "Card data in memory" in the
    /// package README). The `String` you set, and the one this getter returns, are ordinary memory your
    /// app owns: the SDK cannot wipe them. Prefer ``setCardNumber(from:)``, which hands over an editor's
    /// digits without any `String`.
    public var cardNumber: String {
        get { state.withLock { $0.fields.cardNumber }.string }
        set {
            let stored = Self.stored(newValue)
            state.withLock { $0.fields.cardNumber = stored }
        }
    }

    /// Takes the number field's digits as they are, sharing the editor's protected buffer: no copy of
    /// the number is made in ordinary memory. Equivalent to `cardNumber = editor.digits` otherwise.
    public func setCardNumber(from editor: CardNumberEditor) {
        let digits = editor.storage
        state.withLock { $0.fields.cardNumber = digits }
    }

    /// Takes the security-code field's digits as they are, sharing the editor's protected buffer (no
    /// `String` of the code is made). Equivalent to `securityCode = editor.digits` otherwise.
    public func setSecurityCode(from editor: CardSecurityCodeEditor) {
        let digits = editor.storage
        state.withLock { $0.fields.securityCode = digits }
    }

    /// `text`'s UTF-8 in a sensitive buffer (the shared empty one for `""`).
    static func stored(_ text: String) -> SensitiveBytes {
        text.isEmpty ? .empty : SensitiveBytes(copying: text.utf8)
    }

    /// Two digits, `"01"` to `"12"`. Default `""`.
    public var expiryMonth: String {
        get { state.withLock { $0.fields.expiryMonth } }
        set { state.withLock { $0.fields.expiryMonth = newValue } }
    }

    /// Two digits, e.g. `"30"` for 2030. Default `""`.
    public var expiryYear: String {
        get { state.withLock { $0.fields.expiryYear } }
        set { state.withLock { $0.fields.expiryYear = newValue } }
    }

    /// The 3- or 4-digit code from the card. Default `""`.
    ///
    /// Stored as ``cardNumber`` is; the `String`s in and out are your app's memory. Prefer
    /// ``setSecurityCode(from:)``.
    public var securityCode: String {
        get { state.withLock { $0.fields.securityCode }.string }
        set {
            let stored = Self.stored(newValue)
            state.withLock { $0.fields.securityCode = stored }
        }
    }

    /// The brand derived from ``cardNumber`` (see ``CardBrand/detect(_:)``),
    /// for display and input formatting only: never sent to the gateway and
    /// never a reason to reject the card.
    public var brand: CardBrand {
        state.withLock { $0.fields.brand }
    }

    /// `true` when every field passes validation.
    public var isValid: Bool {
        let now = clock.now()
        // The rules are pure and allocation-free: they run under the lock on
        // the stored strings, without copying them out.
        return state.withLock { state in
            CardField.allCases.allSatisfy { failure(for: $0, in: &state, now: now) == nil }
        }
    }

    /// `nil` when `field` is valid; otherwise an `NSError` in domain
    /// `com.egw.egwpay`, code 7 (`cardValidationFailed`), whose
    /// `localizedDescription` names the problem and never contains card data.
    ///
    /// `userInfo` also carries the field and a reason code (see
    /// ``CardValidationIssue/nsError``). An incomplete field is an error here:
    /// this is the submit-time verdict. For live UIs see ``fieldState(for:)``.
    public func validationError(for field: CardField) -> NSError? {
        validationIssue(for: field)?.nsError
    }

    /// The structured form of ``validationError(for:)``: `nil` when valid.
    public func validationIssue(for field: CardField) -> CardValidationIssue? {
        let now = field == .expiry ? clock.now() : Date.distantPast
        let found = state.withLock { failure(for: field, in: &$0, now: now) }
        return found.map { CardValidationIssue(field: field, reason: $0.reason, state: $0.state) }
    }

    /// The rule for `field` applied to `state`'s fields (`now` is read only
    /// for the expiry). Called under the lock; never calls out.
    private func failure(for field: CardField, in state: inout State, now: Date) -> FieldRules.Failure? {
        // Only the expiry rule asks for the month (from the cache); the others never call `today`.
        let today = field == .expiry ? month(containing: now, cache: &state.window) : YearMonth(year: 0, month: 0)
        return state.fields.failure(for: field, today: { today })
    }

    /// The field's live state: `.valid`, `.incomplete` (empty or partial, more
    /// typing could fix it: `"4242"`), or `.invalid` (no typing can fix it).
    public func fieldState(for field: CardField) -> FieldState {
        validationIssue(for: field)?.state ?? .valid
    }

    /// The first failing field's issue, in form order (name, number, expiry,
    /// security code); `nil` when the card is valid.
    public var firstIssue: CardValidationIssue? {
        let now = clock.now()
        return state.withLock { state in Fields.firstIssue { failure(for: $0, in: &state, now: now) } }
    }

    /// Every field read under one lock acquisition: a value that validates
    /// itself with the same rules and keeps its answers while this card
    /// changes. Validate the snapshot and use that same snapshot (see
    /// ``Snapshot``).
    public func snapshot() -> Snapshot {
        Snapshot(fields: state.withLock { $0.fields }, clock: clock)
    }

    /// Empties every field.
    public func clear() {
        state.withLock { $0.fields = Fields() }
    }

    /// The calendar month containing `now` in the clock's time zone, from
    /// `cache` while `now` falls inside it (recomputed when the month ends or
    /// the clock goes back).
    private func month(containing now: Date, cache: inout MonthWindow?) -> YearMonth {
        if let window = cache, window.contains(now) { return window.month }
        let window = MonthWindow(containing: now, timeZone: clock.timeZone)
        cache = window
        return window.month
    }

    // MARK: Safe descriptions

    /// A summary for logs: brand, the number masked to its last four digits,
    /// the expiry, whether a code and a name are present, and each field's
    /// state. Never the number, the code or the name.
    public var description: String {
        // One snapshot: the states shown are those of the fields shown.
        let now = clock.now()
        let (fields, failures) = state.withLock { state in
            (state.fields, CardField.allCases.map { failure(for: $0, in: &state, now: now) })
        }
        return fields.summary(named: "CardInput", failures: failures)
    }

    /// Same as ``description``.
    public var debugDescription: String { description }

    /// Masked children only, so `dump(card)` shows no card data either.
    public var customMirror: Mirror {
        let fields = state.withLock { $0.fields }
        return Mirror(self, children: fields.maskedChildren, displayStyle: .class)
    }
}
