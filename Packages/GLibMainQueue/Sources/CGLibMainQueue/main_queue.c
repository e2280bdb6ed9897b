#include "egw_glib_main_queue.h"

#include <glib-unix.h>
#include <glib.h>
#include <poll.h>
#include <sys/eventfd.h>

// libdispatch's run-loop integration, as swift-corelibs-foundation's CFRunLoop uses it (both exported by
// the toolchain's libdispatch): an eventfd that libdispatch writes whenever the main queue gets work, and
// the drain, which runs the queued blocks on the calling thread (it must be the main thread).
extern int _dispatch_get_main_queue_handle_4CF(void);
extern void _dispatch_main_queue_callback_4CF(void *message);

// The install's outcome: 0 before it, the source id after it, FAILED when the handle was unavailable.
#define FAILED ((gsize)-1)
static gsize installed = 0;

static gboolean main_queue_ready(gint fd, GIOCondition condition, gpointer data) {
    (void)condition;
    (void)data;
    // Clear the signal first (only when it is set, so a blocking descriptor never blocks here), so a
    // block queued while draining signals again and is drained on the next iteration.
    struct pollfd probe = {.fd = fd, .events = POLLIN};
    if (poll(&probe, 1, 0) > 0) {
        eventfd_t value;
        (void)eventfd_read(fd, &value);
    }
    _dispatch_main_queue_callback_4CF(NULL);
    return G_SOURCE_CONTINUE;
}

bool egwglib_main_queue_install(void) {
    if (g_once_init_enter(&installed)) {
        gsize outcome = FAILED;
        int fd = _dispatch_get_main_queue_handle_4CF();
        if (fd >= 0) {
            guint source = g_unix_fd_add(fd, G_IO_IN, main_queue_ready, NULL);
            if (source != 0) outcome = source;
        }
        g_once_init_leave(&installed, outcome);
    }
    return (gsize)g_atomic_pointer_get(&installed) != FAILED;
}

unsigned egwglib_main_queue_source_id(void) {
    gsize value = (gsize)g_atomic_pointer_get(&installed);
    return value == FAILED ? 0 : (guint)value;
}
