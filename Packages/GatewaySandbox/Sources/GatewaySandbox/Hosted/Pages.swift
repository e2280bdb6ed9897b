import EGWWire

/// The sandbox's HTML: small, well-formed pages a headless client can drive.
///
/// Conventions (README.md, "Page conventions"): every page carries
/// `<meta name="egw-page" content="...">`; forms are plain `<form method="post" action="ABSOLUTE URL">`
/// with hidden inputs and named submit buttons; attribute values use double quotes.
enum Pages {
    /// A complete page. `meta` adds `<meta name=... content=...>` lines after `egw-page`; a `nil`
    /// page has no `egw-page` marker (a page whose script adds it, ``SandboxPageDialect/js``).
    static func document(page: String?, title: String, meta: [(String, String)] = [], body: String) -> String {
        var head = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">

            """
        if let page {
            head += "<meta name=\"egw-page\" content=\"\(HTMLEscaping.escape(page))\">\n"
        }
        for (name, content) in meta {
            head += "<meta name=\"\(HTMLEscaping.escape(name))\" content=\"\(HTMLEscaping.escape(content))\">\n"
        }
        head += """
            <title>\(HTMLEscaping.escape(title))</title>
            </head>
            <body>
            \(body)
            </body>
            </html>

            """
        return head
    }

    /// An error page (`egw-page` `error`) with the status in `egw-status`.
    static func error(_ status: Int, _ message: String) -> HTTPResponse {
        .html(
            status,
            document(
                page: "error", title: "Sandbox error \(status)", meta: [("egw-status", String(status))],
                body: "<h1>Error \(status)</h1>\n<p id=\"message\">\(HTMLEscaping.escape(message))</p>"))
    }

    /// `12.50 EUR` from minor units.
    static func amount(_ minor: Int, _ currency: String) -> String {
        let sign = minor < 0 ? "-" : ""
        let value = minor.magnitude
        let cents = value % 100
        return "\(sign)\(value / 100).\(cents < 10 ? "0" : "")\(cents) \(currency)"
    }
}
