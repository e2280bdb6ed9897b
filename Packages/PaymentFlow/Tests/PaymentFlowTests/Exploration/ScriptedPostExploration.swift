import Foundation

@testable import PaymentFlow

/// The hosted buyer's choice sent by the page's own script (`fetch`, as the sandbox's `js` checkout and
/// most real ones do): no navigation question, only the presenter's report (`page(didSend:)`, the
/// run's `.pageSentRequest`). Once sent it is held on the wire and lands at any later moment, also after
/// the buyer closed the page, the host cancelled, the deadline passed or the run delivered (the
/// "buyer's POST lands" step and `checkTruth`'s "may still land" rule, shared with the form POST).
extension RunExplorationTests {
    /// The buyer pressing Pay or Cancel on a script-driven page: the report reaches the run at once
    /// (``Mutation/ignoresPageRequests``: an SDK that drops it, as a handler without `page(didSend:)` does).
    static func scriptedPostSteps(_ node: Node, _ id: UInt64) -> [Step] {
        ["SETTLED", "CANCELLED"].map { status in
            let label = "buyer presses \(status) (script POST)"
            let event = PaymentLifecycle.Event.pageSentRequest(pageId: id, checkoutURL, method: "POST")
            guard node.mutation != .ignoresPageRequests else {
                var unheard = node
                unheard.world.post = .sent
                unheard.world.postRecords = status
                return Step(label: label, node: unheard, violations: [])
            }
            return feed(node, event, label) {
                $0.post = .sent
                $0.postRecords = status
            }
        }
    }
}
