import Foundation
import PaymentFlow
import Testing

@testable import WebKitPresenter

/// The page lifecycle's guarantees over random runs: WebKit, the relay, the SDK and a scripted buyer say
/// things in any order (stale answers, repeated closes, late loads), then the page is dismissed. The
/// checks read only the effects that came out, the way WebKit and the SDK would see them; the model
/// keeps its own books (which decisions it handed in, which questions and rounds it was shown) and never
/// asks the lifecycle what it believes.
///
/// Guarantees: every decision handed in is answered exactly once, and none that was not; the page's end
/// (failed, closed by the buyer, terminated) is told at most once, and after it no load is reported
/// finished, no question is asked and no buyer is asked; the view is torn down exactly once, at the
/// dismissal, and after it nothing happens but ignoring a decision; a buyer is asked once per round it
/// was shown a screenshot for, and a script runs only for a round the buyer was asked in.
@Suite struct PageLifecycleInvariantTests {
    static let runs = 3_000

    @Test func randomRunsKeepEveryGuarantee() {
        var generator = SplitMix(seed: 0x5EED_0F_9A9E)
        var violations: [String] = []
        for run in 0..<Self.runs {
            var world = World(generator: &generator)
            let found = world.play(generator: &generator)
            if !found.isEmpty { violations.append("run \(run): \(found.joined(separator: "; "))\n\(world.log)") }
            if violations.count >= 3 { break }
        }
        #expect(violations.isEmpty, "\(violations.joined(separator: "\n\n"))")
    }

    /// One page and what was seen of it.
    struct World {
        var page: PageLifecycle
        var nextDecision: UInt64 = 0
        var handedIn: Set<UInt64> = []
        var answered: [UInt64: Int] = [:]
        var questions: [UInt64] = []
        var screenshots: [UInt64: RenderedPage] = [:]
        var askedRounds: [UInt64: Int] = [:]
        var endings = 0
        var tornDown = 0
        var log = ""
        var violations: [String] = []

        init(generator: inout SplitMix) {
            let form: [(name: String, value: String)]? =
                generator.next(2) == 0 ? nil : [(name: "creq", value: "e30")]
            page = .fresh(formFields: form)
        }

        mutating func play(generator: inout SplitMix) -> [String] {
            apply(.start(relayMissing: generator.next(20) == 0))
            for _ in 0..<generator.next(40) {
                if violations.count > 0 { break }
                apply(randomEvent(&generator))
            }
            apply(.dismiss(reporting: generator.next(2) == 0))
            for _ in 0..<generator.next(4) { apply(randomEvent(&generator)) }
            for id in handedIn where answered[id] != 1 {
                violations.append("decision d\(id) answered \(answered[id] ?? 0) times")
            }
            if tornDown != 1 { violations.append("torn down \(tornDown) times") }
            return violations
        }

        mutating func decision() -> PageLifecycle.Decision {
            nextDecision += 1
            handedIn.insert(nextDecision)
            return .init(id: nextDecision)
        }

        mutating func randomEvent(_ g: inout SplitMix) -> PageLifecycle.Event {
            let uris = [
                "https://acs.example/challenge", "https://acs.example/complete", "about:blank",
                "http://acs.example/plain", "javascript:void(0)", "http://[",
            ]
            let uri = uris[g.next(uris.count)]
            switch g.next(19) {
            case 0: return .navigation(decision(), uri: uri, leavesDocument: g.next(2) == 0, method: "POST")
            case 1:
                return .response(
                    decision(), uri: uri, status: [200, 404, 502][g.next(3)], mainFrame: g.next(2) == 0,
                    download: g.next(4) == 0, relayRefusal: g.next(3) == 0 ? "pinned" : nil)
            case 2: return .newWindow(g.next(2) == 0 ? decision() : nil, uri: uri)
            case 3:
                let question =
                    questions.isEmpty || g.next(5) == 0 ? UInt64(g.next(9)) : questions[g.next(questions.count)]
                return .decided(question: question, g.next(3) == 0 ? .cancel : .allow)
            case 4: return .load([.started, .redirected, .committed][g.next(3)])
            case 5, 6: return .load(.finished(uri: uri))
            case 7:
                let kind: PageLifecycle.FailKind = [.interrupted, .tls(flags: 8), .other][g.next(3)]
                return .loadFailed(kind, uri: uri, message: "m", relayRefusal: nil)
            case 8: return .relayRefused(host: "acs.example", port: 443, reason: "pin")
            case 9: return .closeRequested
            case 10: return .sent(method: "POST", uri: uri)
            case 11: return .webProcessEnded(how: "crashed")
            case 12, 13:
                return .described(
                    json: #"{"title":"T","url":"\#(uri)","html":"","codeFields":1,"buttons":["OK"]}"#)
            case 14:
                guard let (round, page) = screenshots.randomElement(using: &g) else { return .closeRequested }
                return .screenshotDone(round: round, page)
            case 15, 16:
                let round = askedRounds.keys.randomElement(using: &g) ?? UInt64(g.next(5))
                let action: PageAction = [.enterCode("123456"), .wait, .close, .press(labels: ["OK"])][g.next(4)]
                return .buyerAnswered(round: round, action, url: URL(string: "https://acs.example/challenge")!)
            case 17:
                let round = askedRounds.keys.randomElement(using: &g) ?? 1
                return .scriptAnswered(
                    round: round, .press(labels: ["OK"]), url: URL(string: "https://acs.example/challenge")!,
                    value: ["ok", "no such button", nil][g.next(3)], error: nil)
            default: return .actRefused(.dialog(.confirm, messageLength: 3), shownURI: nil)
            }
        }

        mutating func apply(_ event: PageLifecycle.Event) {
            let effects = page.handle(event)
            log += "\(event) → \(effects.map(PageLifecycleTableTests.describe))\n"
            let dismissedBefore = tornDown > 0
            for effect in effects {
                if dismissedBefore {
                    if case .ignore = effect {} else { violations.append("after the dismissal: \(effect)") }
                }
                check(effect)
            }
        }

        mutating func check(_ effect: PageLifecycle.Effect) {
            switch effect {
            case .use(let d), .ignore(let d), .download(let d):
                if !handedIn.contains(d.id) { violations.append("answered \(d), never handed in") }
                answered[d.id, default: 0] += 1
                if answered[d.id]! > 1 { violations.append("\(d) answered twice") }
            case .tearDown:
                tornDown += 1
            case .tell(.failed), .tell(.closedByBuyer), .tell(.terminated):
                endings += 1
                if endings > 1 { violations.append("a second ending: \(effect)") }
            case .tell(.finished), .tell(.decide):
                if endings > 0 { violations.append("after the ending: \(effect)") }
                if case .tell(.decide(let question, _)) = effect { questions.append(question) }
            case .screenshot(let round, let page):
                if endings > 0 { violations.append("a round after the ending") }
                screenshots[round] = page
            case .askBuyer(let round, _):
                if endings > 0 { violations.append("the buyer asked after the ending") }
                if screenshots[round] == nil { violations.append("asked in round \(round) with no screenshot") }
                askedRounds[round, default: 0] += 1
                if askedRounds[round]! > 1 { violations.append("asked twice in round \(round)") }
            case .runScript(let round, _, _, _):
                if askedRounds[round] == nil { violations.append("a script for round \(round), never asked") }
                if endings > 0 { violations.append("a script after the ending") }
            default: break
            }
        }
    }
}

/// A small seeded generator (SplitMix64), so a failing run can be replayed.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func next(_ bound: Int) -> Int { Int(next() % UInt64(max(bound, 1))) }
}
