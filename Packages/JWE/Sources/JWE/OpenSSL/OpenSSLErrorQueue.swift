internal import COpenSSL

/// The one place where OpenSSL's thread-local error queue becomes a ``JWEError``.
///
/// Every failing libcrypto call in the package goes through ``error(_:_:)`` (or ``discard()`` where the
/// failure is deliberately hidden), so the queue never leaks stale entries into an unrelated later call.
enum OpenSSLErrorQueue {
    /// Drains the queue and returns an error with `code`; the reason is `context` followed by OpenSSL's
    /// reasons (most recent last). For ``JWEError/Code/decryptionFailed`` OpenSSL's text is never included.
    static func error(_ code: JWEError.Code, _ context: String) -> JWEError {
        var details: [String] = []
        while true {
            let packed = ERR_get_error()
            if packed == 0 { break }
            if details.count < 4 {
                details.append(describe(packed))
            }
        }
        if code == .decryptionFailed {
            return .decryptionFailedGeneric
        }
        if details.isEmpty {
            return JWEError(code, context)
        }
        return JWEError(code, context + " (OpenSSL: " + details.joined(separator: "; ") + ")")
    }

    /// Empties the queue without reporting: used where a failure must look like every other failure.
    @inline(__always)
    static func discard() {
        ERR_clear_error()
    }

    private static func describe(_ packed: UInt) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(packed, &buffer, buffer.count)
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }
}
