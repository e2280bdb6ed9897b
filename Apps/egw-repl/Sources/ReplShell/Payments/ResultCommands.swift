import EGWWire
import Foundation
import PaymentFlow
import ReplCore
import Synchronization

extension Shell {
    /// `result [--json]`.
    func showResult(json: Bool) throws(ReplError) {
        // A sheet's result carries its EGW payment's (the "wallet" object; none when nothing was paid).
        let sheet = walletResultMember()
        guard let result = lastResult else {
            if let sheet, json || options.json {
                console.out(JSONValue.members([sheet]).jsonText)
                return
            }
            throw ReplError(.notAvailable, "no payment has finished yet (pay card or pay hosted)")
        }
        if json || options.json {
            var members = renderer.resultMembers(result)
            if let sheet {
                members.append(sheet)
            }
            console.out(JSONValue.members(members).jsonText)
            return
        }
        console.table([
            ("outcome", "\(result.outcome)"), ("paymentId", shown(result.paymentId)),
            ("paymentStatus", result.paymentStatus.map(shown) ?? "(none)"),
            ("orderNumber", result.orderNumber.map(shown) ?? "(none)"),
            ("sessionId", result.sessionId.map(shown) ?? "(none)"),
            (
                "error",
                result.error.map {
                    "\($0.domain) \($0.code)\(PaymentError.code(of: $0).map { " \($0)" } ?? ""): "
                        + shown($0.localizedDescription)
                } ?? "(none)"
            ),
        ])
    }

    /// `status [PAYMENT_ID]`: the SDK's status lookup (`PaymentKit.lookUpStatus`, CONTRACT.md
    /// section 3) on the session's kit: its transport, headers, percent-encoding and guards.
    func lookUpStatus(_ paymentId: String?) throws(ReplError) {
        guard let target = paymentId ?? payment?.paymentId else {
            throw ReplError(.notAvailable, "no payment yet: give PAYMENT_ID, or payment create first")
        }
        guard let key = knownKeys[target] else {
            throw ReplError(.notAvailable, "the verification key of \(target) is unknown: payment use \(target) KEY")
        }
        guard configuration.kit.apiBaseURL != nil else {
            throw ReplError(.notAvailable, "api-base-url is not set (config set api-base-url URL)")
        }
        let answer = Answer<Result<PaymentStatusReport, NSError>>(wake: events.wake)
        sessionKit().lookUpStatus(paymentId: target, verificationKey: key, completion: answer.completion())
        switch waitFor(answer) {
        case .none:
            throw ReplError(.commandFailed, "the status lookup was interrupted")
        case .some(.failure(let error)):
            let name = PaymentError.code(of: error).map { "\($0): " } ?? ""
            throw ReplError(.commandFailed, "the status lookup failed: \(name)\(shown(error.localizedDescription))")
        case .some(.success(let report)):
            if options.json {
                console.out(
                    JSONValue.members([
                        ("paymentId", .string(report.paymentId)), ("paymentStatus", .string(report.paymentStatus)),
                        ("orderNumber", report.orderNumber.map(JSONValue.string) ?? .null),
                        ("outcome", .string(report.outcome.description)),
                    ]).jsonText)
                return
            }
            console.out(
                "\(shown(report.paymentId)): \(shown(report.paymentStatus)) → outcome \(report.outcome)"
                    + (report.orderNumber.map { ", order \(shown($0))" } ?? ""))
        }
    }

    /// Sleeps until `answer` has its value, or Ctrl-C (`nil`: the late answer is ignored).
    func waitFor<Value: Sendable>(_ answer: Answer<Value>) -> Value? {
        interrupts.isBusy = true
        defer { interrupts.isBusy = false }
        let seen = interrupts.received
        while true {
            if let value = answer.value {
                return value
            }
            if interrupts.received != seen {
                return nil
            }
            waitForEvents(5)
        }
    }
}

/// The one answer of an asynchronous call (the SDK's status lookup, an HTTP request),
/// posted from whatever queue it arrives on; each post wakes the shell's wait.
final class Answer<Value: Sendable>: Sendable {
    private let slot = Mutex<Value?>(nil)
    private let wake: @Sendable () -> Void

    init(wake: @escaping @Sendable () -> Void) {
        self.wake = wake
    }

    /// The answer, once it came.
    var value: Value? {
        slot.withLock { $0 }
    }

    /// The callback that records the answer.
    func completion() -> @Sendable (Value) -> Void {
        { [self] value in
            slot.withLock { $0 = value }
            wake()
        }
    }
}
