#include "egw_webkit_acts.h"

#include <string.h>
#include <webkit/webkit.h>

static const char *egwwk_guard_key = "egwwk-guard";

typedef struct {
    egwwk_act_fn acted;
    void *context;
} egwwk_guard;

static void egwwk_guard_report(egwwk_guard *guard, egwwk_act act, const char *uri, long length) {
    if (guard->context != NULL && guard->acted != NULL) guard->acted(guard->context, act, uri ? uri : "", length);
}

static gboolean egwwk_on_decide_destination(WebKitDownload *download, gchar *suggested, gpointer user_data) {
    (void)suggested;
    (void)user_data;
    // Never a destination: handled (WebKit chooses none of its own) and cancelled.
    webkit_download_cancel(download);
    return TRUE;
}

static void egwwk_on_download_started(WebKitNetworkSession *session, WebKitDownload *download, gpointer user_data) {
    (void)session;
    egwwk_guard *guard = user_data;
    // Before any byte arrives: the destination is only asked for once the response is in, and is never given.
    g_signal_connect(download, "decide-destination", G_CALLBACK(egwwk_on_decide_destination), NULL);
    webkit_download_cancel(download);
    WebKitURIRequest *request = webkit_download_get_request(download);
    egwwk_guard_report(guard, EGWWK_ACT_DOWNLOAD, request ? webkit_uri_request_get_uri(request) : "", 0);
}

static gboolean egwwk_on_script_dialog(WebKitWebView *view, WebKitScriptDialog *dialog, gpointer user_data) {
    egwwk_guard *guard = user_data;
    const char *message = webkit_script_dialog_get_message(dialog);
    long length = message != NULL ? g_utf8_strlen(message, -1) : 0;
    egwwk_act act = EGWWK_ACT_ALERT;
    switch (webkit_script_dialog_get_dialog_type(dialog)) {
    case WEBKIT_SCRIPT_DIALOG_ALERT: act = EGWWK_ACT_ALERT; break;
    case WEBKIT_SCRIPT_DIALOG_CONFIRM:
        webkit_script_dialog_confirm_set_confirmed(dialog, FALSE);
        act = EGWWK_ACT_CONFIRM;
        break;
    case WEBKIT_SCRIPT_DIALOG_PROMPT:
        // No text set: the page's prompt() returns null, as after Cancel.
        act = EGWWK_ACT_PROMPT;
        break;
    case WEBKIT_SCRIPT_DIALOG_BEFORE_UNLOAD_CONFIRM:
        webkit_script_dialog_confirm_set_confirmed(dialog, TRUE);
        act = EGWWK_ACT_BEFORE_UNLOAD;
        break;
    }
    egwwk_guard_report(guard, act, webkit_web_view_get_uri(view), length);
    return TRUE;  // handled: WebKit draws nothing, the dialog closes with our answer when we return
}

void egwwk_view_guard(void *view, void *session, egwwk_act_fn acted, void *context) {
    egwwk_guard *guard = g_new0(egwwk_guard, 1);
    guard->acted = acted;
    guard->context = context;
    // In the session's data: the view holds its session, so the guard outlives every signal below.
    g_object_set_data_full(G_OBJECT(session), egwwk_guard_key, guard, g_free);
    g_signal_connect(view, "script-dialog", G_CALLBACK(egwwk_on_script_dialog), guard);
    g_signal_connect(session, "download-started", G_CALLBACK(egwwk_on_download_started), guard);
}

void egwwk_view_unguard(void *session) {
    egwwk_guard *guard = g_object_get_data(G_OBJECT(session), egwwk_guard_key);
    // The handlers stay: a dialog or a download after this is still refused, only no longer reported.
    if (guard != NULL) guard->context = NULL;
}

bool egwwk_response_is_download(void *decision) {
    if (!WEBKIT_IS_RESPONSE_POLICY_DECISION(decision)) return false;
    WebKitResponsePolicyDecision *response_decision = WEBKIT_RESPONSE_POLICY_DECISION(decision);
    if (!webkit_response_policy_decision_is_mime_type_supported(response_decision)) return true;
    WebKitURIResponse *response = webkit_response_policy_decision_get_response(response_decision);
    SoupMessageHeaders *headers = response != NULL ? webkit_uri_response_get_http_headers(response) : NULL;
    const char *disposition = headers != NULL ? soup_message_headers_get_one(headers, "Content-Disposition") : NULL;
    if (disposition == NULL) return false;
    while (*disposition == ' ' || *disposition == '\t') disposition++;
    return g_ascii_strncasecmp(disposition, "attachment", strlen("attachment")) == 0;
}

void egwwk_decision_download(void *decision) {
    webkit_policy_decision_download(WEBKIT_POLICY_DECISION(decision));
    g_object_unref(decision);
}
