internal import CMicroHTTPD
internal import CMicroHTTPDShim
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/1.1 server on libmicrohttpd in thread-per-connection mode.
///
/// Each request is read completely (the body capped at `bodyLimit`; the excess is read and
/// discarded, so the client always gets an answer) and then passed to `handler` on the
/// connection's own thread, so a handler that sleeps delays only its own client.
/// `stop()` closes the listening socket, waits for running handlers and joins every
/// connection thread; the port is free again when it returns.
final class HTTPServer: Sendable {
    typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    /// Bodies whose declared length exceeds this are answered at once without reading them.
    static let discardLimit = 16 << 20

    let port: UInt16
    private let daemon: Mutex<DaemonHandle?>
    /// Held for the whole of `stop()`, so concurrent callers all return after the threads are joined.
    private let stopping = Mutex(())
    private let dispatcher: Unmanaged<Dispatcher>
    /// Freed after the daemon, which is stopped in `deinit` before the properties go.
    private let tlsBuffers: TLSBuffers?

    /// What an HTTPS server serves: PEM text and a GnuTLS priority string (`nil`: "NORMAL").
    struct TLSSettings: Sendable {
        var certificateChainPEM: String
        var privateKeyPEM: String
        var priorities: String?
    }

    /// Starts serving plain HTTP, or HTTPS when `tls` is given.
    init(
        host: String, port: UInt16, bodyLimit: Int, tls: TLSSettings? = nil, handler: @escaping Handler
    )
        throws(SandboxError)
    {
        let dispatcher = Unmanaged.passRetained(Dispatcher(bodyLimit: bodyLimit, handler: handler))
        var error: Int32 = 0
        let buffers = tls.map(TLSBuffers.init)
        func start(_ options: UnsafePointer<cmhd_tls>?) -> OpaquePointer? {
            cmhd_start_daemon(
                host, port, sandboxAccessHandler, dispatcher.toOpaque(), sandboxRequestCompleted, nil,
                30, 256, options, &error)
        }
        let started: OpaquePointer?
        if let buffers {
            error = ENOMEM
            started = buffers.withOptions(start) ?? nil
        } else {
            started = start(nil)
        }
        guard let started else {
            dispatcher.release()
            switch error {
            case EINVAL:
                throw SandboxError(.invalidConfiguration, "host \"\(host)\" is not a numeric IPv4 or IPv6 address")
            case ENOTSUP:
                throw SandboxError(.tlsUnavailable, "this libmicrohttpd was built without TLS support")
            case EPROTO:
                throw SandboxError(
                    .tlsUnavailable, "GnuTLS refused the certificate, the key or the TLS priorities")
            default:
                throw SandboxError(.bindFailed, "cannot listen on \(host):\(port): \(String(cString: strerror(error)))")
            }
        }
        self.port = cmhd_bound_port(started)
        self.dispatcher = dispatcher
        self.tlsBuffers = buffers
        self.daemon = Mutex(DaemonHandle(pointer: started))
    }

    /// Whether libmicrohttpd was built with TLS (GnuTLS), so `tls` can be given.
    static var supportsTLS: Bool { cmhd_tls_supported() != 0 }

    /// Stops serving; idempotent. Blocks until every connection thread has ended, for every caller:
    /// a second, concurrent caller waits for the first to finish joining the threads. Must not be
    /// called from a request handler (the daemon would wait for the calling thread itself).
    func stop() {
        stopping.withLock { _ in
            let handle = daemon.withLock { current -> DaemonHandle? in
                let taken = current
                current = nil
                return taken
            }
            guard let handle else { return }
            MHD_stop_daemon(handle.pointer)
            dispatcher.release()
        }
    }

    deinit { stop() }
}

/// libmicrohttpd's TLS options as C strings that live as long as the server (the daemon is
/// documented to read them while it starts; keeping them until it stops costs nothing).
private final class TLSBuffers: @unchecked Sendable {
    // Written once in init, freed in deinit; never mutated in between.
    private let certificate: UnsafeMutablePointer<CChar>?
    private let key: UnsafeMutablePointer<CChar>?
    private let priorities: UnsafeMutablePointer<CChar>?

    init(_ settings: HTTPServer.TLSSettings) {
        certificate = strdup(settings.certificateChainPEM)
        key = strdup(settings.privateKeyPEM)
        priorities = settings.priorities.flatMap { strdup($0) }
    }

    deinit {
        if let key {
            // The key is a test key, but wipe it anyway before the memory is reused.
            memset(key, 0, strlen(key))
        }
        free(certificate)
        free(key)
        free(priorities)
    }

    /// Runs `body` with the options, or with `nil` when a copy could not be allocated.
    func withOptions<T>(_ body: (UnsafePointer<cmhd_tls>?) -> T) -> T? {
        guard let certificate, let key else { return nil }
        var options = cmhd_tls(certificate_pem: certificate, key_pem: key, priorities: priorities)
        return body(&options)
    }
}

/// The daemon pointer, owned by `HTTPServer` and only touched under its lock.
private struct DaemonHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// What the C callbacks reach through `cls`: the handler and the body limit.
private final class Dispatcher: Sendable {
    let bodyLimit: Int
    let handler: HTTPServer.Handler

    init(bodyLimit: Int, handler: @escaping HTTPServer.Handler) {
        self.bodyLimit = bodyLimit
        self.handler = handler
    }
}

/// Per-request state kept in libmicrohttpd's `req_cls` from the first call to the completion callback.
private final class RequestContext {
    var body: [UInt8] = []
    var exceeded = false
}

/// Collects key/value pairs from `MHD_get_connection_values`.
private final class PairCollector {
    var pairs: [(name: String, value: String)] = []
}

private func sandboxCollectPair(
    _ cls: UnsafeMutableRawPointer?, _ kind: MHD_ValueKind, _ key: UnsafePointer<CChar>?,
    _ value: UnsafePointer<CChar>?
) -> MHD_Result {
    guard let cls, let key else { return .YES }
    let collector = Unmanaged<PairCollector>.fromOpaque(cls).takeUnretainedValue()
    collector.pairs.append(
        (
            String(decoding: UnsafeRawBufferPointer(start: key, count: strlen(key)), as: UTF8.self),
            value.map { String(cString: $0) } ?? ""
        ))
    return .YES
}

private func connectionValues(_ connection: OpaquePointer, _ kind: MHD_ValueKind) -> [(name: String, value: String)] {
    let collector = PairCollector()
    withExtendedLifetime(collector) {
        _ = MHD_get_connection_values(
            connection, kind, sandboxCollectPair, Unmanaged.passUnretained(collector).toOpaque())
    }
    return collector.pairs
}

private func sandboxAccessHandler(
    _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?, _ url: UnsafePointer<CChar>?,
    _ method: UnsafePointer<CChar>?, _ version: UnsafePointer<CChar>?, _ uploadData: UnsafePointer<CChar>?,
    _ uploadDataSize: UnsafeMutablePointer<Int>?, _ requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    guard let cls, let connection, let url, let method, let uploadDataSize, let requestContext else { return .NO }
    let dispatcher = Unmanaged<Dispatcher>.fromOpaque(cls).takeUnretainedValue()

    guard let existing = requestContext.pointee else {
        // First call: only the headers are known.
        let context = RequestContext()
        requestContext.pointee = Unmanaged.passRetained(context).toOpaque()
        if let declared = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Length"),
            let length = Int(String(cString: declared)), length > HTTPServer.discardLimit
        {
            context.exceeded = true
            return respond(dispatcher, context, connection, url, method)
        }
        return .YES
    }
    let context = Unmanaged<RequestContext>.fromOpaque(existing).takeUnretainedValue()

    let size = uploadDataSize.pointee
    if size > 0 {
        if let uploadData, !context.exceeded {
            if context.body.count + size <= dispatcher.bodyLimit {
                uploadData.withMemoryRebound(to: UInt8.self, capacity: size) {
                    context.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: size))
                }
            } else {
                context.exceeded = true
                context.body = []
            }
        }
        uploadDataSize.pointee = 0
        return .YES
    }
    return respond(dispatcher, context, connection, url, method)
}

private func respond(
    _ dispatcher: Dispatcher, _ context: RequestContext, _ connection: OpaquePointer, _ url: UnsafePointer<CChar>,
    _ method: UnsafePointer<CChar>
) -> MHD_Result {
    var headers: [String: String] = [:]
    for (name, value) in connectionValues(connection, .HEADER_KIND) {
        let key = name.lowercased()
        headers[key] = headers[key].map { $0 + ", " + value } ?? value
    }
    let request = HTTPRequest(
        method: String(cString: method), path: String(cString: url),
        query: connectionValues(connection, .GET_ARGUMENT_KIND), headers: headers,
        body: context.body, bodyExceededLimit: context.exceeded)
    let response = dispatcher.handler(request)
    return queue(response, on: connection)
}

private func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
    // A status that is no HTTP status (fault injection takes any Int) closes the connection
    // rather than trapping on the conversion; libmicrohttpd refuses the rest outside 100...999.
    guard let status = UInt32(exactly: response.status) else { return .NO }
    let created: OpaquePointer?
    switch response.delivery {
    case .dropConnection:
        return .NO
    case .complete:
        created = response.body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(
                bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
        }
    case .truncated(let sentBytes):
        let sent = max(0, min(sentBytes, response.body.count))
        let declared = UInt64(max(response.body.count, sent + 1))
        created = response.body.withUnsafeBytes { bytes in
            cmhd_create_truncated_response(bytes.baseAddress, sent, declared)
        }
    }
    guard let mhdResponse = created else { return .NO }
    defer { MHD_destroy_response(mhdResponse) }
    for (name, value) in response.headers {
        _ = MHD_add_response_header(mhdResponse, name, value)
    }
    return MHD_queue_response(connection, status, mhdResponse)
}

private func sandboxRequestCompleted(
    _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
    _ requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, _ code: MHD_RequestTerminationCode
) {
    guard let requestContext, let existing = requestContext.pointee else { return }
    Unmanaged<RequestContext>.fromOpaque(existing).release()
    requestContext.pointee = nil
}
