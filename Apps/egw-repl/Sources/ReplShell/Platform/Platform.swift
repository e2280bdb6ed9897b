internal import CEditLineShim

// Every operating-system specific the shell needs, in one place: terminals,
// colour, the home directory, raw input mode, signals, raw writes.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

enum Platform {
    /// Replaces this process with `program` from the running executable's own folder, given
    /// `arguments` (the environment and open descriptors carry over). Returns only when that
    /// fails, with the path and the system's reason.
    static func replaceProcess(withSibling program: String, arguments: [String]) -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count)
        guard length > 0 else { return "/proc/self/exe: \(String(cString: strerror(errno)))" }
        let own = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let path = own[..<(own.lastIndex(of: "/") ?? own.startIndex)] + "/" + program
        var argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        execv(path, &argv)
        return "\(path): \(String(cString: strerror(errno)))"
    }

    /// Whether the file descriptor is a terminal.
    static func isTerminal(_ fd: Int32) -> Bool {
        isatty(fd) == 1
    }

    /// The environment as a dictionary.
    static func environment() -> [String: String] {
        var result: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            pointer += 1
        }
        return result
    }

    /// Colour is used only on a terminal, never with `NO_COLOR` set (to anything
    /// non-empty, per no-color.org), `TERM=dumb`, or `--no-color`.
    static func usesColor(fd: Int32, noColorFlag: Bool, environment: [String: String]) -> Bool {
        if noColorFlag || !isTerminal(fd) {
            return false
        }
        if let value = environment["NO_COLOR"], !value.isEmpty {
            return false
        }
        if environment["TERM"] == "dumb" {
            return false
        }
        return true
    }

    /// The user's home directory (`$HOME`, else the password database).
    static func homeDirectory(environment: [String: String]) -> String? {
        if let home = environment["HOME"], !home.isEmpty {
            return home
        }
        guard let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir else {
            return nil
        }
        return String(cString: directory)
    }

    /// Writes all of `text` to `fd`, retrying on short writes and EINTR.
    static func write(_ text: String, to fd: Int32) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer in
                Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written < 0 {
                if errno == EINTR {
                    continue
                }
                return  // EPIPE and friends: the reader is gone
            }
            offset += written
        }
    }

    /// Ignores SIGPIPE so a closed output pipe is an error on write, not death.
    static func ignoreBrokenPipe() {
        signal(SIGPIPE, SIG_IGN)
    }

    /// Sets the locale from the environment so libedit handles UTF-8.
    static func adoptLocale() {
        setlocale(LC_ALL, "")
        setlocale(LC_NUMERIC, "C")
    }

    /// Runs `body` with the terminal on `fd` in character mode with echo off,
    /// restoring the previous mode afterwards. Signals (Ctrl-C) stay on.
    static func withCharacterMode<T>(fd: Int32, _ body: () throws -> T) rethrows -> T {
        var saved = termios()
        guard tcgetattr(fd, &saved) == 0 else {
            return try body()
        }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ECHONL)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        tcsetattr(fd, TCSAFLUSH, &raw)
        defer { tcsetattr(fd, TCSAFLUSH, &saved) }
        return try body()
    }

    /// Reads one byte from `fd`; `nil` at end of input or error.
    static func readByte(_ fd: Int32) -> UInt8? {
        var byte: UInt8 = 0
        while true {
            let count = read(fd, &byte, 1)
            if count == 1 {
                return byte
            }
            if count < 0 && errno == EINTR {
                continue
            }
            return nil
        }
    }

    /// Waits up to `milliseconds` for `fd` to become readable.
    static func waitReadable(_ fd: Int32, milliseconds: Int32) -> Bool {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, milliseconds)
        return ready > 0
    }

    /// Monotonic time in nanoseconds.
    static func monotonicNanoseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    /// Restricts a file to its owner (history files hold what the user typed).
    static func restrictToOwner(_ path: String) {
        chmod(path, 0o600)
    }

    /// Opens a file for reading; `nil` with the reason when it cannot.
    static func openForReading(_ path: String) -> Result<Int32, ReplFailure> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            return .failure(ReplFailure(String(cString: strerror(errno))))
        }
        return .success(fd)
    }
}

/// A plain failure message from the platform layer.
struct ReplFailure: Error {
    var message: String
    init(_ message: String) {
        self.message = message
    }
}
