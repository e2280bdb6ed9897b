#ifndef CCURL_SHIM_H
#define CCURL_SHIM_H
// Fixed-arity wrappers for libcurl's variadic calls, so Swift can reach them.
#include <curl/curl.h>

CURLcode ccurl_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode ccurl_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode ccurl_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode ccurl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value);
CURLcode ccurl_setopt_write_function(CURL *handle, CURLoption option,
                                     size_t (*callback)(char *, size_t, size_t, void *));
CURLcode ccurl_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value);
CURLcode ccurl_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode ccurl_getinfo_string(CURL *handle, CURLINFO info, const char **value);
CURLcode ccurl_getinfo_double(CURL *handle, CURLINFO info, double *value);
CURLcode ccurl_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value);


// A flag another thread raises to abort a transfer in progress: the transfer's progress
// callback reads it and aborts the transfer (CURLE_ABORTED_BY_CALLBACK). The flag is a plain
// int read and written atomically.
void ccurl_abort_flag_raise(int *flag);
int ccurl_abort_flag_is_raised(const int *flag);

// Installs `callback` as the transfer's progress callback (CURLOPT_XFERINFOFUNCTION, with
// `context` as its CURLOPT_XFERINFODATA, progress switched on): libcurl calls it roughly once a
// second while it waits, and more often while bytes move; a nonzero return aborts the transfer.
CURLcode ccurl_setopt_progress(CURL *handle, curl_xferinfo_callback callback, void *context);

// A libcurl share handle for TLS sessions and the DNS cache, with a pthread mutex per
// kind of data behind its lock callbacks, so easy handles on different threads may use
// it at once. NULL when libcurl cannot allocate it. Destroy it only when no easy handle
// uses it any more (each one cleaned up, or set to another share).
struct ccurl_share;
struct ccurl_share *ccurl_share_create(void);
void ccurl_share_destroy(struct ccurl_share *share);
/// CURLOPT_SHARE: `share` (NULL detaches).
CURLcode ccurl_setopt_share(CURL *handle, struct ccurl_share *share);

// A request body libcurl can read only once (no rewind), so it can never resend the
// request by itself: on a dead reused connection the transfer fails with
// CURLE_SEND_FAIL_REWIND. `create` copies the bytes (NULL when out of memory); `free`
// wipes and frees them, after the transfer. `setopt_body_once` makes the request a POST
// (CURLOPT_CUSTOMREQUEST may rename the method) reading this body.
struct ccurl_body;
struct ccurl_body *ccurl_body_create(const void *data, size_t length);
void ccurl_body_free(struct ccurl_body *body);
CURLcode ccurl_setopt_body_once(CURL *handle, struct ccurl_body *body);
/// How many bytes of `body` libcurl has read so far (handed to a connection, or about to be).
size_t ccurl_body_bytes_read(const struct ccurl_body *body);

// Counts, in `*counter`, each moment libcurl hands this transfer's request to a connection,
// new or reused (CURLOPT_PREREQFUNCTION, libcurl 7.80+): past that point the request's
// bytes may reach the server. A transfer that fails with the counter still 0 never wrote
// a byte of its request. `counter` must outlive the transfer; the callback runs on the
// thread inside curl_easy_perform.
CURLcode ccurl_count_request_starts(CURL *handle, int *counter);

// Makes libcurl's OpenSSL contexts for this handle write no TLS key log, whatever $SSLKEYLOGFILE
// says: a CURLOPT_SSL_CTX_FUNCTION that clears the context's keylog callback before the handshake.
CURLcode ccurl_disable_tls_keylog(CURL *handle);

#endif
