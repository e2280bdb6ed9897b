#ifndef EGW_CSANDBOX_TEST_SSL_H
#define EGW_CSANDBOX_TEST_SSL_H
// OpenSSL's libssl for the sandbox tests' TLS client. The macros it needs
// (SSL_CTX_set_min_proto_version, SSL_set_tlsext_host_name) are reached through
// SSL_CTX_ctrl / SSL_ctrl with their SSL_CTRL_* numbers.
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#endif
