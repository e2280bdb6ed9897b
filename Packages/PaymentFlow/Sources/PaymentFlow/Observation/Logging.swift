import CardValidation
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

    /// Whether a `.debug` line would reach the sink (so callers can skip building one).
    var logsDebug: Bool { sink != nil && level == .debug }

    func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
    func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    func error(_ message: @autoclosure () -> String) { log(.error, message()) }
}

/// Removes secrets from text. Every log line, description and error message
/// goes through ``scrub(_:)`` as a last line of defence: the verification key
/// becomes its fingerprint (first, so a key holding digits is replaced whole),
/// and then card numbers are masked by CardValidation's one
/// rule (`CardNumberRedaction.redact`: a Luhn-valid run of 12 to 19 digits
/// becomes `•••• 1234`). Text the SDK did not write itself (gateway messages,
/// host errors) goes through the same ``scrub(_:)``: one rule for the SDK and the
/// shell (ids, which are long digit runs that fail Luhn, stay whole).
struct Redactor: Sendable {
    /// Secrets to blank out wherever they appear (the verification key).
    var secrets: [String] = []

    /// The secrets first, then the card numbers: a key holding a Luhn-valid digit run would otherwise be
    /// masked in part (the rest of it left in clear) and no longer match for replacement.
    func scrub(_ text: String) -> String {
        CardNumberRedaction.redact(replaceSecrets(text))
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
}

extension Redactor {
    /// The error with its reason scrubbed (the verification key and PAN-like digit runs removed).
    func scrubbed(_ error: FlowError) -> FlowError {
        var copy = error
        copy.reason = scrub(error.reason)
        if case .flow(let box) = error.underlying { copy.underlying = .flow(FlowError.Box(scrubbed(box.error))) }
        if case .foreign(let domain, let code, let message) = error.underlying {
            copy.underlying = .foreign(domain: domain, code: code, message: scrub(message))
        }
        return copy
    }
}
