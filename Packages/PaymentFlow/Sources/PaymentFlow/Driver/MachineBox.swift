import Foundation

/// The machine a run drives: routes each driver event to the flow's machine.
/// An event a flow cannot receive (a status answer in the card flow, say) is a
/// driver bug and stops the process.
enum MachineBox {
    case hosted(HostedCheckoutMachine)
    case card(CardPaymentMachine)
    /// A request refused before any machine ran (validation, a payment already running).
    case rejected(Terminal, finished: Bool)

    var stateName: String {
        switch self {
        case .hosted(let machine): machine.stateName
        case .card(let machine): machine.stateName
        case .rejected(_, let finished): finished ? "finished" : "rejected"
        }
    }

    /// The card-session id, once the card flow has one.
    var sessionId: String? {
        switch self {
        case .card(let machine): machine.sessionId
        case .hosted, .rejected: nil
        }
    }

    /// The card to encrypt, while the card flow needs it.
    var card: CardSnapshot? {
        switch self {
        case .card(let machine): machine.card
        case .hosted, .rejected: nil
        }
    }

    private mutating func hosted(_ event: String, _ body: (inout HostedCheckoutMachine) -> FlowAction) -> FlowAction {
        guard case .hosted(var machine) = self else {
            preconditionFailure("\(event) sent to a \(stateName) non-hosted machine")
        }
        let action = body(&machine)
        self = .hosted(machine)
        return action
    }

    private mutating func card(_ event: String, _ body: (inout CardPaymentMachine) -> FlowAction) -> FlowAction {
        guard case .card(var machine) = self else {
            preconditionFailure("\(event) sent to a \(stateName) non-card machine")
        }
        let action = body(&machine)
        self = .card(machine)
        return action
    }

    mutating func start(cachedKey: EncryptionKey?) -> FlowAction {
        switch self {
        case .hosted: return hosted("start") { $0.start() }
        case .card: return card("start") { $0.start(cachedKey: cachedKey) }
        case .rejected(let terminal, let finished):
            precondition(!finished, "rejected run started twice")
            self = .rejected(terminal, finished: true)
            return .finish(terminal)
        }
    }

    mutating func presentFinished(shown: Bool) -> FlowAction {
        switch self {
        case .hosted: return hosted("present") { $0.presentFinished(shown: shown) }
        case .card: return card("present") { $0.presentFinished(shown: shown) }
        case .rejected: preconditionFailure("present completion in a rejected run")
        }
    }

    mutating func navigation(to url: URL) -> (NavigationDecision, FlowAction) {
        var decision = NavigationDecision.cancel
        let action: FlowAction
        switch self {
        case .hosted:
            action = hosted("navigation") { machine in
                let (d, a) = machine.navigation(to: url)
                decision = d
                return a
            }
        case .card:
            action = card("navigation") { machine in
                let (d, a) = machine.navigation(to: url)
                decision = d
                return a
            }
        case .rejected: preconditionFailure("navigation in a rejected run")
        }
        return (decision, action)
    }

    mutating func pageLoaded(_ url: URL) -> FlowAction {
        switch self {
        case .hosted: return hosted("load") { $0.pageLoaded(url) }
        case .card: return card("load") { $0.pageLoaded(url) }
        case .rejected: preconditionFailure("page load in a rejected run")
        }
    }

    mutating func pageFailed(_ url: URL, reason: String) -> FlowAction {
        switch self {
        case .hosted: return hosted("failure") { $0.pageFailed(url, reason: reason) }
        case .card: return card("failure") { $0.pageFailed(url, reason: reason) }
        case .rejected: preconditionFailure("page failure in a rejected run")
        }
    }

    mutating func buyerClosedPage() -> FlowAction {
        switch self {
        case .hosted: return hosted("close") { $0.buyerClosedPage() }
        case .card: return card("close") { $0.buyerClosedPage() }
        case .rejected: preconditionFailure("page closed in a rejected run")
        }
    }

    mutating func pageDismissed() -> FlowAction {
        switch self {
        case .hosted: return hosted("dismissed") { $0.pageDismissed() }
        case .card: return card("dismissed") { $0.pageDismissed() }
        case .rejected: preconditionFailure("dismissal in a rejected run")
        }
    }

    mutating func cancel() -> FlowAction {
        switch self {
        case .hosted: return hosted("cancel") { $0.cancel() }
        case .card: return card("cancel") { $0.cancel() }
        case .rejected: return .none
        }
    }

    mutating func statusResolved(_ result: Result<HostedCheckoutMachine.StatusReport, FlowError>) -> FlowAction {
        hosted("status") { $0.statusResolved(result) }
    }

    mutating func keyFetched(_ result: Result<EncryptionKey, FlowError>) -> FlowAction {
        card("key") { $0.keyFetched(result) }
    }

    mutating func encryptionFinished(_ result: Result<String, FlowError>) -> FlowAction {
        card("encryption") { $0.encryptionFinished(result) }
    }

    mutating func sessionReply(_ call: GatewayCall, _ reply: SessionReply) -> FlowAction {
        card("session reply") { machine in
            switch call {
            case .createSession: machine.sessionCreated(reply)
            case .authenticate: machine.authenticated(reply)
            case .challengeResult: machine.challengeResultReceived(reply)
            case .readSession: machine.sessionRead(reply)
            case .statusLookup, .keySet: preconditionFailure("\(call) is not a session call")
            }
        }
    }
}
