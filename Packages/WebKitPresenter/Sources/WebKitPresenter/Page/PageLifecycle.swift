internal import EGWWire
import Foundation
import PaymentFlow

/// One presented page's life, as a value: events in, what to do out
/// (PageLifecycleSteps.swift), run by the one lifecycle runtime on the GTK
/// thread; this type does no I/O. The steps below are its parts, each a rule
/// of its own (PageLifecycleTests).
///
/// A page is `open` until the first of: the SDK cancels a navigation, the
/// page fails to load, the buyer closes it (`stopped`, after which nothing
/// more is reported and nothing is loaded), or `dismiss` (`dismissed`).
struct PageLifecycle: Sendable {
    /// The page asked for (its URL stands for the page where WebKit names none).
    let request: PageRequest
    /// The kit's rules for where the page may go.
    let trust: PageTrust
    /// Whether a scripted buyer answers the page (tests and the REPL); else no buyer round asks anyone.
    let hasBuyer: Bool

    init(request: PageRequest, trust: PageTrust, hasBuyer: Bool) {
        self.request = request
        self.trust = trust
        self.hasBuyer = hasBuyer
    }

    enum Ending: Equatable {
        case cancelledBySDK
        case failed
        case closedByBuyer
    }

    enum Phase: Equatable {
        case open
        case stopped(Ending)
        case dismissed
    }

    /// What to do with a navigation WebKit asks about.
    enum NavigationAction: Equatable {
        /// Ask the SDK; its answer comes back as `decided(id:_:)`.
        case ask(id: UInt64)
        /// Ignore it, silently (the page is no longer open).
        case refuse
        /// Ignore it and report the page failed with `reason`.
        case refuseAndFail(reason: String)
    }

    /// What to do with the SDK's answer.
    enum DecisionAction: Equatable {
        case load
        case ignore
        /// Already answered by `dismiss` (or never asked): touch nothing.
        case drop
    }

    /// What to tell the handler.
    enum Report: Equatable {
        case none
        case finished
        case failed(reason: String)
        case closedByBuyer
        /// The page's web process ended: the presenter can no longer show it.
        case terminated(reason: String)
    }

    /// A question to the SDK not answered yet: the WebKit decision it holds, and where it goes.
    struct Question: Sendable {
        var decision: Decision
        var url: URL
    }

    private(set) var phase = Phase.open
    private var lastDecision: UInt64 = 0
    /// The questions the SDK has not answered yet, by id.
    private(set) var pending: [UInt64: Question] = [:]
    private var buyerRound: UInt64 = 0
    /// A navigation that replaces the shown document (a form submitted, a link followed) was asked
    /// about and no new document has committed since: the shown one is going. WebKit can report its
    /// load finished after its own script submitted a hand-back form, and that late report starts no
    /// buyer round (a person would not act on a page already on its way out).
    private(set) var leavingDocument = false
    // The shown document's one buyer round: once it has both finished loading and been described by
    // the watch script, in either order.
    private var documentFinished = false
    private var description: RenderedPage?
    private var askedAboutDocument = false
    /// The current round's buyer was asked.
    private var buyerAsked = false
    /// Our own document that posts the request's form (an `about:blank` page) is loading: its own
    /// navigation is used without asking the SDK, and its load and description count for nothing.
    private(set) var bootstrapping = false

    var isOpen: Bool { phase == .open }

    /// Asking about a navigation ends the shown document's buyer round (as ``loadStarted()`` does).
    /// `leavesDocument`: the navigation replaces the shown document (WebKit's link, form, reload or
    /// history navigations); an iframe's own load or a script's location change does not say so.
    /// `question`: what the SDK is asked about (kept until it answers or the page is dismissed).
    mutating func navigationRequested(
        _ question: Question, problem: String?, leavesDocument: Bool = false
    ) -> NavigationAction {
        switch phase {
        case .open:
            if let problem {
                phase = .stopped(.failed)
                return .refuseAndFail(reason: problem)
            }
            lastDecision += 1
            pending[lastDecision] = question
            // The shown document may be going: its buyer round is stale even while the SDK decides.
            loadStarted()
            if leavesDocument { leavingDocument = true }
            return .ask(id: lastDecision)
        case .stopped, .dismissed:
            return .refuse
        }
    }

    mutating func decided(id: UInt64, _ decision: NavigationDecision) -> DecisionAction {
        guard pending.removeValue(forKey: id) != nil else { return .drop }
        switch (phase, decision) {
        case (.open, .allow): return .load
        case (.open, .cancel):
            phase = .stopped(.cancelledBySDK)
            return .ignore
        case (.stopped, _), (.dismissed, _): return .ignore
        }
    }

    /// The shown document is going (a main-frame load started, or a navigation away was asked about):
    /// any buyer round under way is for a page that is going, and the next document starts afresh.
    mutating func loadStarted() {
        buyerRound += 1
        (documentFinished, description, askedAboutDocument) = (false, nil, false)
    }

    /// The watch script described the shown document (as a person sees it); the bootstrap document's
    /// description counts for nothing.
    mutating func described(_ page: RenderedPage) {
        guard !bootstrapping else { return }
        description = page
    }

    /// The page starts with our own document posting the request's form.
    mutating func bootstrapStarted() { bootstrapping = true }

    /// Whether a navigation to `uri` is the bootstrap document's own, to use without asking; any other
    /// navigation ends the bootstrap (the form's POST is the first one the SDK is asked about).
    mutating func isBootstrapNavigation(_ uri: String) -> Bool {
        if bootstrapping, uri == "about:blank" { return true }
        bootstrapping = false
        return false
    }

    /// A new main-frame document committed: the document that was leaving has gone.
    mutating func documentCommitted() { leavingDocument = false }

    /// A navigation replaced no document after all (a subframe's response, a download): the shown
    /// document stays.
    mutating func navigationStayed() { leavingDocument = false }

    mutating func loadFinished() -> Report {
        guard isOpen, !bootstrapping else { return .none }
        documentFinished = true
        return .finished
    }

    mutating func loadFailed(reason: String) -> Report {
        guard isOpen else { return .none }
        phase = .stopped(.failed)
        return .failed(reason: reason)
    }

    /// The view's web process ended while the page was open: reported once, then the page is stopped.
    mutating func webProcessEnded(reason: String) -> Report {
        guard isOpen else { return .none }
        phase = .stopped(.failed)
        return .terminated(reason: reason)
    }

    mutating func buyerClosed() -> Report {
        guard isOpen else { return .none }
        phase = .stopped(.closedByBuyer)
        return .closedByBuyer
    }

    /// The page is going: the questions still pending, in the order asked, their decisions to be ignored.
    mutating func dismiss() -> [(id: UInt64, question: Question)] {
        phase = .dismissed
        buyerRound += 1
        defer { pending = [:] }
        return pending.sorted { $0.key < $1.key }.map { (id: $0.key, question: $0.value) }
    }

    /// The buyer round to start now, with the page to ask about: once per document, when it finished
    /// loading and was described, while the page is open and the document is not leaving; else nil.
    mutating func nextBuyerRound() -> (round: UInt64, page: RenderedPage)? {
        guard isOpen, !leavingDocument, documentFinished, !askedAboutDocument, let description else { return nil }
        askedAboutDocument = true
        buyerRound += 1
        buyerAsked = false
        return (buyerRound, description)
    }

    /// Whether `round` is the round ``nextBuyerRound()`` last started, still current, the page still open.
    func isCurrent(round: UInt64) -> Bool { isOpen && askedAboutDocument && round == buyerRound }

    /// Whether a buyer's answer for `round` is one the page waits for: the round is current and its buyer
    /// was asked.
    func awaitsBuyer(round: UInt64) -> Bool { isCurrent(round: round) && buyerAsked }

    /// Whether the buyer is to be asked now in `round`: once per round, while it is current.
    mutating func asksBuyer(round: UInt64) -> Bool {
        guard isCurrent(round: round), !buyerAsked else { return false }
        buyerAsked = true
        return true
    }

    /// Everything that decides the page's next steps, in one canonical string (sets and tables sorted):
    /// what an exploration visits each state of the page once by.
    var stateKey: String {
        let pending = pending.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value.decision.id):\($0.value.url)" }
        return "\(phase) \(lastDecision) \(pending) \(buyerRound) \(leavingDocument) "
            + "\(documentFinished) \(description?.url.absoluteString ?? "-") \(askedAboutDocument) \(buyerAsked) "
            + "\(bootstrapping)"
    }

    /// `scheme://host[:port]`: whose page it is (the window's title names it).
    static func origin(of url: URL) -> String {
        var origin = "\(url.scheme ?? "")://\(url.host ?? "")"
        if let port = url.port { origin += ":\(port)" }
        return origin
    }

    /// A document that posts `fields` to `url` as soon as it loads (how a browser starts a challenge).
    /// Names, values and the URL go through EGWWire's one HTML escaper.
    static func autoPostDocument(to url: URL, fields: [(name: String, value: String)]) -> String {
        let escape = HTMLEscaping.escape
        let inputs = fields.map { "<input type=\"hidden\" name=\"\(escape($0.name))\" value=\"\(escape($0.value))\">" }
        return """
            <!DOCTYPE html>
            <html><head><meta charset="utf-8"><title></title></head><body>
            <form id="egw-start" method="post" action="\(escape(url.absoluteString))">\(inputs.joined())</form>
            <script>document.getElementById("egw-start").submit();</script>
            </body></html>
            """
    }
}
