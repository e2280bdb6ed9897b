internal import CEditLineShim
import Dispatch
import ReplCore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What a non-blocking look at the input found.
enum PolledInput: Equatable {
    /// A whole line (without its newline).
    case line(String)
    /// The input is finished.
    case endOfInput
    /// Nothing yet.
    case nothing
}

/// Where command lines come from: libedit on a terminal, a plain line reader
/// for piped stdin and `--script` files.
@MainActor
protocol LineSource: AnyObject {
    /// True on a terminal: prompts, history, masked entry, questions.
    var isInteractive: Bool { get }
    /// Reads the next line, blocking; `nil` at end of input (Ctrl-D).
    func readLine(prompt: String) -> String?
    /// A line if one is there now, without blocking (used while a payment runs).
    func pollLine() -> PolledInput
    /// While `true`, input arriving wakes the main queue (a read source on the
    /// descriptor), so a waiting payment sleeps until there is something to read.
    func watchInput(_ watching: Bool)
    /// Records a line in the history when the secret policy allows it.
    func remember(_ line: String)
    /// Saves the history, if there is one.
    func close()
}

/// A buffered line reader over a file descriptor (no FILE*, no libedit).
@MainActor
final class DescriptorLineReader {
    let fd: Int32
    private var buffer: [UInt8] = []
    private(set) var reachedEnd = false
    /// Wakes the main queue while the descriptor is readable; only while watched.
    private var readSource: (any DispatchSourceRead)?

    init(fd: Int32) {
        self.fd = fd
    }

    /// Starts or stops waking the main queue when input arrives. The handler only
    /// wakes the run loop: the reading is done by ``pollLine()``.
    func watch(_ on: Bool) {
        if on, readSource == nil {
            let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: .main)
            source.setEventHandler {}
            source.activate()
            readSource = source
        } else if !on, let source = readSource {
            source.cancel()
            readSource = nil
        }
    }

    /// Takes a complete line out of the buffer, if there is one.
    private func takeLine() -> String? {
        guard let newline = buffer.firstIndex(of: 10) else {
            if reachedEnd && !buffer.isEmpty {
                let rest = buffer
                buffer.removeAll()
                return Self.decode(rest[...])
            }
            return nil
        }
        let line = buffer[..<newline]
        buffer.removeSubrange(...newline)
        return Self.decode(line)
    }

    private static func decode(_ bytes: ArraySlice<UInt8>) -> String {
        var slice = bytes
        if slice.last == 13 {
            slice = slice.dropLast()
        }
        return String(decoding: slice, as: UTF8.self)
    }

    /// Reads once from the descriptor into the buffer; false at end or error.
    private func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                buffer.append(contentsOf: chunk[..<count])
                return true
            }
            if count < 0 && errno == EINTR {
                continue
            }
            reachedEnd = true
            return false
        }
    }

    /// The next line, blocking; `nil` at end of input.
    func readLine() -> String? {
        while true {
            if let line = takeLine() {
                return line
            }
            if reachedEnd {
                return nil
            }
            _ = fill()
        }
    }

    /// A line if one is ready now.
    func pollLine() -> PolledInput {
        if let line = takeLine() {
            return .line(line)
        }
        if reachedEnd {
            return .endOfInput
        }
        guard Platform.waitReadable(fd, milliseconds: 0) else {
            return .nothing
        }
        _ = fill()
        if let line = takeLine() {
            return .line(line)
        }
        return reachedEnd ? .endOfInput : .nothing
    }
}

/// Piped stdin or a `--script` file: no prompt, no history.
@MainActor
final class PlainLineSource: LineSource {
    private let reader: DescriptorLineReader

    init(fd: Int32) {
        reader = DescriptorLineReader(fd: fd)
    }

    var isInteractive: Bool { false }

    func readLine(prompt: String) -> String? {
        reader.readLine()
    }

    func pollLine() -> PolledInput {
        reader.pollLine()
    }

    func watchInput(_ watching: Bool) {
        reader.watch(watching)
    }

    func remember(_ line: String) {}

    func close() {}
}

/// The completion provider the C hook calls (Tab runs on the main thread,
/// inside `readline`, but the hook is a C function pointer and cannot capture).
let completionProvider = Mutex<Completer>(Completer())

/// A terminal: libedit line editing with completion and a history file.
@MainActor
final class EditLineSource: LineSource {
    private let historyPath: String?
    /// While a payment runs the terminal is back in its normal (cooked) mode,
    /// so lines are read directly from the descriptor.
    private let busyReader = DescriptorLineReader(fd: 0)

    init(historyPath: String?) {
        self.historyPath = historyPath
        egw_el_setup("egw-repl", egwCompletionHook)
        egw_el_stifle_history(1000)
        if let historyPath {
            _ = egw_el_read_history(historyPath)
        }
    }

    var isInteractive: Bool { true }

    /// Ctrl-C pressed on empty lines in a row (the second one says how to leave).
    private var emptyInterrupts = 0

    func readLine(prompt: String) -> String? {
        while true {
            guard let raw = egw_el_readline(prompt) else {
                return nil
            }
            let line = String(cString: raw)
            free(raw)
            guard egw_el_was_interrupted() != 0 else {
                emptyInterrupts = 0
                return line
            }
            // Ctrl-C, as in bash and psql: the line typed so far is dropped, a fresh prompt follows.
            if line.allSatisfy(\.isWhitespace) {
                emptyInterrupts += 1
                if emptyInterrupts >= 2 {
                    Platform.write("(To leave, type quit or exit, or press Ctrl-D.)\n", to: 1)
                    emptyInterrupts = 0
                }
            } else {
                emptyInterrupts = 0
            }
        }
    }

    func watchInput(_ watching: Bool) {
        busyReader.watch(watching)
    }

    func pollLine() -> PolledInput {
        switch busyReader.pollLine() {
        case .endOfInput:
            return .nothing  // Ctrl-D while a payment runs: ignored
        case let other:
            return other
        }
    }

    func remember(_ line: String) {
        guard SecretPolicy.shouldRecordInHistory(line) else {
            return
        }
        egw_el_add_history(line)
        save()
    }

    func close() {
        save()
    }

    private func save() {
        guard let historyPath else {
            return
        }
        if egw_el_write_history(historyPath) == 0 {
            Platform.restrictToOwner(historyPath)
        }
    }
}

/// Ends the line being typed at the libedit prompt, as Ctrl-C does: the shim prints `^C`
/// and a newline and the line is dropped (any thread; one write(2); see `Interrupts`).
@Sendable func interruptLineBeingTyped() {
    egw_el_interrupt()
}

/// The C completion hook: candidates for the word under the cursor, in
/// readline's match-array convention.
private func egwCompletionHook(_ line: UnsafePointer<CChar>) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
    let prefix = String(cString: line)
    let candidates = completionProvider.withLock { $0.candidates(forLineUpToCursor: prefix) }
    guard !candidates.isEmpty else {
        return nil
    }
    let entries = candidates.count == 1 ? candidates : [Completer.commonPrefix(of: candidates)] + candidates
    guard let matches = egw_el_matches_alloc(entries.count) else {
        return nil
    }
    for (index, entry) in entries.enumerated() {
        egw_el_matches_set(matches, index, entry)
    }
    return matches
}
