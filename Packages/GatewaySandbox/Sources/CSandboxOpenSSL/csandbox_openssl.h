#ifndef EGW_CSANDBOX_OPENSSL_H
#define EGW_CSANDBOX_OPENSSL_H
// The one part of OpenSSL 3's libcrypto the sandbox calls itself: the one-shot
// EVP_Digest with EVP_sha256, for the digest of an idempotent request. Neither
// is variadic nor a macro, so no shim is needed.
#include <openssl/evp.h>
#endif
