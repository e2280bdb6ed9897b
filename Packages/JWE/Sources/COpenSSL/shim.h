#ifndef EGW_COPENSSL_SHIM_H
#define EGW_COPENSSL_SHIM_H
// The parts of OpenSSL 3's libcrypto the JWE package uses. Everything here is
// called directly from Swift: no variadic function or macro is needed, so the
// package has no C shim target of its own.
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#endif
