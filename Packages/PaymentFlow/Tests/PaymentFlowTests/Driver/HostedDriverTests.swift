import Foundation
import Synchronization
import XCTest

@testable @_spi(Diagnostics) import PaymentFlow

/// The driver and the hosted flow with stub transport, presenter and resolver:
/// every terminal path of CONTRACT.md section 3, each checked against the
/// callback contract by `ContractHarness`.

final class HostedDriverTests: XCTestCase {
    let api = URL(string: "http://127.0.0.1:9/merchant-api")!
    let checkout = URL(string: "http://127.0.0.1:9/gateway-checkout/checkout/pay/p_1")!
    let returnURL = URL(string: "myshop://return/p_1")!

    func configuration(api: URL? = nil, environment: Configuration.Environment = .sandbox) -> Configuration {
        Configuration(apiBaseURL: api, environment: environment)
    }

    var request: PaymentRequest {
        PaymentRequest(
            paymentId: "p_1", verificationKey: "vk-secret-123456", checkoutURL: checkout, returnURL: returnURL)
    }

    func statusTransport(_ status: Int = 200, body: String? = nil) -> StubTransport {
        StubTransport { request in
            StubTransport.json(
                status,
                body
                    ?? #"{"paymentId":"p_1","paymentStatus":"SETTLED","orderNumber":"order-7","amount":1250,"currency":"EUR","extra":{"x":1}}"#,
                url: request.url)
        }
    }

    /// A page that goes to the shop's return URL.
    func returningPresenter() -> StubPresenter {
        let returnURL = self.returnURL
        return StubPresenter { _ in
            [.navigate(URL(string: "http://127.0.0.1:9/gateway-checkout/step2")!), .navigate(returnURL)]
        }
    }

    func pay(
        _ kit: PaymentKit, _ presenter: StubPresenter, request: PaymentRequest? = nil,
        options: PaymentOptions = PaymentOptions(), file: StaticString = #filePath, line: UInt = #line
    ) -> PaymentResult? {
        let request = request ?? self.request
        return ContractHarness.run(self, pageGone: { presenter.pageGone }, file: file, line: line) { completion in
            kit.startPayment(request, from: presenter, options: options, completion: completion)
        }
    }

    func testReturnURLThenBuiltInLookupSucceeds() throws {
        let transport = statusTransport()
        let presenter = returningPresenter()
        let kit = PaymentKit(
            configuration: configuration(api: api), resolver: nil, dependencies: stubDependencies(transport))
        let result = try XCTUnwrap(pay(kit, presenter))
        XCTAssertEqual(result.outcome, .succeeded)
        XCTAssertEqual(result.paymentStatus, "SETTLED")
        XCTAssertEqual(result.orderNumber, "order-7")
        XCTAssertNil(result.sessionId)
        XCTAssertNil(result.error)
        // The lookup exactly as the seeds give it.
        let sent = try XCTUnwrap(transport.requests.first)
        XCTAssertEqual(transport.requests.count, 1)
        XCTAssertEqual(sent.method, "GET")
        XCTAssertEqual(sent.url.absoluteString, "http://127.0.0.1:9/merchant-api/checkout/api/egw/v1/payments/p_1")
        XCTAssertEqual(sent.headers.first { $0.name == "Obp-Verification-Key" }?.value, "vk-secret-123456")
        let requestId = try XCTUnwrap(sent.headers.first { $0.name == "X-Request-Id" }?.value)
        XCTAssertNotNil(UUID(uuidString: requestId))
        XCTAssertNotNil(sent.headers.first { $0.name == "User-Agent" })
        // The return URL was not loaded; the page was dismissed once.
        XCTAssertEqual(presenter.snapshot.decisions.last?.1, .cancel)
        XCTAssertEqual(presenter.snapshot.dismissCompleted, 1)
    }

    func testPreferredMethodIsPassedToThePage() throws {
        let presenter = returningPresenter()
        let kit = PaymentKit(
            configuration: configuration(), resolver: nil, dependencies: stubDependencies(statusTransport()))
        var request = self.request
        request.preferredMethod = PaymentRequest.MethodHint.clickToPay
        _ = pay(kit, presenter, request: request)
        XCTAssertEqual(presenter.snapshot.pages.first?.url.query, "method=click-to-pay")

        let second = returningPresenter()
        request.preferredMethod = "crypto"  // unrecognised: ignored
        _ = pay(kit, second, request: request)
        XCTAssertNil(second.snapshot.pages.first?.url.query)
    }

    func testNoLookupConfiguredIsUnresolvedWithoutError() throws {
        let transport = statusTransport()
        let kit = PaymentKit(configuration: configuration(), resolver: nil, dependencies: stubDependencies(transport))
        let result = try XCTUnwrap(pay(kit, returningPresenter()))
        XCTAssertEqual(result.outcome, .unresolved)
        XCTAssertNil(result.error)
        XCTAssertTrue(transport.requests.isEmpty)
    }

    /// CONTRACT.md section 3: the buyer may already have paid, so a close is looked up after the dismissal;
    /// an unpaid status is `.cancelled`.
    func testBuyerClosingIsLookedUpThenCancelledWhenUnpaid() throws {
        let transport = statusTransport(body: #"{"paymentId":"p_1","paymentStatus":"INITIALIZED"}"#)
        let presenter = StubPresenter { _ in [.close] }
        let kit = PaymentKit(
            configuration: configuration(api: api), resolver: nil, dependencies: stubDependencies(transport))
        let result = try XCTUnwrap(pay(kit, presenter))
        XCTAssertEqual(result.outcome, .cancelled)
        XCTAssertNil(result.error)
        XCTAssertEqual(transport.requests.map(\.method), ["GET"])
        XCTAssertEqual(presenter.snapshot.dismissCompleted, 1)
    }

    /// Why list: the buyer closing after paying was `.cancelled` while the gateway SETTLED.
    func testBuyerClosingAfterPayingIsSucceeded() throws {
        let presenter = StubPresenter { _ in [.close] }
        let kit = PaymentKit(
            configuration: configuration(api: api), resolver: nil, dependencies: stubDependencies(statusTransport()))
        let result = try XCTUnwrap(pay(kit, presenter))
        XCTAssertEqual(result.outcome, .succeeded)
        XCTAssertEqual(result.paymentStatus, "SETTLED")
    }

    func testLoadFailureIsPageLoadFailed() throws {
        let checkout = self.checkout
        let presenter = StubPresenter { _ in [.fail(checkout, "HTTP 502")] }
        let kit = PaymentKit(
            configuration: configuration(api: api), resolver: nil,
            dependencies: stubDependencies(statusTransport(body: #"{"paymentId":"p_1","paymentStatus":"INITIALIZED"}"#))
        )
        let result = try XCTUnwrap(pay(kit, presenter))
        XCTAssertEqual(result.outcome, .failed)
        XCTAssertEqual(result.error?.paymentErrorCode, .pageLoadFailed)
        XCTAssertEqual(result.error?.domain, "com.egw.egwpay")
        XCTAssertEqual(result.error?.code, 3)
    }

    func testPresenterRefusalIsPresentationFailed() throws {
        let presenter = StubPresenter(refuse: true) { _ in [] }
        let kit = PaymentKit(
            configuration: configuration(api: api), resolver: nil, dependencies: stubDependencies(statusTransport()))
        let result = try XCTUnwrap(pay(kit, presenter))
        XCTAssertEqual(result.outcome, .failed)
        XCTAssertEqual(result.error?.paymentErrorCode, .presentationFailed)
        XCTAssertEqual(presenter.snapshot.dismissCalls, 0)
    }

    func testLookupFailuresAreUnresolvedWithStatusLookupFailed() throws {
        let cases: [(StubTransport, PaymentError.Code)] = [
            (statusTransport(500, body: "oops"), .networkError),
            (
                statusTransport(401, body: #"{"error":{"code":"INVALID_VERIFICATION_KEY","message":"no"}}"#),
                .invalidRequest
            ),
            (statusTransport(200, body: #"{"paymentId":"p_1"}"#), .invalidResponse),  // required field missing
            (statusTransport(200, body: #"{"paymentId":"p_1","paymentStatus":7}"#), .invalidResponse),  // wrong type
            (statusTransport(200, body: "<html>"), .invalidResponse),
            (statusTransport(200, body: #"{"paymentId":"p_2","paymentStatus":"SETTLED"}"#), .invalidResponse),
            (StubTransport { _ in .failure(TransportError(.connect, "refused")) }, .networkError),
        ]
        for (transport, cause) in cases {
            let kit = PaymentKit(
                configuration: configuration(api: api), resolver: nil, dependencies: stubDependencies(transport))
            let result = try XCTUnwrap(pay(kit, returningPresenter()))
            XCTAssertEqual(result.outcome, .unresolved)
            XCTAssertEqual(result.error?.paymentErrorCode, .statusLookupFailed)
            let underlying = result.error?.userInfo[NSUnderlyingErrorKey] as? NSError
            XCTAssertEqual(underlying?.paymentErrorCode, cause)
        }
    }

    func testServerErrorsOnTheLookupAreRetriedBoundedly() throws {
        let transport = statusTransport(503, body: "busy")
        let kit = PaymentKit(
            configuration: configuration(api: api), resolver: nil,
            dependencies: stubDependencies(transport, retries: true))
        let result = try XCTUnwrap(pay(kit, returningPresenter()))
        XCTAssertEqual(result.outcome, .unresolved)
        XCTAssertEqual(transport.requests.count, 3)
    }

    func testUnknownStatusIsUnresolvedWithTheRawStatus() throws {
        let transport = statusTransport(body: #"{"paymentId":"p_1","paymentStatus":"ON_HOLD"}"#)
        let kit = PaymentKit(
            configuration: configuration(api: api), resolver: nil, dependencies: stubDependencies(transport))
        let result = try XCTUnwrap(pay(kit, returningPresenter()))
        XCTAssertEqual(result.outcome, .unresolved)
        XCTAssertEqual(result.paymentStatus, "ON_HOLD")
        XCTAssertNil(result.orderNumber)
        XCTAssertNil(result.error)
    }

    // MARK: Resolver

    func testCustomResolverReplacesTheBuiltInLookup() throws {
        let transport = statusTransport()
        let resolver = StubResolver(.answer("CANCELLED", "order-9"))
        let kit = PaymentKit(
            configuration: configuration(api: api), resolver: resolver, dependencies: stubDependencies(transport))
        let result = try XCTUnwrap(pay(kit, returningPresenter()))
        XCTAssertEqual(result.outcome, .cancelled)
        XCTAssertEqual(result.paymentStatus, "CANCELLED")
        XCTAssertEqual(result.orderNumber, "order-9")
        XCTAssertTrue(transport.requests.isEmpty)
        XCTAssertEqual(resolver.callCount, 1)
    }

    func testResolverAnsweringTwiceIsUsedOnce() throws {
        let resolver = StubResolver(.answerTwice("SETTLED", "FAILED"))
        let kit = PaymentKit(
            configuration: configuration(), resolver: resolver, dependencies: stubDependencies(statusTransport()))
        let result = try XCTUnwrap(pay(kit, returningPresenter()))
        XCTAssertEqual(result.outcome, .succeeded)
        XCTAssertEqual(result.paymentStatus, "SETTLED")
    }

    /// Virtual time only. Time moves once the resolver's 5 s watchdog exists: the run asks the resolver
    /// (on the callback queue) and then sets the watchdog (on its own queue), so "the resolver was asked"
    /// can come first; moving time on then (as this test once did) passed the deadline before the timer
    /// was set, and under load the payment never ended.
    func testResolverNeverAnsweringTimesOut() throws {
        let watchdogSet = expectation(description: "the resolver's watchdog is set")
        watchdogSet.assertForOverFulfill = false
        let clock = StubClock(onSchedule: { delay in if delay == 5 { watchdogSet.fulfill() } })
        let resolver = StubResolver(.never)
        var configuration = self.configuration()
        configuration.statusResolverTimeout = 5
        let kit = PaymentKit(
            configuration: configuration, resolver: resolver,
            dependencies: stubDependencies(statusTransport(), clock: clock.flowClock))
        let presenter = returningPresenter()
        let result = ContractHarness.run(self, pageGone: { presenter.pageGone }) { completion in
            kit.startPayment(request, from: presenter, completion: completion)
            DispatchQueue.global().async {
                guard XCTWaiter().wait(for: [watchdogSet], timeout: 30) == .completed else { return }
                clock.advance(by: 4.9)
                clock.advance(by: 0.2)
            }
        }
        XCTAssertEqual(result?.outcome, .unresolved)
        XCTAssertEqual(result?.error?.paymentErrorCode, .statusLookupFailed)
        XCTAssertEqual(resolver.callCount, 1)
    }

    func testResolverErrorIsUnresolvedWithItsErrorUnderneath() throws {
        let backendError = NSError(
            domain: "shop.backend", code: 42, userInfo: [NSLocalizedDescriptionKey: "backend down"])
        let kit = PaymentKit(
            configuration: configuration(), resolver: StubResolver(.fail(backendError)),
            dependencies: stubDependencies(statusTransport()))
        let result = try XCTUnwrap(pay(kit, returningPresenter()))
        XCTAssertEqual(result.outcome, .unresolved)
        XCTAssertEqual(result.error?.paymentErrorCode, .statusLookupFailed)
        let underlying = try XCTUnwrap(result.error?.userInfo[NSUnderlyingErrorKey] as? NSError)
        XCTAssertEqual(underlying.domain, "shop.backend")
        XCTAssertEqual(underlying.code, 42)
    }

    func testResolverNilStatusNilErrorIsUnresolved() throws {
        let kit = PaymentKit(
            configuration: configuration(), resolver: StubResolver(.answer(nil, nil)),
            dependencies: stubDependencies(statusTransport()))
        let result = try XCTUnwrap(pay(kit, returningPresenter()))
        XCTAssertEqual(result.outcome, .unresolved)
        XCTAssertNil(result.error)
    }

    // MARK: Invalid requests

    func testInvalidRequestsFailBeforeAnything() throws {
        let ftp = PaymentRequest(
            paymentId: "p_1", verificationKey: "vk", checkoutURL: URL(string: "ftp://x/y")!, returnURL: returnURL)
        let emptyId = PaymentRequest(paymentId: "", verificationKey: "vk", checkoutURL: checkout, returnURL: returnURL)
        let badKey = PaymentRequest(
            paymentId: "p_1", verificationKey: "a\r\nb", checkoutURL: checkout, returnURL: returnURL)
        let relativeReturn = PaymentRequest(
            paymentId: "p_1", verificationKey: "vk", checkoutURL: checkout, returnURL: URL(string: "return/here")!)
        for request in [ftp, emptyId, badKey, relativeReturn] {
            let presenter = returningPresenter()
            let transport = statusTransport()
            let kit = PaymentKit(
                configuration: configuration(api: api), resolver: nil, dependencies: stubDependencies(transport))
            let result = try XCTUnwrap(pay(kit, presenter, request: request))
            XCTAssertEqual(result.outcome, .failed)
            XCTAssertEqual(result.error?.paymentErrorCode, .invalidRequest)
            XCTAssertEqual(presenter.snapshot.presents, 0)
            XCTAssertTrue(transport.requests.isEmpty)
        }
    }

    func testLiveRequiresHTTPS() throws {
        // http checkout URL in .live
        let kit = PaymentKit(
            configuration: configuration(environment: .live), resolver: nil,
            dependencies: stubDependencies(statusTransport()))
        let result = try XCTUnwrap(pay(kit, returningPresenter()))
        XCTAssertEqual(result.error?.paymentErrorCode, .invalidRequest)
        // http apiBaseURL in .live
        let https = PaymentRequest(
            paymentId: "p_1", verificationKey: "vk", checkoutURL: URL(string: "https://pay.example/c")!,
            returnURL: returnURL)
        let kit2 = PaymentKit(
            configuration: configuration(api: api, environment: .live), resolver: nil,
            dependencies: stubDependencies(statusTransport()))
        XCTAssertEqual(pay(kit2, returningPresenter(), request: https)?.error?.paymentErrorCode, .invalidRequest)
        XCTAssertEqual(
            Configuration(apiBaseURL: api, environment: .live).validationError()?.paymentErrorCode, .invalidRequest)
        XCTAssertNil(Configuration(apiBaseURL: api, environment: .sandbox).validationError())
    }

    // MARK: Concurrency and lifetime

    func testSecondStartFailsAtOnceAndTheFirstIsUntouched() throws {
        let presenter = returningPresenter()
        let holding = StubPresenter(holdDismissal: true) { _ in [.close] }
        let kit = PaymentKit(
            configuration: configuration(api: api), resolver: nil,
            dependencies: stubDependencies(statusTransport(body: #"{"paymentId":"p_1","paymentStatus":"INITIALIZED"}"#))
        )
        let first = expectation(description: "first")
        let firstResult = Mutex<PaymentResult?>(nil)
        kit.startPayment(request, from: holding) { result in
            dispatchPrecondition(condition: .onQueue(.main))
            XCTAssertTrue(holding.pageGone)
            firstResult.withLock { $0 = result }
            first.fulfill()
        }
        XCTAssertTrue(kit.isPaymentInProgress)
        let second = ContractHarness.run(self, pageGone: { presenter.pageGone }) { completion in
            kit.startPayment(request, from: presenter, completion: completion)
        }
        XCTAssertEqual(second?.outcome, .failed)
        XCTAssertEqual(second?.error?.paymentErrorCode, .invalidRequest)
        XCTAssertEqual(presenter.snapshot.presents, 0)
        // The first is still waiting for its dismissal; release it.
        XCTAssertNil(firstResult.withLock { $0 })
        while holding.snapshot.dismissCalls == 0 { RunLoop.current.run(until: Date() + 0.001) }
        holding.releaseDismissal()
        wait(for: [first], timeout: 30)
        XCTAssertEqual(firstResult.withLock { $0 }?.outcome, .cancelled)
        XCTAssertFalse(kit.isPaymentInProgress)
    }

    func testAPaymentStartedFromTheCompletionRuns() throws {
        let kit = PaymentKit(
            configuration: configuration(), resolver: nil, dependencies: stubDependencies(statusTransport()))
        let request = self.request
        let presenter = returningPresenter()
        let result = ContractHarness.run(self) { completion in
            kit.startPayment(request, from: StubPresenter { _ in [.close] }) { _ in
                kit.startPayment(request, from: presenter, completion: completion)
            }
        }
        XCTAssertEqual(result?.outcome, .unresolved)
    }

    func testReleasedKitStillDelivers() throws {
        let presenter = returningPresenter()
        let transport = statusTransport()
        weak var weakKit: PaymentKit?
        let result = ContractHarness.run(self, pageGone: { presenter.pageGone }) { completion in
            var kit: PaymentKit? = PaymentKit(
                configuration: configuration(api: api), resolver: nil, dependencies: stubDependencies(transport))
            weakKit = kit
            kit?.startPayment(request, from: presenter, completion: completion)
            kit = nil
        }
        XCTAssertNil(weakKit)
        XCTAssertEqual(result?.outcome, .succeeded)
    }

    func testDelegateIsHeldWeakly() throws {
        let kit = PaymentKit(
            configuration: configuration(), resolver: nil, dependencies: stubDependencies(statusTransport()))
        // Alive: exactly one call.
        let delegate = StubDelegate()
        let presenter = returningPresenter()
        let result = ContractHarness.run(self, pageGone: { presenter.pageGone }) { completion in
            let forwarding = StubDelegate(onResult: completion)
            kit.startPayment(request, from: presenter, delegate: forwarding)
            withExtendedLifetime(delegate) {}
            objc_keep.withLock { $0.append(forwarding) }
        }
        XCTAssertEqual(result?.outcome, .unresolved)

        // Gone: the result is dropped; the kit is free again once it was handed over.
        let finished = expectation(description: "handed over")
        let observed = PaymentOptions(observer: { event in if case .finished = event { finished.fulfill() } })
        let kit2 = PaymentKit(
            configuration: configuration(), resolver: nil, dependencies: stubDependencies(statusTransport()))
        weak var weakDelegate: StubDelegate?
        do {
            let gone = StubDelegate(onResult: { _ in XCTFail("a released delegate was called") })
            weakDelegate = gone
            kit2.startPayment(
                request, from: StubPresenter(holdDismissal: false) { _ in [.close] }, options: observed, delegate: gone)
        }
        XCTAssertNil(weakDelegate)
        wait(for: [finished], timeout: 30)
        let drained = expectation(description: "drained")
        DispatchQueue.main.async { drained.fulfill() }
        wait(for: [drained], timeout: 30)
        XCTAssertFalse(kit2.isPaymentInProgress)
    }

    func testCancelDismissesThenDeliversCancelled() throws {
        let presenter = StubPresenter { _ in [] }  // shows the page and waits
        let kit = PaymentKit(
            configuration: configuration(api: api), resolver: nil,
            dependencies: stubDependencies(statusTransport(body: #"{"paymentId":"p_1","paymentStatus":"INITIALIZED"}"#))
        )
        let result = ContractHarness.run(self, pageGone: { presenter.pageGone }) { completion in
            kit.startPayment(request, from: presenter, completion: completion)
            DispatchQueue.global().async {
                // Bounded: a page that never shows fails the harness, and this loop must not spin on.
                let giveUp = DispatchTime.now() + 30
                while !presenter.snapshot.shown, DispatchTime.now() < giveUp { usleep(200) }
                kit.cancel()
                kit.cancel()
            }
        }
        XCTAssertEqual(result?.outcome, .cancelled)
        XCTAssertNil(result?.error)
        XCTAssertEqual(presenter.snapshot.dismissCompleted, 1)
    }

    func testAsyncFormReturnsTheResult() async throws {
        let kit = PaymentKit(
            configuration: configuration(), resolver: nil, dependencies: stubDependencies(statusTransport()))
        let result = await kit.startPayment(request, from: returningPresenter())
        XCTAssertEqual(result.outcome, .unresolved)
    }

    /// `cancel()` from another thread the moment the payment is visible (`isPaymentInProgress`) is never
    /// lost: the page stays open (no return URL), so only that one cancel can end each payment.
    func testCancelAsSoonAsThePaymentIsInProgressEndsIt() {
        let kit = PaymentKit(
            configuration: configuration(), resolver: nil, dependencies: stubDependencies(statusTransport()))
        let request = self.request
        for _ in 0..<200 {
            let presenter = StubPresenter { _ in [] }
            DispatchQueue.global().async {
                while !kit.isPaymentInProgress {}
                kit.cancel()
            }
            let result = ContractHarness.run(self, timeout: 10, pageGone: { presenter.pageGone }) {
                kit.startPayment(request, from: presenter, completion: $0)
            }
            XCTAssertEqual(result?.outcome, .cancelled)
            if result?.outcome != .cancelled { return }
        }
    }

    /// CONTRACT: cancelling the awaiting task cancels the payment — also when the task is already
    /// cancelled as it starts (its cancellation handler then runs before the payment exists).
    func testAsyncFormInAnAlreadyCancelledTaskEndsCancelled() async throws {
        let kit = PaymentKit(
            configuration: configuration(), resolver: nil, dependencies: stubDependencies(statusTransport()))
        let presenter = returningPresenter()
        let request = self.request
        let task = Task { () -> PaymentResult in
            withUnsafeCurrentTask { $0?.cancel() }
            return await kit.startPayment(request, from: presenter)
        }
        let result = await task.value
        XCTAssertEqual(result.outcome, .cancelled)
        XCTAssertEqual(presenter.snapshot.dismissCompleted, presenter.snapshot.presents)
    }

    // MARK: Observation

    func testStepGateIsAskedBeforeEachActionAndCanCancel() throws {
        let steps = Mutex<[String]>([])
        let gated = PaymentOptions(stepGate: { step, answer in
            steps.withLock { $0.append(step.action) }
            DispatchQueue.global().async { answer(.proceed) }
        })
        let kit = PaymentKit(
            configuration: configuration(api: api), resolver: nil, dependencies: stubDependencies(statusTransport()))
        let presenter = returningPresenter()
        XCTAssertEqual(pay(kit, presenter, options: gated)?.outcome, .succeeded)
        XCTAssertEqual(steps.withLock { $0 }, ["present hostedCheckout page", "dismiss page", "GET status"])

        let cancelling = PaymentOptions(stepGate: { _, answer in answer(.cancel) })
        let kit2 = PaymentKit(
            configuration: configuration(api: api), resolver: nil, dependencies: stubDependencies(statusTransport()))
        let untouched = returningPresenter()
        let result = pay(kit2, untouched, options: cancelling)
        XCTAssertEqual(result?.outcome, .cancelled)
        XCTAssertEqual(untouched.snapshot.presents, 0)
    }

    func testObserverSeesTransitionsAndRedactedExchanges() throws {
        let events = Mutex<[PaymentEvent]>([])
        let lines = Mutex<[String]>([])
        var configuration = self.configuration(api: api)
        // `.finished` reaches observers just after the result is handed to the callback queue, so the
        // completion can run first: wait for the event rather than read the list straight away.
        let finished = expectation(description: "observer saw .finished")
        let observed = PaymentOptions(observer: { event in
            events.withLock { $0.append(event) }
            if case .finished = event { finished.fulfill() }
        })
        configuration.logLevel = .debug
        configuration.logSink = { record in lines.withLock { $0.append(record.description) } }
        let kit = PaymentKit(
            configuration: configuration, resolver: nil, dependencies: stubDependencies(statusTransport()))
        XCTAssertEqual(pay(kit, returningPresenter(), options: observed)?.outcome, .succeeded)
        wait(for: [finished], timeout: 10)
        let seen = events.withLock { $0 }
        let transitions = seen.compactMap { event -> String? in
            if case .transition(let t) = event { return "\(t.from)->\(t.to)" }
            return nil
        }
        XCTAssertEqual(
            transitions,
            [
                "idle->presenting", "presenting->watching", "watching->dismissing", "dismissing->resolving",
                "resolving->finished",
            ])
        let exchange = try XCTUnwrap(
            seen.compactMap { event -> HTTPExchange? in
                if case .http(let e) = event { return e }
                return nil
            }.first)
        XCTAssertEqual(exchange.status, 200)
        XCTAssertEqual(exchange.method, "GET")
        let shownKey = exchange.requestHeaders.first { $0.name == "Obp-Verification-Key" }?.value ?? ""
        XCTAssertTrue(shownKey.hasPrefix("vk#"))
        let everything = lines.withLock { $0 }.joined(separator: "\n") + seen.map(\.description).joined(separator: "\n")
        XCTAssertFalse(everything.contains("vk-secret-123456"))
        guard case .finished = seen.last else { return XCTFail("last event is .finished") }
    }
}

/// Finished payments are released even when a presenter keeps its page handlers forever.
final class RunLifetimeTests: XCTestCase {
    /// A presenter that shows the page, goes to the return URL, and never lets go of the handler.
    final class HoardingPresenter: PaymentPresenter {
        let handlers = Mutex<[any PageEventHandler]>([])
        let returnURL: URL
        init(returnURL: URL) { self.returnURL = returnURL }
        func present(_ page: PageRequest, handler: PageEventHandler, completion: @escaping @Sendable (Bool) -> Void) {
            handlers.withLock { $0.append(handler) }
            let returnURL = self.returnURL
            DispatchQueue.global().async {
                completion(true)
                handler.page(decidePolicyFor: returnURL) { _ in }
            }
        }
        func dismiss(completion: @escaping @Sendable () -> Void) { DispatchQueue.global().async { completion() } }
    }

    func testRunsAreReleasedAfterDelivery() throws {
        let before = PaymentDiagnostics.livePaymentRuns
        let presenter = HoardingPresenter(returnURL: URL(string: "myshop://done")!)
        let transport = StubTransport { request in
            StubTransport.json(200, #"{"paymentId":"p_1","paymentStatus":"SETTLED"}"#, url: request.url)
        }
        let kit = PaymentKit(
            configuration: Configuration(apiBaseURL: URL(string: "http://127.0.0.1:9/api"), environment: .sandbox),
            resolver: nil, dependencies: stubDependencies(transport))
        for _ in 0..<20 {
            let request = PaymentRequest(
                paymentId: "p_1", verificationKey: "vk", checkoutURL: URL(string: "http://127.0.0.1:9/pay")!,
                returnURL: URL(string: "myshop://done")!)
            XCTAssertEqual(
                ContractHarness.run(self) { kit.startPayment(request, from: presenter, completion: $0) }?.outcome,
                .succeeded)
        }
        XCTAssertEqual(presenter.handlers.withLock { $0.count }, 20)
        // Queue blocks of the last run may still be unwinding: wait for them, bounded.
        let deadline = Date() + 10
        while PaymentDiagnostics.livePaymentRuns > before, Date() < deadline {
            RunLoop.current.run(until: Date() + 0.01)
        }
        // `before` can count runs of earlier tests still unwinding (a late timer or transfer holds them a
        // moment); they may end meanwhile, so the count may drop below it. Twenty leaked runs cannot hide.
        XCTAssertLessThanOrEqual(PaymentDiagnostics.livePaymentRuns, before)
    }
}
