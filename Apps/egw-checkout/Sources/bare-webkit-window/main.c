// bare-webkit-window: measure.sh's baseline of the challenge window, a bare WebKitGTK 6 program with none of
// the SDK and GTK's and WebKit's defaults. It opens a window with a web view in a new ephemeral session,
// loads a page shaped like the sandbox's challenge (a title, a code field, a button), and prints
// "bare-webkit-window: first frame after MS ms" once GTK painted the first frame after the page finished
// loading (the frame clock's after-paint, the moment WebKitPagePresenter's `.painted` marks), counted from
// just before the session, view and window are made, as the presenter counts from `present`. Then it quits.
#include <stdio.h>
#include <webkit/webkit.h>

static const char *page =
    "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>3-D Secure</title></head><body>"
    "<h1>Confirm your payment</h1><p>Enter the code we sent to your phone.</p>"
    "<form><label>Code <input name=\"code\" inputmode=\"numeric\"></label> <button>Confirm</button></form>"
    "</body></html>";
static gint64 started;
static GMainLoop *loop;

static void on_after_paint(GdkFrameClock *clock, gpointer data) {
    (void)data;
    g_signal_handlers_disconnect_by_func(clock, on_after_paint, data);
    printf("bare-webkit-window: first frame after %.0f ms\n", (double)(g_get_monotonic_time() - started) / 1000.0);
    fflush(stdout);
    g_main_loop_quit(loop);
}

static void on_load_changed(WebKitWebView *view, WebKitLoadEvent event, gpointer data) {
    (void)data;
    if (event != WEBKIT_LOAD_FINISHED) return;
    GdkFrameClock *clock = gtk_widget_get_frame_clock(GTK_WIDGET(view));
    g_signal_connect(clock, "after-paint", G_CALLBACK(on_after_paint), NULL);
    gdk_frame_clock_request_phase(clock, GDK_FRAME_CLOCK_PHASE_PAINT);
}

int main(void) {
    if (!gtk_init_check()) {
        fprintf(stderr, "bare-webkit-window: no display\n");
        return 1;
    }
    loop = g_main_loop_new(NULL, FALSE);
    started = g_get_monotonic_time();
    WebKitNetworkSession *session = webkit_network_session_new_ephemeral();
    GtkWidget *view = g_object_new(WEBKIT_TYPE_WEB_VIEW, "network-session", session, NULL);
    GtkWidget *window = gtk_window_new();
    gtk_window_set_default_size(GTK_WINDOW(window), 720, 640);
    gtk_window_set_child(GTK_WINDOW(window), view);
    g_signal_connect(view, "load-changed", G_CALLBACK(on_load_changed), NULL);
    gtk_window_present(GTK_WINDOW(window));
    webkit_web_view_load_html(WEBKIT_WEB_VIEW(view), page, "about:blank");
    g_main_loop_run(loop);
    gtk_window_destroy(GTK_WINDOW(window));
    g_object_unref(session);
    return 0;
}
