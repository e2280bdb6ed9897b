import EGWWire

extension SandboxCore {
    /// `POST /acs/method` with form field `threeDSMethodData`: the issuer's invisible fingerprinting
    /// page. It answers after the card's delay (`visa-method-slow`: 12 s) with a page whose form posts
    /// `threeDSMethodData` (`{"threeDSServerTransID"}`) to the method notification URL on load, or
    /// (`visa-method-never`) a page that never posts. Works without script: the form is also
    /// auto-submittable by a browser that runs none (only hidden inputs).
    func acsMethodPage(_ request: HTTPRequest) -> HTTPResponse {
        let form: [(name: String, value: String)]
        switch formBody(request) {
        case .success(let pairs): form = pairs
        case .failure(let error): return error.response
        }
        guard let field = FormEncoding.value(ThreeDSMethodField.formField, in: form),
            let data = ThreeDSMessages.decodeMethodData(field)
        else { return Pages.error(400, "The method request has no base64url \"threeDSMethodData\".") }
        guard let session = state.withLock({ $0.sessions[data.transID] }), let timing = session.method else {
            return Pages.error(404, "The issuer has no 3DS Method for \(data.transID).")
        }
        if timing.delay > .zero { pause(timing.delay) }
        guard timing != .never else {
            return .html(
                200,
                Pages.document(
                    page: "acs-method-waiting", title: "Sandbox issuer: 3DS Method", meta: [("egw-session", session.id)],
                    body: "<p>Collecting device data.</p>"))
        }
        let target = HTMLEscaping.escape(
            data.notificationURL ?? "\(checkoutBase)/checkout/3ds/method-notification/\(session.id)")
        return .html(
            200,
            Pages.document(
                page: "acs-method", title: "Sandbox issuer: 3DS Method", meta: [("egw-session", session.id)],
                body: """
                    <form method="post" action="\(target)" id="method-form">
                    <input type="hidden" name="\(ThreeDSMethodField.formField)" value="\(HTMLEscaping.escape(ThreeDSMessages.methodCompletion(for: session)))">
                    </form>
                    <script>document.getElementById("method-form").submit();</script>
                    """))
    }

    /// `POST {checkoutBaseURL}/checkout/3ds/method-notification/{sessionId}` with `threeDSMethodData`:
    /// the 3DS Method ended. Recorded on the session; the issuer decides with it at authentication.
    func methodNotificationPage(_ request: HTTPRequest, sessionId: String) -> HTTPResponse {
        let form: [(name: String, value: String)]
        switch formBody(request) {
        case .success(let pairs): form = pairs
        case .failure(let error): return error.response
        }
        guard let field = FormEncoding.value(ThreeDSMethodField.formField, in: form),
            let data = ThreeDSMessages.decodeMethodData(field), data.transID == sessionId
        else { return Pages.error(400, "The method notification has no \"threeDSMethodData\" for this session.") }
        let outcome = state.withLock { state -> Result<Void, ErrorResponse> in
            guard var session = state.sessions[sessionId] else {
                return .failure(ErrorResponse(Pages.error(404, "There is no card session \(sessionId).")))
            }
            switch session.notifyMethod() {
            case .refused(let refusal): return .failure(ErrorResponse(Pages.error(refusal.status, "\(refusal.message).")))
            case .changed: state.sessions[sessionId] = session
            case .unchanged: break
            }
            return .success(())
        }
        if case .failure(let error) = outcome { return error.response }
        return .html(
            200,
            Pages.document(
                page: "3ds-method-notification", title: "3DS Method finished", meta: [("egw-session", sessionId)],
                body: "<p>Device data collected.</p>"))
    }
}
