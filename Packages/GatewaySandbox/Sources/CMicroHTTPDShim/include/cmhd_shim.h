#ifndef CMHD_SHIM_H
#define CMHD_SHIM_H
// Fixed-arity wrappers for libmicrohttpd's variadic calls (MHD_start_daemon,
// MHD_get_daemon_info), so Swift can reach them, plus a response whose body
// stops short of its declared length (the sandbox's "truncated body" fault).
#include <microhttpd.h>
#include <stddef.h>
#include <stdint.h>

/// What an HTTPS daemon serves: PEM text, NUL-terminated. `priorities` is a GnuTLS
/// priority string (NULL: libmicrohttpd's default, "NORMAL").
struct cmhd_tls {
    const char *certificate_pem;
    const char *key_pem;
    const char *priorities;
};

/// Starts a daemon in thread-per-connection mode, listening on `host`
/// (a numeric IPv4 or IPv6 address) and `port` (0: ephemeral); over TLS when
/// `tls` is not NULL. Returns NULL on failure; `*error_out` then holds an errno
/// value, EINVAL when `host` is not a numeric address, ENOTSUP when TLS was
/// asked for and this libmicrohttpd was built without it, or EPROTO when GnuTLS
/// refused the certificate, key or priorities.
struct MHD_Daemon *cmhd_start_daemon(const char *host, uint16_t port,
                                     MHD_AccessHandlerCallback handler, void *handler_cls,
                                     MHD_RequestCompletedCallback completed, void *completed_cls,
                                     unsigned int connection_timeout_seconds,
                                     unsigned int connection_limit,
                                     const struct cmhd_tls *tls,
                                     int *error_out);

/// 1 when this libmicrohttpd can serve HTTPS (built with GnuTLS), else 0.
int cmhd_tls_supported(void);

/// The port the daemon is bound to (useful after asking for port 0); 0 if unknown.
uint16_t cmhd_bound_port(struct MHD_Daemon *daemon);

/// A response that announces `declared_length` bytes in Content-Length but
/// sends only the `length` bytes at `data` (copied) and then closes the connection.
struct MHD_Response *cmhd_create_truncated_response(const void *data, size_t length,
                                                    uint64_t declared_length);

#endif
