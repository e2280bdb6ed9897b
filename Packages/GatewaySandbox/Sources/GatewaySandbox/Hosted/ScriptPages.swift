import EGWWire

/// How the sandbox's issuer and hosted-checkout pages are built.
///
/// - `html` (the default): plain forms a browser without JavaScript submits.
/// - `js`: pages a real issuer or checkout would serve: the served HTML holds
///   no form, only a script. The challenge page's script builds the code input
///   and the button, checks the code with `fetch` (`POST /acs/challenge/submit`
///   with `Accept: application/json`, answered `{"transStatus", "cres",
///   "notificationUrl"}`), then creates the `cres` form and submits it; the
///   hosted checkout's script builds the choice buttons, posts the choice with
///   `fetch` (`Accept: application/json`, answered `{"redirect": ...}`) and
///   then sets `location`. The rendered page carries the same `egw-page`
///   marker as the html dialect (added by the script); the served one carries
///   none, so a browser that cannot run JavaScript sees a page that needs it.
///
/// The endpoints, the recorded truth and fault injection are the same in both.
public enum SandboxPageDialect: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Plain HTML forms.
    case html
    /// Pages built and submitted by script.
    case js

    /// `html` or `js`.
    public var description: String { rawValue }
}

extension SandboxCore {
    /// Whether the page's script asked for a JSON answer (`fetch` with `Accept: application/json`).
    func wantsJSON(_ request: HTTPRequest) -> Bool {
        (request.header("Accept") ?? "").lowercased().contains("application/json")
    }

    /// The script-built challenge page for `session` (dialect `js`).
    func acsChallengeScriptPage(_ session: CardSession) -> HTTPResponse {
        let setup = ScriptPages.literal([
            "acsTransID": session.acsTransID, "submitUrl": "\(acsBase)/challenge/submit",
            "last4": session.last4, "code": CardSession.challengeCode,
        ])
        return .html(
            200,
            Pages.document(
                page: nil, title: "Sandbox issuer: confirm your payment",
                body: """
                    <div id="app"><p id="loading">Loading…</p></div>
                    <noscript>This page needs JavaScript.</noscript>
                    <script>
                    const setup = \(setup);
                    \(ScriptPages.marker("acs-challenge"))
                    window.addEventListener("DOMContentLoaded", () => {
                      const app = document.getElementById("app");
                      app.innerHTML = "";
                      const title = document.createElement("h1");
                      title.textContent = "Confirm your payment";
                      const hint = document.createElement("p");
                      hint.textContent = "Sandbox issuer (JavaScript), card ending " + setup.last4 +
                        ". Type the code " + setup.code + " to approve; any other code fails.";
                      const form = document.createElement("form");
                      form.id = "challenge-form";
                      const label = document.createElement("label");
                      label.htmlFor = "code";
                      label.textContent = "Code ";
                      const input = document.createElement("input");
                      Object.assign(input, { type: "text", id: "code", name: "code", autocomplete: "one-time-code" });
                      input.inputMode = "numeric";
                      const button = document.createElement("button");
                      button.type = "submit";
                      button.textContent = "Confirm";
                      form.append(label, input, button);
                      app.append(title, hint, form);
                      form.addEventListener("submit", async (event) => {
                        event.preventDefault();
                        button.disabled = true;
                        const body = new URLSearchParams({ acsTransID: setup.acsTransID, code: input.value });
                        const response = await fetch(setup.submitUrl,
                          { method: "POST", body, headers: { Accept: "application/json" } });
                        if (!response.ok) { hint.textContent = "The issuer could not check the code."; return; }
                        const answer = await response.json();
                        const back = document.createElement("form");
                        back.method = "post";
                        back.action = answer.notificationUrl;
                        const cres = document.createElement("input");
                        Object.assign(cres, { type: "hidden", name: "cres", value: answer.cres });
                        back.append(cres);
                        document.body.append(back);
                        back.submit();
                      });
                    });
                    </script>
                    """))
    }

    /// The issuer's answer to the page's `fetch` (dialect `js`).
    func acsSubmitJSON(_ session: CardSession, transStatus: String) -> HTTPResponse {
        .json(
            200,
            JSONObjectBuilder([
                "transStatus": .string(transStatus),
                "cres": .string(ThreeDSMessages.cres(for: session, transStatus: transStatus)),
                "notificationUrl": .string(
                    session.notificationURL ?? "\(checkoutBase)/checkout/3ds/notification/\(session.id)"),
            ]).value)
    }

    /// The script-built hosted checkout for `payment` (dialect `js`).
    func hostedScriptPage(_ payment: PaymentRecord, method: HostedMethod?) -> HTTPResponse {
        let setup = ScriptPages.literal([
            "url": checkoutURL(for: payment.id), "method": method?.rawValue ?? "card",
            "amount": Pages.amount(payment.amount, payment.currency), "order": payment.orderNumber,
        ])
        let choices = ScriptPages.literal(
            Dictionary(uniqueKeysWithValues: HostedChoice.allCases.map { ($0.rawValue, $0.label) }))
        let order = HostedChoice.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        return .html(
            200,
            Pages.document(
                page: nil, title: "Sandbox checkout",
                body: """
                    <div id="app"><p id="loading">Loading…</p></div>
                    <noscript>This page needs JavaScript.</noscript>
                    <script>
                    const setup = \(setup);
                    const labels = \(choices);
                    \(ScriptPages.marker("hosted-checkout"))
                    window.addEventListener("DOMContentLoaded", () => {
                      const app = document.getElementById("app");
                      app.innerHTML = "";
                      const title = document.createElement("h1");
                      title.textContent = "Pay " + setup.amount;
                      const note = document.createElement("p");
                      note.textContent = "Order " + setup.order + " (sandbox, JavaScript: no money moves).";
                      app.append(title, note);
                      for (const choice of [\(order)]) {
                        const button = document.createElement("button");
                        button.type = "button";
                        button.value = choice;
                        button.textContent = labels[choice];
                        button.addEventListener("click", async () => {
                          app.querySelectorAll("button").forEach((b) => { b.disabled = true; });
                          const body = new URLSearchParams({ choice, method: setup.method });
                          const response = await fetch(setup.url,
                            { method: "POST", body, headers: { Accept: "application/json" } });
                          if (!response.ok) { note.textContent = "The checkout could not record the choice."; return; }
                          const answer = await response.json();
                          location.href = answer.redirect;
                        });
                        app.append(button, " ");
                      }
                    });
                    </script>
                    """))
    }

    /// The hosted choice's answer to the page's `fetch` (dialect `js`).
    func hostedChoiceJSON(_ payment: PaymentRecord) -> HTTPResponse {
        .json(200, JSONObjectBuilder(["redirect": .string(payment.shopRedirectURL)]).value)
    }
}

enum ScriptPages {
    /// A JavaScript object literal of string members (JSON, with `<` escaped for a script element).
    static func literal(_ members: [String: String]) -> String {
        var pairs: [String] = []
        for key in members.keys.sorted() {
            pairs.append("\(quoted(key)): \(quoted(members[key] ?? ""))")
        }
        return "{ " + pairs.joined(separator: ", ") + " }"
    }

    /// The statement that adds `<meta name="egw-page" content="marker">` to the rendered page.
    static func marker(_ marker: String) -> String {
        """
        { const meta = document.createElement("meta"); meta.name = "egw-page"; meta.content = \(quoted(marker)); \
        document.head.append(meta); }
        """
    }

    /// A JSON string (EGWWire's one writer) that cannot close a script element: `<` escaped.
    private static func quoted(_ text: String) -> String {
        JSONWriter.quoted(text).replacingOccurrences(of: "<", with: "\\u003c")
    }
}
