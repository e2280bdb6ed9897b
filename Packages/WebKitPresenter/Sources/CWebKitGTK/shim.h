#include <webkit/webkit.h>
