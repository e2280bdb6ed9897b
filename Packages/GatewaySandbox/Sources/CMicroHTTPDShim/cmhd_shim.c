#include "cmhd_shim.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

struct MHD_Daemon *cmhd_start_daemon(const char *host, uint16_t port,
                                     MHD_AccessHandlerCallback handler, void *handler_cls,
                                     MHD_RequestCompletedCallback completed, void *completed_cls,
                                     unsigned int connection_timeout_seconds,
                                     unsigned int connection_limit,
                                     const struct cmhd_tls *tls,
                                     int *error_out) {
    struct sockaddr_in v4;
    struct sockaddr_in6 v6;
    const struct sockaddr *address = NULL;
    unsigned int flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD
                       | MHD_USE_POLL | MHD_USE_ITC;

    memset(&v4, 0, sizeof v4);
    memset(&v6, 0, sizeof v6);
    if (inet_pton(AF_INET, host, &v4.sin_addr) == 1) {
        v4.sin_family = AF_INET;
        v4.sin_port = htons(port);
        address = (const struct sockaddr *)&v4;
    } else if (inet_pton(AF_INET6, host, &v6.sin6_addr) == 1) {
        v6.sin6_family = AF_INET6;
        v6.sin6_port = htons(port);
        address = (const struct sockaddr *)&v6;
        flags |= MHD_USE_IPv6;
    } else {
        if (error_out) *error_out = EINVAL;
        return NULL;
    }

    // The options go through MHD_OPTION_ARRAY so the TLS ones can be left out for plain HTTP.
    // Left at its default, libmicrohttpd sets SO_REUSEADDR (a stopped server's port can be
    // bound again at once) but not SO_REUSEPORT (a port in use is a bind error).
    struct MHD_OptionItem options[8];
    size_t count = 0;
    options[count++] = (struct MHD_OptionItem){MHD_OPTION_SOCK_ADDR, 0, (void *)address};
    options[count++] = (struct MHD_OptionItem){MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)completed, completed_cls};
    options[count++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout_seconds, NULL};
    options[count++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_LIMIT, connection_limit, NULL};
    if (tls != NULL) {
        if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
            if (error_out) *error_out = ENOTSUP;
            return NULL;
        }
        flags |= MHD_USE_TLS;
        // libmicrohttpd hands both PEM buffers to GnuTLS while the daemon starts.
        options[count++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)tls->key_pem};
        options[count++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)tls->certificate_pem};
        if (tls->priorities != NULL) {
            options[count++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_PRIORITIES, 0, (void *)tls->priorities};
        }
    }
    options[count++] = (struct MHD_OptionItem){MHD_OPTION_END, 0, NULL};

    errno = 0;
    struct MHD_Daemon *daemon = MHD_start_daemon(
        flags, port, NULL, NULL, handler, handler_cls, MHD_OPTION_ARRAY, options, MHD_OPTION_END);
    // A refused certificate or priority string fails inside GnuTLS without setting errno.
    if (daemon == NULL && error_out) *error_out = errno != 0 ? errno : (tls != NULL ? EPROTO : EADDRINUSE);
    return daemon;
}

int cmhd_tls_supported(void) { return MHD_is_feature_supported(MHD_FEATURE_TLS) == MHD_YES; }

uint16_t cmhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}

struct cmhd_truncated {
    size_t length;
    char data[];
};

static ssize_t cmhd_truncated_reader(void *cls, uint64_t pos, char *buf, size_t max) {
    struct cmhd_truncated *body = cls;
    if (pos >= body->length) return MHD_CONTENT_READER_END_WITH_ERROR;
    size_t n = body->length - (size_t)pos;
    if (n > max) n = max;
    memcpy(buf, body->data + pos, n);
    return (ssize_t)n;
}

static void cmhd_truncated_free(void *cls) { free(cls); }

struct MHD_Response *cmhd_create_truncated_response(const void *data, size_t length,
                                                    uint64_t declared_length) {
    struct cmhd_truncated *body = malloc(sizeof *body + length + 1);
    if (body == NULL) return NULL;
    body->length = length;
    if (length > 0) memcpy(body->data, data, length);
    struct MHD_Response *response = MHD_create_response_from_callback(
        declared_length, 1024, cmhd_truncated_reader, body, cmhd_truncated_free);
    if (response == NULL) free(body);
    return response;
}
