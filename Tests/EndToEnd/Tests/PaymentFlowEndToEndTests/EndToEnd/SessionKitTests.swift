import Dispatch
import Foundation
import GatewaySandbox
import HeadlessBrowser
import Synchronization
import XCTest

@testable import PaymentFlow

/// One `PaymentKit` for a whole session (issue 11): each payment brings its own options, the kit's
/// card-encryption key cache serves every payment, and `lookUpStatus` reads a payment's status the way
/// the hosted flow does. Real sandbox over loopback, real libcurl; expected values from GATEWAY.md
/// (paths, error table), RFC 3986 (percent-encoding) and the sandbox's own records.
final class SessionKitTests: XCTestCase {
    /// Its own sandbox: the request log and the faults of these tests are theirs alone.
    static let sandbox: Sandbox = {
        do {
            return try Sandbox(configuration: .init(seed: 11))
        } catch {
            fatalError("the sandbox did not start: \(error)")
        }
    }()
    var sandbox: Sandbox { Self.sandbox }
    let callbacks = DispatchQueue(label: "session-kit-tests.callbacks")

    override func tearDown() {
        sandbox.clearFaults()
    }

    func configuration(requestTimeout: TimeInterval = 5) -> PaymentFlow.Configuration {
        var configuration = sandbox.sdkConfiguration(requestTimeout: requestTimeout)
        configuration.callbackQueue = callbacks
        return configuration
    }

    /// Pays `number` by card on `kit` with `options`; waits for the one result.
    func payCard(
        _ kit: PaymentKit, options: PaymentOptions = PaymentOptions(), payment: SandboxPayment? = nil
    ) -> PaymentResult? {
        let payment = payment ?? sandbox.createPayment()
        let done = expectation(description: "card payment")
        let result = Mutex<PaymentResult?>(nil)
        kit.startCardPayment(
            CardPaymentRequest(paymentId: payment.paymentId, verificationKey: payment.verificationKey),
            card: testCard("4111111111111111"), from: browser(.answering()), options: options
        ) { delivered in
            result.withLock { $0 = delivered }
            done.fulfill()
        }
        wait(for: [done], timeout: 60)
        return result.withLock { $0 }
    }

    /// `lookUpStatus`, completion form, with the contract checked: once, on the callback queue, not
    /// inside the call (the queue is held until the call returned).
    func lookUp(_ kit: PaymentKit, _ paymentId: String, _ key: String) -> Result<PaymentStatusReport, NSError>? {
        let done = expectation(description: "lookup")
        let answers = Mutex<[Result<PaymentStatusReport, NSError>]>([])
        let returned = Mutex(false)
        callbacks.suspend()
        kit.lookUpStatus(paymentId: paymentId, verificationKey: key) { [callbacks] result in
            dispatchPrecondition(condition: .onQueue(callbacks))
            XCTAssertTrue(returned.withLock { $0 }, "answered inside lookUpStatus")
            answers.withLock { $0.append(result) }
            done.fulfill()
        }
        returned.withLock { $0 = true }
        callbacks.resume()
        wait(for: [done], timeout: 60)
        // Anything after the first answer would land behind this block.
        let drained = expectation(description: "drained")
        callbacks.async { drained.fulfill() }
        wait(for: [drained], timeout: 10)
        let all = answers.withLock { $0 }
        XCTAssertEqual(all.count, 1, "exactly one answer")
        return all.first
    }

    // MARK: - One kit, per-payment options, one key fetch

    func testTwoCardPaymentsOnOneKitFetchTheKeyOnceAndEachHasItsOwnObserver() throws {
        let kit = PaymentKit(configuration: configuration())
        let mark = sandbox.lastSequence
        let exchanges = Mutex<[[String]]>([[], []])
        var results: [PaymentResult] = []
        var marks: [Int] = []
        for index in 0..<2 {
            marks.append(sandbox.lastSequence)
            let options = PaymentOptions(observer: { event in
                if case .http(let exchange) = event {
                    exchanges.withLock { $0[index].append(exchange.url.lastPathComponent) }
                }
            })
            results.append(try XCTUnwrap(payCard(kit, options: options)))
        }
        XCTAssertEqual(results.map(\.outcome), [.succeeded, .succeeded])
        // The sandbox's log: one jwks.json fetch in all; the second payment made two requests.
        let logged = sandbox.requestLog.filter { $0.sequence > mark }
        XCTAssertEqual(logged.filter { $0.endpoint == .jwks }.count, 1)
        XCTAssertEqual(
            sandbox.apiRequests(since: marks[1], payment: results[1].paymentId).map(\.endpoint),
            [.cardSessionCreate, .authentication])
        // Each observer heard its own payment only (frictionless: key, session, authentication).
        XCTAssertEqual(
            exchanges.withLock { $0 },
            [["jwks.json", "card-sessions", "authentication"], ["card-sessions", "authentication"]])
    }

    func testAStepGateBelongsToItsPaymentOnly() throws {
        let kit = PaymentKit(configuration: configuration())
        let steps = Mutex<[String]>([])
        let gated = PaymentOptions(stepGate: { step, answer in
            steps.withLock { $0.append(step.action) }
            answer(.proceed)
        })
        XCTAssertEqual(payCard(kit, options: gated)?.outcome, .succeeded)
        let gatedSteps = steps.withLock { $0.count }
        XCTAssertGreaterThan(gatedSteps, 0)
        XCTAssertEqual(payCard(kit, options: PaymentOptions())?.outcome, .succeeded)
        XCTAssertEqual(steps.withLock { $0.count }, gatedSteps, "the second payment was not gated")
    }

    // MARK: - lookUpStatus against the sandbox

    func testLookUpStatusReadsWhatTheGatewayRecorded() throws {
        let kit = PaymentKit(configuration: configuration())
        let fresh = sandbox.createPayment(orderNumber: "order-1107")
        let before = sandbox.lastSequence
        let report = try XCTUnwrap(lookUp(kit, fresh.paymentId, fresh.verificationKey)).get()
        XCTAssertEqual(report.paymentId, fresh.paymentId)
        XCTAssertEqual(report.paymentStatus, "INITIALIZED")
        XCTAssertEqual(report.paymentStatus, sandbox.paymentStatus(fresh.paymentId))
        XCTAssertEqual(report.orderNumber, "order-1107")
        XCTAssertEqual(report.outcome, .unresolved, "INITIALIZED is not final")
        let logged = sandbox.requestLog.filter { $0.sequence > before }
        XCTAssertEqual(logged.map(\.method), ["GET"])
        XCTAssertEqual(logged.map(\.endpoint), [.statusLookup])
        XCTAssertEqual(logged.map(\.status), [200])

        // Paid by card: SETTLED, as the sandbox records it.
        let paid = sandbox.createPayment()
        XCTAssertEqual(payCard(kit, payment: paid)?.outcome, .succeeded)
        let settled = try XCTUnwrap(lookUp(kit, paid.paymentId, paid.verificationKey)).get()
        XCTAssertEqual(settled.paymentStatus, "SETTLED")
        XCTAssertEqual(settled.paymentStatus, sandbox.paymentStatus(paid.paymentId))
        XCTAssertEqual(settled.outcome, .succeeded)
    }

    func testLookUpStatusAsyncForm() async throws {
        let kit = PaymentKit(configuration: configuration())
        let payment = sandbox.createPayment()
        let report = try await kit.lookUpStatus(paymentId: payment.paymentId, verificationKey: payment.verificationKey)
        XCTAssertEqual(report.paymentStatus, sandbox.paymentStatus(payment.paymentId))
        do {
            _ = try await kit.lookUpStatus(paymentId: "", verificationKey: payment.verificationKey)
            XCTFail("an empty id was accepted")
        } catch {
            XCTAssertEqual((error as NSError).paymentErrorCode, .invalidRequest)
        }
    }

    func testLookUpStatusSendsTheHostedFlowsRequest() throws {
        let wire = CardDataTests.WireRecorder(CurlTransport())
        let kit = PaymentKit(configuration: configuration(), transport: wire)
        let payment = sandbox.createPayment()
        let report = try XCTUnwrap(lookUp(kit, payment.paymentId, payment.verificationKey)).get()
        XCTAssertEqual(report.paymentStatus, "INITIALIZED")
        let request = try XCTUnwrap(wire.sent.withLock { $0.first })
        XCTAssertEqual(request.method, "GET")
        XCTAssertEqual(
            request.url.absoluteString,
            sandbox.apiBaseURL.absoluteString + "/checkout/api/egw/v1/payments/" + payment.paymentId)
        let headers = Dictionary(request.headers.map { ($0.name.lowercased(), $0.value) }) { first, _ in first }
        XCTAssertEqual(headers["obp-verification-key"], payment.verificationKey)
        XCTAssertEqual(headers["accept"], "application/json")
        XCTAssertEqual(headers["x-request-id"]?.count, 36, "a UUID")
        XCTAssertNotNil(headers["user-agent"])

        // RFC 3986: '/', '?', '#' and '%' are not unreserved, so each is percent-encoded in the segment.
        _ = lookUp(kit, "a/b?c#d%e", payment.verificationKey)
        let odd = try XCTUnwrap(wire.sent.withLock { $0.last })
        XCTAssertTrue(
            odd.url.absoluteString.hasSuffix("/checkout/api/egw/v1/payments/a%2Fb%3Fc%23d%25e"), odd.url.absoluteString)
    }

    func testLookUpStatusMapsGatewayRefusalsAsTheErrorTableSays() throws {
        let kit = PaymentKit(configuration: configuration())
        let payment = sandbox.createPayment()
        // GATEWAY.md: 401 INVALID_VERIFICATION_KEY and 404 PAYMENT_NOT_FOUND are invalidRequest.
        let wrongKey = try XCTUnwrap(lookUp(kit, payment.paymentId, "not-the-key"))
        guard case .failure(let keyError) = wrongKey else { return XCTFail("a wrong key was accepted") }
        XCTAssertEqual(keyError.paymentErrorCode, .invalidRequest)
        XCTAssertEqual(keyError.userInfo[PaymentError.httpStatusKey] as? Int, 401)
        XCTAssertEqual(keyError.userInfo[PaymentError.gatewayCodeKey] as? String, "INVALID_VERIFICATION_KEY")
        XCTAssertFalse("\(keyError)".contains(payment.verificationKey))

        let unknown = try XCTUnwrap(lookUp(kit, "no-such-payment", payment.verificationKey))
        guard case .failure(let unknownError) = unknown else { return XCTFail("an unknown payment was found") }
        XCTAssertEqual(unknownError.paymentErrorCode, .invalidRequest)
        XCTAssertEqual(unknownError.userInfo[PaymentError.httpStatusKey] as? Int, 404)
        XCTAssertEqual(unknownError.userInfo[PaymentError.gatewayCodeKey] as? String, "PAYMENT_NOT_FOUND")
    }

    func testLookUpStatusThatNeverAnswersEndsWithANetworkError() throws {
        // Slower than the request timeout every time: the bounded retries of a read, then networkError.
        sandbox.inject(SandboxFault(endpoint: .statusLookup, kind: .latency(.seconds(1)), schedule: .always))
        let kit = PaymentKit(configuration: configuration(requestTimeout: 0.25))
        let payment = sandbox.createPayment()
        let result = try XCTUnwrap(lookUp(kit, payment.paymentId, payment.verificationKey))
        guard case .failure(let error) = result else { return XCTFail("a held lookup succeeded") }
        XCTAssertEqual(error.paymentErrorCode, .networkError)
    }

    // MARK: - lookUpStatus refusing bad input before any request

    func testLookUpStatusRefusesBadInputWithoutARequest() throws {
        let kit = PaymentKit(configuration: configuration())
        let payment = sandbox.createPayment()
        var noBackend = configuration()
        noBackend.apiBaseURL = nil
        let cases: [(PaymentKit, String, String, String)] = [
            (kit, "", payment.verificationKey, "empty id"),
            (kit, String(repeating: "p", count: 257), payment.verificationKey, "257 characters"),
            (kit, "p 1", payment.verificationKey, "a space"),
            (kit, "p\n1", payment.verificationKey, "a control character"),
            (kit, payment.paymentId, "", "empty key"),
            (PaymentKit(configuration: noBackend), payment.paymentId, payment.verificationKey, "no apiBaseURL"),
        ]
        for (kit, paymentId, key, name) in cases {
            let before = sandbox.lastSequence
            let result = try XCTUnwrap(lookUp(kit, paymentId, key), name)
            guard case .failure(let error) = result else {
                XCTFail("\(name) was accepted")
                continue
            }
            XCTAssertEqual(error.paymentErrorCode, .invalidRequest, name)
            XCTAssertEqual(sandbox.lastSequence, before, "\(name): nothing was sent")
        }
        // 256 characters is still an id: it is sent, and the gateway does not know it.
        let longest = try XCTUnwrap(lookUp(kit, String(repeating: "p", count: 256), payment.verificationKey))
        guard case .failure(let error) = longest else { return XCTFail("an unknown payment was found") }
        XCTAssertEqual(error.userInfo[PaymentError.httpStatusKey] as? Int, 404)
    }
}
