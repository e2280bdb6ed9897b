// GLibMainQueue's GTK boundary: GTK started once per process, the GTK thread, and the one hop onto it.
// Swift imports this with `internal import`; nothing here is public API.
#ifndef EGW_GTK_RUNTIME_H
#define EGW_GTK_RUNTIME_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/// How a start went, for the calling thread.
typedef enum __attribute__((enum_extensibility(closed))) {
    // GTK runs, and the calling thread is its thread
    EGWGTK_STARTED __attribute__((swift_name("started"))) = 0,
    // gtk_init_check failed (now or before: GTK is never asked twice)
    EGWGTK_NO_DISPLAY __attribute__((swift_name("noDisplay"))) = 1,
    // GTK runs, started by another thread
    EGWGTK_ON_ANOTHER_THREAD __attribute__((swift_name("onAnotherThread"))) = 2,
} egwgtk_start_result;

/// gtk_init_check() once per process, whichever threads call (a lock; the state is an atomic, published
/// after the thread id it names). A failed start is remembered: GTK does not survive a second attempt.
egwgtk_start_result egwgtk_start(void);
/// Whether GTK was started (on any thread).
bool egwgtk_started(void);
/// Whether the calling thread is the one that started GTK.
bool egwgtk_is_gtk_thread(void);
/// Runs fn(data) once on the thread iterating GLib's default main context (the GTK thread), at high
/// idle priority, and wakes that context.
void egwgtk_invoke(void (*fn)(void *data), void *data);
/// Calls fn(data) once after `milliseconds` from the default main context; the source's id.
unsigned egwgtk_timeout_add(unsigned milliseconds, void (*fn)(void *data), void *data);
/// Removes a source added by egwgtk_timeout_add that has not fired.
void egwgtk_source_remove(unsigned id);
/// g_object_ref / g_object_unref (GLib's counts are atomic: callable from any thread; the last unref
/// finalizes the object on the calling thread).
void egwgtk_object_ref(void *object);
void egwgtk_object_unref(void *object);
/// Remembers the window's focused widget (weakly), before controls turn insensitive and GTK drops the
/// focus; nothing when nothing is focused. GTK thread.
void egwgtk_focus_keep(void *window);
/// Gives the remembered widget the focus back when the window has none and it is sensitive, and
/// forgets it. GTK thread.
void egwgtk_focus_restore(void *window);
/// One iteration of the default main context (g_main_context_iteration); whether it dispatched anything.
bool egwgtk_iterate(bool may_block);
/// Turns GLib's default main context in a loop of its own until egwgtk_loop_quit; loops nest, and a
/// quit ends the innermost. GTK thread.
void egwgtk_loop_run(void);
/// Ends the innermost egwgtk_loop_run; nothing when none turns. GTK thread.
void egwgtk_loop_quit(void);

#ifdef __cplusplus
}
#endif

#endif
