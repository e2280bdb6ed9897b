#define _GNU_SOURCE
#include "ccurl_relay.h"

#include <openssl/bn.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { RELAY_MAX_CONNECTIONS = 64, RELAY_TICK_MS = 250, RELAY_HEADER_MS = 10000, RELAY_WRITE_MS = 30000 };

struct ccurl_relay {
    pthread_mutex_t lock;
    int references;
    int stopping;
    int listener;
    uint16_t port;
    unsigned idle_ms;
    SSL_CTX *tls;
    char *certificate_pem;
    ccurl_relay_callbacks callbacks;
    int clients[RELAY_MAX_CONNECTIONS];
};

static bool relay_stopping(ccurl_relay *relay) { return __atomic_load_n(&relay->stopping, __ATOMIC_ACQUIRE) != 0; }

static long long relay_now_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

static void relay_unref(ccurl_relay *relay) {
    pthread_mutex_lock(&relay->lock);
    int left = --relay->references;
    pthread_mutex_unlock(&relay->lock);
    if (left > 0) return;
    if (relay->listener >= 0) close(relay->listener);
    SSL_CTX_free(relay->tls);
    free(relay->certificate_pem);
    pthread_mutex_destroy(&relay->lock);
    if (relay->callbacks.release != NULL) relay->callbacks.release(relay->callbacks.context);
    free(relay);
}

// MARK: The ephemeral identity

// A P-256 key and a self-signed certificate for it, in memory only: the web view accepts it only
// because the presenter allows exactly this certificate for each host the relay vouched for.
static bool relay_make_identity(ccurl_relay *relay) {
    EVP_PKEY *key = EVP_EC_gen("P-256");
    X509 *certificate = X509_new();
    bool ok = key != NULL && certificate != NULL;
    if (ok) {
        unsigned char serial[16];
        ok = RAND_bytes(serial, sizeof serial) == 1;
        serial[0] &= 0x7F;
        BIGNUM *number = ok ? BN_bin2bn(serial, sizeof serial, NULL) : NULL;
        ok = number != NULL && BN_to_ASN1_INTEGER(number, X509_get_serialNumber(certificate)) != NULL;
        BN_free(number);
    }
    if (ok) {
        X509_NAME *name = X509_get_subject_name(certificate);
        ok = X509_set_version(certificate, 2) == 1 &&
             X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)"EGWPay page relay", -1,
                                        -1, 0) == 1 &&
             X509_set_issuer_name(certificate, name) == 1 &&
             X509_gmtime_adj(X509_getm_notBefore(certificate), -3600) != NULL &&
             X509_gmtime_adj(X509_getm_notAfter(certificate), 7L * 24 * 3600) != NULL &&
             X509_set_pubkey(certificate, key) == 1 && X509_sign(certificate, key, EVP_sha256()) > 0;
    }
    if (ok) {
        relay->tls = SSL_CTX_new(TLS_server_method());
        ok = relay->tls != NULL && SSL_CTX_set_min_proto_version(relay->tls, TLS1_2_VERSION) == 1 &&
             SSL_CTX_use_certificate(relay->tls, certificate) == 1 && SSL_CTX_use_PrivateKey(relay->tls, key) == 1;
    }
    if (ok) {
        // No key log, whatever the environment says; no tickets (nothing outlives a connection).
        SSL_CTX_set_keylog_callback(relay->tls, NULL);
        SSL_CTX_set_options(relay->tls, SSL_OP_NO_TICKET);
        SSL_CTX_set_session_cache_mode(relay->tls, SSL_SESS_CACHE_OFF);
        SSL_CTX_set_mode(relay->tls, SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
        BIO *bio = BIO_new(BIO_s_mem());
        ok = bio != NULL && PEM_write_bio_X509(bio, certificate) == 1;
        if (ok) {
            char *data = NULL;
            long length = BIO_get_mem_data(bio, &data);
            relay->certificate_pem = calloc(1, (size_t)length + 1);
            ok = relay->certificate_pem != NULL;
            if (ok) memcpy(relay->certificate_pem, data, (size_t)length);
        }
        BIO_free(bio);
    }
    X509_free(certificate);
    EVP_PKEY_free(key);  // the context keeps its own reference
    return ok;
}

// MARK: Client-side helpers

static bool relay_track(ccurl_relay *relay, int fd, bool add) {
    bool done = false;
    pthread_mutex_lock(&relay->lock);
    for (int i = 0; i < RELAY_MAX_CONNECTIONS && !done; i++) {
        if (add && relay->clients[i] < 0 && !relay->stopping) {
            relay->clients[i] = fd;
            done = true;
        } else if (!add && relay->clients[i] == fd) {
            relay->clients[i] = -1;
            done = true;
        }
    }
    pthread_mutex_unlock(&relay->lock);
    return done;
}

// Waits for `events` on `fd` for at most `budget_ms`, a tick at a time, while the relay runs.
static bool relay_wait(ccurl_relay *relay, int fd, short events, long long deadline) {
    while (!relay_stopping(relay)) {
        long long left = deadline - relay_now_ms();
        if (left <= 0) return false;
        struct pollfd item = {.fd = fd, .events = events};
        int ready = poll(&item, 1, (int)(left < RELAY_TICK_MS ? left : RELAY_TICK_MS));
        if (ready > 0) return true;
        if (ready < 0 && errno != EINTR) return false;
    }
    return false;
}

static bool relay_send_plain(ccurl_relay *relay, int fd, const char *text) {
    size_t length = strlen(text), sent = 0;
    long long deadline = relay_now_ms() + RELAY_WRITE_MS;
    while (sent < length) {
        ssize_t n = send(fd, text + sent, length - sent, MSG_NOSIGNAL);
        if (n > 0) {
            sent += (size_t)n;
        } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
            if (!relay_wait(relay, fd, POLLOUT, deadline)) return false;
        } else {
            return false;
        }
    }
    return true;
}

// Reads the proxy request's head (up to the blank line, nothing after it) into `head`.
static bool relay_read_head(ccurl_relay *relay, int fd, char *head, size_t size) {
    size_t used = 0;
    long long deadline = relay_now_ms() + RELAY_HEADER_MS;
    while (used + 1 < size) {
        ssize_t n = recv(fd, head + used, 1, 0);
        if (n == 1) {
            used += 1;
            head[used] = '\0';
            if (used >= 4 && memcmp(head + used - 4, "\r\n\r\n", 4) == 0) return true;
        } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
            if (!relay_wait(relay, fd, POLLIN, deadline)) return false;
        } else {
            return false;
        }
    }
    return false;
}

// `CONNECT host:port HTTP/1.x`: host (brackets kept in `authority`, removed in `host`) and port.
static bool relay_parse_connect(const char *head, char *authority, size_t authority_size, char *host,
                                size_t host_size, int *port) {
    if (strncmp(head, "CONNECT ", 8) != 0) return false;
    const char *start = head + 8;
    const char *end = strchr(start, ' ');
    if (end == NULL || (size_t)(end - start) >= authority_size || end == start) return false;
    memcpy(authority, start, (size_t)(end - start));
    authority[end - start] = '\0';
    for (const char *c = authority; *c; c++) {
        if (!(*c == '.' || *c == '-' || *c == ':' || *c == '[' || *c == ']' || *c == '_' ||
              (*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z')))
            return false;
    }
    char *colon = strrchr(authority, ':');
    if (colon == NULL) return false;
    char *stop = NULL;
    long number = strtol(colon + 1, &stop, 10);
    if (stop == colon + 1 || *stop != '\0' || number < 1 || number > 65535) return false;
    *port = (int)number;
    const char *name = authority;
    size_t length = (size_t)(colon - authority);
    if (length >= 2 && authority[0] == '[' && authority[length - 1] == ']') {
        name += 1;
        length -= 2;
    }
    if (length == 0 || length >= host_size) return false;
    memcpy(host, name, length);
    host[length] = '\0';
    return true;
}

// MARK: Relaying

static bool relay_to_upstream(ccurl_relay *relay, CURL *easy, curl_socket_t upstream, const char *data,
                              size_t length) {
    size_t sent = 0;
    long long deadline = relay_now_ms() + RELAY_WRITE_MS;
    while (sent < length) {
        size_t n = 0;
        CURLcode code = curl_easy_send(easy, data + sent, length - sent, &n);
        if (code == CURLE_OK) {
            sent += n;
        } else if (code == CURLE_AGAIN) {
            if (!relay_wait(relay, (int)upstream, POLLOUT, deadline)) return false;
        } else {
            return false;
        }
    }
    return true;
}

static bool relay_to_client(ccurl_relay *relay, SSL *ssl, int fd, const char *data, size_t length) {
    size_t sent = 0;
    long long deadline = relay_now_ms() + RELAY_WRITE_MS;
    while (sent < length) {
        int n = SSL_write(ssl, data + sent, (int)(length - sent));
        if (n > 0) {
            sent += (size_t)n;
            continue;
        }
        int error = SSL_get_error(ssl, n);
        short events = error == SSL_ERROR_WANT_READ ? POLLIN : error == SSL_ERROR_WANT_WRITE ? POLLOUT : 0;
        if (events == 0 || !relay_wait(relay, fd, events, deadline)) return false;
    }
    return true;
}

static bool relay_accept_tls(ccurl_relay *relay, SSL *ssl, int fd) {
    long long deadline = relay_now_ms() + RELAY_HEADER_MS;
    for (;;) {
        int result = SSL_accept(ssl);
        if (result == 1) return true;
        int error = SSL_get_error(ssl, result);
        short events = error == SSL_ERROR_WANT_READ ? POLLIN : error == SSL_ERROR_WANT_WRITE ? POLLOUT : 0;
        if (events == 0 || !relay_wait(relay, fd, events, deadline)) return false;
    }
}

static void relay_pump(ccurl_relay *relay, SSL *ssl, int fd, CURL *easy, curl_socket_t upstream) {
    char buffer[16384];
    long long last_traffic = relay_now_ms();
    while (!relay_stopping(relay)) {
        bool moved = false;
        // Drained until the TLS layers have nothing buffered, so the poll below sees all there is.
        for (;;) {
            int n = SSL_read(ssl, buffer, sizeof buffer);
            if (n > 0) {
                if (!relay_to_upstream(relay, easy, upstream, buffer, (size_t)n)) return;
                moved = true;
                continue;
            }
            int error = SSL_get_error(ssl, n);
            if (error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE) break;
            return;  // closed by the view, or broken
        }
        for (;;) {
            size_t n = 0;
            CURLcode code = curl_easy_recv(easy, buffer, sizeof buffer, &n);
            if (code == CURLE_AGAIN) break;
            if (code != CURLE_OK || n == 0) return;  // closed by the server, or broken
            if (!relay_to_client(relay, ssl, fd, buffer, n)) return;
            moved = true;
        }
        long long now = relay_now_ms();
        if (moved) last_traffic = now;
        if (now - last_traffic >= (long long)relay->idle_ms) return;
        struct pollfd items[2] = {{.fd = fd, .events = POLLIN}, {.fd = (int)upstream, .events = POLLIN}};
        if (poll(items, 2, RELAY_TICK_MS) < 0 && errno != EINTR) return;
    }
}

typedef struct {
    ccurl_relay *relay;
    int fd;
} relay_connection;

// OpenSSL writes to the view's socket with write(2): a view that hung up would raise SIGPIPE, which
// kills the app. Blocked in the relay's threads (a thread-directed signal, dropped with the thread),
// the write fails with EPIPE instead.
static void relay_block_sigpipe(void) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
}

static void *relay_serve(void *argument) {
    relay_block_sigpipe();
    relay_connection *connection = argument;
    ccurl_relay *relay = connection->relay;
    int fd = connection->fd;
    free(connection);
    char head[8192], authority[300], host[300], error_buffer[CURL_ERROR_SIZE + 1];
    int port = 0;
    CURL *easy = NULL;
    SSL *ssl = NULL;
    if (!relay_read_head(relay, fd, head, sizeof head)) goto done;
    if (!relay_parse_connect(head, authority, sizeof authority, host, sizeof host, &port)) {
        relay_send_plain(relay, fd, "HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        goto done;
    }
    easy = curl_easy_init();
    if (easy == NULL) goto refuse_quietly;
    char url[320];
    snprintf(url, sizeof url, "https://%s/", authority);
    error_buffer[0] = '\0';
    CURLcode code = curl_easy_setopt(easy, CURLOPT_URL, url);
    if (code == CURLE_OK) code = curl_easy_setopt(easy, CURLOPT_CONNECT_ONLY, 1L);
    if (code == CURLE_OK) code = curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    if (code == CURLE_OK) code = curl_easy_setopt(easy, CURLOPT_SSL_ENABLE_ALPN, 0L);
    if (code == CURLE_OK) code = curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, error_buffer);
    if (code == CURLE_OK) code = relay->callbacks.configure(relay->callbacks.context, easy, host, port);
    // Configured before the perform: a stop during the connect is seen when it returns.
    if (code == CURLE_OK && !relay_stopping(relay)) code = curl_easy_perform(easy);
    if (relay_stopping(relay)) goto done;
    if (code != CURLE_OK) {
        relay->callbacks.refused(relay->callbacks.context, host, port, (int)code,
                                 error_buffer[0] ? error_buffer : curl_easy_strerror(code));
        goto refuse_quietly;
    }
    curl_socket_t upstream = CURL_SOCKET_BAD;
    if (curl_easy_getinfo(easy, CURLINFO_ACTIVESOCKET, &upstream) != CURLE_OK || upstream == CURL_SOCKET_BAD)
        goto refuse_quietly;
    if (!relay->callbacks.admit(relay->callbacks.context, host) || relay_stopping(relay)) goto refuse_quietly;
    if (!relay_send_plain(relay, fd, "HTTP/1.1 200 Connection Established\r\n\r\n")) goto done;
    ssl = SSL_new(relay->tls);
    if (ssl == NULL || SSL_set_fd(ssl, fd) != 1 || !relay_accept_tls(relay, ssl, fd)) goto done;
    relay_pump(relay, ssl, fd, easy, upstream);
    SSL_shutdown(ssl);
    goto done;
refuse_quietly:
    if (!relay_stopping(relay))
        relay_send_plain(relay, fd, "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
done:
    if (ssl != NULL) SSL_free(ssl);
    if (easy != NULL) curl_easy_cleanup(easy);
    relay_track(relay, fd, false);
    close(fd);
    relay_unref(relay);
    return NULL;
}

static void *relay_accept_loop(void *argument) {
    relay_block_sigpipe();
    ccurl_relay *relay = argument;
    while (!relay_stopping(relay)) {
        struct pollfd item = {.fd = relay->listener, .events = POLLIN};
        int ready = poll(&item, 1, RELAY_TICK_MS);
        if (ready <= 0) continue;
        int fd = accept4(relay->listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) continue;
        relay_connection *connection = malloc(sizeof *connection);
        if (connection == NULL || !relay_track(relay, fd, true)) {
            free(connection);
            close(fd);
            continue;
        }
        connection->relay = relay;
        connection->fd = fd;
        pthread_mutex_lock(&relay->lock);
        relay->references += 1;
        pthread_mutex_unlock(&relay->lock);
        pthread_t thread;
        pthread_attr_t attributes;
        pthread_attr_init(&attributes);
        pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
        if (pthread_create(&thread, &attributes, relay_serve, connection) != 0) {
            free(connection);
            relay_track(relay, fd, false);
            close(fd);
            relay_unref(relay);
        }
        pthread_attr_destroy(&attributes);
    }
    relay_unref(relay);
    return NULL;
}

ccurl_relay *ccurl_relay_start(const ccurl_relay_callbacks *callbacks, unsigned idle_milliseconds) {
    ccurl_relay *relay = calloc(1, sizeof *relay);
    if (relay == NULL) return NULL;
    pthread_mutex_init(&relay->lock, NULL);
    relay->callbacks = *callbacks;
    relay->idle_ms = idle_milliseconds > 0 ? idle_milliseconds : 60000;
    relay->listener = -1;
    for (int i = 0; i < RELAY_MAX_CONNECTIONS; i++) relay->clients[i] = -1;
    bool ok = relay_make_identity(relay);
    if (ok) {
        relay->listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = 0};
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t size = sizeof address;
        ok = relay->listener >= 0 && bind(relay->listener, (struct sockaddr *)&address, sizeof address) == 0 &&
             listen(relay->listener, 32) == 0 &&
             getsockname(relay->listener, (struct sockaddr *)&address, &size) == 0;
        relay->port = ntohs(address.sin_port);
    }
    pthread_t thread;
    if (ok) {
        relay->references = 1;  // the accept loop's; the caller's is taken below
        ok = pthread_create(&thread, NULL, relay_accept_loop, relay) == 0;
        if (ok) pthread_detach(thread);
    }
    if (!ok) {
        if (relay->listener >= 0) close(relay->listener);
        SSL_CTX_free(relay->tls);
        free(relay->certificate_pem);
        pthread_mutex_destroy(&relay->lock);
        free(relay);
        return NULL;
    }
    pthread_mutex_lock(&relay->lock);
    relay->references += 1;
    pthread_mutex_unlock(&relay->lock);
    return relay;
}

uint16_t ccurl_relay_port(const ccurl_relay *relay) { return relay->port; }

const char *ccurl_relay_certificate_pem(const ccurl_relay *relay) { return relay->certificate_pem; }

void ccurl_relay_stop(ccurl_relay *relay) {
    pthread_mutex_lock(&relay->lock);
    __atomic_store_n(&relay->stopping, 1, __ATOMIC_RELEASE);
    shutdown(relay->listener, SHUT_RDWR);
    for (int i = 0; i < RELAY_MAX_CONNECTIONS; i++) {
        if (relay->clients[i] >= 0) shutdown(relay->clients[i], SHUT_RDWR);
    }
    pthread_mutex_unlock(&relay->lock);
    relay_unref(relay);
}
