import EGWWire
import Foundation
import HeadlessBrowser
import PaymentFlow
import ReplCore

/// One thing that happened during a payment (from the SDK, the browser or the shell itself),
/// as the shell shows it.
///
/// Each report is rendered in exactly one place, ``ReportRenderer/render(_:)``: every case
/// builds its text and its JSON object side by side, at the level it needs, so the two
/// output forms cannot drift apart.
enum PaymentReport {
    case started(PaymentFlowKind, paymentId: String)
    case transition(PaymentTransition)
    case http(HTTPExchange)
    case page(PaymentPageEvent)
    case browser(BrowserEvent)
    case screenshot(URL)
    case cardEncrypted(kid: String?, duration: TimeInterval)
    case log(LogRecord)
    case step(number: Int, PaymentStep)
    /// What the buyer did; `scripted` when a queued `buyer ...` action decided it.
    case buyer(BuyerAction, scripted: Bool)
    /// A script had nothing queued for a page: it is closed.
    case buyerUnscripted
    /// The shell asks the person at the terminal.
    case question(String)
    /// Input ended while the payment waited: what happens instead.
    case endOfInput(then: String)
    case cancelling(reason: String)
    case outcome(PaymentResult)
}

/// Renders ``PaymentReport``s as text lines or JSON lines, at a verbosity.
struct ReportRenderer {
    /// One rendered report: the least verbosity that shows it, its text and its JSON members.
    struct Rendered {
        var level: Verbosity
        var text: String
        var json: [(String, JSONValue)]
    }

    var verbosity: Verbosity
    var json: Bool
    /// ANSI styling (identity without colour).
    var style: (String, Console.Style) -> String
    /// The shell's last line of defence over text from the SDK (card numbers, the verification key).
    var mask: (String) -> String

    /// Third-party text as it may be shown: masked, and in text output terminal-safe (``TerminalText``); JSON
    /// output escapes the same characters itself.
    func redact(_ text: String) -> String {
        json ? mask(text) : TerminalText.escaped(mask(text))
    }

    /// The output for `report` (one or more lines, without the final newline), or `nil`
    /// when the verbosity hides it.
    func render(_ report: PaymentReport) -> String? {
        guard let rendered = rendered(report), verbosity >= rendered.level else {
            return nil
        }
        return json ? JSONValue.members(rendered.json).jsonText : rendered.text
    }

    private func rendered(_ report: PaymentReport) -> Rendered? {
        let verbose = verbosity >= .verbose
        func optional(_ text: String?) -> JSONValue { text.map { .string(redact($0)) } ?? .null }
        switch report {
        case .started(let flow, let paymentId):
            return Rendered(
                level: .normal, text: style("▸ \(flow) payment \(redact(paymentId)) started", .cyan),
                json: [
                    ("event", .string("started")), ("flow", .string(flow.description)),
                    ("paymentId", .string(paymentId)),
                ])
        case .transition(let transition):
            let next = transition.action == "none" ? "" : style("  → \(redact(transition.action))", .dim)
            return Rendered(
                level: .normal,
                text: "  ↳ " + style("\(transition.from) → \(transition.to)", .blue) + " on \(redact(transition.event))"
                    + next,
                json: [
                    ("event", .string("transition")), ("from", .string(transition.from)),
                    ("to", .string(transition.to)),
                    ("on", optional(transition.event)), ("next", optional(transition.action)),
                ])
        case .http(let exchange):
            return http(exchange, verbose: verbose)
        case .page(let page):
            let level: Verbosity
            switch page {
            case .loaded:
                return nil  // the browser's own report names the page
            case .presentRequested, .failedToLoad, .closedByBuyer:
                level = .normal
            case .presented, .navigation, .dismissRequested, .dismissed:
                level = .verbose
            }
            return Rendered(
                level: level, text: style("  ▢ \(redact(page.description))", .dim),
                json: [("event", .string("page")), ("what", .string(redact(page.description)))])
        case .browser(let event):
            guard let what = browserLine(event) else {
                return nil
            }
            return Rendered(
                level: what.level, text: style("  \(what.symbol) \(redact(what.text))", .dim),
                json: [("event", .string("browser")), ("what", .string(redact(what.text)))])
        case .screenshot(let file):
            return Rendered(
                level: .normal, text: style("  📷 screenshot \(file.path)", .dim),
                json: [("event", .string("screenshot")), ("path", .string(file.path))])
        case .cardEncrypted(let kid, let duration):
            let micros = Int((duration * 1_000_000).rounded())
            let detail = verbose ? style(" (JWE RSA-OAEP-256 + A256GCM; the plaintext buffer is wiped)", .dim) : ""
            return Rendered(
                level: .normal,
                text: "  🔒 card encrypted to kid \(kid.map(redact) ?? "(none)") in \(micros) µs" + detail,
                json: [
                    ("event", .string("cardEncrypted")), ("kid", kid.map(JSONValue.string) ?? .null),
                    ("microseconds", .int(micros)),
                ])
        case .log(let record):
            return Rendered(
                level: .normal, text: style("  [\(record.level)] \(redact(record.message))", .dim),
                json: [
                    ("event", .string("log")), ("level", .string(record.level.description)),
                    ("message", .string(redact(record.message))),
                ])
        case .step(let number, let step):
            return Rendered(
                level: .quiet,
                text: style("⏸ step \(number)", .magenta) + " \(step.state): " + style(redact(step.action), .bold)
                    + style("   (step, continue, cancel)", .dim),
                json: [
                    ("event", .string("step")), ("number", .int(number)), ("state", .string(step.state)),
                    ("action", .string(redact(step.action))),
                ])
        case .buyer(let action, let scripted):
            let what = BuyerDialog.describe(action)
            return Rendered(
                level: .normal, text: "  buyer: \(what)\(scripted ? " (scripted)" : "")",
                json: [("event", .string("buyer")), ("action", .string(what)), ("scripted", .bool(scripted))])
        case .buyerUnscripted:
            return Rendered(
                level: .quiet,
                text: "  buyer: close (no buyer action scripted: use buyer hosted ... or buyer challenge CODE)",
                json: [("event", .string("buyer")), ("action", .string("close")), ("scripted", .bool(false))])
        case .question(let question):
            return Rendered(
                level: .quiet, text: style(question, .bold),
                json: [("event", .string("question")), ("text", .string(question))])
        case .endOfInput(let then):
            let doing = then == "continue" ? "continuing the payment" : "closing the page"
            return Rendered(
                level: .quiet, text: "(end of input: \(doing))",
                json: [("event", .string("endOfInput")), ("then", .string(then))])
        case .cancelling(let reason):
            return Rendered(
                level: .quiet, text: style("Cancelling the payment (\(reason))…", .yellow),
                json: [("event", .string("cancelling")), ("reason", .string(reason))])
        case .outcome(let result):
            return outcome(result)
        }
    }

    /// One line per exchange (method, path, status, time); with `-v` the full URL, the redacted
    /// bodies and the JWE protected header.
    private func http(_ exchange: HTTPExchange, verbose: Bool) -> Rendered {
        let milliseconds = Int((exchange.duration * 1000).rounded())
        let status: String
        if let code = exchange.status {
            status = style("\(code)", code < 400 ? .green : .red)
        } else {
            status = style("no response (\(redact(exchange.failure ?? "?")))", .red)
        }
        let target = verbose ? exchange.url.absoluteString : Self.pathAndQuery(exchange.url)
        var lines = ["  ⇄ \(exchange.method) \(redact(target)) → \(status) in \(milliseconds) ms"]
        var json: [(String, JSONValue)] = [
            ("event", .string("http")), ("method", .string(exchange.method)),
            ("url", .string(redact(exchange.url.absoluteString))),
            ("status", exchange.status.map(JSONValue.int) ?? .null), ("milliseconds", .int(milliseconds)),
            ("failure", exchange.failure.map { .string(redact($0)) } ?? .null),
        ]
        if verbose {
            let bodies: [(label: String, key: String, value: String?)] = [
                ("request   ", "requestBody", exchange.requestBody),
                ("JWE header ", "jweHeader", exchange.encryptedCardHeader),
                ("response  ", "responseBody", exchange.responseBody),
            ]
            for body in bodies {
                json.append((body.key, body.value.map { .string(redact($0)) } ?? .null))
                if let value = body.value, !value.isEmpty {
                    lines.append(style("      \(body.label)\(Self.shorten(redact(value)))", .dim))
                }
            }
        }
        return Rendered(level: .normal, text: lines.joined(separator: "\n"), json: json)
    }

    private func browserLine(_ event: BrowserEvent) -> (symbol: String, text: String, level: Verbosity)? {
        switch event {
        case .loaded(let page):
            ("▢", "page loaded: \(page.kind)\(page.title.map { " “\($0)”" } ?? "") (\(page.status))", .normal)
        case .redirect(let status, _, let to): ("↪", "\(status) to \(to.absoluteString)", .verbose)
        case .autoSubmitted(_, let formID):
            ("▢", "the page submitted itself\(formID.map { " (\($0))" } ?? "")", .verbose)
        case .buyerAction(let action, _):
            action == .wait ? nil : ("▢", "buyer did: \(BuyerDialog.describe(action))", .verbose)
        case .navigation, .failed, .closedByBuyer, .dismissed: nil  // the SDK's page events report these
        }
    }

    private func outcome(_ result: PaymentResult) -> Rendered {
        let color: Console.Style =
            switch result.outcome {
            case .succeeded: .green
            case .failed: .red
            case .cancelled: .yellow
            case .unresolved: .magenta
            }
        var parts = ["paymentId \(redact(result.paymentId))"]
        if let status = result.paymentStatus { parts.append("paymentStatus \(redact(status))") }
        if let order = result.orderNumber { parts.append("orderNumber \(redact(order))") }
        if let session = result.sessionId { parts.append("sessionId \(redact(session))") }
        var text = style("● \(result.outcome)", color) + "  " + parts.joined(separator: ", ")
        if let error = result.error {
            let name = PaymentError.code(of: error).map { " \($0)" } ?? ""
            text +=
                "\n"
                + style("  error \(error.domain) \(error.code)\(name): \(redact(error.localizedDescription))", color)
        }
        if result.outcome == .unresolved, let advice = result.advice {
            // The in-doubt endings: what the integrator must do, on a line of its own.
            text += "\n" + style("  advice: \(redact(advice))", color)
        }
        return Rendered(level: .quiet, text: text, json: resultMembers(result))
    }

    /// The members of `result --json`.
    func resultMembers(_ result: PaymentResult) -> [(String, JSONValue)] {
        func optional(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        var error = JSONValue.null
        if let nsError = result.error {
            error = .members([
                ("domain", .string(nsError.domain)), ("code", .int(nsError.code)),
                ("name", optional(PaymentError.code(of: nsError)?.description)),
                ("message", .string(redact(nsError.localizedDescription))),
                ("gatewayCode", optional(nsError.userInfo[PaymentError.gatewayCodeKey] as? String)),
            ])
        }
        return [
            ("outcome", .string(result.outcome.description)), ("paymentId", .string(result.paymentId)),
            ("paymentStatus", optional(result.paymentStatus)), ("orderNumber", optional(result.orderNumber)),
            ("sessionId", optional(result.sessionId)), ("error", error),
            ("advice", optional(result.advice.map(redact))),
        ]
    }

    /// `/checkout/api/egw/v1/payments/pay_1/card-sessions`: the URL without scheme and host.
    static func pathAndQuery(_ url: URL) -> String {
        let path = url.path.isEmpty ? "/" : url.path
        return url.query.map { path + "?" + $0 } ?? path
    }

    static func shorten(_ text: String, limit: Int = 240) -> String {
        let flat = text.replacingOccurrences(of: "\n", with: " ")
        return flat.count > limit ? String(flat.prefix(limit)) + "…" : flat
    }
}
