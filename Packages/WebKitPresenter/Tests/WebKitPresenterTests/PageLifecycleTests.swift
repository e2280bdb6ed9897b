import Foundation
import PaymentFlow
import XCTest

@testable import WebKitPresenter

extension PageLifecycle {
    /// A page of `https://acs.example/challenge`, plain http refused, with a scripted buyer.
    static func fresh(formFields: [(name: String, value: String)]? = nil) -> PageLifecycle {
        PageLifecycle(
            request: PageRequest(
                url: URL(string: "https://acs.example/challenge")!, formFields: formFields, purpose: .challenge),
            trust: PageTrust(allowsPlainHTTP: false), hasBuyer: true)
    }
}

extension PageLifecycle.Question {
    /// A question about a navigation, for the steps that do not look at it.
    static let sample = PageLifecycle.Question(decision: .init(id: 0), url: URL(string: "https://acs.example/next")!)
}

/// The page's lifecycle as a value, step by step: its parts' rules, no WebKit (the whole step, events in
/// and effects out, is PageLifecycleTableTests).
final class PageLifecycleTests: XCTestCase {
    func testAllowedNavigationLoadsAndItsPageIsReported() {
        var page = PageLifecycle.fresh()
        XCTAssertEqual(page.navigationRequested(.sample, problem: nil), .ask(id: 1))
        XCTAssertEqual(page.decided(id: 1, .allow), .load)
        XCTAssertEqual(page.loadFinished(), .finished)
        XCTAssertEqual(page.phase, .open)
    }

    func testCancelStopsThePage() {
        var page = PageLifecycle.fresh()
        _ = page.navigationRequested(.sample, problem: nil)
        XCTAssertEqual(page.decided(id: 1, .cancel), .ignore)
        XCTAssertEqual(page.phase, .stopped(.cancelledBySDK))
        XCTAssertEqual(
            page.navigationRequested(.sample, problem: nil), .refuse, "nothing is asked or loaded after a cancel")
        XCTAssertEqual(page.loadFinished(), .none)
        XCTAssertEqual(page.loadFailed(reason: "x"), .none)
        XCTAssertEqual(page.buyerClosed(), .none)
    }

    /// A web process that ends while the page is open is reported once, and stops the page; one that
    /// ends after the buyer closed it (or after the dismissal) is not news.
    func testAnEndedWebProcessIsReportedOnceWhileOpen() {
        var page = PageLifecycle.fresh()
        XCTAssertEqual(page.webProcessEnded(reason: "crashed"), .terminated(reason: "crashed"))
        XCTAssertEqual(page.phase, .stopped(.failed))
        XCTAssertEqual(page.webProcessEnded(reason: "crashed"), .none)
        XCTAssertEqual(page.buyerClosed(), .none)
        var closed = PageLifecycle.fresh()
        _ = closed.buyerClosed()
        XCTAssertEqual(closed.webProcessEnded(reason: "crashed"), .none)
        var dismissed = PageLifecycle.fresh()
        _ = dismissed.dismiss()
        XCTAssertEqual(dismissed.webProcessEnded(reason: "crashed"), .none)
    }

    func testTrustProblemFailsWithoutAsking() {
        var page = PageLifecycle.fresh()
        XCTAssertEqual(page.navigationRequested(.sample, problem: "no"), .refuseAndFail(reason: "no"))
        XCTAssertEqual(page.phase, .stopped(.failed))
        XCTAssertTrue(page.pending.isEmpty)
    }

    func testAnswersAreUsedOnceAndStaleOnesDropped() {
        var page = PageLifecycle.fresh()
        _ = page.navigationRequested(.sample, problem: nil)
        _ = page.navigationRequested(.sample, problem: nil)
        XCTAssertEqual(page.decided(id: 2, .allow), .load)
        XCTAssertEqual(page.decided(id: 2, .allow), .drop, "a second answer")
        XCTAssertEqual(page.decided(id: 9, .allow), .drop, "never asked")
        XCTAssertEqual(page.dismiss().map(\.id), [1])
        XCTAssertEqual(page.decided(id: 1, .allow), .drop, "answered by dismiss")
        XCTAssertEqual(page.phase, .dismissed)
    }

    func testFailureAndCloseAreReportedOnce() {
        var failing = PageLifecycle.fresh()
        XCTAssertEqual(failing.loadFailed(reason: "HTTP status 500"), .failed(reason: "HTTP status 500"))
        XCTAssertEqual(failing.buyerClosed(), .none)
        var closing = PageLifecycle.fresh()
        XCTAssertEqual(closing.buyerClosed(), .closedByBuyer)
        XCTAssertEqual(closing.buyerClosed(), .none)
        XCTAssertEqual(closing.loadFailed(reason: "late"), .none)
    }

    private static func page(_ path: String) -> RenderedPage {
        RenderedPage(
            url: URL(string: "https://acs.example\(path)")!, title: path, html: "", codeFieldCount: 1, buttonLabels: [])
    }

    /// The buyer is asked once per document, when it has both finished loading and been described by
    /// the watch script, whichever came first.
    func testTheBuyerIsAskedOncePerDocumentWhenItFinishedAndWasDescribed() {
        var finishedFirst = PageLifecycle.fresh()
        XCTAssertEqual(finishedFirst.loadFinished(), .finished)
        XCTAssertNil(finishedFirst.nextBuyerRound(), "not described yet")
        finishedFirst.described(Self.page("/challenge"))
        XCTAssertEqual(finishedFirst.nextBuyerRound()?.page.url.path, "/challenge")
        XCTAssertNil(finishedFirst.nextBuyerRound(), "asked once")
        finishedFirst.described(Self.page("/challenge"))
        XCTAssertNil(finishedFirst.nextBuyerRound(), "a second description of the same document asks nothing")

        var describedFirst = PageLifecycle.fresh()
        describedFirst.described(Self.page("/challenge"))
        XCTAssertNil(describedFirst.nextBuyerRound(), "not finished yet")
        _ = describedFirst.loadFinished()
        XCTAssertNotNil(describedFirst.nextBuyerRound())
    }

    /// A new load makes the old document's round stale and its description void; a closed page asks no
    /// more.
    func testBuyerRoundsEndWithTheirDocument() {
        var page = PageLifecycle.fresh()
        _ = page.loadFinished()
        page.described(Self.page("/first"))
        let first = try! XCTUnwrap(page.nextBuyerRound()).round
        XCTAssertTrue(page.isCurrent(round: first))
        page.loadStarted()
        XCTAssertFalse(page.isCurrent(round: first), "a new load makes the old page's answer stale")
        _ = page.loadFinished()
        XCTAssertNil(page.nextBuyerRound(), "the first document's description does not stand for the second")
        page.described(Self.page("/second"))
        let second = try! XCTUnwrap(page.nextBuyerRound())
        XCTAssertEqual(second.page.url.path, "/second")
        _ = page.buyerClosed()
        XCTAssertFalse(page.isCurrent(round: second.round))
        page.loadStarted()
        _ = page.loadFinished()
        page.described(Self.page("/third"))
        XCTAssertNil(page.nextBuyerRound(), "a closed page asks nothing")
    }

    /// The issuer's hand-back page submits its form from its own script; WebKit may report that page's
    /// load finished after the SDK allowed the POST and before the next document commits. No buyer
    /// round starts on it (a scripted buyer acting there raced the hand-back in CI), and the next
    /// document gets one.
    func testALateLoadOfADocumentBeingLeftStartsNoBuyerRound() {
        var page = PageLifecycle.fresh()
        page.described(Self.page("/acs-complete"))
        XCTAssertEqual(page.navigationRequested(.sample, problem: nil, leavesDocument: true), .ask(id: 1))
        page.described(Self.page("/acs-complete"))  // the watch script's description, arriving late
        XCTAssertEqual(page.decided(id: 1, .allow), .load)
        XCTAssertEqual(page.loadFinished(), .finished, "the late report still reaches the handler")
        XCTAssertNil(page.nextBuyerRound(), "the document is on its way out")
        page.loadStarted()
        page.documentCommitted()
        page.described(Self.page("/notification"))
        XCTAssertNil(page.nextBuyerRound(), "the new document has not finished")
        _ = page.loadFinished()
        XCTAssertEqual(page.nextBuyerRound()?.page.url.path, "/notification", "the new document is asked about")
    }

    /// WebKit asks about an iframe's src load as an "other" navigation, which leaves the shown
    /// document in place; so does a navigation that became a download or a subframe's response.
    func testNavigationsThatLeaveTheDocumentInPlaceKeepBuyerRounds() {
        var framed = PageLifecycle.fresh()
        _ = framed.navigationRequested(.sample, problem: nil, leavesDocument: false)  // the iframe, while parsing
        framed.described(Self.page("/with-frame"))
        _ = framed.loadFinished()
        XCTAssertNotNil(framed.nextBuyerRound())
        var downloaded = PageLifecycle.fresh()
        _ = downloaded.navigationRequested(.sample, problem: nil, leavesDocument: true)  // a link to a receipt file
        _ = downloaded.loadFinished()
        downloaded.described(Self.page("/shop"))
        XCTAssertNil(downloaded.nextBuyerRound(), "leaving, as far as anyone knows")
        downloaded.navigationStayed()
        XCTAssertNotNil(downloaded.nextBuyerRound(), "the download left the shop's page in place")
    }

    /// A challenge starts with our own about:blank document posting the form: its navigation is used
    /// without asking, its load and description count for nothing, and the form's POST is the first
    /// navigation the SDK is asked about.
    func testTheBootstrapDocumentIsNeitherAskedAboutNorReported() {
        var page = PageLifecycle.fresh()
        page.bootstrapStarted()
        XCTAssertTrue(page.isBootstrapNavigation("about:blank"))
        XCTAssertEqual(page.loadFinished(), .none, "the bootstrap document's load is not the page's")
        page.described(Self.page("/blank"))
        XCTAssertFalse(page.isBootstrapNavigation("https://acs.example/challenge"), "the form's POST")
        XCTAssertFalse(page.bootstrapping)
        XCTAssertEqual(page.navigationRequested(.sample, problem: nil), .ask(id: 1))
        XCTAssertFalse(page.isBootstrapNavigation("about:blank"), "after the bootstrap, about:blank is asked about")
        XCTAssertEqual(page.decided(id: 1, .allow), .load)
        XCTAssertEqual(page.loadFinished(), .finished)
        XCTAssertNil(page.nextBuyerRound(), "the bootstrap document's description does not stand for the page")
        page.described(Self.page("/challenge"))
        XCTAssertEqual(page.nextBuyerRound()?.page.url.path, "/challenge")
    }
}
