#ifndef CCURL_RELAY_H
#define CCURL_RELAY_H
// A loopback TLS relay for pages shown by a web view whose network stack cannot be given the kit's
// trust (WebKitGTK's network process): the view's HTTPS proxy is this relay. On `CONNECT host:port`
// the relay first opens the upstream connection through libcurl (CURLOPT_CONNECT_ONLY, the easy
// handle configured by the caller with exactly the kit's transport trust); only when that handshake
// and its pin check pass does it answer 200 and accept the view's TLS with an ephemeral leaf
// certificate (made in memory per relay, never written anywhere), then relays bytes both ways. A
// refused upstream is answered 502 before any byte of the view's request was read. Every wait has a
// timeout; `ccurl_relay_stop` closes the listener and every connection within a quarter second.
#include <curl/curl.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct ccurl_relay_callbacks {
    void *context;
    /// Applies the kit's trust to `easy` for an upstream TLS connection to `host` (no brackets for an
    /// IPv6 literal) and `port`; URL, CONNECT_ONLY, NOSIGNAL and ALPN off are already set. Returns
    /// CURLE_OK or the code of the option libcurl refused. Runs on a connection's thread.
    CURLcode (*configure)(void *context, CURL *easy, const char *host, int port);
    /// The upstream to `host` passed: the caller lets the view accept this relay's certificate for
    /// `host` and returns once the view will (true), or false to refuse. Bounded by the caller.
    bool (*admit)(void *context, const char *host);
    /// The upstream to `host:port` failed with `code` (libcurl's) and libcurl's `message`; called
    /// before the view is answered 502. Bounded by the caller.
    void (*refused)(void *context, const char *host, int port, int code, const char *message);
    /// The relay is gone (after stop, once no connection uses it): `context` may be freed.
    void (*release)(void *context);
} ccurl_relay_callbacks;

typedef struct ccurl_relay ccurl_relay;

/// Starts a relay on 127.0.0.1 (a port of the kernel's choice) with a fresh key and certificate.
/// `idle_milliseconds`: a relayed connection with no traffic for this long is closed. NULL on failure.
ccurl_relay *ccurl_relay_start(const ccurl_relay_callbacks *callbacks, unsigned idle_milliseconds);
/// The relay's port.
uint16_t ccurl_relay_port(const ccurl_relay *relay);
/// The relay's certificate, PEM (owned by the relay, valid until stop).
const char *ccurl_relay_certificate_pem(const ccurl_relay *relay);
/// Closes the listener and every connection; the relay frees itself (and calls `release`) once its
/// threads are out. Call once; `relay` must not be used afterwards.
void ccurl_relay_stop(ccurl_relay *relay);

#endif
