import CSandboxTestSSL
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A blocking HTTPS/1.1 client over OpenSSL's libssl, independent of the server's GnuTLS: one
/// request per connection (`Connection: close`), the server checked against a given CA file
/// and a host name or IP address as OpenSSL's own verifier does it.
enum TLSTestClient {
    struct Options {
        /// The CA file to trust; `nil` trusts nothing (every server fails verification).
        var certificateAuthorityFile: String?
        /// The name checked against the certificate (an IP address or a DNS name; sent as SNI when a name).
        var host = "127.0.0.1"
        /// Lowest and highest TLS version offered (`TLS1_2_VERSION`, ...); 0: OpenSSL's default.
        var minimumVersion: Int32 = TLS1_2_VERSION
        var maximumVersion: Int32 = 0
        /// Lower OpenSSL's security level to 0 (needed for TLS 1.0/1.1 at all in OpenSSL 3).
        var allowsLegacy = false
        /// A session to resume (from a previous `Result`).
        var session: TLSSession?
    }

    struct Result {
        /// `TLSv1.3`, `TLSv1.2`, ...
        var version: String
        var resumed: Bool
        var response: RawResponse
        var session: TLSSession?
    }

    enum Failure: Error, Equatable {
        /// The handshake failed; `verifyResult` is OpenSSL's X509_V_* code (0: not a verification failure).
        case handshake(verifyResult: Int, reason: String)
        case io(String)
    }

    static func request(
        _ method: String, _ url: URL, port: UInt16? = nil, headers: [(String, String)] = [], body: [UInt8]? = nil,
        options: Options = Options()
    ) throws -> Result {
        let port = port ?? UInt16(url.port ?? 443)
        var target = url.path.isEmpty ? "/" : url.path
        if let query = url.query { target += "?" + query }
        var head = "\(method) \(target) HTTP/1.1\r\nHost: \(options.host):\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        let (raw, version, resumed, session) = try exchange(port: port, bytes: Array(head.utf8) + (body ?? []), options)
        guard !raw.isEmpty else { throw RawHTTPError.noResponse }
        return Result(version: version, resumed: resumed, response: try RawHTTPClient.parse(raw), session: session)
    }

    /// The DER SubjectPublicKeyInfo of the certificate the server presents.
    static func peerPublicKeyDER(port: UInt16, options: Options) throws -> [UInt8] {
        try withConnection(port: port, options) { ssl in
            guard let certificate = SSL_get1_peer_certificate(ssl) else { throw Failure.io("no peer certificate") }
            defer { X509_free(certificate) }
            let key = X509_get0_pubkey(certificate)
            let length = i2d_PUBKEY(key, nil)
            guard length > 0 else { throw Failure.io("i2d_PUBKEY") }
            var bytes = [UInt8](repeating: 0, count: Int(length))
            _ = bytes.withUnsafeMutableBufferPointer { buffer -> Int32 in
                var cursor = buffer.baseAddress
                return i2d_PUBKEY(key, &cursor)
            }
            return bytes
        }
    }

    private static func exchange(
        port: UInt16, bytes: [UInt8], _ options: Options
    ) throws -> ([UInt8], String, Bool, TLSSession?) {
        try withConnection(port: port, options) { ssl in
            let version = String(cString: SSL_get_version(ssl))
            let resumed = SSL_session_reused(ssl) == 1
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) }
                guard written > 0 else { throw Failure.io("SSL_write") }
                offset += Int(written)
            }
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 16 << 10)
            while true {
                let count = buffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
                if count <= 0 { break }
                received += buffer[0..<Int(count)]
            }
            ERR_clear_error()
            let session = SSL_get1_session(ssl).map(TLSSession.init)
            return (received, version, resumed, session)
        }
    }

    /// Connects, completes a verified handshake and runs `body` on the connection.
    private static func withConnection<T>(
        port: UInt16, _ options: Options, _ body: (OpaquePointer) throws -> T
    ) throws -> T {
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw Failure.io("SSL_CTX_new") }
        defer { SSL_CTX_free(context) }
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        if let file = options.certificateAuthorityFile {
            guard SSL_CTX_load_verify_locations(context, file, nil) == 1 else {
                throw Failure.io("cannot load \(file)")
            }
        }
        if options.minimumVersion != 0 {
            _ = SSL_CTX_ctrl(context, SSL_CTRL_SET_MIN_PROTO_VERSION, Int(options.minimumVersion), nil)
        }
        if options.maximumVersion != 0 {
            _ = SSL_CTX_ctrl(context, SSL_CTRL_SET_MAX_PROTO_VERSION, Int(options.maximumVersion), nil)
        }
        if options.allowsLegacy {
            SSL_CTX_set_security_level(context, 0)
            _ = SSL_CTX_set_cipher_list(context, "DEFAULT@SECLEVEL=0")
        }
        guard let ssl = SSL_new(context) else { throw Failure.io("SSL_new") }
        defer { SSL_free(ssl) }
        let parameters = SSL_get0_param(ssl)
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, options.host, &v4) == 1 || inet_pton(AF_INET6, options.host, &v6) == 1 {
            _ = X509_VERIFY_PARAM_set1_ip_asc(parameters, options.host)
        } else {
            _ = X509_VERIFY_PARAM_set1_host(parameters, options.host, 0)
            _ = options.host.withCString {
                SSL_ctrl(
                    ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, Int(TLSEXT_NAMETYPE_host_name),
                    UnsafeMutableRawPointer(mutating: $0))
            }
        }
        if let session = options.session { _ = SSL_set_session(ssl, session.pointer) }

        let fd = try RawHTTPClient.connectedSocket(port: port)
        defer { close(fd) }
        _ = SSL_set_fd(ssl, fd)
        guard SSL_connect(ssl) == 1 else {
            let verify = SSL_get_verify_result(ssl)
            let code = ERR_get_error()
            let reason = code == 0 ? "" : ERR_reason_error_string(code).map { String(cString: $0) } ?? "?"
            ERR_clear_error()
            throw Failure.handshake(verifyResult: verify, reason: reason)
        }
        return try body(ssl)
    }
}

/// An owned `SSL_SESSION`, for resuming.
final class TLSSession {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
    deinit { SSL_SESSION_free(pointer) }
}
