/// What the first TLS record of one side says.
enum TLSHello: Equatable {
    /// A ClientHello with its legacy session id.
    case client(sessionID: [UInt8])
    /// A ServerHello: `resumed` is known for TLS 1.3 (a `pre_shared_key` extension), `nil`
    /// for TLS 1.2 and older, where a resumption echoes the client's session id.
    case server(resumed: Bool?, sessionID: [UInt8])
}

/// Reads the first record of one direction of a connection and, when it is a TLS handshake
/// record (RFC 8446 section 5.1), the hello message that starts it (sections 4.1.2, 4.1.3).
/// Anything else (plain HTTP, a truncated record) yields nothing.
struct TLSRecordInspector {
    private var buffer: [UInt8] = []
    private var done = false

    /// Feeds the next bytes; returns the hello once the first record is complete.
    mutating func feed(_ bytes: [UInt8]) -> TLSHello? {
        guard !done else { return nil }
        buffer += bytes
        // Content type 22 (handshake) and a 3.x legacy record version, else not TLS.
        guard buffer[0] == 22, buffer.count < 2 || buffer[1] == 3 else {
            finish()
            return nil
        }
        guard buffer.count >= 5 else { return nil }
        let length = Int(buffer[3]) << 8 | Int(buffer[4])
        guard buffer.count >= 5 + length else { return nil }
        let record = Array(buffer[5..<(5 + length)])
        finish()
        return Self.hello(in: record)
    }

    private mutating func finish() {
        done = true
        buffer = []
    }

    /// The hello message at the start of a handshake record's fragment.
    static func hello(in fragment: [UInt8]) -> TLSHello? {
        var reader = ByteReader(fragment)
        guard let type = reader.byte(), reader.skip(3),  // msg_type, uint24 length
            reader.skip(2), reader.skip(32),  // legacy_version, random
            let sessionID = reader.vector(lengthBytes: 1)
        else { return nil }
        switch type {
        case 1:
            return .client(sessionID: sessionID)
        case 2:
            // cipher_suite, legacy_compression_method; then the extensions, absent before TLS 1.2.
            guard reader.skip(3), let extensions = reader.vector(lengthBytes: 2) else {
                return .server(resumed: nil, sessionID: sessionID)
            }
            var list = ByteReader(extensions)
            var isTLS13 = false
            var hasPreSharedKey = false
            while let type = list.uint16(), let data = list.vector(lengthBytes: 2) {
                if type == 43, data == [3, 4] { isTLS13 = true }  // supported_versions: TLS 1.3
                if type == 41 { hasPreSharedKey = true }  // pre_shared_key
            }
            return .server(resumed: isTLS13 ? hasPreSharedKey : nil, sessionID: sessionID)
        default:
            return nil
        }
    }
}

/// Big-endian reads from a byte array that fail (return nil) instead of running past the end.
struct ByteReader {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func byte() -> UInt8? {
        guard offset < bytes.count else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func uint16() -> Int? {
        guard let high = byte(), let low = byte() else { return nil }
        return Int(high) << 8 | Int(low)
    }

    mutating func skip(_ count: Int) -> Bool {
        guard bytes.count - offset >= count else { return false }
        offset += count
        return true
    }

    /// A vector with a 1- or 2-byte length prefix.
    mutating func vector(lengthBytes: Int) -> [UInt8]? {
        let length: Int?
        if lengthBytes == 1 { length = byte().map(Int.init) } else { length = uint16() }
        guard let length, bytes.count - offset >= length else { return nil }
        defer { offset += length }
        return Array(bytes[offset..<(offset + length)])
    }
}
