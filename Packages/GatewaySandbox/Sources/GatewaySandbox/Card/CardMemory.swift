import EGWWire
import JWE

/// The digits of one card field (the number, the security code, an expiry part) decoded from the
/// JWE plaintext, held where a `String` cannot copy them.
///
/// The storage is a heap buffer of fixed capacity, allocated once, so a move of this value never
/// leaves digits behind and nothing reallocates; it is wiped with JWE's `SecureMemory`
/// (`OPENSSL_cleanse`, which the optimiser cannot drop) and freed when the value ends. The type is
/// noncopyable, so there is exactly one owner of the buffer.
struct CardDigits: ~Copyable, JSONScalarSink {
    private let storage: UnsafeMutableBufferPointer<UInt8>
    /// The decoded text's length in UTF-8 bytes, digits or not (kept counting past the capacity).
    private(set) var utf8Count = 0
    /// False once a scalar other than ASCII `0`–`9` arrived.
    private(set) var onlyDigits = true

    /// Room for `capacity` digits: the longest the field may be.
    init(capacity: Int) {
        storage = .allocate(capacity: capacity)
        storage.initialize(repeating: 0)
    }

    deinit {
        SecureMemory.wipe(UnsafeMutableRawBufferPointer(storage))
        storage.deallocate()
    }

    mutating func append(_ scalar: Unicode.Scalar) {
        let isDigit = (0x30...0x39).contains(scalar.value)
        if !isDigit { onlyDigits = false }
        // While only digits arrived, utf8Count is the number of digits so far.
        if isDigit, onlyDigits, utf8Count < storage.count {
            storage[utf8Count] = UInt8(truncatingIfNeeded: scalar.value)
        }
        utf8Count += Unicode.UTF8.width(scalar)
    }

    /// True when the text was ASCII digits only and their count is in `lengths` (whose upper bound
    /// must not exceed the capacity).
    func isDigits(_ lengths: ClosedRange<Int>) -> Bool {
        precondition(lengths.upperBound <= storage.count)
        return onlyDigits && lengths.contains(utf8Count)
    }

    /// The digits as ASCII bytes; valid only for the duration of `body`.
    func withDigits<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        body(UnsafeBufferPointer(rebasing: storage[..<min(utf8Count, storage.count)]))
    }

    /// The digits read as a decimal number (for expiry fields, which are not secret).
    var value: Int { withDigits { $0.reduce(0) { $0 * 10 + Int($1 - 0x30) } } }
}

/// Wiping the decrypted plaintext.
enum CardMemory {
    /// Wipes `bytes` in place with `SecureMemory` (`OPENSSL_cleanse`).
    ///
    /// Arrays are copy-on-write: were the storage shared, writing would wipe a fresh copy and leave
    /// the plaintext in place. The caller must hold the only reference (the array the decrypter
    /// returned); debug builds check that the wiped storage is the original one.
    static func wipe(_ bytes: inout [UInt8]) {
        let original = bytes.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
        SecureMemory.wipe(&bytes)
        let wiped = bytes.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
        assert(original == wiped, "the plaintext was shared: a copy was wiped instead of it")
    }
}
