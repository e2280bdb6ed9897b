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


// A flag another thread raises to abort a transfer in progress: libcurl's progress
// callback reads it (roughly once a second, or sooner) and aborts the transfer
// (CURLE_ABORTED_BY_CALLBACK). The flag is a plain int read and written atomically.
void ccurl_abort_flag_raise(int *flag);
int ccurl_abort_flag_is_raised(const int *flag);
CURLcode ccurl_watch_abort_flag(CURL *handle, int *flag);

#endif
