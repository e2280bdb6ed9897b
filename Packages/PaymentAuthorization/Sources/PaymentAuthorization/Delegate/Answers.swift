import Foundation

/// The seed's authorization status (`PKPaymentAuthorizationStatus`), raw values 0–4 as the seed lists them,
/// plus one case of ours, ``unresolved`` (raw value 100).
///
/// PassKit's status is binary (success or failure). A card payment is not: when the gateway may have
/// taken the money and the SDK cannot tell (CONTRACT.md 4a: an EGW payment that ended `.unresolved`),
/// `.failure` would tell the buyer "failed", and a buyer told "failed" pays again. ``unresolved`` says
/// what is true, "we are confirming your payment": the sheet shows it as being confirmed, never as
/// failed, offers no retry, and closes. It is an enum case rather than a flag beside `.failure` so that
/// every presenter's `switch` over the statuses has to handle it (a flag a presenter forgot would show
/// "failed").
public enum PaymentAuthorizationStatus: Int, Sendable, Equatable, CaseIterable, CustomStringConvertible {
    /// Authorized, or expected to succeed.
    case success = 0
    /// Failed, with no more specific status.
    case failure = 1
    /// The billing address is invalid or unusable.
    case invalidBillingPostalAddress = 2
    /// The shipping address is invalid or unusable.
    case invalidShippingPostalAddress = 3
    /// The shipping contact is invalid or incomplete.
    case invalidShippingContact = 4
    /// Not PassKit's: the payment may have been made and is being confirmed (the SDK's `.unresolved`).
    /// The sheet shows it as being confirmed — never as failed — and ends: no retry, no other card.
    /// The app learns the truth from its backend (the `paymentId`), never by asking the buyer to pay
    /// again. Its raw value, 100, is outside PassKit's (0–7), so a number ported from PassKit never
    /// reads as it. An update (`PaymentRequestUpdate`) given this status reads `.failure`.
    case unresolved = 100

    /// What today's PassKit makes of a seed status (Apple's deprecation notes): 0 and 1 as they are,
    /// 2–4 as `.failure` with a typed error; ``unresolved`` as it is.
    public var result: PaymentAuthorizationResult {
        switch self {
        case .success: PaymentAuthorizationResult(folded: .success, errors: [])
        case .failure: PaymentAuthorizationResult(folded: .failure, errors: [])
        case .unresolved: PaymentAuthorizationResult(folded: .unresolved, errors: [])
        case .invalidBillingPostalAddress:
            PaymentAuthorizationResult(
                folded: .failure, errors: [PaymentRequestError.billingContactInvalid(.postalAddress)])
        case .invalidShippingPostalAddress:
            PaymentAuthorizationResult(
                folded: .failure, errors: [PaymentRequestError.shippingContactInvalid(.postalAddress)])
        case .invalidShippingContact:
            PaymentAuthorizationResult(folded: .failure, errors: [PaymentRequestError.shippingContactInvalid(nil)])
        }
    }

    /// `.success`, `.failure` or `.unresolved`, with a 2–4 status's typed error put first in `errors`:
    /// the one fold behind the initializers and the `status` setters of results.
    func fold(into errors: inout [any Error]) -> PaymentAuthorizationStatus {
        let folded = result
        errors = folded.errors + errors
        return folded.status
    }

    /// The fold of an update: as ``fold(into:)``, and `.unresolved` (which means nothing for a change
    /// of contact, method or coupon) reads `.failure`, so an update is only ever `.success` or `.failure`.
    func foldForUpdate(into errors: inout [any Error]) -> PaymentAuthorizationStatus {
        switch fold(into: &errors) {
        case .success: .success
        case .failure, .invalidBillingPostalAddress, .invalidShippingPostalAddress, .invalidShippingContact,
            .unresolved:
            .failure
        }
    }

    /// The case name, e.g. `success`.
    public var description: String {
        switch self {
        case .success: "success"
        case .failure: "failure"
        case .invalidBillingPostalAddress: "invalidBillingPostalAddress"
        case .invalidShippingPostalAddress: "invalidShippingPostalAddress"
        case .invalidShippingContact: "invalidShippingContact"
        case .unresolved: "unresolved"
        }
    }
}

/// The errors a delegate attaches to a failure or an update (`PKPaymentError`, `PKPaymentRequest` errors).
public enum PaymentRequestError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The shipping contact is invalid; the field, when known.
    case shippingContactInvalid(ContactField?)
    /// The billing contact is invalid; the field, when known.
    case billingContactInvalid(ContactField?)
    /// The merchant does not ship to this address.
    case shippingAddressUnserviceable
    /// The coupon code is not known.
    case couponCodeInvalid
    /// The coupon code has expired.
    case couponCodeExpired
    /// Something else, described for the buyer.
    case unknown(String)

    /// Whether this error stops the buyer from authorizing until another contact is chosen.
    var blocksAuthorization: Bool {
        switch self {
        case .shippingContactInvalid, .billingContactInvalid, .shippingAddressUnserviceable: true
        case .couponCodeInvalid, .couponCodeExpired, .unknown: false
        }
    }

    /// A short text for the sheet.
    public var description: String {
        switch self {
        case .shippingContactInvalid(let field): "shipping contact invalid" + (field.map { " (\($0.rawValue))" } ?? "")
        case .billingContactInvalid(let field): "billing contact invalid" + (field.map { " (\($0.rawValue))" } ?? "")
        case .shippingAddressUnserviceable: "address unserviceable"
        case .couponCodeInvalid: "coupon invalid"
        case .couponCodeExpired: "coupon expired"
        case .unknown(let text): text
        }
    }
}

/// Today's answer to an authorization (`PKPaymentAuthorizationResult`): success or failure, with errors,
/// or (ours, not PassKit's) ``PaymentAuthorizationStatus/unresolved``: the payment may have been made
/// and is being confirmed.
///
/// A `.failure` with errors keeps the sheet open for another try; one without errors ends it; so does
/// `.success` and, whatever its errors, `.unresolved`. A seed status 2–4, given to the initializer or set
/// on ``status``, becomes `.failure` with its typed error first (Apple's deprecation notes), so `status`
/// only ever reads `.success`, `.failure` or `.unresolved`.
public struct PaymentAuthorizationResult: Sendable, CustomStringConvertible {
    private var folded: PaymentAuthorizationStatus
    /// `.success`, `.failure` or `.unresolved`. Setting a seed status 2–4 stores `.failure` and puts its
    /// error first.
    public var status: PaymentAuthorizationStatus {
        get { folded }
        set { folded = newValue.fold(into: &errors) }
    }
    /// What went wrong, shown on the sheet.
    public var errors: [any Error]

    /// A result; a seed status 2–4 becomes `.failure` with its error first. `errors: nil` is no errors
    /// (Apple's spelling).
    public init(status: PaymentAuthorizationStatus, errors: [any Error]? = nil) {
        let folded = status.result
        self.folded = folded.status
        self.errors = folded.errors + (errors ?? [])
    }

    init(folded status: PaymentAuthorizationStatus, errors: [any Error]) {
        self.folded = status
        self.errors = errors
    }

    /// `success` or `failure [errors]`.
    public var description: String {
        errors.isEmpty ? status.description : "\(status) \(errors.map { "\($0)" })"
    }
}

/// A delegate's answer to a buyer's change on the sheet (`PKPaymentRequestUpdate` and its subclasses):
/// new summary items (the last is the total), new shipping methods where the change allows it, errors.
///
/// A `.failure` (errors, or a seed status 2–4; `.unresolved` reads `.failure` here) leaves the buyer's
/// previous selection selected and the sheet's items as they were, and blocks authorization until a later
/// update succeeds; a coupon error is shown and the coupon is not applied.
public struct PaymentRequestUpdate: Sendable, CustomStringConvertible {
    private var folded: PaymentAuthorizationStatus
    /// `.success`, or `.failure` when `errors` say why. Setting a seed status 2–4 stores `.failure` and
    /// puts its error first (as the initializer does); setting `.unresolved` stores `.failure`.
    public var status: PaymentAuthorizationStatus {
        get { folded }
        set { folded = newValue.foldForUpdate(into: &errors) }
    }
    /// What is wrong with the buyer's choice.
    public var errors: [any Error]
    /// Replace the sheet's items (Apple's `paymentSummaryItems`).
    public var paymentSummaryItems: [PaymentSummaryItem]
    /// Replace the sheet's shipping methods (nil: keep them). Ignored for a shipping-method change.
    public var shippingMethods: [ShippingMethod]?

    /// An update, spelled as Apple spells `PKPaymentRequestShippingContactUpdate(errors:paymentSummaryItems:shippingMethods:)`;
    /// with errors its status is `.failure`; `errors: nil` is none; `status: .unresolved` is `.failure`.
    public init(
        errors: [any Error]? = nil, paymentSummaryItems: [PaymentSummaryItem], shippingMethods: [ShippingMethod]? = nil,
        status: PaymentAuthorizationStatus? = nil
    ) {
        var errors = errors ?? []
        self.folded = (status ?? (errors.isEmpty ? .success : .failure)).foldForUpdate(into: &errors)
        self.errors = errors
        self.paymentSummaryItems = paymentSummaryItems
        self.shippingMethods = shippingMethods
    }

    /// The earlier spelling of ``init(errors:paymentSummaryItems:shippingMethods:status:)``.
    @available(*, deprecated, renamed: "init(errors:paymentSummaryItems:shippingMethods:status:)")
    public init(
        errors: [any Error] = [], summaryItems: [PaymentSummaryItem], shippingMethods: [ShippingMethod]? = nil,
        status: PaymentAuthorizationStatus? = nil
    ) {
        self.init(errors: errors, paymentSummaryItems: summaryItems, shippingMethods: shippingMethods, status: status)
    }

    /// The earlier name of ``paymentSummaryItems``.
    @available(*, deprecated, renamed: "paymentSummaryItems")
    public var summaryItems: [PaymentSummaryItem] {
        get { paymentSummaryItems }
        set { paymentSummaryItems = newValue }
    }

    /// `status, n items, total`.
    public var description: String {
        "\(status) \(paymentSummaryItems.last.map { "total \($0.amount)" } ?? "no items")"
            + (errors.isEmpty ? "" : " \(errors.map { "\($0)" })")
    }
}

/// The answer to a shipping-method change (`PKPaymentRequestShippingMethodUpdate`).
public typealias PaymentRequestShippingMethodUpdate = PaymentRequestUpdate
/// The answer to a shipping-contact change (`PKPaymentRequestShippingContactUpdate`).
public typealias PaymentRequestShippingContactUpdate = PaymentRequestUpdate
/// The answer to a payment-method change (`PKPaymentRequestPaymentMethodUpdate`).
public typealias PaymentRequestPaymentMethodUpdate = PaymentRequestUpdate
/// The answer to a coupon code (`PKPaymentRequestCouponCodeUpdate`).
public typealias PaymentRequestCouponCodeUpdate = PaymentRequestUpdate
