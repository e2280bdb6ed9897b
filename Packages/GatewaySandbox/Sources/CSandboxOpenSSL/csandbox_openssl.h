#ifndef EGW_CSANDBOX_OPENSSL_H
#define EGW_CSANDBOX_OPENSSL_H
// The parts of OpenSSL 3's libcrypto the sandbox calls itself: the one-shot EVP_Digest
// with EVP_sha256 (the digest of an idempotent request), and EC key generation, X.509
// building and PEM reading/writing for the HTTPS test certificate authority. Every call
// used is a real function (no macro, nothing variadic), so no shim is needed.
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#endif
