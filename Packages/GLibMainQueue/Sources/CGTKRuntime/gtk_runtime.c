#include "egw_gtk_runtime.h"

#include <gtk/gtk.h>
#include <pthread.h>

static GMutex egwgtk_lock;
static pthread_t egwgtk_thread;
static gint egwgtk_state = 0;  // 0 not tried, 1 started, -1 failed

egwgtk_start_result egwgtk_start(void) {
    g_mutex_lock(&egwgtk_lock);
    if (g_atomic_int_get(&egwgtk_state) == 0) {
        if (gtk_init_check()) {
            egwgtk_thread = pthread_self();
            g_atomic_int_set(&egwgtk_state, 1);
        } else {
            g_atomic_int_set(&egwgtk_state, -1);
        }
    }
    egwgtk_start_result result = EGWGTK_NO_DISPLAY;
    if (g_atomic_int_get(&egwgtk_state) == 1) {
        result = pthread_equal(pthread_self(), egwgtk_thread) ? EGWGTK_STARTED : EGWGTK_ON_ANOTHER_THREAD;
    }
    g_mutex_unlock(&egwgtk_lock);
    return result;
}

bool egwgtk_started(void) { return g_atomic_int_get(&egwgtk_state) == 1; }

bool egwgtk_is_gtk_thread(void) {
    return g_atomic_int_get(&egwgtk_state) == 1 && pthread_equal(pthread_self(), egwgtk_thread);
}

typedef struct {
    void (*fn)(void *data);
    void *data;
} egwgtk_call;

static gboolean egwgtk_call_once(gpointer user_data) {
    egwgtk_call *call = user_data;
    call->fn(call->data);
    return G_SOURCE_REMOVE;
}

void egwgtk_invoke(void (*fn)(void *data), void *data) {
    egwgtk_call *call = g_new(egwgtk_call, 1);
    call->fn = fn;
    call->data = data;
    g_idle_add_full(G_PRIORITY_HIGH_IDLE, egwgtk_call_once, call, g_free);
    g_main_context_wakeup(NULL);
}

unsigned egwgtk_timeout_add(unsigned milliseconds, void (*fn)(void *data), void *data) {
    egwgtk_call *call = g_new(egwgtk_call, 1);
    call->fn = fn;
    call->data = data;
    return g_timeout_add_full(G_PRIORITY_DEFAULT, milliseconds, egwgtk_call_once, call, g_free);
}

void egwgtk_source_remove(unsigned id) { g_source_remove(id); }

bool egwgtk_iterate(bool may_block) { return g_main_context_iteration(NULL, may_block); }

// The innermost loop egwgtk_loop_run turns; touched on the GTK thread only.
static GMainLoop *egwgtk_loop = NULL;

void egwgtk_loop_run(void) {
    GMainLoop *loop = g_main_loop_new(NULL, FALSE);
    GMainLoop *outer = egwgtk_loop;
    egwgtk_loop = loop;
    g_main_loop_run(loop);
    egwgtk_loop = outer;
    g_main_loop_unref(loop);
}

void egwgtk_loop_quit(void) {
    if (egwgtk_loop != NULL) g_main_loop_quit(egwgtk_loop);
}

void egwgtk_object_ref(void *object) { g_object_ref(object); }

void egwgtk_object_unref(void *object) { g_object_unref(object); }

static void kept_focus_free(gpointer data) {
    g_weak_ref_clear(data);
    g_free(data);
}

void egwgtk_focus_keep(void *window) {
    GtkWidget *focus = gtk_root_get_focus(GTK_ROOT(window));
    GWeakRef *kept = g_object_get_data(G_OBJECT(window), "egwgtk-kept-focus");
    if (kept == NULL) {
        kept = g_new0(GWeakRef, 1);
        g_weak_ref_init(kept, NULL);
        g_object_set_data_full(G_OBJECT(window), "egwgtk-kept-focus", kept, kept_focus_free);
    }
    if (focus != NULL) g_weak_ref_set(kept, focus);
}

void egwgtk_focus_restore(void *window) {
    GWeakRef *kept = g_object_get_data(G_OBJECT(window), "egwgtk-kept-focus");
    if (kept == NULL) return;
    GtkWidget *widget = g_weak_ref_get(kept);
    g_weak_ref_set(kept, NULL);
    if (widget == NULL) return;
    if (gtk_root_get_focus(GTK_ROOT(window)) == NULL && gtk_widget_is_sensitive(widget)) gtk_widget_grab_focus(widget);
    g_object_unref(widget);
}
