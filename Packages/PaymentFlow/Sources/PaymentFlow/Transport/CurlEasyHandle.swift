internal import CCurl
internal import CCurlShim
import Foundation

/// Initialises libcurl once per process (thread-safe through `static let`).
enum CurlGlobal {
    static let initialised: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    /// `libcurl/7.88.1`, for the default User-Agent.
    static let versionText: String = {
        // curl_version() reads "libcurl/7.88.1 OpenSSL/3.0.19 ...": keep the first word.
        guard let text = curl_version() else { return "libcurl" }
        return String(cString: text).split(separator: " ").first.map(String.init) ?? "libcurl"
    }()
}

/// Everything one hop needs, already validated: no Foundation URL parsing or
/// policy decisions happen below this point.
struct CurlHop {
    var method: String
    var url: String
    var host: String
    var headerLines: [String]
    var body: [UInt8]?
    var connectTimeoutMilliseconds: Int
    var totalTimeoutMilliseconds: Int
    var maxResponseBytes: Int
    var protocols: String
    var pinnedPublicKey: String?
    var userAgent: String
    var caBundlePath: String?
    /// Which proxy this hop goes through (the configuration's; never the environment's by default).
    var proxy: NetworkProxy = .direct
    /// Whether libcurl may log TLS secrets to `$SSLKEYLOGFILE` (debugging only).
    var honoursKeyLogFile = false
    /// Whether this hop may be sent on a connection an earlier request left open (and leave
    /// its own open for a later one); `false` forces a new connection, closed afterwards.
    var reusesConnection = false
    /// With `reusesConnection`: the oldest idle connection libcurl may still reuse, in seconds.
    var maximumIdleSeconds = 15
    /// A request target other than the URL's path, sent without a body: `*` for `OPTIONS *`, the
    /// request RFC 9110 (9.3.7) gives for asking a server about itself rather than a resource.
    var requestTarget: String?
}

extension CurlHop {
    /// The kit's trust for this hop's connection.
    var trust: CurlTrust {
        CurlTrust(
            caBundlePath: caBundlePath, pinnedPublicKey: pinnedPublicKey, proxy: proxy,
            connectTimeoutMilliseconds: connectTimeoutMilliseconds, honoursKeyLogFile: honoursKeyLogFile)
    }
}

/// What one hop produced before it is mapped to `HTTPResponse` / `TransportError`.
enum CurlHopOutcome {
    case response(status: Int, headers: [HTTPHeader], body: [UInt8])
    case failure(TransportError)
}

/// Collects one transfer's headers and body; reached from the C callbacks
/// through an unretained pointer that lives for the duration of the perform.
final class CurlResponseSink {
    let limit: Int
    var body: [UInt8] = []
    var headers: [HTTPHeader] = []
    var headerBytes = 0
    var exceededLimit = false

    /// Header bytes tolerated for one response (all hops' status lines and fields).
    static let headerLimit = 256 * 1024

    init(limit: Int) {
        self.limit = limit
    }

    func appendBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if body.count + bytes.count > limit {
            exceededLimit = true
            return false
        }
        body.append(contentsOf: bytes)
        return true
    }

    func appendHeaderLine(_ bytes: UnsafeRawBufferPointer) -> Bool {
        headerBytes += bytes.count
        if headerBytes > Self.headerLimit {
            exceededLimit = true
            return false
        }
        // Trim CR/LF as bytes: in a Swift String "\r\n" is one Character.
        var end = bytes.count
        while end > 0, bytes[end - 1] == 0x0A || bytes[end - 1] == 0x0D {
            end -= 1
        }
        let line = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[0..<end]), as: UTF8.self)
        if line.isEmpty {
            return true
        }
        if line.hasPrefix("HTTP/") {
            // A new response starts (an interim 1xx, or the next response):
            // only the last response's headers are reported.
            headers.removeAll()
            return true
        }
        if let first = line.first, first == " " || first == "\t", !headers.isEmpty {
            // Obsolete line folding: continue the previous value.
            headers[headers.count - 1].value += " " + line.trimmingCharacters(in: .whitespaces)
            return true
        }
        guard let colon = line.firstIndex(of: ":") else {
            return true
        }
        let name = String(line[..<colon]).trimmingCharacters(in: .whitespaces)
        let value = String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
        headers.append(HTTPHeader(name, value))
        return true
    }
}

/// The transport's own end of a transfer, on ``SuspendAwareClock`` (`at` and `now` in its
/// nanoseconds): libcurl's timeouts run on its monotonic clock, which stops while the machine sleeps.
struct TransferDeadline: Sendable {
    var at: UInt64
    var now: @Sendable () -> UInt64
}

/// What the progress callback of one transfer checks: the cancellation and the deadline. Used only on
/// the transfer's thread, inside `curl_easy_perform`.
private final class TransferWatch {
    let cancellation: TransferCancellation?
    let deadline: TransferDeadline?
    /// Set when the callback aborted the transfer because the deadline passed.
    private(set) var deadlinePassed = false

    init(cancellation: TransferCancellation?, deadline: TransferDeadline?) {
        self.cancellation = cancellation
        self.deadline = deadline
    }

    /// Whether the transfer must stop now.
    func shouldAbort() -> Bool {
        if cancellation?.isCancelled == true { return true }
        if let deadline, deadline.now() >= deadline.at {
            deadlinePassed = true
            return true
        }
        return false
    }
}

private let curlProgress: curl_xferinfo_callback = { context, _, _, _, _ in
    guard let context else { return 0 }
    return Unmanaged<TransferWatch>.fromOpaque(context).takeUnretainedValue().shouldAbort() ? 1 : 0
}

/// libcurl's write callback shape (`CURLOPT_WRITEFUNCTION`, `CURLOPT_HEADERFUNCTION`).
private typealias CurlWriteCallback =
    @convention(c) (
        UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?
    ) -> Int

private let curlWriteBody: CurlWriteCallback = { data, size, count, context in
    guard let context else { return 0 }
    let sink = Unmanaged<CurlResponseSink>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    guard length > 0, let data else { return length }
    return sink.appendBody(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
}

private let curlWriteHeader: CurlWriteCallback = { data, size, count, context in
    guard let context else { return 0 }
    let sink = Unmanaged<CurlResponseSink>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    guard length > 0, let data else { return length }
    return sink.appendHeaderLine(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
}

/// One libcurl easy handle with the memory it points to (header list, error
/// buffer, body copy) and, once it has sent a request, the connection libcurl keeps
/// open in it. Used by one thread at a time; a `CurlConnectionCache` hands it from
/// one thread to the next under its lock (hence the unchecked `Sendable`). `deinit`
/// frees it all and closes its connection.
final class CurlEasyHandle: @unchecked Sendable {
    private let handle: UnsafeMutableRawPointer
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer: UnsafeMutablePointer<CChar>
    /// The share handle this one is attached to, kept alive until after `curl_easy_cleanup`.
    private let share: CurlShare?
    /// The body of the current request when it is read once (reused connections); wiped when freed.
    private var onceBody: OpaquePointer?
    /// How often libcurl handed the current request to a connection (the shim's pre-request count).
    private let requestStarts: UnsafeMutablePointer<Int32>

    /// `nil` when libcurl cannot allocate a handle. `share` (TLS sessions, DNS) is used by
    /// every request of this handle.
    init?(share: CurlShare? = nil) {
        guard CurlGlobal.initialised, let handle = curl_easy_init() else { return nil }
        self.handle = handle
        self.share = share
        errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        requestStarts = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
        requestStarts.initialize(to: 0)
    }

    deinit {
        curl_easy_cleanup(handle)
        withExtendedLifetime(share) {}
        if let onceBody { ccurl_body_free(onceBody) }
        if let headerList {
            curl_slist_free_all(headerList)
        }
        errorBuffer.deallocate()
        requestStarts.deallocate()
    }

    /// Performs one hop (no redirect following) and reports what came back. A raised `cancellation`
    /// aborts the transfer within about a second; so does a passed `deadline` (as `.timeout`), which,
    /// unlike libcurl's own timeouts, counts the time the machine was suspended.
    func perform(
        _ hop: CurlHop, cancellation: TransferCancellation? = nil, deadline: TransferDeadline? = nil
    ) -> CurlHopOutcome {
        if var failure = configure(hop) {
            failure.delivery = .neverSent
            return .failure(failure)
        }
        requestStarts.pointee = 0
        if ccurl_count_request_starts(handle, requestStarts) != CURLE_OK {
            return .failure(
                TransportError(.other, "\(hop.host): libcurl refused the request counter", delivery: .neverSent))
        }
        if cancellation?.isCancelled == true {
            return .failure(TransportError(.other, "\(hop.host): cancelled", delivery: .neverSent))
        }
        let watch = TransferWatch(cancellation: cancellation, deadline: deadline)
        let watchCode = ccurl_setopt_progress(handle, curlProgress, Unmanaged.passUnretained(watch).toOpaque())
        if watchCode != CURLE_OK {
            return .failure(
                CurlErrors.error(
                    for: watchCode, detail: "", host: hop.host, exceededLimit: false, delivery: .neverSent))
        }
        // A kept handle must not call back into a watch that is gone.
        defer { _ = ccurl_setopt_progress(handle, nil, nil) }
        let sink = CurlResponseSink(limit: hop.maxResponseBytes)
        let context = Unmanaged.passUnretained(sink).toOpaque()
        var code = ccurl_setopt_write_function(handle, CURLOPT_WRITEFUNCTION, curlWriteBody)
        if code == CURLE_OK { code = ccurl_setopt_pointer(handle, CURLOPT_WRITEDATA, context) }
        if code == CURLE_OK { code = ccurl_setopt_write_function(handle, CURLOPT_HEADERFUNCTION, curlWriteHeader) }
        if code == CURLE_OK { code = ccurl_setopt_pointer(handle, CURLOPT_HEADERDATA, context) }
        if code != CURLE_OK {
            return .failure(
                CurlErrors.error(for: code, detail: "", host: hop.host, exceededLimit: false, delivery: .neverSent))
        }
        code = withExtendedLifetime((sink, watch)) { curl_easy_perform(handle) }
        if code == CURLE_ABORTED_BY_CALLBACK, watch.deadlinePassed {
            return .failure(
                TransportError(
                    .timeout, "\(hop.host): total timeout expired (suspended time included)",
                    delivery: lastDelivery()))
        }
        if code == CURLE_ABORTED_BY_CALLBACK {
            return .failure(
                TransportError(.other, "\(hop.host): the transfer was cancelled", delivery: lastDelivery()))
        }
        if code != CURLE_OK {
            let detail = String(cString: errorBuffer)
            return .failure(
                CurlErrors.error(
                    for: code, detail: detail, host: hop.host, exceededLimit: sink.exceededLimit,
                    delivery: lastDelivery()))
        }
        var status = 0
        _ = ccurl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        return .response(status: status, headers: sink.headers, body: sink.body)
    }

    /// What the last `curl_easy_perform` did with the request, from libcurl's own counters: how often
    /// it handed the request to a connection (the pre-request count), how many of those connections
    /// it opened (`CURLINFO_NUM_CONNECTS`: fewer than the starts means one was a kept connection), and
    /// the body bytes it read or sent.
    private func lastDelivery() -> TransportError.Delivery {
        let starts = Int(requestStarts.pointee)
        var connects = 0
        _ = ccurl_getinfo_long(handle, CURLINFO_NUM_CONNECTS, &connects)
        var uploaded: curl_off_t = 0
        _ = ccurl_getinfo_off_t(handle, CURLINFO_SIZE_UPLOAD_T, &uploaded)
        let read = onceBody.map { Int(ccurl_body_bytes_read($0)) } ?? 0
        return TransportError.Delivery(
            requestStarted: starts > 0, rodeKeptConnection: starts > connects,
            bodyBytesSent: max(read, Int(uploaded)))
    }

    /// Applies every option; returns an error when libcurl refuses one.
    private func configure(_ hop: CurlHop) -> TransportError? {
        var failed: (CURLoption, CURLcode)?
        func set(_ option: CURLoption, _ value: Int) {
            guard failed == nil else { return }
            let code = ccurl_setopt_long(handle, option, value)
            if code != CURLE_OK { failed = (option, code) }
        }
        func set(_ option: CURLoption, _ value: String) {
            guard failed == nil else { return }
            // libcurl copies string options (since 7.17), so a temporary C string is enough.
            let code = value.withCString { ccurl_setopt_string(handle, option, $0) }
            if code != CURLE_OK { failed = (option, code) }
        }

        // A handle kept for its connection starts each request from the defaults; the reset keeps
        // the open connection and the caches.
        curl_easy_reset(handle)
        if let onceBody {
            // The previous request's body: libcurl no longer points at it after the reset.
            ccurl_body_free(onceBody)
            self.onceBody = nil
        }
        errorBuffer[0] = 0
        _ = ccurl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, UnsafeMutableRawPointer(errorBuffer))
        if let share, failed == nil {
            let code = ccurl_setopt_share(handle, share.pointer)
            if code != CURLE_OK { failed = (CURLOPT_SHARE, code) }
        }
        set(CURLOPT_URL, hop.url)
        // HTTP/2 over TLS when the server offers it in ALPN; HTTP/1.1 otherwise.
        set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        if hop.reusesConnection {
            set(CURLOPT_MAXAGE_CONN, hop.maximumIdleSeconds)
        } else {
            set(CURLOPT_FRESH_CONNECT, 1)
            set(CURLOPT_FORBID_REUSE, 1)
        }
        set(CURLOPT_NOSIGNAL, 1)
        set(CURLOPT_NOPROGRESS, 1)
        set(CURLOPT_PROTOCOLS_STR, hop.protocols)
        set(CURLOPT_REDIR_PROTOCOLS_STR, hop.protocols)
        set(CURLOPT_FOLLOWLOCATION, 0)
        if failed == nil { failed = hop.trust.apply(to: handle) }
        set(CURLOPT_TIMEOUT_MS, hop.totalTimeoutMilliseconds)
        set(CURLOPT_USERAGENT, hop.userAgent)
        if failed == nil {
            let code = ccurl_setopt_off_t(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(hop.maxResponseBytes))
            if code != CURLE_OK { failed = (CURLOPT_MAXFILESIZE_LARGE, code) }
        }

        switch hop.method {
        case _ where hop.requestTarget != nil:
            set(CURLOPT_HTTPGET, 1)
            set(CURLOPT_CUSTOMREQUEST, hop.method)
            set(CURLOPT_REQUEST_TARGET, hop.requestTarget ?? "*")
        case "GET" where hop.body == nil:
            set(CURLOPT_HTTPGET, 1)
        case "HEAD":
            set(CURLOPT_NOBODY, 1)
        case _ where hop.reusesConnection:
            // On a reused connection the body is readable once: libcurl cannot resend the request
            // by itself when that connection turns out dead (it fails instead, and the SDK's own
            // rules decide), so a request is never sent twice behind the caller's back.
            let body = hop.body ?? []
            onceBody = body.withUnsafeBytes { ccurl_body_create($0.baseAddress, $0.count) }
            if let onceBody {
                if failed == nil {
                    let code = ccurl_setopt_body_once(handle, onceBody)
                    if code != CURLE_OK { failed = (CURLOPT_READFUNCTION, code) }
                }
            } else {
                return TransportError(.other, "out of memory copying the request body")
            }
            if hop.method != "POST" {
                set(CURLOPT_CUSTOMREQUEST, hop.method)
            }
        default:
            let body = hop.body ?? []
            if failed == nil {
                let code = ccurl_setopt_off_t(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
                if code != CURLE_OK { failed = (CURLOPT_POSTFIELDSIZE_LARGE, code) }
            }
            if failed == nil {
                // COPYPOSTFIELDS copies POSTFIELDSIZE bytes, so the body may contain NULs
                // and need not outlive this call.
                let code = body.withUnsafeBytes { raw -> CURLcode in
                    var byte: UInt8 = 0
                    if let base = raw.baseAddress {
                        return ccurl_setopt_pointer(
                            handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: base))
                    }
                    return ccurl_setopt_pointer(handle, CURLOPT_COPYPOSTFIELDS, &byte)
                }
                if code != CURLE_OK { failed = (CURLOPT_COPYPOSTFIELDS, code) }
            }
            if hop.method != "POST" {
                set(CURLOPT_CUSTOMREQUEST, hop.method)
            }
        }

        var list: UnsafeMutablePointer<curl_slist>?
        for line in hop.headerLines {
            guard let appended = curl_slist_append(list, line) else {
                if let list { curl_slist_free_all(list) }
                return TransportError(.other, "out of memory building the request headers")
            }
            list = appended
        }
        if let headerList {
            curl_slist_free_all(headerList)
        }
        headerList = list
        if failed == nil {
            let code = ccurl_setopt_slist(handle, CURLOPT_HTTPHEADER, list)
            if code != CURLE_OK { failed = (CURLOPT_HTTPHEADER, code) }
        }

        if let (option, code) = failed {
            return CurlErrors.error(
                for: code, detail: "option \(option.rawValue) refused", host: hop.host, exceededLimit: false,
                delivery: .neverSent)
        }
        return nil
    }
}

/// A way to abort one transfer from another thread (the SDK abandons the transfers of a payment that
/// ended). Raising it is idempotent; the transfer ends with a `TransportError` within about a second.
final class TransferCancellation: @unchecked Sendable {
    /// Written and read only through the shim's atomic operations once shared; allocated and zeroed
    /// before, freed in `deinit` after every user is gone (the transfer holds this object).
    fileprivate let flag: UnsafeMutablePointer<Int32>

    init() {
        flag = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
        flag.initialize(to: 0)
    }

    deinit {
        flag.deallocate()
    }

    /// Asks the transfer to stop.
    func cancel() {
        ccurl_abort_flag_raise(flag)
    }

    /// Whether `cancel()` was called.
    var isCancelled: Bool { ccurl_abort_flag_is_raised(flag) != 0 }
}
