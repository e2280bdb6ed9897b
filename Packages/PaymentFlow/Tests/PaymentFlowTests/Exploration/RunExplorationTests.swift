import Dispatch
import Foundation
import JWE
import StateExplorer
import Synchronization
import Testing

@testable import PaymentFlow

/// Every interleaving, not a sample: because the run's lifecycle and both flows are values, this test
/// walks the whole state space of one payment against a small model gateway, depth-first with
/// memoisation, and checks invariants on every reachable state and every complete path.
///
/// The model owns the truth, and delivery too; the SDK sees only the wire. For every money-moving POST
/// the model picks what physically became of it (`Fate`, RunExploration+Wire.swift): which connection
/// carried it, whether its bytes were written, whether the gateway applied it, what came back. The
/// gateway's truth and what reaches the SDK both follow from that: an answer (the gateway's real
/// session JSON), a refusal, a fresh connect refused, a kept connection closed unread or gone after
/// applying (libcurl reports the refused reconnect), a timeout before or after applying, a reset after
/// applying, a 5xx before or after, a proxy's HTML page, a status line that is not HTTP/1.x after
/// applying, `409 REQUEST_IN_PROGRESS`, a `FAILED` session saying `PAYMENT_ALREADY_PROCESSED`. A
/// failure is the libcurl code that path ends in, named by the product's `CurlErrors`, with the
/// `Delivery` facts the scenario's transport would report of it (libcurl's counters, or nothing at
/// all). Those raw `Result<HTTPResponse, TransportError>` values go through the SDK's own classifier
/// (`GatewayAPI.event`); the test never hands the machine a classified reply.
///
/// At each state every event the world could produce next is tried: each outstanding call answered
/// in every way above (the watchdog firing first too), the presenter answering present/dismiss or never
/// (its timer fires), page events before or after `present`'s answer and page loads never reported,
/// the buyer acting on the page (answering the challenge right or wrong, pressing pay or cancel on the
/// hosted page), closing it, a page failing to load, the page's deadline, host `cancel()`, the step gate
/// proceeding, cancelling or timing out, a resolver answering or never. The hosted buyer's choice is a
/// form POST the SDK is asked about; once allowed it lands at the gateway at any later moment, also
/// after the page was dismissed (a browser drops the answer, not the request). Faults are bounded per
/// path (`faultBudget`) so the space stays finite.
///
/// Invariants (safety): exactly one delivery on every complete path and never two; delivered only when
/// no page is shown or being shown; `.failed`/`.cancelled` only when the model gateway moved no money
/// and no buyer's POST that would move it is still on its way; `.succeeded` only when it did; never an
/// unexplained-event ending; no state that waits with nothing pending.
/// Invariants (precision): on a path with no cancel, no page ending that leaves the buyer's POST
/// unlanded, and no fault the SDK cannot see through, the outcome is exact (`.succeeded` iff money
/// moved, never `.unresolved`). A first fault on a money-moving step is one it sees through (CONTRACT.md
/// 4a: it reads the session back, or resends the step once with its key); a fault on a read-back, a
/// second fault on the same step, or `PAYMENT_ALREADY_PROCESSED` may leave it not knowing.
/// `mutationsAreCaught` proves the invariants bite: an SDK that always says `.unresolved`, one that
/// calls timeouts or kept-connection failures "unreachable", one without the FAILED /
/// `PAYMENT_ALREADY_PROCESSED` rule, one that never reads back or resends, and a transport that calls
/// every refused connect "never sent" each break them.
@Suite struct RunExplorationTests {
    // MARK: The model world

    /// `method`: the session names a 3DS Method; the model issuer is frictionless after a completed
    /// method (`Y`) and challenges otherwise.
    enum Card: Hashable { case frictionless, challenge, declined, noThreeDS, method }

    /// The model gateway's card session.
    enum Session: Hashable {
        case none
        case authenticationRequired
        /// `answer`: what the buyer typed on the issuer's page (nil: no answer yet).
        case challengeRequired(answer: Bool?)
        case completed
        case failed
    }

    struct World: Hashable {
        var run: String = ""
        var session = Session.none
        /// Hosted: the payment's status.
        var status = "INITIALIZED"
        /// The steps the gateway applied, by idempotency key (a resend with the key replays).
        var applied: Set<String> = []
        var timers: Set<String> = []
        var faults = 0
        var cancels = 0
        var delivered: [String] = []
        var presenting: UInt64?
        var dismissing: UInt64?
        var shown: UInt64?
        var pageLoaded = false
        /// The buyer closed the page or it failed: a presenter reports nothing more about it.
        var pageEnded = false
        var notificationReached = false
        /// The current page is the invisible 3DS Method; its ACS posted to the method notification URL.
        var methodPage = false
        var methodNotified = false
        /// The method's page hangs: its ACS never posts back.
        var methodHangs = false
        /// The page that posted on to the notification URL had its own load reported late, after the
        /// post (WebKit does this): that load is not the notification's.
        var lateLoadReported = false
        var gate: UInt64?
        /// Hosted: the buyer's form POST and the status it records when it lands.
        var post = BuyerPost.none
        var postRecords = ""
        /// Something happened on this path that can leave the SDK unable to know: a fault it cannot see
        /// through, a cancel, a silent presenter or gate, a page that ended while the buyer's POST was
        /// still on its way.
        var disturbed = false
        /// The `Idempotency-Key`s the SDK sent on this path (a later send with one is a resend).
        var sentKeys: Set<String> = []
        /// The steps (keys, or `read`) that met a fault on this path.
        var faultedSteps: Set<String> = []
        /// The scenario's card (the model gateway's answers depend on it).
        var card: Card?
    }

    /// Where the hosted buyer's choice is.
    enum BuyerPost: Hashable {
        case none
        /// The SDK was asked whether the POST may go (its answer may wait for the gate).
        case asking
        /// Allowed: on its way; the gateway applies it at some later moment.
        case sent
        /// The gateway applied it.
        case landed
    }

    /// One explored configuration.
    struct Scenario: CustomStringConvertible, Sendable {
        var name: String
        var card: Card?
        var gated = false
        var statusSource = HostedCheckoutMachine.StatusSource.builtIn
        var faultBudget = 2
        var mutation = Mutation.none
        /// What the transport reports of a failed attempt's delivery.
        var transportReport = TransportReport.facts
        /// Whether the host may cancel (without, a page nobody ends must end by its own deadline).
        var hostCancels = true
        /// Whether every wait's timer is checked where the wait starts (off: only behaviour is judged).
        var checksTimers = true

        var description: String { mutation == .none ? name : "\(name) [\(mutation)]" }
    }

    /// A deliberate bug in the SDK, simulated at the seams, that the invariants must catch.
    enum Mutation: String, Sendable, CaseIterable {
        case none
        /// Whatever happens, the SDK says `.unresolved`.
        case alwaysUnresolved
        /// A timeout is read as "the request never left".
        case timeoutsUnreachable
        /// A kept connection's failure (the refused reconnect libcurl reports) is read as "never left".
        case keptConnectionUnreachable
        /// A FAILED session saying PAYMENT_ALREADY_PROCESSED is read as a declined card.
        case noAlreadyProcessedRule
        /// The SDK never reads a session back or sends a step again after a fault.
        case noRecovery
        /// The transport reports every refused connect (`CURLE_COULDNT_CONNECT`) as never sent.
        case refusedConnectNeverSent
        /// The requests a page sends by script (`page(didSend:)`) are not heard (ScriptedPostExploration.swift).
        case ignoresPageRequests
        /// The 3DS Method page gets no 10 s deadline: the SDK would wait on the ACS for ever.
        case skipsMethodDeadline
    }

    static let base = URL(string: "https://checkout.example")!
    static let acs = URL(string: "https://acs.example/c")!
    /// The 3DS Method page the model gateway names (`threeDSMethod.url` in its answers).
    static let methodACS = URL(string: "https://acs.example/m")!
    static let returnURL = URL(string: "https://shop.example/done")!
    static let key: EncryptionKey = EncryptionKey(try! RSAPrivateKey.generate(bits: 2048, kid: "k1").publicKey)
    static let notification = GatewayAPI.notificationURL(checkoutBaseURL: base, sessionId: "s")!

    static func newRun(_ scenario: Scenario) -> PaymentLifecycle {
        let settings = PaymentLifecycle.Settings(
            kind: scenario.card == nil ? .hostedCheckout : .card, paymentId: "p", gated: scenario.gated,
            stepGateTimeout: scenario.gated ? 600 : nil)
        if scenario.card != nil {
            let keys = IdempotencyKeys(
                createSession: UUID(uuidString: "00000000-0000-4000-8000-000000000001")!,
                createSessionWithNewKey: UUID(uuidString: "00000000-0000-4000-8000-000000000002")!,
                authentication: UUID(uuidString: "00000000-0000-4000-8000-000000000003")!,
                challengeResult: UUID(uuidString: "00000000-0000-4000-8000-000000000004")!)
            let card = CardInput(
                cardholderName: "A", cardNumber: "4111111111111111", expiryMonth: "12", expiryYear: "30",
                securityCode: "123",
                clock: .fixed(Date(timeIntervalSince1970: 1_795_953_600))
            ).snapshot()
            return PaymentLifecycle(
                settings: settings,
                flow: .card(CardPaymentMachine(.init(card: card, checkoutBaseURL: base, keys: keys))))
        }
        let page = PagePlan(url: URL(string: "https://pay.example/p")!, formFields: nil, purpose: .hostedCheckout)
        return PaymentLifecycle(
            settings: settings,
            flow: .hosted(
                HostedCheckoutMachine(
                    .init(
                        page: page, returnURL: returnURL, statusSource: scenario.statusSource, nonFinalRepolls: 1))))
    }

    /// A node: the run value and the world around it.
    struct Node {
        var run: PaymentLifecycle
        var world: World
        var pendingCall: (token: UInt64, call: GatewayCall)?
        var pendingOther: (token: UInt64, kind: String)?
        var navigationsAnswered: [UInt64] = []
        var mutation = Mutation.none
        var checksTimers = true
        /// With `Mutation.noRecovery`: the pending call is a recovery the mutated SDK never sends.
        var recoveryWithheld = false
    }

    /// The navigation question of the hosted buyer's POST.
    static let postRequest: UInt64 = 97
    /// The navigation question of the hosted page's own load.
    static let ownLoadRequest: UInt64 = 96
    static let checkoutURL = URL(string: "https://pay.example/p")!

    // MARK: Applying effects to the world

    static func apply(_ effects: [PaymentLifecycle.Effect], to node: inout Node, violations: inout [String]) {
        var effects = effects
        if node.mutation == .skipsMethodDeadline,
            let method = effects.compactMap({ effect -> UInt64? in
                if case .present(let id, let plan) = effect, plan.threeDSMethod { return id }
                return nil
            }).first
        {
            effects.removeAll { effect in
                if case .startTimer(.pageDeadline(method), _) = effect { return true }
                return false
            }
        }
        for effect in effects {
            // The method's wait is bounded by its own deadline, EMV's 10 s, started before it is loaded.
            if case .present(let id, let plan) = effect, plan.threeDSMethod, node.checksTimers {
                if !node.world.timers.contains(timerName(.pageDeadline(id))) {
                    violations.append("the 3DS Method loaded without its 10 s deadline")
                }
            }
            if case .startTimer(.pageDeadline, let after) = effect, after > 10,
                effects.contains(where: { if case .present(_, let plan) = $0 { plan.threeDSMethod } else { false } })
            {
                violations.append("the 3DS Method's deadline is \(after) s, not 10 s")
            }
            // Every wait is a timer the run owns, started before control leaves it: an answer (or a clock
            // moved) inside the effect must find the timer already running.
            if let awaited = awaitedTimer(effect), !node.world.timers.contains(timerName(awaited)) {
                violations.append("\(effect) before its timer \(awaited)")
            }
            switch effect {
            case .send(let token, let call):
                node.pendingCall = (token, call)
                node.recoveryWithheld = node.mutation == .noRecovery && isRecovery(call, node.world)
                if let key = call.idempotencyKey { node.world.sentKeys.insert(key.uuidString) }
            case .askResolver(let token):
                node.pendingOther = (token, "resolver")
            case .askBrowser(let token):
                node.pendingOther = (token, "browser")
            case .encrypt(let token, _, _):
                node.pendingOther = (token, "encrypt")
            case .present(let id, let plan):
                node.world.presenting = id
                node.world.methodPage = plan.threeDSMethod
                node.world.pageEnded = false
                node.world.pageLoaded = false
                node.world.methodHangs = false
                node.world.lateLoadReported = false
            case .dismiss(let id):
                if node.world.shown != id { violations.append("dismiss of a page that is not shown") }
                node.world.shown = nil
                node.world.dismissing = id
            case .answerNavigation(let request, let decision):
                node.navigationsAnswered.append(request)
                if request == postRequest, node.world.post == .asking {
                    node.world.post = decision == .allow ? .sent : .none
                }
            case .askGate(let token, _):
                node.world.gate = token
            case .startTimer(let id, _):
                node.world.timers.insert(timerName(id))
            case .cancelTimer(let id):
                node.world.timers.remove(timerName(id))
            case .deliver(let terminal):
                if node.world.shown != nil || node.world.presenting != nil || node.world.dismissing != nil {
                    violations.append("delivered while a page is on screen")
                }
                var terminal = terminal
                if node.mutation == .alwaysUnresolved { terminal.outcome = .unresolved }
                node.world.delivered.append("\(terminal.outcome)\(terminal.error.map { "/\($0.code)" } ?? "")")
                if terminal.error?.reason.hasPrefix("unexpected event") == true {
                    violations.append("an event the flow could not explain: \(terminal.error!.reason)")
                }
                checkTruth(terminal, node.world, &violations)
            case .abandon(let token):
                // Only a call of this run that is no longer awaited may be abandoned.
                if node.run.operation?.token == token { violations.append("abandoned the call it still awaits") }
            case .storeKey, .dropCachedKey, .observe:
                break
            }
        }
        node.world.run = node.run.description
    }

    static func timerName(_ id: PaymentLifecycle.TimerID) -> String { "\(id)" }

    /// The timer that bounds the wait an effect starts (every wait in the explored settings has one).
    static func awaitedTimer(_ effect: PaymentLifecycle.Effect) -> PaymentLifecycle.TimerID? {
        switch effect {
        case .send(let token, _), .askResolver(let token), .askBrowser(let token): .operation(token)
        case .present(let id, _): .presentAnswer(id)
        case .dismiss(let id): .dismissAnswer(id)
        case .askGate(let token, _): .gate(token)
        default: nil
        }
    }

    /// CONTRACT.md 4a, also for a hosted payment with no lookup configured: the seeds' `.cancelled`
    /// (close, cancel, deadline) and `.failed` + `pageLoadFailed` hold only while no buyer's POST that
    /// moves money may still land.
    static func checkTruth(_ terminal: Terminal, _ world: World, _ violations: inout [String]) {
        let moneyMoved = world.session == .completed || world.status == "SETTLED"
        let moneyMayMove = [.asking, .sent].contains(world.post) && world.postRecords == "SETTLED"
        switch terminal.outcome {
        case .succeeded where !moneyMoved: violations.append("succeeded, but no money moved")
        case .failed where moneyMoved, .cancelled where moneyMoved:
            violations.append("\(terminal.outcome), but the gateway moved money")
        case .failed where moneyMayMove, .cancelled where moneyMayMove:
            violations.append("\(terminal.outcome), but the buyer's pay POST may still land")
        case .unresolved where !world.disturbed && world.post != .sent && world.post != .asking:
            // Precision: nothing on this path kept the SDK from knowing.
            violations.append("unresolved, although nothing on this path kept the SDK from knowing")
        default: break
        }
    }

    // MARK: The model gateway

    static let checkoutAPI = URL(string: "https://api.example/p")!

    static func json(_ status: Int, _ text: String) -> Result<HTTPResponse, TransportError> {
        .success(
            HTTPResponse(
                status: status, headers: [HTTPHeader("Content-Type", "application/json")], body: Array(text.utf8),
                url: checkoutAPI))
    }

    static func gatewayError(_ status: Int, _ code: String) -> Result<HTTPResponse, TransportError> {
        json(status, #"{"error":{"code":"\#(code)","message":"model gateway"}}"#)
    }

    /// The wire form of the model session.
    static func sessionJSON(_ world: World) -> Result<HTTPResponse, TransportError> {
        switch world.session {
        case .none, .authenticationRequired:
            guard world.card == .method else {
                return json(200, #"{"sessionId":"s","status":"AUTHENTICATION_REQUIRED"}"#)
            }
            return json(
                200,
                #"{"sessionId":"s","status":"AUTHENTICATION_REQUIRED","threeDSMethod":{"url":"https://acs.example/m","data":"bQ"}}"#
            )
        case .challengeRequired:
            return json(
                200,
                #"{"sessionId":"s","status":"CHALLENGE_REQUIRED","challenge":{"acsUrl":"https://acs.example/c","creq":"c"}}"#
            )
        case .completed:
            return json(200, #"{"sessionId":"s","status":"COMPLETED","transStatus":"Y"}"#)
        case .failed:
            return json(
                200,
                #"{"sessionId":"s","status":"FAILED","transStatus":"N","failure":{"code":"AUTHENTICATION_FAILED"}}"#)
        }
    }

    /// Applies `call` to the model gateway (an idempotency key already applied replays) and returns the
    /// gateway's real answer on the wire.
    static func apply(
        _ call: GatewayCall, _ scenario: Scenario, _ world: inout World
    ) -> Result<
        HTTPResponse, TransportError
    > {
        let key = call.idempotencyKey.map(\.uuidString) ?? ""
        let replay = world.applied.contains(key)
        switch call {
        case .createSession:
            if !replay {
                guard world.session == .none else { return gatewayError(409, "PAYMENT_ALREADY_PROCESSED") }
                switch scenario.card {
                case .declined: world.session = .failed
                case .noThreeDS: world.session = .completed  // money moves at creation
                default: world.session = .authenticationRequired
                }
            }
        case .authenticate(_, _, _, let threeDS):
            if !replay, world.session == .authenticationRequired {
                let challenges =
                    scenario.card == .challenge || (scenario.card == .method && threeDS.compInd != .completed)
                world.session = challenges ? .challengeRequired(answer: nil) : .completed
            }
        case .challengeResult:
            if case .challengeRequired(let answer) = world.session {
                guard let answer else { return gatewayError(409, "CHALLENGE_NOT_COMPLETED") }
                world.session = answer ? .completed : .failed
            }
        case .readSession, .statusLookup, .keySet:
            break
        }
        if !key.isEmpty { world.applied.insert(key) }
        return sessionJSON(world)
    }

    /// The SDK's classifier on the raw result, with the scenario's mutation applied at the seam.
    static func classify(
        _ call: GatewayCall, _ result: Result<HTTPResponse, TransportError>, _ mutation: Mutation
    )
        -> FlowEvent
    {
        var result = result
        switch (mutation, result) {
        case (.timeoutsUnreachable, .failure(var error)) where error.kind == .timeout:
            error.delivery = .neverSent
            result = .failure(error)
        case (.keptConnectionUnreachable, .failure(var error)) where error.delivery.rodeKeptConnection == true:
            error.delivery = .neverSent
            result = .failure(error)
        case (.noAlreadyProcessedRule, .success(var response))
        where String(decoding: response.body, as: UTF8.self).contains(#""status":"FAILED""#):
            let text = String(decoding: response.body, as: UTF8.self)
            response.body = Array(text.replacingOccurrences(of: "PAYMENT_ALREADY_PROCESSED", with: "DECLINED").utf8)
            result = .success(response)
        default: break
        }
        return GatewayAPI.event(for: call, result, paymentId: "p")
    }

    // MARK: Successors

    struct Step {
        var label: String
        var node: Node
        var violations: [String]
    }

    static func feed(
        _ node: Node, _ event: PaymentLifecycle.Event, _ label: String, mutate: (inout World) -> Void = { _ in }
    )
        -> Step
    {
        var next = node
        mutate(&next.world)
        var violations: [String] = []
        let effects = next.run.handle(event)
        apply(effects, to: &next, violations: &violations)
        return Step(label: label, node: next, violations: violations)
    }

    static func successors(_ node: Node, _ scenario: Scenario) -> [Step] {
        var steps: [Step] = []
        let world = node.world
        guard world.delivered.isEmpty else { return [] }
        let canFault = world.faults < scenario.faultBudget
        if let (token, call) = node.pendingCall, node.recoveryWithheld {
            var base = node
            base.pendingCall = nil
            base.recoveryWithheld = false
            let event = classify(call, .failure(withheldRecovery), node.mutation)
            return [feed(base, .answered(token: token, event), "\(call) withheld (mutation)")]
        }
        if let (token, call) = node.pendingCall {
            var base = node
            base.pendingCall = nil
            /// The answer, and (within the fault budget) the failure instead.
            func answer(_ ok: FlowEvent, _ okLabel: String, orFail failed: FlowEvent, _ failLabel: String) {
                steps.append(feed(base, .answered(token: token, ok), okLabel))
                guard canFault else { return }
                steps.append(
                    feed(base, .answered(token: token, failed), failLabel) {
                        $0.faults += 1
                        $0.disturbed = true
                    })
            }
            let down = FlowError(.networkError, "x")
            switch call {
            case .keySet:
                answer(
                    .keyFetched(.success(.init(key: key, maxAge: 300))), "key ok", orFail: .keyFetched(.failure(down)),
                    "key fails")
            case .statusLookup:
                let body = #"{"paymentId":"p","paymentStatus":"\#(world.status)","orderNumber":"o"}"#
                answer(
                    classify(call, json(200, body), node.mutation), "status \(world.status)",
                    orFail: classify(call, .failure(TransportError(.timeout, "timed out")), node.mutation),
                    "lookup fails")
            case .readSession:
                var w = world
                let read = classify(call, apply(call, scenario, &w), node.mutation)
                steps.append(feed(base, .answered(token: token, read), "read ok"))
                if canFault {
                    let lost = classify(
                        call, .failure(TransportError(.reset, "reset", delivery: .unknown)), node.mutation)
                    steps.append(
                        feed(base, .answered(token: token, lost), "read fails") {
                            $0.faults += 1
                            $0.disturbed = true
                        })
                }
            case .createSession, .authenticate, .challengeResult:
                for fate in Fate.allCases where canFault || !fate.isFault {
                    if fate == .inProgress, case .challengeResult = call { continue }
                    if fate == .alreadyProcessed, case .challengeResult = call { continue }
                    var next = base
                    if fate.isFault { recordFault(on: call, blinding: fate.blinds, &next.world) }
                    let result = wire(call, fate, scenario, node.mutation, &next.world)
                    let event = classify(call, result, node.mutation)
                    steps.append(feed(next, .answered(token: token, event), "\(call) \(fate)"))
                }
                if case .createSession = call, canFault {
                    // The key rotated: the gateway refuses the card unread (the SDK refetches the key). To a
                    // resent creation it is a second fault on the step: the SDK may not know.
                    let event = classify(call, gatewayError(422, "UNKNOWN_KEY"), node.mutation)
                    steps.append(
                        feed(base, .answered(token: token, event), "UNKNOWN_KEY") {
                            recordFault(on: call, blinding: false, &$0)
                        })
                }
            }
            // The watchdog fires first (the request may or may not have been applied).
            if canFault {
                steps.append(
                    feed(base, .timerFired(.operation(token)), "watchdog, not applied") {
                        recordFault(on: call, blinding: false, &$0)
                    })
                if !call.isIdempotent {
                    var applied = base
                    _ = apply(call, scenario, &applied.world)
                    steps.append(
                        feed(applied, .timerFired(.operation(token)), "watchdog, applied") {
                            recordFault(on: call, blinding: false, &$0)
                        })
                }
            }
        }
        if let (token, kind) = node.pendingOther {
            var base = node
            base.pendingOther = nil
            if kind == "encrypt" {
                steps.append(feed(base, .answered(token: token, .encrypted(.success("jwe"))), "encrypted"))
            } else if kind == "browser" {
                // The presenter reports a real browser, does not know, reports nonsense, or never answers.
                steps.append(feed(base, .answered(token: token, .browserReported(browserReport)), "browser reported"))
                steps.append(feed(base, .answered(token: token, .browserReported(nil)), "browser unknown"))
                var nonsense = browserReport
                nonsense.language = "not a language"
                steps.append(feed(base, .answered(token: token, .browserReported(nonsense)), "browser malformed"))
                steps.append(feed(base, .timerFired(.operation(token)), "presenter never reports"))
            } else {
                let status = world.status
                steps.append(
                    feed(
                        base, .answered(token: token, .statusResolved(.success(.init(paymentStatus: status)))),
                        "resolver"))
                steps.append(
                    feed(base, .timerFired(.operation(token)), "resolver never answers") { $0.disturbed = true })
            }
        }
        if let id = world.presenting {
            var base = node
            base.world.presenting = nil
            var shown = base
            shown.world.shown = id
            steps.append(feed(shown, .presented(pageId: id, shown: true), "shown"))
            steps.append(feed(base, .presented(pageId: id, shown: false), "not shown"))
            if canFault {
                steps.append(
                    feed(shown, .timerFired(.presentAnswer(id)), "presenter never answers") {
                        $0.faults += 1
                        $0.disturbed = true
                    })
            }
            // The page's events may come before the presenter's answer to `present`.
            steps += pageSteps(node, id, scenario)
        }
        if let id = world.dismissing {
            var base = node
            base.world.dismissing = nil
            steps.append(feed(base, .dismissed(pageId: id), "dismissed"))
            if canFault {
                steps.append(
                    feed(base, .timerFired(.dismissAnswer(id)), "dismissal never completes") {
                        $0.faults += 1
                        $0.disturbed = true
                    })
            }
        }
        if let id = world.shown {
            steps += pageSteps(node, id, scenario)
        }
        if let token = world.gate {
            var base = node
            base.world.gate = nil
            steps.append(feed(base, .gateAnswered(token: token, .proceed), "gate proceeds"))
            steps.append(feed(base, .gateAnswered(token: token, .cancel), "gate cancels") { $0.disturbed = true })
            steps.append(feed(base, .timerFired(.gate(token)), "gate never answers") { $0.disturbed = true })
        }
        if world.cancels == 0 && scenario.hostCancels {
            steps.append(
                feed(node, .cancel, "host cancel") {
                    $0.cancels += 1
                    $0.disturbed = true
                })
        }
        if world.post == .sent {
            // The buyer's POST reaches the gateway, whatever became of the page.
            var landed = node
            landed.world.post = .landed
            landed.world.status = world.postRecords
            steps.append(Step(label: "buyer's POST lands", node: landed, violations: []))
        }
        for timer in world.timers where timer.hasPrefix("pause") {
            let token = UInt64(timer.split(separator: " ").last!)!
            steps.append(feed(node, .timerFired(.pause(token)), "pause over") { $0.timers.remove(timer) })
        }
        return steps
    }

    static func pageSteps(_ node: Node, _ id: UInt64, _ scenario: Scenario) -> [Step] {
        var steps: [Step] = []
        let canFault = node.world.faults < scenario.faultBudget
        if node.world.timers.contains(timerName(.pageDeadline(id))) {
            steps.append(
                feed(node, .timerFired(.pageDeadline(id)), "page deadline") {
                    $0.timers.remove(timerName(.pageDeadline(id)))
                })
        }
        guard !node.world.pageEnded else { return steps }
        if node.world.methodPage {
            return steps + methodPageSteps(node, id, canFault: canFault)
        }
        steps.append(feed(node, .pageClosed(pageId: id), "buyer closes") { $0.pageEnded = true })
        if canFault {
            steps.append(
                feed(node, .pageFailed(pageId: id, URL(string: "https://x")!, reason: "reset"), "page fails") {
                    $0.faults += 1
                    $0.disturbed = true
                    $0.pageEnded = true
                })
        }
        if scenario.card != nil {
            if case .challengeRequired(nil) = node.world.session {
                for right in [true, false] {
                    var answered = node
                    answered.world.session = .challengeRequired(answer: right)
                    // The buyer's answer reaches the issuer; the page may or may not make it back.
                    steps.append(Step(label: "buyer answers \(right)", node: answered, violations: []))
                }
            } else if case .challengeRequired(.some) = node.world.session, !node.world.notificationReached {
                steps.append(
                    feed(
                        node, .navigation(pageId: id, notification, request: 98, method: "POST"),
                        "issuer sends the buyer back"
                    ) {
                        $0.notificationReached = true
                    })
            } else if node.world.notificationReached {
                steps.append(
                    feed(node, .pageLoaded(pageId: id, notification), "notification loaded") { $0.pageEnded = true })
                steps += lateLoadStep(node, id, of: acs)
            }
            return steps
        }
        // The page's own load is asked about and reported, or not (a presenter reports loads in its own
        // order, late, or never): the buyer may act either way.
        if !node.world.pageLoaded && node.world.post == .none {
            var loaded = node
            loaded.world.pageLoaded = true
            steps.append(
                feed(loaded, .navigation(pageId: id, checkoutURL, request: ownLoadRequest, method: "GET"), "own load"))
            steps.append(feed(loaded, .pageLoaded(pageId: id, checkoutURL), "page loaded"))
        }
        switch node.world.post {
        case .none:
            for status in ["SETTLED", "CANCELLED"] {
                steps.append(
                    feed(
                        node, .navigation(pageId: id, checkoutURL, request: postRequest, method: "POST"),
                        "buyer presses \(status)"
                    ) {
                        $0.post = .asking
                        $0.postRecords = status
                    })
            }
            steps += scriptedPostSteps(node, id)
        case .landed:
            // The gateway's 303 to the shop.
            steps.append(
                feed(node, .navigation(pageId: id, returnURL, request: 99), "return URL") { $0.pageEnded = true })
        case .asking, .sent:
            break
        }
        return steps
    }

    /// A presenter's honest report (a WebKit view on a 1920×1080 screen).
    static let browserReport = ThreeDSBrowserData(
        userAgent: "Mozilla/5.0", acceptHeader: "text/html", language: "en-GB", timeZoneOffsetMinutes: 0,
        javascriptEnabled: true, javaEnabled: false, screenWidth: 1920, screenHeight: 1080, colorDepth: 24,
        challengeWindowSize: .size500x600)
    static let methodNotification = GatewayAPI.methodNotificationURL(checkoutBaseURL: base, sessionId: "s")!

    /// The invisible method page: nobody closes it; its ACS posts to the method notification URL, or
    /// never does (a hanging page: only the 10 s deadline ends it); that load ends, or is never reported;
    /// it may fail.
    static func methodPageSteps(_ node: Node, _ id: UInt64, canFault: Bool) -> [Step] {
        var steps: [Step] = []
        if canFault {
            steps.append(
                feed(node, .pageFailed(pageId: id, methodACS, reason: "reset"), "method fails") {
                    $0.faults += 1
                    $0.pageEnded = true
                })
        }
        if node.world.methodHangs { return steps }
        if !node.world.methodNotified {
            var hanging = node
            hanging.world.methodHangs = true
            steps.append(Step(label: "ACS never notifies", node: hanging, violations: []))
            steps.append(
                feed(node, .navigation(pageId: id, methodNotification, request: 95, method: "POST"), "ACS notifies") {
                    $0.methodNotified = true
                })
        } else {
            steps.append(
                feed(node, .pageLoaded(pageId: id, methodNotification), "notification loaded") { $0.pageEnded = true })
            steps += lateLoadStep(node, id, of: methodACS)
        }
        return steps
    }

    /// The issuer's page (`url`) posted on to a notification URL and its own load is reported only now.
    /// The notification's POST is still on its way: a page dismissed on this load cuts it before it
    /// reaches the gateway (a method then says `Y` the gateway never heard; a challenge's `cres` is lost).
    static func lateLoadStep(_ node: Node, _ id: UInt64, of url: URL) -> [Step] {
        guard !node.world.lateLoadReported else { return [] }
        var step = feed(node, .pageLoaded(pageId: id, url), "issuer page's own load, late") {
            $0.lateLoadReported = true
        }
        if step.node.world.dismissing == id && node.world.dismissing != id {
            step.violations.append("dismissed the page on an earlier page's late load: the notification POST was cut")
        }
        return [step]
    }

    // MARK: The walk

    struct Totals: Sendable {
        var states = 0
        var paths: Double = 0
        var violations: [String] = []
    }

    /// A bound that keeps a mistake in the model from running away (the scenarios stay far below it).
    static let stateLimit = ProcessInfo.processInfo.environment["EGW_EXPLORE_LIMIT"].flatMap(Int.init) ?? 400_000

    static func explore(_ scenario: Scenario) -> Totals {
        var memo: [World: Double] = [:]
        var onStack: Set<World> = []
        var totals = Totals()
        var start = Node(
            run: newRun(scenario), world: World(card: scenario.card), mutation: scenario.mutation,
            checksTimers: scenario.checksTimers)
        // With no lookup, nothing can tell the SDK how a hosted payment ended: precision is not asked.
        start.world.disturbed = scenario.card == nil && scenario.statusSource == .none
        var startViolations: [String] = []
        apply(start.run.handle(.start(cachedKey: nil)), to: &start, violations: &startViolations)
        func visit(_ node: Node, _ trail: [String]) -> Double {
            var key = node.world
            key.run = node.run.description
            if let known = memo[key] { return known }
            if onStack.contains(key) { return 0 }  // a step that changed nothing: not a new path
            if totals.states >= stateLimit {
                if totals.violations.last != "state limit" { totals.violations.append("state limit") }
                return 0
            }
            onStack.insert(key)
            defer { onStack.remove(key) }
            totals.states += 1
            if totals.states % 5000 == 0 {
                FileHandle.standardError.write(Data("explore \(scenario): \(totals.states) states\n".utf8))
            }
            let steps = successors(node, scenario)
            var paths: Double = 0
            if steps.isEmpty {
                if ProcessInfo.processInfo.environment["EGW_EXPLORE_DEBUG"] != nil {
                    FileHandle.standardError.write(Data("END \(trail.joined(separator: " > "))\n".utf8))
                }
                paths = 1
                if node.world.delivered.count != 1 {
                    totals.violations.append(
                        "\(scenario): \(node.world.delivered.count) deliveries, waiting with nothing pending: "
                            + trail.suffix(12).joined(separator: " > ") + " | \(node.run)")
                }
            }
            for step in steps {
                if !step.violations.isEmpty {
                    totals.violations.append(
                        "\(scenario): \(step.violations.joined(separator: "; ")) after "
                            + (trail + [step.label]).suffix(12).joined(separator: " > "))
                    continue
                }
                if step.node.world.delivered.count > 1 {
                    totals.violations.append(
                        "\(scenario): two deliveries after "
                            + (trail + [step.label]).suffix(12).joined(separator: " > "))
                    continue
                }
                if step.node.world.delivered.isEmpty && step.node.run.isStuck {
                    totals.violations.append(
                        "\(scenario): stuck after " + (trail + [step.label]).suffix(12).joined(separator: " > "))
                }
                paths += visit(step.node, trail + [step.label])
                if totals.violations.count > 20 { break }
            }
            memo[key] = paths
            return paths
        }
        totals.paths = visit(start, ["start"])
        totals.violations += startViolations
        return totals
    }

    static let scenarios: [Scenario] = [
        Scenario(name: "card frictionless", card: .frictionless),
        Scenario(name: "card challenge", card: .challenge),
        Scenario(name: "card declined", card: .declined),
        Scenario(name: "card without 3-D Secure", card: .noThreeDS),
        Scenario(name: "card with a 3DS Method", card: .method, faultBudget: 1),
        Scenario(name: "card with a 3DS Method, no host cancel", card: .method, faultBudget: 0, hostCancels: false),
        Scenario(name: "card challenge, gated", card: .challenge, gated: true, faultBudget: 1),
        Scenario(name: "card frictionless, transport reports nothing", card: .frictionless, transportReport: .nothing),
        Scenario(name: "hosted, built-in lookup", card: nil),
        Scenario(name: "hosted, resolver", card: nil, statusSource: .resolver),
        Scenario(name: "hosted, no lookup", card: nil, statusSource: .none),
        Scenario(name: "hosted, gated", card: nil, gated: true, faultBudget: 1),
    ]

    @Test(arguments: scenarios)
    func everyInterleavingKeepsTheContract(scenario: Scenario) {
        if let only = ProcessInfo.processInfo.environment["EGW_EXPLORE_ONLY"], only != scenario.name { return }
        // The walk is recursive and deep: it gets a thread with a large stack of its own.
        let totals = StateExplorer.onLargeStack { Self.explore(scenario) }
        print("RunExploration \(scenario): \(totals.states) states, \(Int(totals.paths)) complete paths")
        #expect(totals.states > 10)
        #expect(totals.violations.isEmpty, "\(totals.violations.prefix(5).joined(separator: "\n"))")
    }

    /// Without its 10 s deadline a method page whose ACS never notifies leaves the run waiting for ever:
    /// the walk finds that end (a path with no delivery), not only the missing timer.
    @Test func aMethodWithoutItsDeadlineHangs() throws {
        var scenario = try #require(Self.scenarios.first { $0.name == "card with a 3DS Method, no host cancel" })
        scenario.mutation = .skipsMethodDeadline
        scenario.checksTimers = false
        let mutated = scenario
        let totals = StateExplorer.onLargeStack { Self.explore(mutated) }
        let hang = totals.violations.first { $0.contains("waiting with nothing pending") }
        print("RunExploration skipsMethodDeadline without cancel: " + (hang ?? "no hang found"))
        #expect(hang != nil)
    }

    /// The invariants bite: each deliberate bug, run through the scenarios it concerns, breaks them.
    @Test(arguments: [
        (Mutation.alwaysUnresolved, "card frictionless"),
        (Mutation.alwaysUnresolved, "hosted, built-in lookup"),
        (Mutation.timeoutsUnreachable, "card frictionless"),
        (Mutation.keptConnectionUnreachable, "card frictionless"),
        (Mutation.noAlreadyProcessedRule, "card frictionless"),
        (Mutation.noRecovery, "card frictionless"),
        (Mutation.refusedConnectNeverSent, "card frictionless"),
        (Mutation.ignoresPageRequests, "hosted, built-in lookup"),
        (Mutation.ignoresPageRequests, "hosted, no lookup"),
        (Mutation.skipsMethodDeadline, "card with a 3DS Method"),
    ])
    func mutationsAreCaught(mutation: Mutation, scenarioName: String) throws {
        var scenario = try #require(Self.scenarios.first { $0.name == scenarioName })
        scenario.mutation = mutation
        scenario.faultBudget = 1
        let mutated = scenario
        let totals = StateExplorer.onLargeStack { Self.explore(mutated) }
        print(
            "RunExploration mutation \(mutation) on \(scenarioName): \(totals.violations.count) violations, first: "
                + (totals.violations.first ?? "none"))
        #expect(!totals.violations.isEmpty, "the mutation \(mutation) went unnoticed")
    }
}
