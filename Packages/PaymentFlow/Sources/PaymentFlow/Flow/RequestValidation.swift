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
            return FlowError(.invalidRequest, "returnURL must be an absolute URL (the shopRedirectUrl)", source: "PaymentRequest")
        }
        return nil
    }

    static func credentials(paymentId: String, verificationKey: String) -> FlowError? {
        if paymentId.isEmpty || paymentId.count > 256 || paymentId.unicodeScalars.contains(where: isControlOrSpace) {
            return FlowError(
                .invalidRequest, "paymentId must be 1 to 256 characters without spaces or control characters",
                source: "request")
        }
        if verificationKey.isEmpty || verificationKey.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }) {
            return FlowError(
                .invalidRequest, "verificationKey must be non-empty and free of control characters", source: "request")
        }
        return nil
    }

    private static func isControlOrSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value <= 0x20 || scalar.value == 0x7f
    }
}
