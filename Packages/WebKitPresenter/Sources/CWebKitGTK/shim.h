#include <webkit/webkit.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
