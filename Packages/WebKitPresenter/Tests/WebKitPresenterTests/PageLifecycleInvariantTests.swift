import EGWWire
import Foundation
import PaymentFlow
import StateExplorer
import Testing

@testable import WebKitPresenter

/// The page lifecycle's guarantees over every ordering up to a depth (TestSupport's one StateExplorer)
/// and over long random runs: WebKit, the relay, the SDK and a scripted buyer say things in any order
/// (stale answers, repeated closes, late loads, callbacks after the dismissal). The checks read only
/// the effects that came out, the way WebKit and the SDK would see them; the model keeps its own books
/// (which decisions it handed in, which questions and rounds it was shown) and never asks the lifecycle
/// what it believes.
///
/// Guarantees: every decision handed in is answered exactly once by the end (the dismissal), and none
/// that was not; the page's end (failed, closed by the buyer, terminated) is told at most once, and
/// after it no load is reported finished, no question asked and no buyer asked; the view is torn down
/// exactly once, at the dismissal, and after it nothing happens but ignoring a decision; a buyer is
/// asked once per round it was shown a screenshot for, and a script runs only for a round the buyer
/// was asked in.
@Suite struct PageLifecycleInvariantTests {
    /// Every ordering of up to 7 events from three starting points (a fresh page, one posting its form
    /// from the bootstrap document, and one whose buyer round has started), each state once.
    @Test func everyOrderingUpToTheDepthKeepsEveryGuarantee() {
        var total = ExplorationTotals()
        for start in PageWorld.starts {
            let totals = StateExplorer.breadthFirst(
                from: start, depth: 7, fingerprint: \.fingerprint, successors: \.successors,
                violations: \.violationsSettledOrNot, maximumViolations: 5)
            total.states += totals.states
            total.transitions += totals.transitions
            total.violations += totals.violations
        }
        print("PageLifecycle exploration: \(total.states) states, \(total.transitions) transitions")
        #expect(total.violations.isEmpty, "\(total.violations.prefix(5).joined(separator: "\n"))")
        // The walk reached the rounds and the endings it is meant to (a floor, not a count to match).
        #expect(total.states > 30_000, "only \(total.states) states, \(total.transitions) transitions")
    }

    /// Long runs the exploration's depth does not reach, each choosing among the enabled events.
    @Test func randomRunsKeepEveryGuarantee() {
        var generator = SplitMix64(seed: 0x5EED_0F_9A9E)
        var failures: [String] = []
        for run in 0..<2_000 {
            var world = PageWorld.starts.randomElement(using: &generator)!
            world.keepsLog = true
            for _ in 0..<Int.random(in: 0..<40, using: &generator) {
                world.apply(world.enabled.randomElement(using: &generator)!)
            }
            world.settle()
            if !world.violations.isEmpty {
                failures.append("run \(run): \(world.violations.joined(separator: "; "))\n\(world.log)")
            }
            if failures.count >= 3 { break }
        }
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n\n"))")
    }
}

/// One page and what was seen of it.
struct PageWorld: EventDrivenWorld {
    typealias Event = PageLifecycle.Event
    static let challenge = "https://acs.example/challenge"
    static let complete = "https://acs.example/complete"

    var page: PageLifecycle
    var nextDecision: UInt64 = 0
    var handedIn: Set<UInt64> = []
    var answered: [UInt64: Int] = [:]
    /// Questions told to the SDK and not answered yet by this model, and the last one it answered.
    var openQuestions: [UInt64] = []
    var answeredQuestion: UInt64?
    var screenshots: [UInt64: RenderedPage] = [:]
    var askedRounds: [UInt64: Int] = [:]
    var scriptRounds: Set<UInt64> = []
    var endings = 0
    var tornDown = 0
    var violations: [String] = []
    var keepsLog = false
    var log = ""

    static let starts: [PageWorld] = {
        var fresh = PageWorld(page: .fresh())
        fresh.apply(.start(relayMissing: false))
        var posting = PageWorld(page: .fresh(formFields: [(name: "creq", value: "e30")]))
        posting.apply(.start(relayMissing: false))
        var round = fresh
        for event: Event in [.load(.started), .load(.committed), .load(.finished(uri: challenge)), described()] {
            round.apply(event)
        }
        return [fresh, posting, round]
    }()

    static func described() -> Event {
        .described(json: #"{"title":"T","url":"\#(challenge)","html":"","codeFields":1,"buttons":["OK"]}"#)
    }

    init(page: PageLifecycle) { self.page = page }

    var fingerprint: String {
        "\(page.stateKey)|\(nextDecision)|\(answered.sorted { $0.key < $1.key })|\(openQuestions)|\(answeredQuestion ?? 0)|"
            + "\(screenshots.keys.sorted())|\(askedRounds.sorted { $0.key < $1.key })|\(scriptRounds.sorted())|"
            + "\(endings)|\(tornDown)"
    }

    var enabled: [Event] {
        // Decisions are named when the event is applied (the next free name): the same event value in two
        // successors names the same decision, as the executor would.
        let next = PageLifecycle.Decision(id: nextDecision + 1)
        let url = URL(string: Self.challenge)!
        var events: [Event] = [
            .navigation(next, uri: Self.challenge, leavesDocument: true, method: "post"),
            .navigation(next, uri: "http://acs.example/plain", leavesDocument: true, method: nil),
            .response(next, uri: Self.complete, status: 500, mainFrame: true, download: false, relayRefusal: nil),
            .response(next, uri: Self.complete, status: 200, mainFrame: false, download: true, relayRefusal: nil),
            .newWindow(next, uri: "https://acs.example/help"),
            .load(.started), .load(.committed), .load(.finished(uri: Self.challenge)),
            .loadFailed(.other, uri: Self.complete, message: "gone", relayRefusal: nil),
            .closeRequested, .sent(method: "POST", uri: Self.complete), .webProcessEnded(how: "crashed"),
            Self.described(), .dismiss(reporting: true),
        ]
        for question in openQuestions {
            events += [.decided(question: question, .allow), .decided(question: question, .cancel)]
        }
        if let answeredQuestion { events.append(.decided(question: answeredQuestion, .allow)) }
        // A screenshot's end, and a buyer's answer that comes before the buyer was asked (never sent by
        // the executor, but the page must not act on one).
        for (round, shown) in screenshots.sorted(by: { $0.key < $1.key }) {
            events.append(.screenshotDone(round: round, shown))
            if askedRounds[round] == nil {
                events.append(.buyerAnswered(round: round, .press(labels: ["OK"]), url: url))
            }
        }
        for round in askedRounds.keys.sorted() {
            events += [
                .buyerAnswered(round: round, .enterCode("123456"), url: url),
                .buyerAnswered(round: round, .close, url: url),
            ]
        }
        for round in scriptRounds.sorted() {
            events.append(.scriptAnswered(round: round, .enterCode("123456"), url: url, value: "no", error: nil))
        }
        return events
    }

    mutating func apply(_ event: Event) {
        switch event {
        case .navigation(let d, _, _, _), .response(let d, _, _, _, _, _), .newWindow(.some(let d), _):
            nextDecision = max(nextDecision, d.id)
            handedIn.insert(d.id)
        case .decided(let question, _):
            if let index = openQuestions.firstIndex(of: question) {
                openQuestions.remove(at: index)
                answeredQuestion = question
            }
        default: break
        }
        let effects = page.handle(event)
        if keepsLog { log += "\(event) → \(effects.map(PageLifecycleTableTests.describe))\n" }
        let dismissedBefore = tornDown > 0
        for effect in effects {
            if dismissedBefore, !effect.isIgnore { violations.append("after the dismissal: \(effect)") }
            check(effect)
        }
    }

    /// The page is dismissed (if it was not), and every decision must have had its answer.
    mutating func settle() {
        if tornDown == 0 { apply(.dismiss(reporting: true)) }
        for id in handedIn.sorted() where answered[id] != 1 {
            violations.append("decision d\(id) answered \(answered[id] ?? 0) times")
        }
    }

    private mutating func check(_ effect: PageLifecycle.Effect) {
        switch effect {
        case .use(let d), .ignore(let d), .download(let d):
            if !handedIn.contains(d.id) { violations.append("answered \(d), never handed in") }
            answered[d.id, default: 0] += 1
            if answered[d.id]! > 1 { violations.append("\(d) answered twice") }
        case .tearDown:
            tornDown += 1
            if tornDown > 1 { violations.append("torn down twice") }
        case .tell(.failed), .tell(.closedByBuyer), .tell(.terminated):
            endings += 1
            if endings > 1 { violations.append("a second ending: \(effect)") }
        case .tell(.finished):
            if endings > 0 { violations.append("after the ending: \(effect)") }
        case .tell(.decide(let question, _)):
            if endings > 0 { violations.append("after the ending: \(effect)") }
            openQuestions.append(question)
        case .screenshot(let round, let shown):
            if endings > 0 { violations.append("a round after the ending") }
            screenshots[round] = shown
        case .askBuyer(let round, _):
            if endings > 0 { violations.append("the buyer asked after the ending") }
            if screenshots[round] == nil { violations.append("asked in round \(round) with no screenshot") }
            askedRounds[round, default: 0] += 1
            if askedRounds[round]! > 1 { violations.append("asked twice in round \(round)") }
        case .runScript(let round, _, _, _):
            if askedRounds[round] == nil { violations.append("a script for round \(round), never asked") }
            if endings > 0 { violations.append("a script after the ending") }
            scriptRounds.insert(round)
        default: break
        }
    }
}

extension PageLifecycle.Effect {
    fileprivate var isIgnore: Bool {
        if case .ignore = self { return true }
        return false
    }
}
