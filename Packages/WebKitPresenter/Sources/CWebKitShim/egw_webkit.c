#include "egw_webkit.h"
#include "egw_webkit_method.h"

#include <gtk/gtk.h>
#include <stdlib.h>
#include <string.h>
#include <webkit/webkit.h>

// MARK: Windows and widgets

void *egwwk_window_new(void *parent, int width, int height) {
    GtkWidget *window = gtk_window_new();
    if (parent != NULL && GTK_IS_WINDOW(parent)) {
        gtk_window_set_transient_for(GTK_WINDOW(window), GTK_WINDOW(parent));
        gtk_window_set_modal(GTK_WINDOW(window), TRUE);
        gtk_window_set_destroy_with_parent(GTK_WINDOW(window), TRUE);
    }
    gtk_window_set_default_size(GTK_WINDOW(window), width, height);
    return window;
}

void egwwk_window_set_title(void *window, const char *title) {
    gtk_window_set_title(GTK_WINDOW(window), title);
    // The web view is what a screen reader lands on: GTK 4.8 cannot embed WebKit's own tree of the page, so
    // without a label it is read out by its class name ("WebKitWebView"). It gets the window's title
    // (the page's title and whose site it is).
    GtkWidget *child = gtk_window_get_child(GTK_WINDOW(window));
    if (child != NULL) gtk_accessible_update_property(GTK_ACCESSIBLE(child), GTK_ACCESSIBLE_PROPERTY_LABEL, title, -1);
}
void egwwk_window_set_child(void *window, void *child) {
    gtk_window_set_child(GTK_WINDOW(window), child ? GTK_WIDGET(child) : NULL);
}
void egwwk_window_present(void *window) { gtk_window_present(GTK_WINDOW(window)); }
void egwwk_window_destroy(void *window) { gtk_window_destroy(GTK_WINDOW(window)); }

bool egwwk_container_add(void *container, void *child) {
    if (container == NULL) return false;
    if (GTK_IS_BOX(container)) {
        gtk_widget_set_hexpand(GTK_WIDGET(child), TRUE);
        gtk_widget_set_vexpand(GTK_WIDGET(child), TRUE);
        gtk_box_append(GTK_BOX(container), GTK_WIDGET(child));
        return true;
    }
    if (GTK_IS_WINDOW(container)) {
        gtk_window_set_child(GTK_WINDOW(container), GTK_WIDGET(child));
        return true;
    }
    return false;
}

void egwwk_container_remove(void *container, void *child) {
    if (GTK_IS_BOX(container)) {
        gtk_box_remove(GTK_BOX(container), GTK_WIDGET(child));
    } else if (GTK_IS_WINDOW(container) && gtk_window_get_child(GTK_WINDOW(container)) == child) {
        gtk_window_set_child(GTK_WINDOW(container), NULL);
    }
}

void egwwk_widget_set_visible(void *widget, bool visible) { gtk_widget_set_visible(GTK_WIDGET(widget), visible); }
void egwwk_object_unref(void *object) { g_object_unref(object); }

typedef struct {
    void (*painted)(void *data);
    void *data;
    GdkFrameClock *clock;
    gulong handler;
} egwwk_paint_wait;

static void egwwk_on_after_paint(GdkFrameClock *clock, gpointer user_data) {
    egwwk_paint_wait *wait = user_data;
    g_signal_handler_disconnect(clock, wait->handler);
    wait->painted(wait->data);
    g_object_unref(wait->clock);
    g_free(wait);
}

bool egwwk_after_next_paint(void *widget, void (*painted)(void *data), void *data) {
    GdkFrameClock *clock = gtk_widget_get_frame_clock(GTK_WIDGET(widget));
    if (clock == NULL) return false;
    egwwk_paint_wait *wait = g_new(egwwk_paint_wait, 1);
    wait->painted = painted;
    wait->data = data;
    wait->clock = g_object_ref(clock);
    wait->handler = g_signal_connect(clock, "after-paint", G_CALLBACK(egwwk_on_after_paint), wait);
    gdk_frame_clock_request_phase(clock, GDK_FRAME_CLOCK_PHASE_PAINT);
    return true;
}

// MARK: Signals

static const char *egwwk_callbacks_key = "egwwk-callbacks";
// Cancels the view's scripts and snapshots still under way when the page goes: each holds a
// reference to the view (and so its web process) until it completes.
static const char *egwwk_cancellable_key = "egwwk-cancellable";

static GCancellable *egwwk_view_cancellable(void *view) {
    return g_object_get_data(G_OBJECT(view), egwwk_cancellable_key);
}

static gboolean egwwk_on_decide_policy(WebKitWebView *view, WebKitPolicyDecision *decision,
                                       WebKitPolicyDecisionType type, gpointer user_data) {
    (void)view;
    egwwk_callbacks *callbacks = user_data;
    if (callbacks->context == NULL) {
        webkit_policy_decision_ignore(decision);
        return TRUE;
    }
    switch (type) {
    case WEBKIT_POLICY_DECISION_TYPE_NAVIGATION_ACTION:
    case WEBKIT_POLICY_DECISION_TYPE_NEW_WINDOW_ACTION: {
        WebKitNavigationAction *action =
            webkit_navigation_policy_decision_get_navigation_action(WEBKIT_NAVIGATION_POLICY_DECISION(decision));
        const char *uri = webkit_uri_request_get_uri(webkit_navigation_action_get_request(action));
        egwwk_policy_kind kind = type == WEBKIT_POLICY_DECISION_TYPE_NAVIGATION_ACTION ? EGWWK_POLICY_NAVIGATION
                                                                                        : EGWWK_POLICY_NEW_WINDOW;
        callbacks->policy(callbacks->context, g_object_ref(decision), kind, uri ? uri : "", 0, true);
        return TRUE;
    }
    case WEBKIT_POLICY_DECISION_TYPE_RESPONSE: {
        WebKitResponsePolicyDecision *response_decision = WEBKIT_RESPONSE_POLICY_DECISION(decision);
        WebKitURIResponse *response = webkit_response_policy_decision_get_response(response_decision);
        const char *uri = webkit_uri_response_get_uri(response);
        int status = (int)webkit_uri_response_get_status_code(response);
        bool main_frame = webkit_response_policy_decision_is_main_frame_main_resource(response_decision);
        callbacks->policy(callbacks->context, g_object_ref(decision), EGWWK_POLICY_RESPONSE, uri ? uri : "",
                          status, main_frame);
        return TRUE;
    }
    default:
        webkit_policy_decision_ignore(decision);
        return TRUE;
    }
}

static void egwwk_on_load_changed(WebKitWebView *view, WebKitLoadEvent event, gpointer user_data) {
    egwwk_callbacks *callbacks = user_data;
    if (callbacks->context == NULL) return;
    egwwk_load_event kind = EGWWK_LOAD_STARTED;
    switch (event) {
    case WEBKIT_LOAD_STARTED: kind = EGWWK_LOAD_STARTED; break;
    case WEBKIT_LOAD_REDIRECTED: kind = EGWWK_LOAD_REDIRECTED; break;
    case WEBKIT_LOAD_COMMITTED: kind = EGWWK_LOAD_COMMITTED; break;
    case WEBKIT_LOAD_FINISHED: kind = EGWWK_LOAD_FINISHED; break;
    }
    const char *uri = webkit_web_view_get_uri(view);
    callbacks->load(callbacks->context, kind, uri ? uri : "");
}

static gboolean egwwk_on_load_failed(WebKitWebView *view, WebKitLoadEvent event, gchar *failing_uri, GError *error,
                                     gpointer user_data) {
    (void)view;
    (void)event;
    egwwk_callbacks *callbacks = user_data;
    if (callbacks->context == NULL) return TRUE;
    egwwk_fail_kind kind = EGWWK_FAIL_OTHER;
    if (g_error_matches(error, WEBKIT_POLICY_ERROR, WEBKIT_POLICY_ERROR_FRAME_LOAD_INTERRUPTED_BY_POLICY_CHANGE) ||
        g_error_matches(error, WEBKIT_NETWORK_ERROR, WEBKIT_NETWORK_ERROR_CANCELLED)) {
        kind = EGWWK_FAIL_INTERRUPTED;
    }
    callbacks->fail(callbacks->context, kind, failing_uri ? failing_uri : "", error ? error->message : "load failed",
                    0);
    return TRUE;  // no built-in error page: the SDK decides what the buyer sees
}

static gboolean egwwk_on_tls_errors(WebKitWebView *view, gchar *failing_uri, GTlsCertificate *certificate,
                                    GTlsCertificateFlags errors, gpointer user_data) {
    (void)view;
    (void)certificate;  // never admitted: only the relay's certificate reaches WebKit
    egwwk_callbacks *callbacks = user_data;
    if (callbacks->context == NULL) return TRUE;
    callbacks->fail(callbacks->context, EGWWK_FAIL_TLS, failing_uri ? failing_uri : "", "TLS certificate error",
                    (unsigned)errors);
    return TRUE;
}

static GtkWidget *egwwk_on_create(WebKitWebView *view, WebKitNavigationAction *action, gpointer user_data) {
    (void)view;
    // Never a window the SDK does not know: `window.open` loads in the same view (a NULL decision
    // tells the presenter there is nothing to answer), through the SDK's decision like any load.
    egwwk_callbacks *callbacks = user_data;
    const char *uri = webkit_uri_request_get_uri(webkit_navigation_action_get_request(action));
    if (callbacks->context != NULL && uri != NULL) {
        callbacks->policy(callbacks->context, NULL, EGWWK_POLICY_NEW_WINDOW, uri, 0, true);
    }
    return NULL;
}

static void egwwk_on_notify(GObject *object, GParamSpec *spec, gpointer user_data) {
    (void)object;
    egwwk_callbacks *callbacks = user_data;
    if (callbacks->context == NULL) return;
    callbacks->event(callbacks->context,
                     g_strcmp0(g_param_spec_get_name(spec), "title") == 0 ? EGWWK_EVENT_TITLE : EGWWK_EVENT_URI);
}

static gboolean egwwk_on_close_request(GtkWindow *window, gpointer user_data) {
    (void)window;
    egwwk_callbacks *callbacks = user_data;
    if (callbacks->context != NULL) callbacks->event(callbacks->context, EGWWK_EVENT_CLOSE);
    return TRUE;  // the presenter removes the window when the SDK dismisses it
}

static gboolean egwwk_on_escape(GtkWidget *widget, GVariant *args, gpointer user_data) {
    (void)widget;
    (void)args;
    egwwk_callbacks *callbacks = user_data;
    if (callbacks->context != NULL) callbacks->event(callbacks->context, EGWWK_EVENT_CLOSE);
    return TRUE;
}

// MARK: Web views

void *egwwk_session_new_ephemeral(void) {
    // pagetrust: WebKit's network process (GnuTLS) writes every TLS secret to $SSLKEYLOGFILE, and it
    // inherits this process's environment when it starts: the variable goes before the first session.
    unsetenv("SSLKEYLOGFILE");
    WebKitNetworkSession *session = webkit_network_session_new_ephemeral();
    webkit_network_session_set_tls_errors_policy(session, WEBKIT_TLS_ERRORS_POLICY_FAIL);
    // No proxy unless the configuration names one (egwwk_session_set_proxy): WebKit's default mode
    // follows the system's, which here means http_proxy / https_proxy from the environment.
    webkit_network_session_set_proxy_settings(session, WEBKIT_NETWORK_PROXY_MODE_NO_PROXY, NULL);
    // No favicon database: WebKit would fetch /favicon.ico and <link rel=icon> for its own chrome.
    webkit_website_data_manager_set_favicons_enabled(webkit_network_session_get_website_data_manager(session),
                                                     FALSE);
    return session;
}

void egwwk_session_set_proxy(void *session, const char *default_uri, const char *http_uri, const char *https_uri,
                             const char *const *ignore_hosts) {
    WebKitNetworkProxySettings *settings = webkit_network_proxy_settings_new(default_uri, ignore_hosts);
    if (http_uri != NULL) webkit_network_proxy_settings_add_proxy_for_scheme(settings, "http", http_uri);
    if (https_uri != NULL) webkit_network_proxy_settings_add_proxy_for_scheme(settings, "https", https_uri);
    webkit_network_session_set_proxy_settings(WEBKIT_NETWORK_SESSION(session), WEBKIT_NETWORK_PROXY_MODE_CUSTOM,
                                              settings);
    webkit_network_proxy_settings_free(settings);
}

static void egwwk_on_script_message(WebKitUserContentManager *manager, JSCValue *value, gpointer user_data) {
    (void)manager;
    egwwk_callbacks *callbacks = user_data;
    if (callbacks->context == NULL || callbacks->message == NULL || !jsc_value_is_string(value)) return;
    char *text = jsc_value_to_string(value);
    callbacks->message(callbacks->context, text);
    g_free(text);
}

static gboolean egwwk_on_request_message(WebKitUserContentManager *manager, JSCValue *value,
                                         WebKitScriptMessageReply *reply, gpointer user_data) {
    (void)manager;
    egwwk_callbacks *callbacks = user_data;
    if (callbacks->context != NULL && callbacks->request != NULL && jsc_value_is_string(value)) {
        char *text = jsc_value_to_string(value);
        char *space = strchr(text, ' ');
        if (space != NULL) {
            *space = '\0';
            callbacks->request(callbacks->context, text, space + 1);
        }
        g_free(text);
    }
    // Answered in every case, so the page's request is never held back by us.
    JSCValue *answer = jsc_value_new_boolean(jsc_value_get_context(value), TRUE);
    webkit_script_message_reply_return_value(reply, answer);
    g_object_unref(answer);
    return TRUE;
}

static void egwwk_on_web_process_terminated(WebKitWebView *view, WebKitWebProcessTerminationReason reason,
                                            gpointer user_data) {
    (void)view;
    egwwk_callbacks *callbacks = user_data;
    if (callbacks->context == NULL || callbacks->terminated == NULL) return;
    const char *text = "ended";
    switch (reason) {
    case WEBKIT_WEB_PROCESS_CRASHED: text = "crashed"; break;
    case WEBKIT_WEB_PROCESS_EXCEEDED_MEMORY_LIMIT: text = "exceeded its memory limit"; break;
    case WEBKIT_WEB_PROCESS_TERMINATED_BY_API: text = "was terminated"; break;
    }
    callbacks->terminated(callbacks->context, text);
}

void *egwwk_view_new(void *session, const egwwk_callbacks *callbacks, const char *watch_script, const char *world,
                     const char *request_script) {
    // The same settings reportBrowserData reads (egw_webkit_method.c).
    WebKitSettings *settings = egwwk_page_settings_new();
    // Our own web context, shared by the presenter's pages and not the app's: the document-viewer
    // cache model turns off WebKit's page and process caches, so a dismissed page's web process
    // exits instead of waiting, with the page's memory, for a reuse that never comes.
    static WebKitWebContext *context = NULL;
    if (context == NULL) {
        context = webkit_web_context_new();
        webkit_web_context_set_cache_model(context, WEBKIT_CACHE_MODEL_DOCUMENT_VIEWER);
        egwwk_context_set_page_language(context);  // what reportBrowserData says (egw_webkit_method.c)
    }
    WebKitUserContentManager *content = webkit_user_content_manager_new();
    if (watch_script != NULL) {
        WebKitUserScript *script = webkit_user_script_new_for_world(
            watch_script, WEBKIT_USER_CONTENT_INJECT_TOP_FRAME, WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_END, world, NULL,
            NULL);
        webkit_user_content_manager_add_script(content, script);
        webkit_user_script_unref(script);
        webkit_user_content_manager_register_script_message_handler(content, "egw", world);
    }
    if (request_script != NULL) {
        WebKitUserScript *script = webkit_user_script_new(request_script, WEBKIT_USER_CONTENT_INJECT_ALL_FRAMES,
                                                          WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_START, NULL, NULL);
        webkit_user_content_manager_add_script(content, script);
        webkit_user_script_unref(script);
        webkit_user_content_manager_register_script_message_handler_with_reply(content, "egwRequest", NULL);
    }
    GtkWidget *view = g_object_new(WEBKIT_TYPE_WEB_VIEW, "network-session", session, "settings", settings,
                                   "web-context", context, "user-content-manager", content, NULL);
    g_object_unref(settings);
    egwwk_callbacks *copy = g_new(egwwk_callbacks, 1);
    *copy = *callbacks;
    g_object_set_data_full(G_OBJECT(view), egwwk_callbacks_key, copy, g_free);
    g_object_set_data_full(G_OBJECT(view), egwwk_cancellable_key, g_cancellable_new(), g_object_unref);
    g_signal_connect(view, "decide-policy", G_CALLBACK(egwwk_on_decide_policy), copy);
    g_signal_connect(view, "load-changed", G_CALLBACK(egwwk_on_load_changed), copy);
    g_signal_connect(view, "load-failed", G_CALLBACK(egwwk_on_load_failed), copy);
    g_signal_connect(view, "load-failed-with-tls-errors", G_CALLBACK(egwwk_on_tls_errors), copy);
    g_signal_connect(view, "create", G_CALLBACK(egwwk_on_create), copy);
    g_signal_connect(view, "notify::title", G_CALLBACK(egwwk_on_notify), copy);
    g_signal_connect(view, "notify::uri", G_CALLBACK(egwwk_on_notify), copy);
    g_signal_connect(content, "script-message-received::egw", G_CALLBACK(egwwk_on_script_message), copy);
    g_signal_connect(content, "script-message-with-reply-received::egwRequest", G_CALLBACK(egwwk_on_request_message),
                     copy);
    g_signal_connect(view, "web-process-terminated", G_CALLBACK(egwwk_on_web_process_terminated), copy);
    g_object_set_data_full(G_OBJECT(view), "egwwk-content", content, g_object_unref);
    return g_object_ref_sink(view);
}

void egwwk_window_wire_close(void *window, void *view) {
    egwwk_callbacks *copy = g_object_get_data(G_OBJECT(view), egwwk_callbacks_key);
    if (copy == NULL) return;
    g_signal_connect(window, "close-request", G_CALLBACK(egwwk_on_close_request), copy);
    GtkEventController *shortcuts = gtk_shortcut_controller_new();
    gtk_shortcut_controller_set_scope(GTK_SHORTCUT_CONTROLLER(shortcuts), GTK_SHORTCUT_SCOPE_MANAGED);
    GtkShortcut *escape = gtk_shortcut_new(gtk_keyval_trigger_new(GDK_KEY_Escape, 0),
                                           gtk_callback_action_new(egwwk_on_escape, copy, NULL));
    gtk_shortcut_controller_add_shortcut(GTK_SHORTCUT_CONTROLLER(shortcuts), escape);
    gtk_widget_add_controller(GTK_WIDGET(window), shortcuts);
}

void egwwk_view_disconnect(void *view, void *window) {
    egwwk_callbacks *copy = g_object_get_data(G_OBJECT(view), egwwk_callbacks_key);
    if (copy == NULL) return;
    copy->context = NULL;
    g_cancellable_cancel(egwwk_view_cancellable(view));
    g_signal_handlers_disconnect_matched(view, G_SIGNAL_MATCH_DATA, 0, 0, NULL, NULL, copy);
    GObject *content = g_object_get_data(G_OBJECT(view), "egwwk-content");
    if (content != NULL) g_signal_handlers_disconnect_matched(content, G_SIGNAL_MATCH_DATA, 0, 0, NULL, NULL, copy);
    if (window != NULL) g_signal_handlers_disconnect_matched(window, G_SIGNAL_MATCH_DATA, 0, 0, NULL, NULL, copy);
}

void egwwk_view_set_javascript(void *view, bool enabled) {
    webkit_settings_set_enable_javascript(webkit_web_view_get_settings(WEBKIT_WEB_VIEW(view)), enabled);
}

const char *egwwk_decision_method(void *decision) {
    if (!WEBKIT_IS_NAVIGATION_POLICY_DECISION(decision)) return NULL;
    WebKitNavigationAction *action =
        webkit_navigation_policy_decision_get_navigation_action(WEBKIT_NAVIGATION_POLICY_DECISION(decision));
    if (action == NULL) return NULL;
    WebKitURIRequest *request = webkit_navigation_action_get_request(action);
    return request != NULL ? webkit_uri_request_get_http_method(request) : NULL;
}

bool egwwk_decision_leaves_document(void *decision) {
    if (!WEBKIT_IS_NAVIGATION_POLICY_DECISION(decision)) return false;
    WebKitNavigationAction *action =
        webkit_navigation_policy_decision_get_navigation_action(WEBKIT_NAVIGATION_POLICY_DECISION(decision));
    if (action == NULL) return false;
    switch (webkit_navigation_action_get_navigation_type(action)) {
    case WEBKIT_NAVIGATION_TYPE_LINK_CLICKED:
    case WEBKIT_NAVIGATION_TYPE_FORM_SUBMITTED:
    case WEBKIT_NAVIGATION_TYPE_BACK_FORWARD:
    case WEBKIT_NAVIGATION_TYPE_RELOAD:
    case WEBKIT_NAVIGATION_TYPE_FORM_RESUBMITTED: return true;
    default: return false;  // OTHER: also a subframe's src, which leaves nothing
    }
}

void egwwk_decision_use(void *decision) {
    webkit_policy_decision_use(WEBKIT_POLICY_DECISION(decision));
    g_object_unref(decision);
}

void egwwk_decision_ignore(void *decision) {
    webkit_policy_decision_ignore(WEBKIT_POLICY_DECISION(decision));
    g_object_unref(decision);
}

void egwwk_view_load_uri(void *view, const char *uri) { webkit_web_view_load_uri(WEBKIT_WEB_VIEW(view), uri); }
void egwwk_view_load_html(void *view, const char *html, const char *base_uri) {
    webkit_web_view_load_html(WEBKIT_WEB_VIEW(view), html, base_uri);
}
void egwwk_view_stop(void *view) { webkit_web_view_stop_loading(WEBKIT_WEB_VIEW(view)); }
const char *egwwk_view_uri(void *view) { return webkit_web_view_get_uri(WEBKIT_WEB_VIEW(view)); }
const char *egwwk_view_title(void *view) { return webkit_web_view_get_title(WEBKIT_WEB_VIEW(view)); }

typedef struct {
    void (*done)(void *data, const char *value, const char *error);
    void *data;
} egwwk_js_call;

static void egwwk_js_finished(GObject *object, GAsyncResult *result, gpointer user_data) {
    egwwk_js_call *call = user_data;
    GError *error = NULL;
    JSCValue *value = webkit_web_view_evaluate_javascript_finish(WEBKIT_WEB_VIEW(object), result, &error);
    if (value == NULL) {
        call->done(call->data, NULL, error ? error->message : "script failed");
        g_clear_error(&error);
    } else {
        char *text = jsc_value_is_string(value) ? jsc_value_to_string(value) : jsc_value_to_json(value, 0);
        call->done(call->data, text ? text : "null", NULL);
        g_free(text);
        g_object_unref(value);
    }
    g_free(call);
}

void egwwk_view_evaluate(void *view, const char *script, const char *world,
                         void (*done)(void *data, const char *value, const char *error), void *data) {
    egwwk_js_call *call = g_new(egwwk_js_call, 1);
    call->done = done;
    call->data = data;
    webkit_web_view_evaluate_javascript(WEBKIT_WEB_VIEW(view), script, -1, world, NULL, egwwk_view_cancellable(view),
                                        egwwk_js_finished, call);
}

typedef struct {
    void (*done)(void *data, bool ok);
    void *data;
    char *path;
} egwwk_snapshot_call;

static void egwwk_snapshot_finished(GObject *object, GAsyncResult *result, gpointer user_data) {
    egwwk_snapshot_call *call = user_data;
    GError *error = NULL;
    GdkTexture *texture = webkit_web_view_get_snapshot_finish(WEBKIT_WEB_VIEW(object), result, &error);
    bool ok = false;
    if (texture != NULL) {
        ok = gdk_texture_save_to_png(texture, call->path);
        g_object_unref(texture);
    }
    g_clear_error(&error);
    call->done(call->data, ok);
    g_free(call->path);
    g_free(call);
}

void egwwk_view_snapshot_png(void *view, const char *path, void (*done)(void *data, bool ok), void *data) {
    egwwk_snapshot_call *call = g_new(egwwk_snapshot_call, 1);
    call->done = done;
    call->data = data;
    call->path = g_strdup(path);
    webkit_web_view_get_snapshot(WEBKIT_WEB_VIEW(view), WEBKIT_SNAPSHOT_REGION_VISIBLE, WEBKIT_SNAPSHOT_OPTIONS_NONE,
                                 egwwk_view_cancellable(view), egwwk_snapshot_finished, call);
}

