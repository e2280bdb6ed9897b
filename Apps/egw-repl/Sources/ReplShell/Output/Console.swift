import ReplCore

/// Writes the shell's output: results to stdout, errors to stderr, unbuffered
/// (so the two interleave in order), colour only when allowed.
@MainActor
final class Console {
    /// ANSI styles the shell uses.
    enum Style: String {
        case bold = "1"
        case dim = "2"
        case red = "31"
        case green = "32"
        case yellow = "33"
        case blue = "34"
        case magenta = "35"
        case cyan = "36"
    }

    let usesColor: Bool
    let sink: OutputSink
    /// Whether stdout is a terminal (a transient progress line can be redrawn in place).
    let isTerminal: Bool
    /// A progress line is on screen and the next output must erase it first.
    private var transientShown = false

    init(usesColor: Bool, isTerminal: Bool = Platform.isTerminal(1), sink: OutputSink = .process) {
        self.usesColor = usesColor
        self.sink = sink
        self.isTerminal = isTerminal
    }

    /// Shows `text` as a progress line redrawn in place (terminal only).
    func transient(_ text: String) {
        guard isTerminal else {
            return
        }
        sink.write("\r\u{1B}[K" + text, .out)
        transientShown = true
    }

    private func clearTransient() {
        if transientShown {
            transientShown = false
            sink.write("\r\u{1B}[K", .out)
        }
    }

    /// `text` wrapped in an ANSI style when colour is on.
    func styled(_ text: String, _ style: Style) -> String {
        usesColor ? "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m" : text
    }

    /// One line (or several) to stdout.
    func out(_ text: String) {
        clearTransient()
        sink.write(text + "\n", .out)
    }

    /// One line (or several) to stderr.
    func err(_ text: String) {
        clearTransient()
        sink.write(text + "\n", .err)
    }

    /// An error report, `line N[:col]: error: ...`, to stderr.
    func report(_ error: ReplError, line: String, lineNumber: Int) {
        let text = error.rendered(line: line, lineNumber: lineNumber)
        err(usesColor ? styled(text, .red) : text)
    }

    /// A two-column table, left column padded.
    func table(_ rows: [(String, String)], indent: String = "  ") {
        let width = rows.map(\.0.count).max() ?? 0
        for (left, right) in rows {
            out(indent + left + String(repeating: " ", count: max(0, width - left.count)) + "  " + right)
        }
    }
}
