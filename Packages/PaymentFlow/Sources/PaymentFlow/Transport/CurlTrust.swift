internal import CCurl
internal import CCurlShim
import Foundation

/// The kit's trust for one libcurl connection: verified TLS 1.2 or later, the CA file alone when one
/// is configured (libcurl's CA directory off), the host's pins, the configured proxy (never the
/// environment's unless asked), the connect timeout, and no TLS key log. One value applies it to the
/// SDK's own requests (``CurlEasyHandle``) and to the pages' relay (``PageTLSRelay``), so both hold
/// a connection to exactly the same rules.
struct CurlTrust {
    var caBundlePath: String?
    /// `sha256//...;sha256//...` for CURLOPT_PINNEDPUBLICKEY, or nil for an unpinned host.
    var pinnedPublicKey: String?
    var proxy: NetworkProxy
    var connectTimeoutMilliseconds: Int
    var honoursKeyLogFile: Bool

    /// The pins of `host` in `table` as libcurl takes them: looked up by ``CurlTransport/normalizedHost(_:)``;
    /// an empty list pins to nothing (never matches).
    static func pinnedPublicKey(for host: String, in table: [String: [String]]) -> String? {
        let pinnedHost = CurlTransport.normalizedHost(host)
        let pins = table.first { CurlTransport.normalizedHost($0.key) == pinnedHost }?.value
        return pins.map { $0.isEmpty ? "sha256//" : $0.joined(separator: ";") }
    }

    /// Sets the options on `handle`; returns the first option libcurl refused, or nil.
    func apply(to handle: UnsafeMutableRawPointer) -> (CURLoption, CURLcode)? {
        var failed: (CURLoption, CURLcode)?
        func set(_ option: CURLoption, _ value: Int) {
            guard failed == nil else { return }
            let code = ccurl_setopt_long(handle, option, value)
            if code != CURLE_OK { failed = (option, code) }
        }
        func set(_ option: CURLoption, _ value: String) {
            guard failed == nil else { return }
            let code = value.withCString { ccurl_setopt_string(handle, option, $0) }
            if code != CURLE_OK { failed = (option, code) }
        }
        set(CURLOPT_SSL_VERIFYPEER, 1)
        set(CURLOPT_SSL_VERIFYHOST, 2)
        set(CURLOPT_SSLVERSION, Int(CURL_SSLVERSION_TLSv1_2))
        set(CURLOPT_CONNECTTIMEOUT_MS, connectTimeoutMilliseconds)
        switch proxy.route {
        case .direct:
            // An empty proxy string disables proxies, the environment's included (http_proxy,
            // https_proxy, HTTPS_PROXY, all_proxy, ALL_PROXY): libcurl reads them unless told.
            set(CURLOPT_PROXY, "")
        case .environment:
            // Left unset, libcurl reads the variables (and no_proxy) for each transfer.
            break
        case .url(let url):
            set(CURLOPT_PROXY, url.absoluteString)
            // An empty list: no host bypasses the configured proxy, whatever no_proxy says.
            set(CURLOPT_NOPROXY, "")
        }
        if let caBundlePath {
            // Instead of the system store, not beside it: libcurl's built-in CA directory
            // (/etc/ssl/certs) would otherwise still be searched, trusting every system CA.
            set(CURLOPT_CAINFO, caBundlePath)
            if failed == nil {
                let code = ccurl_setopt_pointer(handle, CURLOPT_CAPATH, nil)
                if code != CURLE_OK { failed = (CURLOPT_CAPATH, code) }
            }
        }
        if !honoursKeyLogFile, failed == nil {
            // libcurl writes every TLS secret to $SSLKEYLOGFILE when it is set: whoever sets the app's
            // environment could read its traffic. Off unless the configuration asks for it.
            let code = ccurl_disable_tls_keylog(handle)
            if code != CURLE_OK { failed = (CURLOPT_SSL_CTX_FUNCTION, code) }
        }
        if let pinnedPublicKey {
            set(CURLOPT_PINNEDPUBLICKEY, pinnedPublicKey)
        }
        return failed
    }
}
