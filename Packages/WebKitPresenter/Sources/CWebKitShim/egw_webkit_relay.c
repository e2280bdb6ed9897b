#include "egw_webkit_relay.h"

#include <webkit/webkit.h>

void *egwwk_certificate_new_from_pem(const char *pem) {
    GError *error = NULL;
    GTlsCertificate *certificate = g_tls_certificate_new_from_pem(pem, -1, &error);
    g_clear_error(&error);
    return certificate;
}

typedef struct {
    void (*done)(void *data);
    void *data;
} egwwk_confirm_call;

static void egwwk_allowance_confirmed(GObject *object, GAsyncResult *result, gpointer user_data) {
    egwwk_confirm_call *call = user_data;
    GError *error = NULL;
    GList *data = webkit_website_data_manager_fetch_finish(WEBKIT_WEBSITE_DATA_MANAGER(object), result, &error);
    g_list_free_full(data, (GDestroyNotify)webkit_website_data_unref);
    g_clear_error(&error);
    call->done(call->data);
    g_free(call);
}

void egwwk_session_allow_certificate_confirmed(void *session, void *certificate, const char *host,
                                               void (*done)(void *data), void *data) {
    WebKitNetworkSession *network = WEBKIT_NETWORK_SESSION(session);
    webkit_network_session_allow_tls_certificate_for_host(network, G_TLS_CERTIFICATE(certificate), host);
    // The allowance is a message to the network process; a fetch of the session's cookies is answered
    // by that process after it handled the messages sent before, so the answer means "allowed".
    egwwk_confirm_call *call = g_new(egwwk_confirm_call, 1);
    call->done = done;
    call->data = data;
    webkit_website_data_manager_fetch(webkit_network_session_get_website_data_manager(network),
                                      WEBKIT_WEBSITE_DATA_COOKIES, NULL, egwwk_allowance_confirmed, call);
}

void egwwk_session_use_relay(void *session, const char *relay_uri, const char *http_uri) {
    WebKitNetworkProxySettings *settings = webkit_network_proxy_settings_new(NULL, NULL);
    webkit_network_proxy_settings_add_proxy_for_scheme(settings, "https", relay_uri);
    webkit_network_proxy_settings_add_proxy_for_scheme(settings, "wss", relay_uri);
    if (http_uri != NULL) {
        webkit_network_proxy_settings_add_proxy_for_scheme(settings, "http", http_uri);
        webkit_network_proxy_settings_add_proxy_for_scheme(settings, "ws", http_uri);
    }
    webkit_network_session_set_proxy_settings(WEBKIT_NETWORK_SESSION(session), WEBKIT_NETWORK_PROXY_MODE_CUSTOM,
                                              settings);
    webkit_network_proxy_settings_free(settings);
}
