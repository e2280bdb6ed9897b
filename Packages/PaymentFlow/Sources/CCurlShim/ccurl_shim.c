#include "ccurl_shim.h"

#include <openssl/ssl.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

CURLcode ccurl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
CURLcode ccurl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
CURLcode ccurl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
CURLcode ccurl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}
CURLcode ccurl_setopt_write_function(CURL *handle, CURLoption option,
                                     size_t (*callback)(char *, size_t, size_t, void *)) {
    return curl_easy_setopt(handle, option, callback);
}
CURLcode ccurl_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
CURLcode ccurl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
CURLcode ccurl_getinfo_string(CURL *handle, CURLINFO info, const char **value) {
    return curl_easy_getinfo(handle, info, value);
}
CURLcode ccurl_getinfo_double(CURL *handle, CURLINFO info, double *value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLcode ccurl_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

void ccurl_abort_flag_raise(int *flag) {
    __atomic_store_n(flag, 1, __ATOMIC_RELEASE);
}
int ccurl_abort_flag_is_raised(const int *flag) {
    return __atomic_load_n(flag, __ATOMIC_ACQUIRE);
}
CURLcode ccurl_setopt_progress(CURL *handle, curl_xferinfo_callback callback, void *context) {
    CURLcode code = curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
    if (code == CURLE_OK) code = curl_easy_setopt(handle, CURLOPT_XFERINFODATA, context);
    if (code == CURLE_OK) code = curl_easy_setopt(handle, CURLOPT_NOPROGRESS, context ? 0L : 1L);
    return code;
}

// A share handle for TLS sessions and DNS, locked per kind of data. The connection
// cache (CURL_LOCK_DATA_CONNECT) is deliberately not shared: libcurl documents it as
// unsafe between concurrent threads (known bug 11.11); connections are reused by
// keeping idle easy handles instead (see CurlConnectionCache.swift).
struct ccurl_share {
    CURLSH *handle;
    pthread_mutex_t locks[CURL_LOCK_DATA_LAST];
};

static void ccurl_share_lock(CURL *easy, curl_lock_data data, curl_lock_access access, void *userptr) {
    (void)easy;
    (void)access;
    struct ccurl_share *share = userptr;
    if ((int)data >= 0 && data < CURL_LOCK_DATA_LAST) pthread_mutex_lock(&share->locks[data]);
}

static void ccurl_share_unlock(CURL *easy, curl_lock_data data, void *userptr) {
    (void)easy;
    struct ccurl_share *share = userptr;
    if ((int)data >= 0 && data < CURL_LOCK_DATA_LAST) pthread_mutex_unlock(&share->locks[data]);
}

struct ccurl_share *ccurl_share_create(void) {
    struct ccurl_share *share = calloc(1, sizeof *share);
    if (share == NULL) return NULL;
    share->handle = curl_share_init();
    if (share->handle == NULL) {
        free(share);
        return NULL;
    }
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++) pthread_mutex_init(&share->locks[i], NULL);
    CURLSHcode code = curl_share_setopt(share->handle, CURLSHOPT_USERDATA, (void *)share);
    if (code == CURLSHE_OK) code = curl_share_setopt(share->handle, CURLSHOPT_LOCKFUNC, ccurl_share_lock);
    if (code == CURLSHE_OK) code = curl_share_setopt(share->handle, CURLSHOPT_UNLOCKFUNC, ccurl_share_unlock);
    if (code == CURLSHE_OK) code = curl_share_setopt(share->handle, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
    if (code == CURLSHE_OK) code = curl_share_setopt(share->handle, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
    if (code != CURLSHE_OK) {
        ccurl_share_destroy(share);
        return NULL;
    }
    return share;
}

void ccurl_share_destroy(struct ccurl_share *share) {
    if (share == NULL) return;
    curl_share_cleanup(share->handle);
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++) pthread_mutex_destroy(&share->locks[i]);
    free(share);
}

CURLcode ccurl_setopt_share(CURL *handle, struct ccurl_share *share) {
    return curl_easy_setopt(handle, CURLOPT_SHARE, share != NULL ? share->handle : NULL);
}

// A request body libcurl reads once through CURLOPT_READFUNCTION. No seek function is
// set, so libcurl cannot rewind it: where it would silently send the request again (its
// request went out on a reused connection that turned out to be dead before any answer),
// the transfer fails with CURLE_SEND_FAIL_REWIND instead, and the caller decides.
struct ccurl_body {
    size_t length;
    size_t offset;
    unsigned char data[];
};

static size_t ccurl_body_read(char *buffer, size_t size, size_t count, void *userp) {
    struct ccurl_body *body = userp;
    size_t room = size * count;
    size_t left = body->length - body->offset;
    size_t n = left < room ? left : room;
    if (n > 0) memcpy(buffer, body->data + body->offset, n);
    body->offset += n;
    return n;
}

struct ccurl_body *ccurl_body_create(const void *data, size_t length) {
    struct ccurl_body *body = malloc(sizeof *body + (length > 0 ? length : 1));
    if (body == NULL) return NULL;
    body->length = length;
    body->offset = 0;
    if (length > 0) memcpy(body->data, data, length);
    return body;
}

void ccurl_body_free(struct ccurl_body *body) {
    if (body == NULL) return;
    // Request bodies can hold an encrypted card: wipe before the memory is reused.
    volatile unsigned char *bytes = body->data;
    for (size_t i = 0; i < body->length; i++) bytes[i] = 0;
    free(body);
}

CURLcode ccurl_setopt_body_once(CURL *handle, struct ccurl_body *body) {
    CURLcode code = curl_easy_setopt(handle, CURLOPT_POST, 1L);
    if (code == CURLE_OK) code = curl_easy_setopt(handle, CURLOPT_READFUNCTION, ccurl_body_read);
    if (code == CURLE_OK) code = curl_easy_setopt(handle, CURLOPT_READDATA, (void *)body);
    if (code == CURLE_OK) code = curl_easy_setopt(handle, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body->length);
    return code;
}

size_t ccurl_body_bytes_read(const struct ccurl_body *body) {
    return body != NULL ? body->offset : 0;
}

static int ccurl_request_start(void *clientp, char *primary_ip, char *local_ip, int primary_port,
                               int local_port) {
    (void)primary_ip;
    (void)local_ip;
    (void)primary_port;
    (void)local_port;
    int *counter = clientp;
    *counter += 1;
    return CURL_PREREQFUNC_OK;
}

CURLcode ccurl_count_request_starts(CURL *handle, int *counter) {
    CURLcode code = curl_easy_setopt(handle, CURLOPT_PREREQFUNCTION, ccurl_request_start);
    if (code == CURLE_OK) code = curl_easy_setopt(handle, CURLOPT_PREREQDATA, (void *)counter);
    return code;
}

static CURLcode ccurl_no_keylog(CURL *handle, void *ssl_ctx, void *userptr) {
    (void)handle;
    (void)userptr;
    SSL_CTX_set_keylog_callback((SSL_CTX *)ssl_ctx, NULL);
    return CURLE_OK;
}

CURLcode ccurl_disable_tls_keylog(CURL *handle) {
    return curl_easy_setopt(handle, CURLOPT_SSL_CTX_FUNCTION, ccurl_no_keylog);
}
