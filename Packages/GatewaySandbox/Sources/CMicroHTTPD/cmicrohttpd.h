// libmicrohttpd as a Swift-importable module. The variadic entry points are
// reached through CMicroHTTPDShim.
#include <microhttpd.h>
