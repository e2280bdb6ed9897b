// libpsl (the Public Suffix List library libcurl itself uses), for the cookie jar's public-suffix check.
#include <libpsl.h>
