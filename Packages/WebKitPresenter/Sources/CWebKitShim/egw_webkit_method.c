// See egw_webkit_method.h.
#include "egw_webkit_method.h"

#include <locale.h>
#include <gtk/gtk.h>
#include <webkit/webkit.h>

void egwwk_view_make_invisible(void *view) {
    GtkWidget *widget = GTK_WIDGET(view);
    gtk_widget_set_focusable(widget, FALSE);
    gtk_widget_set_can_focus(widget, FALSE);
    gtk_widget_set_can_target(widget, FALSE);
    gtk_widget_set_visible(widget, FALSE);
}

static GdkMonitor *egwwk_monitor_near(GdkDisplay *display, void *near) {
    if (near != NULL) {
        GtkNative *native = gtk_widget_get_native(GTK_WIDGET(near));
        GdkSurface *surface = native != NULL ? gtk_native_get_surface(native) : NULL;
        if (surface != NULL) {
            GdkMonitor *monitor = gdk_display_get_monitor_at_surface(display, surface);
            if (monitor != NULL) return monitor;
        }
    }
    GListModel *monitors = gdk_display_get_monitors(display);
    if (g_list_model_get_n_items(monitors) == 0) return NULL;
    GdkMonitor *first = g_list_model_get_item(monitors, 0);
    g_object_unref(first);  // the list keeps it
    return first;
}

void *egwwk_page_settings_new(void) {
    WebKitSettings *settings = webkit_settings_new();
    webkit_settings_set_enable_javascript(settings, TRUE);
    // Pop-ups never become windows (see egwwk_on_create); letting scripts ask for them only routes
    // them into the same view, which a script could do anyway by setting location.
    webkit_settings_set_javascript_can_open_windows_automatically(settings, TRUE);
    webkit_settings_set_enable_developer_extras(settings, FALSE);
    webkit_settings_set_enable_page_cache(settings, FALSE);
    return settings;
}

bool egwwk_browser_facts_get(void *settings, void *near, egwwk_browser_facts *out) {
    out->screen_width = 0;
    out->screen_height = 0;
    out->javascript_enabled = webkit_settings_get_enable_javascript(WEBKIT_SETTINGS(settings));
    GdkDisplay *display = gdk_display_get_default();
    if (display == NULL) return false;
    GdkMonitor *monitor = egwwk_monitor_near(display, near);
    if (monitor != NULL) {
        GdkRectangle geometry;
        gdk_monitor_get_geometry(monitor, &geometry);
        out->screen_width = geometry.width;
        out->screen_height = geometry.height;
    }
    return true;
}

const char *egwwk_settings_user_agent(void *settings) {
    return webkit_settings_get_user_agent(WEBKIT_SETTINGS(settings));
}

const char *egwwk_page_language(void) {
    static char tag[16];
    static bool done = false;
    if (!done) {
        const char *locale = setlocale(LC_CTYPE, NULL);
        size_t n = 0;
        while (locale != NULL && locale[n] != '\0' && locale[n] != '.' && locale[n] != '@' && n < sizeof tag - 1) {
            tag[n] = locale[n] == '_' ? '-' : locale[n];
            n++;
        }
        tag[n] = '\0';
        if (n == 0 || g_ascii_strcasecmp(tag, "C") == 0 || g_ascii_strcasecmp(tag, "POSIX") == 0) {
            g_strlcpy(tag, "en-US", sizeof tag);
        }
        done = true;
    }
    return tag;
}

void egwwk_context_set_page_language(void *context) {
    const char *languages[] = {egwwk_page_language(), NULL};
    webkit_web_context_set_preferred_languages(WEBKIT_WEB_CONTEXT(context), languages);
}
