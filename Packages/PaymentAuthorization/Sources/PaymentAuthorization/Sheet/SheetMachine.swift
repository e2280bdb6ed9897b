import Foundation

/// Why a sheet ended.
public enum SheetFinishReason: String, Sendable, Equatable {
    /// The delegate answered the authorization and its status was shown.
    case completed
    /// The buyer closed the sheet.
    case buyerCancelled
    /// An awaited answer (delegate or presenter) did not come before the deadline.
    case deadline
    /// The app called `dismiss(completion:)`.
    case dismissedByApp
    /// The delegate was released while the sheet was up.
    case delegateGone
    /// The presenter could not show the sheet (or never said).
    case presentationFailed
}

/// Something the controller noticed and did not act on: a late or repeated answer, an unusable update.
public enum SheetReport: Sendable, Equatable, CustomStringConvertible {
    /// An answer to `call` came after it was already answered, after its deadline or after the sheet ended.
    case answerIgnored(call: String, reason: String)
    /// The delegate's update broke a request rule; the sheet kept its previous items.
    case updateRefused(call: String, rule: PaymentAuthorizationRequestError.Rule)
    /// A deadline passed while waiting for `what`.
    case deadlinePassed(String)
    /// The delegate was gone when the controller needed it.
    case delegateGone

    /// One line.
    public var description: String {
        switch self {
        case .answerIgnored(let call, let reason): "ignored answer to \(call): \(reason)"
        case .updateRefused(let call, let rule): "refused update from \(call): \(rule.rawValue)"
        case .deadlinePassed(let what): "deadline passed waiting for \(what)"
        case .delegateGone: "delegate gone"
        }
    }
}

/// The sheet's logic as a value: events in, actions out; no threads, no clock, no I/O.
/// `PaymentAuthorizationController` is its executor.
///
/// Every awaited answer (the presenter's, the delegate's) carries a token; an answer whose token is
/// not the one awaited is dropped and reported. The first ending wins: `didFinish` is emitted at most
/// once, and only for a sheet that was shown.
struct SheetMachine {
    /// A delegate call the machine makes.
    enum Call: Equatable {
        case shippingContact(Contact)
        case shippingMethod(ShippingMethod)
        case paymentMethod(PaymentMethod)
        case couponCode(String)
        case authorization

        var name: String {
            switch self {
            case .shippingContact: "didSelectShippingContact"
            case .shippingMethod: "didSelectShippingMethod"
            case .paymentMethod: "didSelectPaymentMethod"
            case .couponCode: "didChangeCouponCode"
            case .authorization: "didAuthorizePayment"
            }
        }
    }

    enum Answer {
        case update(PaymentRequestUpdate)
        case authorization(PaymentAuthorizationResult)
    }

    enum Event {
        case present
        case presenterAnswered(token: UInt64, shown: Bool)
        case buyer(SheetBuyerAction)
        case answer(token: UInt64, Answer)
        case deadline(token: UInt64)
        case statusShown(token: UInt64)
        case sheetGone(token: UInt64)
        case delegateGone(token: UInt64)
        case appDismiss
        /// The delegate owns the deadline of authorization `token` from now on (its own timers bound it).
        case delegateOwnsDeadline(token: UInt64)
    }

    enum Action: Equatable {
        case present(token: UInt64)
        case refusePresent
        case presentCompleted(Bool)
        case render
        case call(Call, token: UInt64)
        case startTimer(token: UInt64)
        case showStatus(PaymentAuthorizationStatus, token: UInt64)
        case didFinish
        case dismissSheet(token: UInt64)
        case dismissCompleted
        case report(SheetReport)
        case release
    }

    enum Phase: Equatable {
        case notPresented
        case presenting(UInt64)
        case open
        case showingStatus(UInt64)
        case dismissing(UInt64)
        case finished
    }

    struct Pending: Equatable {
        let token: UInt64
        let call: Call
        /// The buyer's selection before this call: restored when its update fails or is refused.
        var previous = Selection()
    }

    /// What the buyer has selected; it moves only with the price (a failed update restores it).
    struct Selection: Equatable {
        var contact: Int?
        var method: String?
        var card: Int?
    }

    /// The request's fixed parts and the wallet as read at `init`.
    let request: PaymentAuthorizationRequest
    let cards: [WalletCard]
    let contacts: [Contact]

    private(set) var phase = Phase.notPresented
    private(set) var pending: Pending?
    private(set) var summaryItems: [PaymentSummaryItem]
    private(set) var shippingMethods: [ShippingMethod]
    private(set) var selectedMethod: String?
    private(set) var selectedContact: Int?
    private(set) var selectedCard: Int?
    private(set) var couponCode: String?
    private(set) var errors: [any Error] = []
    private(set) var contactBlocked = false
    /// The last update answered `.failure`: authorization waits for a later update that succeeds.
    private(set) var updateFailed = false
    private(set) var finishReason: SheetFinishReason?
    private(set) var shownStatus: PaymentAuthorizationStatus?
    private(set) var attempts = 0
    private(set) var didFinishEmitted = false
    /// The authorization whose deadline the delegate took over (``Event/delegateOwnsDeadline(token:)``).
    private(set) var delegateOwnedDeadline: UInt64?
    private var nextToken: UInt64 = 0
    /// The selection as the buyer's current action found it (copied into the call it asks).
    private var previousContact: Int?
    private var previousMethod: String?
    private var previousCard: Int?
    /// What became of each token handed out, to say why a late answer is ignored.
    private var spent: [UInt64: String] = [:]
    /// The delegate call each token was handed out for.
    private var callNames: [UInt64: String] = [:]

    init(request: PaymentAuthorizationRequest, cards: [WalletCard], contacts: [Contact]) {
        self.request = request
        self.cards = cards
        self.contacts = contacts
        summaryItems = request.paymentSummaryItems
        shippingMethods = request.shippingMethods
        selectedMethod = request.shippingMethods.first?.identifier
        couponCode = request.couponCode
        selectedCard = cards.firstIndex { Self.accepts($0, request) }
    }

    static func accepts(_ card: WalletCard, _ request: PaymentAuthorizationRequest) -> Bool {
        SimulatedWallet.accepts(card, networks: request.supportedNetworks, capabilities: request.merchantCapabilities)
    }

    var isShown: Bool {
        switch phase {
        case .open, .showingStatus: true
        default: false
        }
    }

    /// The sheet as a presenter shows it.
    var sheet: WalletSheet {
        let state: WalletSheet.State
        switch phase {
        case .notPresented, .presenting, .open:
            if let pending {
                state = pending.call == .authorization ? .processing : .busy(pending.call.name)
            } else {
                state = .ready
            }
        case .showingStatus: state = .showingStatus(shownStatus ?? .failure)
        case .dismissing, .finished: state = .finished
        }
        return WalletSheet(
            state: state, currencyCode: request.currencyCode, summaryItems: summaryItems,
            shippingMethods: shippingMethods, selectedShippingMethod: selectedMethod,
            contacts: contacts.map(\.redacted), selectedContact: selectedContact,
            cards: cards.map { ($0.displayName, Self.accepts($0, request)) }, selectedCard: selectedCard,
            supportsCouponCode: request.supportsCouponCode, couponCode: couponCode, errors: errors.map(SheetError.init))
    }

    /// The payment the buyer authorizes: the full contact, the card, the total.
    func payment(transactionIdentifier: String) -> Payment? {
        guard let selectedCard else { return nil }
        let contact = selectedContact.map { contacts[$0] } ?? request.shippingContact
        return Payment(
            token: PaymentToken(
                card: cards[selectedCard], transactionIdentifier: transactionIdentifier,
                applicationData: request.applicationData),
            billingContact: contact?.restricted(to: request.requiredBillingContactFields),
            shippingContact: contact?.restricted(to: request.requiredShippingContactFields),
            shippingMethod: shippingMethods.first { $0.identifier == selectedMethod },
            summaryItems: summaryItems, currencyCode: request.currencyCode)
    }

    // MARK: - Transitions

    /// Applies one event; returns the actions to perform, in order, and the reply to a buyer action.
    mutating func handle(_ event: Event) -> (actions: [Action], reply: SheetBuyerReply?) {
        switch event {
        case .present:
            guard phase == .notPresented else { return ([.refusePresent], nil) }
            let token = issue()
            phase = .presenting(token)
            return ([.present(token: token), .startTimer(token: token)], nil)
        case .presenterAnswered(let token, let shown):
            guard phase == .presenting(token) else { return (ignore(token, call: "present"), nil) }
            spend(token, "answered")
            guard shown else { return (endUnshown(), nil) }
            phase = .open
            return ([.presentCompleted(true), .render], nil)
        case .buyer(let action):
            return buyer(action)
        case .answer(let token, let answer):
            guard let pending, pending.token == token, phase == .open else {
                return (ignore(token, call: callNames[token] ?? "unknown call"), nil)
            }
            spend(token, "already answered")
            self.pending = nil
            return (apply(answer, to: pending.call, previous: pending.previous), nil)
        case .deadline(let token):
            return (deadline(token), nil)
        case .statusShown(let token):
            guard phase == .showingStatus(token) else { return (ignore(token, call: "showStatus"), nil) }
            spend(token, "already shown")
            return (finish(.completed), nil)
        case .sheetGone(let token):
            guard phase == .dismissing(token) else { return ([], nil) }
            spend(token, "gone")
            phase = .finished
            return ([.dismissCompleted, .release], nil)
        case .delegateGone(let token):
            guard pending?.token == token || phase == .showingStatus(token) else { return ([], nil) }
            return ([.report(.delegateGone)] + finish(.delegateGone), nil)
        case .delegateOwnsDeadline(let token):
            guard let pending, pending.token == token, pending.call == .authorization else { return ([], nil) }
            delegateOwnedDeadline = token
            return ([], nil)
        case .appDismiss:
            switch phase {
            case .notPresented:
                phase = .finished
                finishReason = .dismissedByApp
                return ([.dismissCompleted], nil)
            case .presenting(let token):
                spend(token, "after the sheet ended")
                return (endUnshown(reason: .dismissedByApp), nil)
            case .open, .showingStatus:
                return (finish(.dismissedByApp), nil)
            case .dismissing:
                return ([], nil)
            case .finished:
                return ([.dismissCompleted], nil)
            }
        }
    }

    private mutating func buyer(_ action: SheetBuyerAction) -> (actions: [Action], reply: SheetBuyerReply?) {
        guard phase == .open else {
            if case .showingStatus = phase { return ([], .refused(.finishing)) }
            return ([], .refused(phase == .finished || isDismissing ? .sheetClosed : .sheetNotShown))
        }
        if action == .cancel { return (finish(.buyerCancelled), .accepted) }
        if pending != nil { return ([], .busy) }
        previousContact = selectedContact
        previousMethod = selectedMethod
        previousCard = selectedCard
        switch action {
        case .selectContact(let index):
            guard contacts.indices.contains(index) else { return ([], .refused(.noContact(index))) }
            selectedContact = index
            return (ask(.shippingContact(contacts[index].redacted)), .accepted)
        case .selectShippingMethod(let id):
            guard let method = shippingMethods.first(where: { $0.identifier == id }) else {
                return ([], .refused(.noShippingMethod(id)))
            }
            selectedMethod = id
            return (ask(.shippingMethod(method)), .accepted)
        case .selectCard(let index):
            guard cards.indices.contains(index) else { return ([], .refused(.noCard(index))) }
            guard Self.accepts(cards[index], request) else { return ([], .refused(.cardNotAccepted)) }
            selectedCard = index
            return (ask(.paymentMethod(PaymentMethod(cards[index], redacted: true))), .accepted)
        case .enterCouponCode(let code):
            guard request.supportsCouponCode else { return ([], .refused(.noCouponCodes)) }
            return (ask(.couponCode(code)), .accepted)
        case .authorize:
            if let why = authorizationRefusal() { return ([], .refused(why)) }
            attempts += 1
            errors = []
            return (ask(.authorization), .accepted)
        case .cancel:
            return ([], nil)  // handled above
        }
    }

    private var isDismissing: Bool {
        if case .dismissing = phase { return true }
        return false
    }

    private func authorizationRefusal() -> SheetRefusal? {
        guard selectedCard != nil else { return .noCardSelected }
        if contactBlocked { return .contactHasErrors }
        if updateFailed { return .lastChangeFailed }
        let needed = request.requiredShippingContactFields.union(request.requiredBillingContactFields)
        if !needed.isEmpty {
            let contact = selectedContact.map { contacts[$0] } ?? request.shippingContact
            guard let contact, contact.provides(needed) else { return .contactRequired }
        }
        return nil
    }

    private mutating func ask(_ call: Call) -> [Action] {
        let token = issue()
        pending = Pending(
            token: token, call: call,
            previous: Selection(contact: previousContact, method: previousMethod, card: previousCard))
        callNames[token] = call.name
        return [.render, .call(call, token: token), .startTimer(token: token)]
    }

    private mutating func restore(_ selection: Selection) {
        selectedContact = selection.contact
        selectedMethod = selection.method
        selectedCard = selection.card
    }

    private mutating func apply(_ answer: Answer, to call: Call, previous: Selection) -> [Action] {
        switch answer {
        case .authorization(let result):
            guard call == .authorization else {
                return [.report(.answerIgnored(call: call.name, reason: "wrong kind"))]
            }
            shownStatus = result.status
            errors = result.errors
            // Only a failure with errors keeps the sheet open for another try; a payment in doubt
            // (`.unresolved`) never does: it is shown as being confirmed, and the sheet ends.
            let offersRetry =
                switch result.status {
                case .failure, .invalidBillingPostalAddress, .invalidShippingPostalAddress, .invalidShippingContact:
                    !result.errors.isEmpty
                case .success, .unresolved: false
                }
            if offersRetry {
                contactBlocked = result.errors.contains { ($0 as? PaymentRequestError)?.blocksAuthorization == true }
                return [.render]
            }
            let token = issue()
            phase = .showingStatus(token)
            return [.render, .showStatus(result.status, token: token), .startTimer(token: token)]
        case .update(let update):
            guard call != .authorization else {
                return [.report(.answerIgnored(call: call.name, reason: "wrong kind"))]
            }
            // The update replaces parts of the request: the whole request must still keep every rule.
            var updated = request
            updated.paymentSummaryItems = update.paymentSummaryItems
            if case .shippingMethod = call {
            } else if let methods = update.shippingMethods {
                updated.shippingMethods = methods
            }
            if let problem = updated.validationError() {
                errors = [PaymentRequestError.unknown("the merchant's update was unusable")]
                restore(previous)
                updateFailed = true
                return [.report(.updateRefused(call: call.name, rule: problem.rule)), .render]
            }
            if update.status == .failure {
                // Choice and price move together: the failed choice is undone, the sheet keeps its
                // items, and authorization waits for a later update that succeeds.
                errors = update.errors
                restore(previous)
                updateFailed = true
                return [.render]
            }
            updateFailed = false
            summaryItems = updated.paymentSummaryItems
            shippingMethods = updated.shippingMethods
            if !shippingMethods.contains(where: { $0.identifier == selectedMethod }) {
                selectedMethod = shippingMethods.first?.identifier
            }
            errors = update.errors
            switch call {
            case .shippingContact:
                contactBlocked = update.errors.contains { ($0 as? PaymentRequestError)?.blocksAuthorization == true }
            case .couponCode(let code):
                if update.errors.isEmpty { couponCode = code }
            default:
                break
            }
            return [.render]
        }
    }

    private mutating func deadline(_ token: UInt64) -> [Action] {
        switch phase {
        case .presenting(let awaited) where awaited == token:
            spend(token, "after its deadline")
            return [.report(.deadlinePassed("present"))] + endUnshown()
        case .open where pending?.token == token && delegateOwnedDeadline != token:
            let name = pending?.call.name ?? ""
            spend(token, "after its deadline")
            return [.report(.deadlinePassed(name))] + finish(.deadline)
        case .showingStatus(let awaited) where awaited == token:
            spend(token, "after its deadline")
            return [.report(.deadlinePassed("showStatus"))] + finish(.completed)
        case .dismissing(let awaited) where awaited == token:
            spend(token, "after its deadline")
            phase = .finished
            return [.report(.deadlinePassed("dismissSheet")), .dismissCompleted, .release]
        default:
            return []  // a timer that lost: its wait already ended
        }
    }

    /// Ends a shown sheet: the outstanding call's answer will be ignored, `didFinish` once, then dismiss.
    private mutating func finish(_ reason: SheetFinishReason) -> [Action] {
        guard isShown else { return [] }
        if let pending { spend(pending.token, "after the sheet ended") }
        if case .showingStatus(let token) = phase { spend(token, "after the sheet ended") }
        pending = nil
        if finishReason == nil { finishReason = reason }
        let token = issue()
        phase = .dismissing(token)
        var actions: [Action] = [.render]
        if !didFinishEmitted && reason != .delegateGone {
            didFinishEmitted = true
            actions.append(.didFinish)
        }
        return actions + [.dismissSheet(token: token), .startTimer(token: token)]
    }

    /// Ends a sheet that never showed: no `didFinish`, the app's `present` completion gets false, and
    /// the presenter is told to take down whatever it may have half-shown.
    private mutating func endUnshown(reason: SheetFinishReason = .presentationFailed) -> [Action] {
        finishReason = reason
        let token = issue()
        phase = .dismissing(token)
        return [.presentCompleted(false), .dismissSheet(token: token), .startTimer(token: token)]
    }

    private mutating func issue() -> UInt64 {
        nextToken += 1
        return nextToken
    }

    private mutating func spend(_ token: UInt64, _ fate: String) { spent[token] = fate }

    private func ignore(_ token: UInt64, call: String) -> [Action] {
        [.report(.answerIgnored(call: call, reason: spent[token] ?? (token > nextToken ? "unknown" : "not awaited")))]
    }
}
