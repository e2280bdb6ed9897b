// The WebKit side of the pages' TLS relay (PaymentFlow's PageTLSRelay): the session's HTTPS proxy is
// the relay, and the relay's certificate is allowed host by host, once the relay vouched for the host.
#ifndef EGW_WEBKIT_RELAY_H
#define EGW_WEBKIT_RELAY_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A GTlsCertificate from PEM (a certificate alone, no key); NULL when it cannot be read. Unref it.
void *egwwk_certificate_new_from_pem(const char *pem);
/// Allows `certificate` for `host` in `session`, then calls `done(data)` once WebKit's network process
/// has taken the allowance (a round trip on the same channel after it); on the GTK thread.
void egwwk_session_allow_certificate_confirmed(void *session, void *certificate, const char *host,
                                               void (*done)(void *data), void *data);
/// Sets the session's proxies: `https` and `wss` through `relay_uri` (the relay, always), `http` and `ws`
/// through `http_uri` (NULL: direct), every other scheme direct. No host is exempt (a `no_proxy` list
/// would let HTTPS bypass the relay).
void egwwk_session_use_relay(void *session, const char *relay_uri, const char *http_uri);

#ifdef __cplusplus
}
#endif

#endif
