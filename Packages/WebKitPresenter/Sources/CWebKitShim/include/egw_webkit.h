// Fixed-arity C for what Swift cannot call directly in GTK 4 and WebKitGTK 6: GObject macros,
// g_signal_connect, g_object_new/g_object_get (variadic) and GAsyncReadyCallback plumbing (the bridge
// from Dispatch's main queue to GLib's main loop is GLibMainQueue's). Every pointer is an opaque `void *`
// on the Swift side; nothing here is public API of WebKitPresenter.
#ifndef EGW_WEBKIT_H
#define EGW_WEBKIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// MARK: GTK and the main loop

// GTK itself (start, the GTK thread, the hop onto it, running the loop) is GLibMainQueue's GTKRuntime:
// the SDK's one gtk_init_check.

// MARK: Windows and widgets

/// A new GtkWindow; transient for and modal over `parent` when it is not NULL.
void *egwwk_window_new(void *parent, int width, int height);
void egwwk_window_set_title(void *window, const char *title);
void egwwk_window_set_child(void *window, void *child);
void egwwk_window_present(void *window);
void egwwk_window_destroy(void *window);
/// Adds `child` to `container`: a GtkBox (appended, expanding) or a GtkWindow (its child).
bool egwwk_container_add(void *container, void *child);
/// Removes `child` from the container egwwk_container_add put it in.
void egwwk_container_remove(void *container, void *child);
void egwwk_widget_set_visible(void *widget, bool visible);
void egwwk_object_unref(void *object);

// MARK: Events from a page

/// What each callback below reports, as closed enums: Swift imports them as frozen enums whose switches
/// are exhaustive (no `default:`), and a new case fails the build where it is not handled.
#define EGWWK_CLOSED_ENUM __attribute__((enum_extensibility(closed)))
#define EGWWK_SWIFT_NAME(name) __attribute__((swift_name(#name)))

/// The kind of a policy decision.
typedef enum EGWWK_CLOSED_ENUM egwwk_policy_kind {
    EGWWK_POLICY_NAVIGATION EGWWK_SWIFT_NAME(navigation) = 0,
    EGWWK_POLICY_NEW_WINDOW EGWWK_SWIFT_NAME(newWindow) = 1,
    EGWWK_POLICY_RESPONSE EGWWK_SWIFT_NAME(response) = 2,
} egwwk_policy_kind;
/// A step of a load (WebKitLoadEvent).
typedef enum EGWWK_CLOSED_ENUM egwwk_load_event {
    EGWWK_LOAD_STARTED EGWWK_SWIFT_NAME(started) = 0,
    EGWWK_LOAD_REDIRECTED EGWWK_SWIFT_NAME(redirected) = 1,
    EGWWK_LOAD_COMMITTED EGWWK_SWIFT_NAME(committed) = 2,
    EGWWK_LOAD_FINISHED EGWWK_SWIFT_NAME(finished) = 3,
} egwwk_load_event;
/// Why a load failed.
typedef enum EGWWK_CLOSED_ENUM egwwk_fail_kind {
    EGWWK_FAIL_OTHER EGWWK_SWIFT_NAME(other) = 0,
    /// Interrupted by our own policy decision or a new load: not a failure of the page.
    EGWWK_FAIL_INTERRUPTED EGWWK_SWIFT_NAME(interrupted) = 1,
    EGWWK_FAIL_TLS EGWWK_SWIFT_NAME(tls) = 2,
} egwwk_fail_kind;
/// Something that happened to the view or its window.
typedef enum EGWWK_CLOSED_ENUM egwwk_view_event {
    EGWWK_EVENT_CLOSE EGWWK_SWIFT_NAME(close) = 0,
    EGWWK_EVENT_TITLE EGWWK_SWIFT_NAME(title) = 1,
    EGWWK_EVENT_URI EGWWK_SWIFT_NAME(uri) = 2,
} egwwk_view_event;

typedef struct egwwk_callbacks {
    void *context;
    /// `decision` is referenced; hand it to egwwk_decision_use / _ignore exactly once. It is NULL
    /// for a `window.open` (EGWWK_POLICY_NEW_WINDOW with nothing to answer).
    /// `status` is the HTTP status of a response decision (else 0); `main_frame` for responses.
    void (*policy)(void *context, void *decision, egwwk_policy_kind type, const char *uri, int status,
                   bool main_frame);
    void (*load)(void *context, egwwk_load_event event, const char *uri);
    /// `tls_flags` (TLS failures only) are GTlsCertificateFlags.
    void (*fail)(void *context, egwwk_fail_kind kind, const char *uri, const char *message, unsigned tls_flags);
    void (*event)(void *context, egwwk_view_event event);
    /// A message the watch script (egwwk_view_new's `watch_script`) posted from a page: a string.
    void (*message)(void *context, const char *text);
    /// A request a page's script is about to send (egwwk_view_new's `request_script`): its method and
    /// absolute URL, never more. The script waits for this call to return before it sends (fetch, an
    /// asynchronous XHR); a beacon or a synchronous XHR goes at once.
    void (*request)(void *context, const char *method, const char *uri);
    /// The view's web process ended (`web-process-terminated`): `reason` says how ("crashed", ...).
    void (*terminated)(void *context, const char *reason);
} egwwk_callbacks;

// MARK: Web views

/// An ephemeral network session (nothing on disk): TLS errors fail loads, no proxy (whatever the
/// environment says), no favicon database.
void *egwwk_session_new_ephemeral(void);
/// Sets the session's proxies: `default_uri` for every scheme without its own, `http_uri` / `https_uri`
/// for those schemes, none for hosts in `ignore_hosts` (NULL-terminated, may be NULL). Called only with a
/// proxy to set: a session from egwwk_session_new_ephemeral has none already.
void egwwk_session_set_proxy(void *session, const char *default_uri, const char *http_uri, const char *https_uri,
                             const char *const *ignore_hosts);
/// A web view in `session`, JavaScript on, no pop-ups, no developer extras, signals wired to
/// `callbacks` (copied). Escape in the view's window and its close request go to event().
/// `watch_script` (may be NULL) runs at the end of every top-level document, in the isolated
/// script world `world`, where `window.webkit.messageHandlers.egw.postMessage(text)` reaches
/// callbacks->message: nothing of ours stays pending in WebKit when a page navigates away.
/// `request_script` (may be NULL) runs at the start of every document in every frame, in the page's
/// own world, where `window.webkit.messageHandlers.egwRequest.postMessage("METHOD url")` reaches
/// callbacks->request and resolves once it returned.
void *egwwk_view_new(void *session, const egwwk_callbacks *callbacks, const char *watch_script, const char *world,
                     const char *request_script);
/// Disconnects every signal egwwk_view_new and egwwk_window_wire_close connected (`window` may be NULL);
/// later events are dropped.
void egwwk_view_disconnect(void *view, void *window);
/// Wires Escape and the close button of `window` to the view's event(EGWWK_EVENT_CLOSE).
void egwwk_window_wire_close(void *window, void *view);
/// Turns the view's JavaScript on or off (a page shown as a script-less browser saw it).
void egwwk_view_set_javascript(void *view, bool enabled);
/// The HTTP method of a navigation decision's request ("GET", "POST"), or NULL when WebKit does not say
/// (WebKit may report NULL for a plain GET). Valid while the decision is.
const char *egwwk_decision_method(void *decision);
/// Whether a navigation decision is one that replaces the shown document (a link followed, a form
/// submitted, a reload, a history step): WebKit asks about an iframe's own src load too (as "other"),
/// and says nothing else about the frame, so "other" counts as leaving nothing.
bool egwwk_decision_leaves_document(void *decision);
void egwwk_decision_use(void *decision);
void egwwk_decision_ignore(void *decision);
void egwwk_view_load_uri(void *view, const char *uri);
void egwwk_view_load_html(void *view, const char *html, const char *base_uri);
void egwwk_view_stop(void *view);
/// The current URI / title (owned by the view), or NULL.
const char *egwwk_view_uri(void *view);
const char *egwwk_view_title(void *view);
/// Calls `painted(data)` once, after the next frame GTK paints for `widget`'s window (its frame
/// clock's after-paint); false when the widget is not realized (no frame clock yet).
bool egwwk_after_next_paint(void *widget, void (*painted)(void *data), void *data);

/// Evaluates `script` (which must not wait: its value is its last expression) in the isolated
/// script world `world`; `done` gets the value as a string (NULL and an error message on
/// failure). Never inline; cancelled when the view is disconnected.
void egwwk_view_evaluate(void *view, const char *script, const char *world,
                         void (*done)(void *data, const char *value, const char *error), void *data);
/// Saves the visible part of the view as a PNG at `path`; `done(data, ok)`.
void egwwk_view_snapshot_png(void *view, const char *path, void (*done)(void *data, bool ok), void *data);

#ifdef __cplusplus
}
#endif

#endif
