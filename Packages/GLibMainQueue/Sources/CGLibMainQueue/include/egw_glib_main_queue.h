// GLibMainQueue's C boundary: the GLib source that drains Dispatch's main queue. Swift imports this with
// `internal import`; nothing here is public API.
#ifndef EGW_GLIB_MAIN_QUEUE_H
#define EGW_GLIB_MAIN_QUEUE_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Attaches (once per process, whichever thread calls first; concurrent callers wait for it) a GLib
/// source on libdispatch's main-queue handle to the default main context. When the handle becomes
/// readable the source drains Dispatch's main queue on the thread iterating that context, which must be
/// the main thread (libdispatch aborts a drain from any other). Returns false when the handle is not
/// available (the same answer on every call).
bool egwglib_main_queue_install(void);

/// The installed source's id on the default main context, 0 before a successful install.
unsigned egwglib_main_queue_source_id(void);

#ifdef __cplusplus
}
#endif

#endif
