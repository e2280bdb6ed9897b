import EGWWire

extension SandboxCore {
    /// `POST /acs/challenge` with form field `creq`: the issuer's page asking for the code.
    func acsChallengePage(_ request: HTTPRequest) -> HTTPResponse {
        let form: [(name: String, value: String)]
        switch formBody(request) {
        case .success(let pairs): form = pairs
        case .failure(let error): return error.response
        }
        guard let field = FormEncoding.value("creq", in: form) else {
            return Pages.error(400, "The challenge request has no \"creq\" field.")
        }
        guard let creq = ThreeDSMessages.decode(field, expecting: "CReq") else {
            return Pages.error(400, "\"creq\" is not a base64url CReq message.")
        }
        guard let session = sessionForACS(creq.acsTransID), session.id == creq.threeDSServerTransID else {
            return Pages.error(404, "The issuer has no challenge \(creq.acsTransID).")
        }
        if let answered = session.challengeAnswer {
            return acsCompletePage(session, transStatus: answered)
        }
        guard case .challengeRequired(.awaitingCode) = session.state else {
            return Pages.error(400, "No challenge is pending for this transaction.")
        }
        if pageDialect.withLock({ $0 }) == .js { return acsChallengeScriptPage(session) }
        let action = HTMLEscaping.escape("\(acsBase)/challenge/submit")
        return .html(
            200,
            Pages.document(
                page: "acs-challenge", title: "Sandbox issuer: confirm your payment",
                meta: [("egw-session", session.id)],
                body: """
                    <h1>Confirm your payment</h1>
                    <p>Sandbox issuer, card ending \(HTMLEscaping.escape(session.last4)). Type the code \(CardSession.challengeCode) to approve; any other code fails.</p>
                    <form method="post" action="\(action)" id="challenge-form">
                    <input type="hidden" name="acsTransID" value="\(HTMLEscaping.escape(session.acsTransID))">
                    <label for="code">Code</label>
                    <input type="text" id="code" name="code" value="" inputmode="numeric" autocomplete="one-time-code">
                    <button type="submit" name="action" value="submit">Confirm</button>
                    </form>
                    """))
    }

    /// `POST /acs/challenge/submit` with `acsTransID` and `code`: records the issuer's result and
    /// answers a page whose form `cres-form` posts `cres` to the session's `notificationUrl` on load.
    func acsSubmit(_ request: HTTPRequest) -> HTTPResponse {
        let form: [(name: String, value: String)]
        switch formBody(request) {
        case .success(let pairs): form = pairs
        case .failure(let error): return error.response
        }
        guard let acsTransID = FormEncoding.value("acsTransID", in: form) else {
            return Pages.error(400, "The form has no \"acsTransID\".")
        }
        let code = FormEncoding.value("code", in: form) ?? ""
        let outcome = state.withLock { state -> Result<CardSession, ErrorResponse> in
            guard let sessionId = state.sessionsByACSTransID[acsTransID], let session = state.sessions[sessionId] else {
                return .failure(ErrorResponse(Pages.error(404, "The issuer has no challenge \(acsTransID).")))
            }
            return Self.pageEvent(on: session, sessionId, in: &state) { $0.answerChallenge(code: code) }
        }
        switch outcome {
        case .failure(let error): return error.response
        case .success(let session):
            guard let answered = session.challengeAnswer else {
                return Pages.error(400, "No challenge is pending for this transaction.")
            }
            if wantsJSON(request) { return acsSubmitJSON(session, transStatus: answered) }
            return acsCompletePage(session, transStatus: answered)
        }
    }

    private func acsCompletePage(_ session: CardSession, transStatus: String) -> HTTPResponse {
        let target = HTMLEscaping.escape(
            session.notificationURL ?? "\(checkoutBase)/checkout/3ds/notification/\(session.id)")
        let cres = ThreeDSMessages.cres(for: session, transStatus: transStatus)
        return .html(
            200,
            Pages.document(
                page: "acs-complete", title: "Sandbox issuer: returning to the merchant",
                meta: [("egw-session", session.id), ("egw-trans-status", transStatus)],
                body: """
                    <h1>\(transStatus == "Y" ? "Payment confirmed" : "Confirmation failed")</h1>
                    <form method="post" action="\(target)" id="cres-form">
                    <input type="hidden" name="cres" value="\(HTMLEscaping.escape(cres))">
                    <button type="submit" name="continue" value="continue">Continue</button>
                    </form>
                    <script>document.getElementById("cres-form").submit();</script>
                    """))
    }

    /// Runs one event of the challenge pages on `session` (stored as `sessionId`), under the
    /// caller's lock: the session as it stands afterwards, stored when it changed, or an error
    /// page with the refusal's status (400 for these events) when the event is refused. These
    /// events never make a session final, so no payment is settled here (compare `transition`
    /// of the card-session endpoints).
    private static func pageEvent(
        on session: CardSession, _ sessionId: String, in state: inout SandboxState,
        _ event: (inout CardSession) -> CardSession.Transition
    ) -> Result<CardSession, ErrorResponse> {
        var session = session
        switch event(&session) {
        case .refused(let refusal): return .failure(ErrorResponse(Pages.error(refusal.status, "\(refusal.message).")))
        case .changed: state.sessions[sessionId] = session
        case .unchanged: break
        }
        return .success(session)
    }

    private func sessionForACS(_ acsTransID: String) -> CardSession? {
        state.withLock { state in state.sessionsByACSTransID[acsTransID].flatMap { state.sessions[$0] } }
    }

    /// `POST {checkoutBaseURL}/checkout/3ds/notification/{sessionId}` with form field `cres`:
    /// the page the challenge ends on. Reaching it ends the challenge for the SDK.
    func notificationPage(_ request: HTTPRequest, sessionId: String) -> HTTPResponse {
        let form: [(name: String, value: String)]
        switch formBody(request) {
        case .success(let pairs): form = pairs
        case .failure(let error): return error.response
        }
        guard let field = FormEncoding.value("cres", in: form) else {
            return Pages.error(400, "The notification has no \"cres\" field.")
        }
        guard let cres = ThreeDSMessages.decode(field, expecting: "CRes"), let transStatus = cres.transStatus else {
            return Pages.error(400, "\"cres\" is not a base64url CRes message.")
        }
        let outcome = state.withLock { state -> Result<CardSession, ErrorResponse> in
            guard let session = state.sessions[sessionId] else {
                return .failure(ErrorResponse(Pages.error(404, "There is no card session \(sessionId).")))
            }
            guard cres.threeDSServerTransID == sessionId, cres.acsTransID == session.acsTransID else {
                return .failure(ErrorResponse(Pages.error(400, "\"cres\" belongs to another transaction.")))
            }
            return Self.pageEvent(on: session, sessionId, in: &state) { $0.notify(transStatus: transStatus) }
        }
        switch outcome {
        case .failure(let error): return error.response
        case .success(let session):
            return .html(
                200,
                Pages.document(
                    page: "3ds-notification", title: "Authentication finished",
                    meta: [("egw-session", session.id), ("egw-trans-status", transStatus)],
                    body: """
                        <h1>Authentication finished</h1>
                        <p>You can return to the app.</p>
                        """))
        }
    }
}
