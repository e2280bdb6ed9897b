// webkit-bare-load: the bench's baseline, a bare WebKitGTK 6 program with none of the presenter.
// For each line on stdin, `URL<TAB>NAME=VALUE<TAB>...`, it opens a window with a web view in a
// new ephemeral session, posts the fields to URL (as a browser starts a 3-D Secure challenge: a
// document that submits a form) and prints "painted MS" once GTK painted the first frame after
// the page finished loading (the frame clock's after-paint, the moment the presenter's
// `.painted` event marks). MS counts from just before the session, view and window are made,
// as the presenter's count starts at `present`. A line `close` closes that window; end of
// input ends the program. One process serves every round, warm like an app.
#include <glib-unix.h>
#include <stdio.h>
#include <string.h>
#include <webkit/webkit.h>

static gint64 started;
static gboolean bootstrapping;
static gboolean painted;
static GtkWidget *window;
static WebKitNetworkSession *session;
static GString *pending;

static void on_after_paint(GdkFrameClock *clock, gpointer data) {
    (void)data;
    g_signal_handlers_disconnect_by_func(clock, on_after_paint, data);
    if (painted) return;
    painted = TRUE;
    printf("painted %.3f\n", (double)(g_get_monotonic_time() - started) / 1000.0);
    fflush(stdout);
}

static void on_load_changed(WebKitWebView *view, WebKitLoadEvent event, gpointer data) {
    (void)data;
    if (event != WEBKIT_LOAD_FINISHED) return;
    if (bootstrapping) {
        bootstrapping = FALSE;
        return;
    }
    GdkFrameClock *clock = gtk_widget_get_frame_clock(GTK_WIDGET(view));
    g_signal_connect(clock, "after-paint", G_CALLBACK(on_after_paint), NULL);
    gdk_frame_clock_request_phase(clock, GDK_FRAME_CLOCK_PHASE_PAINT);
}

static void close_page(void) {
    if (window == NULL) return;
    gtk_window_destroy(GTK_WINDOW(window));
    g_object_unref(session);
    window = NULL;
    session = NULL;
}

static void open_page(char *line) {
    char **parts = g_strsplit(line, "\t", -1);
    GString *document = g_string_new("<!DOCTYPE html><html><body><form id=\"f\" method=\"post\" action=\"");
    char *action = g_markup_escape_text(parts[0], -1);
    g_string_append(document, action);
    g_free(action);
    g_string_append(document, "\">");
    for (int i = 1; parts[i] != NULL; i++) {
        char *equals = strchr(parts[i], '=');
        if (equals == NULL) continue;
        *equals = '\0';
        char *name = g_markup_escape_text(parts[i], -1), *value = g_markup_escape_text(equals + 1, -1);
        g_string_append_printf(document, "<input type=\"hidden\" name=\"%s\" value=\"%s\">", name, value);
        g_free(name);
        g_free(value);
    }
    g_string_append(document, "</form><script>document.getElementById(\"f\").submit();</script></body></html>");
    g_strfreev(parts);

    started = g_get_monotonic_time();
    bootstrapping = TRUE;
    painted = FALSE;
    session = webkit_network_session_new_ephemeral();
    GtkWidget *view = g_object_new(WEBKIT_TYPE_WEB_VIEW, "network-session", session, NULL);
    window = gtk_window_new();
    gtk_window_set_default_size(GTK_WINDOW(window), 720, 640);
    gtk_window_set_child(GTK_WINDOW(window), view);
    g_signal_connect(view, "load-changed", G_CALLBACK(on_load_changed), NULL);
    gtk_window_present(GTK_WINDOW(window));
    webkit_web_view_load_html(WEBKIT_WEB_VIEW(view), document->str, "about:blank");
    g_string_free(document, TRUE);
}

static gboolean on_stdin(gint fd, GIOCondition condition, gpointer loop) {
    (void)condition;
    char buffer[65536];
    ssize_t count = read(fd, buffer, sizeof buffer);
    if (count <= 0) {
        g_main_loop_quit(loop);
        return G_SOURCE_REMOVE;
    }
    g_string_append_len(pending, buffer, count);
    char *newline;
    while ((newline = strchr(pending->str, '\n')) != NULL) {
        char *line = g_strndup(pending->str, (gsize)(newline - pending->str));
        g_string_erase(pending, 0, newline - pending->str + 1);
        if (strcmp(line, "close") == 0) {
            close_page();
        } else if (*line != '\0') {
            close_page();
            open_page(line);
        }
        g_free(line);
    }
    return G_SOURCE_CONTINUE;
}

int main(void) {
    gtk_init();
    GMainLoop *loop = g_main_loop_new(NULL, FALSE);
    pending = g_string_new("");
    g_unix_fd_add(0, G_IO_IN | G_IO_HUP, on_stdin, loop);
    g_main_loop_run(loop);
    close_page();
    return 0;
}
