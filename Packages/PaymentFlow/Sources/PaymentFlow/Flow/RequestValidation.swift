import Foundation

/// The checks a request passes before any machine runs (else `.failed`, `invalidRequest`).
enum RequestValidation {
    static func hosted(_ request: PaymentRequest, configuration: Configuration) -> FlowError? {
        if let problem = configuration.configurationProblem() { return problem }
        if let problem = credentials(paymentId: request.paymentId, verificationKey: request.verificationKey) {
            return problem
        }
        if let problem = configuration.urlProblem(request.checkoutURL, named: "checkoutURL") {
            return FlowError(.invalidRequest, problem, source: "PaymentRequest")
        }
        guard let scheme = request.returnURL.scheme, !scheme.isEmpty else {
            return FlowError(
                .invalidRequest, "returnURL must be an absolute URL (the shopRedirectUrl)", source: "PaymentRequest")
        }
        return nil
    }

    static func credentials(paymentId: String, verificationKey: String) -> FlowError? {
        if paymentId.isEmpty || paymentId.count > 256 || paymentId.unicodeScalars.contains(where: isControlOrSpace) {
            return FlowError(
                .invalidRequest, "paymentId must be 1 to 256 characters without spaces or control characters",
                source: "request")
        }
        if verificationKey.isEmpty
            || verificationKey.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f })
        {
            return FlowError(
                .invalidRequest, "verificationKey must be non-empty and free of control characters", source: "request")
        }
        return nil
    }

    private static func isControlOrSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value <= 0x20 || scalar.value == 0x7f
    }
}

extension RequestValidation {
    /// Request and configuration checks of the card flow, then the card itself (CONTRACT.md section 2
    /// and 4): no `checkoutAPIBaseURL` is `invalidRequest`, no `checkoutBaseURL` is
    /// `encryptionKeyUnavailable`, an invalid card is `cardValidationFailed` — all before any request.
    ///
    /// `card` is the one snapshot of the buyer's `CardInput` taken for this payment: the caller
    /// encrypts that same value (CONTRACT.md section 4 step 1), so what was validated is what is sent.
    static func card(
        _ request: CardPaymentRequest, card: CardInput.Snapshot, configuration: Configuration
    ) -> FlowError? {
        // The card flow does not use apiBaseURL: whatever it holds cannot fail a card payment.
        var used = configuration
        used.apiBaseURL = nil
        if let problem = used.configurationProblem() { return problem }
        if configuration.checkoutAPIBaseURL == nil {
            return FlowError(
                .invalidRequest, "card payments need configuration.checkoutAPIBaseURL", source: "configuration")
        }
        if configuration.checkoutBaseURL == nil {
            return FlowError(
                .encryptionKeyUnavailable, "card payments need configuration.checkoutBaseURL (it serves the key)",
                source: "configuration")
        }
        if let problem = credentials(paymentId: request.paymentId, verificationKey: request.verificationKey) {
            return problem
        }
        if let issue = card.firstIssue {
            // The issue's fixed sentence (never what was typed), scrubbed as every reason is.
            let message = Redactor().scrub(issue.message)
            var failure = FlowError(
                .cardValidationFailed, message, source: "card.\(issue.field)",
                underlying: .foreign(
                    domain: CardValidationIssue.errorDomain, code: CardValidationIssue.errorCode, message: message))
            // The issue itself reaches the app's NSError (`NSError.cardValidationIssue`).
            failure.cardIssue = issue
            return failure
        }
        return nil
    }
}
