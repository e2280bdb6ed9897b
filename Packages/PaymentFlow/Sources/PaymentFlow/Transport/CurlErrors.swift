internal import CCurl

/// The one funnel from a `CURLcode` to a `TransportError`.
enum CurlErrors {
    /// The failure class for `code`, a name for the developer only: whether the request reached the
    /// gateway is read from the error's `Delivery`, never from this. `exceededLimit` says our own write
    /// callback refused data because of the response-size cap; `requestStarted` whether libcurl handed
    /// the request to a connection (`CURLE_UNSUPPORTED_PROTOCOL` is a refused scheme before that, and
    /// an answer that is not HTTP/1.x or HTTP/2, or HTTP/0.9, after it).
    static func kind(for code: CURLcode, exceededLimit: Bool, requestStarted: Bool) -> TransportError.Kind {
        if exceededLimit {
            return .responseTooLarge
        }
        switch code {
        case CURLE_UNSUPPORTED_PROTOCOL:
            return requestStarted ? .invalidResponse : .invalidURL
        case CURLE_WEIRD_SERVER_REPLY:
            return .invalidResponse
        case CURLE_URL_MALFORMAT:
            return .invalidURL
        case CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_CONNECT:
            return .connect
        case CURLE_OPERATION_TIMEDOUT:
            return .timeout
        case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            return .pinningFailed
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM,
            CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ENGINE_NOTFOUND,
            CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED, CURLE_SSL_SHUTDOWN_FAILED,
            CURLE_SSL_CRL_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_INVALIDCERTSTATUS,
            CURLE_SSL_CLIENTCERT, CURLE_USE_SSL_FAILED:
            return .tls
        case CURLE_GOT_NOTHING, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_PARTIAL_FILE,
            CURLE_HTTP2, CURLE_HTTP2_STREAM,
            // A reused connection died under a request libcurl may not resend (a read-once body).
            CURLE_SEND_FAIL_REWIND:
            return .reset
        case CURLE_FILESIZE_EXCEEDED:
            return .responseTooLarge
        default:
            return .other
        }
    }

    /// A `TransportError` naming the curl code and host (never a body), with `delivery` as the facts
    /// of whether the request left the machine.
    static func error(
        for code: CURLcode, detail: String, host: String, exceededLimit: Bool, delivery: TransportError.Delivery
    ) -> TransportError {
        let kind = kind(for: code, exceededLimit: exceededLimit, requestStarted: delivery.requestStarted != false)
        var text = exceededLimit ? "response exceeded the size cap" : String(cString: curl_easy_strerror(code))
        if !detail.isEmpty && !exceededLimit {
            text += " (\(detail))"
        }
        return TransportError(kind, "\(host): \(text) [curl \(code.rawValue)]", delivery: delivery)
    }
}
