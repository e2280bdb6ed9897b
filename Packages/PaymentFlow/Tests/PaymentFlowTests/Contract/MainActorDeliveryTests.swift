import Dispatch
import Foundation
import PaymentFlow
import XCTest

/// Issue 30 / seed 001: the completion and `paymentDidFinish` are `@MainActor`, so a `@MainActor` class
/// (the seed's view controller) calls its own methods inside them as written, and they run on the main
/// actor whatever `callbackQueue` is. (That this file compiles is half of the proof: before, calling
/// `self.showReceipt` in the completion was an error in Swift 6.)
@MainActor
final class SeedViewController: PaymentDelegate {
    var shown: [String] = []
    var onMain: [Bool] = []
    let done: XCTestExpectation

    init(done: XCTestExpectation) { self.done = done }

    func showReceipt(reference: String) { record("receipt") }
    func showFailure(message: String?) { record("failure") }
    func confirmWithBackend(paymentId: String) { record("unresolved") }

    private func record(_ what: String) {
        shown.append(what)
        onMain.append(Thread.isMainThread)
        done.fulfill()
    }

    /// Seed 001's sample, word for word but for the presenter.
    func pay(_ paymentKit: PaymentKit, _ request: CardPaymentRequest, card: CardInput, from presenter: any PaymentPresenter) {
        paymentKit.startCardPayment(request, card: card, from: presenter) { result in
            switch result.outcome {
            case .succeeded: self.showReceipt(reference: result.paymentId)
            case .failed: self.showFailure(message: result.error?.localizedDescription)
            case .cancelled: break
            case .unresolved: self.confirmWithBackend(paymentId: result.paymentId)
            }
        }
    }

    func paymentDidFinish(_ result: PaymentResult) { showFailure(message: result.error?.localizedDescription) }
}

final class MainActorDeliveryTests: XCTestCase {
    /// A kit whose callback queue is not the main queue; the card is refused before any request.
    private func kit() -> PaymentKit {
        var configuration = Configuration(
            checkoutAPIBaseURL: URL(string: "http://127.0.0.1:9"), checkoutBaseURL: URL(string: "http://127.0.0.1:9"),
            environment: .sandbox)
        configuration.callbackQueue = DispatchQueue(label: "not-main")
        return PaymentKit(configuration: configuration)
    }

    private let request = CardPaymentRequest(paymentId: "p_main_actor", verificationKey: "k")
    private let presenter = StubPresenter(steps: { _ in [] })

    // XCTest on Linux runs test methods on the main thread but cannot call `@MainActor` ones.
    func testTheCompletionRunsOnTheMainActorFromAnotherCallbackQueue() {
        let (done, kit, request, presenter) = (expectation(description: "completion"), kit(), request, presenter)
        let controller = MainActor.assumeIsolated {
            let controller = SeedViewController(done: done)
            controller.pay(kit, request, card: CardInput(), from: presenter)
            return controller
        }
        wait(for: [done], timeout: 30)
        let (shown, onMain) = MainActor.assumeIsolated { (controller.shown, controller.onMain) }
        XCTAssertEqual(shown, ["failure"])
        XCTAssertEqual(onMain, [true])
    }

    func testTheDelegateRunsOnTheMainActorFromAnotherCallbackQueue() {
        let (done, kit, request, presenter) = (expectation(description: "delegate"), kit(), request, presenter)
        let controller = MainActor.assumeIsolated {
            let controller = SeedViewController(done: done)
            kit.startCardPayment(request, card: CardInput(), from: presenter, delegate: controller)
            return controller
        }
        wait(for: [done], timeout: 30)
        let (shown, onMain) = MainActor.assumeIsolated { (controller.shown, controller.onMain) }
        XCTAssertEqual(shown, ["failure"])
        XCTAssertEqual(onMain, [true])
    }
}
