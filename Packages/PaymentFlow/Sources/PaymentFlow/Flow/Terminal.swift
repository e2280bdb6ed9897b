import Foundation

/// How a flow ended: everything the terminal funnel needs to build the one
/// ``PaymentResult``.
struct Terminal: Equatable, Sendable, CustomStringConvertible {
    var outcome: PaymentOutcome
    var paymentStatus: String? = nil
    var orderNumber: String? = nil
    var sessionId: String? = nil
    var error: FlowError? = nil

    static func failed(_ error: FlowError, sessionId: String? = nil) -> Terminal {
        Terminal(outcome: .failed, sessionId: sessionId, error: error)
    }

    static func cancelled(sessionId: String? = nil) -> Terminal {
        Terminal(outcome: .cancelled, sessionId: sessionId)
    }

    /// `.unresolved` because money may have moved and the SDK could not confirm it: `cause` explains
    /// why, with advice to ask the backend (never to retry).
    static func unresolved(_ cause: FlowError, sessionId: String? = nil) -> Terminal {
        Terminal(outcome: .unresolved, sessionId: sessionId, error: cause.markedInDoubt)
    }

    var description: String {
        var text = "\(outcome)"
        if let paymentStatus { text += " \(paymentStatus)" }
        if let error { text += " [\(error.code)]" }
        return text
    }
}

/// A page to show, in a comparable form (``PageRequest`` holds tuples).
struct PagePlan: Equatable, Sendable {
    struct Field: Equatable, Sendable {
        var name: String
        var value: String
    }

    var url: URL
    var formFields: [Field]?
    var purpose: PageRequest.Purpose
    /// The invisible 3DS Method page (loaded with `loadThreeDSMethod`, never shown, deadline 10 s).
    var threeDSMethod = false

    var methodRequest: ThreeDSMethodRequest {
        ThreeDSMethodRequest(url: url, formFields: (formFields ?? []).map { (name: $0.name, value: $0.value) })
    }

    var pageRequest: PageRequest {
        PageRequest(url: url, formFields: formFields?.map { (name: $0.name, value: $0.value) }, purpose: purpose)
    }
}
