import Foundation

/// How much the SDK logs. Records below ``Configuration/logLevel`` are not built at all.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
    /// Every step and HTTP exchange (still without card data or secrets).
    case debug = 0
    /// One line per payment start and result.
    case info = 1
    /// Recoverable surprises (a retried key, a recovered response, a misbehaving host callback).
    case warning = 2
    /// Failures.
    case error = 3
    /// Nothing.
    case off = 4

    /// Orders by severity.
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `"debug"`, `"info"`, ...
    public var description: String {
        switch self {
        case .debug: "debug"
        case .info: "info"
        case .warning: "warning"
        case .error: "error"
        case .off: "off"
        }
    }
}

/// One log line, as the SDK hands it to the host's ``PaymentLogSink``.
///
/// `message` never contains a card number, a security code, the JWE plaintext
/// or the verification key (which appears at most as a short hash, `vk#1a2b3c4d`).
public struct LogRecord: Sendable, CustomStringConvertible {
    /// The severity.
    public var level: LogLevel
    /// The text.
    public var message: String
    /// The payment the line is about, when there is one.
    public var paymentId: String?

    /// Creates a record.
    public init(level: LogLevel, message: String, paymentId: String? = nil) {
        self.level = level
        self.message = message
        self.paymentId = paymentId
    }

    /// `[level] payment p_1: message`.
    public var description: String {
        if let paymentId { return "[\(level)] payment \(paymentId): \(message)" }
        return "[\(level)] \(message)"
    }
}

/// Where log records go: a closure the host sets in ``Configuration/logSink``.
/// Called on an SDK-internal queue; keep it fast.
public typealias PaymentLogSink = @Sendable (LogRecord) -> Void

/// The SDK's logger: level filter, sink, and the redaction every line goes through.
struct Logger: Sendable {
    var level: LogLevel
    var sink: PaymentLogSink?
    var paymentId: String?
    var redactor: Redactor

    func log(_ recordLevel: LogLevel, _ message: @autoclosure () -> String) {
        guard let sink, recordLevel != .off, recordLevel >= level else { return }
        sink(LogRecord(level: recordLevel, message: redactor.scrub(message()), paymentId: paymentId))
    }

    func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
    func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    func error(_ message: @autoclosure () -> String) { log(.error, message()) }
}

/// Removes secrets from text. Every log line, description and error message
/// goes through ``scrub(_:)`` as a last line of defence (the verification key
/// becomes its fingerprint; a Luhn-valid run of 12 to 19 digits is masked to
/// its last four); text the SDK did not write itself (gateway messages, host
/// errors) goes through ``scrubForeign(_:)``, which masks every run of six or
/// more digits.
struct Redactor: Sendable {
    /// Secrets to blank out wherever they appear (the verification key).
    var secrets: [String] = []

    func scrub(_ text: String) -> String {
        replaceSecrets(Redactor.maskDigitRuns(text, minimum: 12, panLikeOnly: true))
    }

    func scrubForeign(_ text: String) -> String {
        replaceSecrets(Redactor.maskDigitRuns(text, minimum: 6, panLikeOnly: false))
    }

    private func replaceSecrets(_ text: String) -> String {
        var result = text
        for secret in secrets where secret.count >= 4 {
            result = result.replacingOccurrences(of: secret, with: Redactor.fingerprint(secret))
        }
        return result
    }

    /// `vk#` and 8 hex digits of a 64-bit FNV-1a hash: enough to tell two keys apart, not to recover one.
    static func fingerprint(_ secret: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in secret.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let short = String(hash >> 32, radix: 16)
        return "vk#" + String(repeating: "0", count: max(0, 8 - short.count)) + short
    }

    /// Replaces every run of `minimum`+ digits (single spaces/dashes between digits allowed) by `••••` and
    /// its last four digits; with `panLikeOnly`, only runs of at most 19 digits that pass the Luhn check.
    static func maskDigitRuns(_ text: String, minimum: Int, panLikeOnly: Bool) -> String {
        let scalars = Array(text.unicodeScalars)
        var out = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            guard isDigit(scalars[index]) else {
                out.append(scalars[index])
                index += 1
                continue
            }
            // Extend the run over digits and single separators between digits.
            var end = index
            var digits: [Unicode.Scalar] = []
            var cursor = index
            while cursor < scalars.count {
                if isDigit(scalars[cursor]) {
                    digits.append(scalars[cursor])
                    end = cursor + 1
                    cursor += 1
                } else if scalars[cursor] == " " || scalars[cursor] == "-",
                    cursor + 1 < scalars.count, isDigit(scalars[cursor + 1])
                {
                    cursor += 1
                } else {
                    break
                }
            }
            let masked = digits.count >= minimum && (!panLikeOnly || (digits.count <= 19 && luhn(digits)))
            if masked {
                out.append(contentsOf: "••••".unicodeScalars)
                out.append(contentsOf: digits.suffix(4))
            } else {
                out.append(contentsOf: scalars[index..<end])
            }
            index = end
        }
        return String(out)
    }

    private static func luhn(_ digits: [Unicode.Scalar]) -> Bool {
        var sum = 0
        for (offset, scalar) in digits.reversed().enumerated() {
            var value = Int(scalar.value) - 48
            if offset % 2 == 1 {
                value *= 2
                if value > 9 { value -= 9 }
            }
            sum += value
        }
        return sum % 10 == 0
    }

    private static func isDigit(_ scalar: Unicode.Scalar) -> Bool { scalar >= "0" && scalar <= "9" }
}

extension Redactor {
    /// The error with its reason scrubbed (the verification key and PAN-like digit runs removed).
    func scrubbed(_ error: FlowError) -> FlowError {
        var copy = error
        copy.reason = scrub(error.reason)
        if case .flow(let box) = error.underlying { copy.underlying = .flow(FlowError.Box(scrubbed(box.error))) }
        if case .foreign(let domain, let code, let message) = error.underlying {
            copy.underlying = .foreign(domain: domain, code: code, message: scrubForeign(message))
        }
        return copy
    }
}
