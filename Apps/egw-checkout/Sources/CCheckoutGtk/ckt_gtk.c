#include "ckt_gtk.h"

gboolean ckt_init(void) { return gtk_init_check(); }

GtkBuilder *ckt_builder(const char *xml) { return gtk_builder_new_from_string(xml, -1); }

GtkWidget *ckt_widget(GtkBuilder *builder, const char *id) { return GTK_WIDGET(gtk_builder_get_object(builder, id)); }

typedef struct {
    ckt_fn fn;
    void *context;
} callback;

static callback *callback_new(ckt_fn fn, void *context) {
    callback *c = g_new0(callback, 1);
    c->fn = fn;
    c->context = context;
    return c;
}

static void callback_free(gpointer data, GClosure *closure) {
    (void)closure;
    g_free(data);
}

static void on_clicked(GtkButton *button, gpointer data) {
    (void)button;
    callback *c = data;
    c->fn(c->context);
}

void ckt_on_clicked(GtkWidget *button, ckt_fn fn, void *context) {
    g_signal_connect_data(button, "clicked", G_CALLBACK(on_clicked), callback_new(fn, context), callback_free, 0);
}

static gboolean on_close(GtkWindow *window, gpointer data) {
    (void)window;
    callback *c = data;
    c->fn(c->context);
    return FALSE;
}

void ckt_on_close(GtkWidget *window, ckt_fn fn, void *context) {
    g_signal_connect_data(window, "close-request", G_CALLBACK(on_close), callback_new(fn, context), callback_free, 0);
}

static gboolean on_tick(GtkWidget *widget, GdkFrameClock *clock, gpointer data) {
    (void)widget;
    (void)clock;
    callback *c = data;
    c->fn(c->context);
    return G_SOURCE_REMOVE;
}

void ckt_on_first_frame(GtkWidget *widget, ckt_fn fn, void *context) {
    gtk_widget_add_tick_callback(widget, on_tick, callback_new(fn, context), g_free);
}

void ckt_append(GtkWidget *box, void *child) { gtk_box_append(GTK_BOX(box), GTK_WIDGET(child)); }
GtkWidget *ckt_label_new(const char *text) {
    GtkWidget *label = gtk_label_new(text);
    gtk_label_set_xalign(GTK_LABEL(label), 0);
    return label;
}
void ckt_set_text(GtkWidget *label, const char *text) { gtk_label_set_text(GTK_LABEL(label), text); }
const char *ckt_text(GtkWidget *widget) {
    return GTK_IS_LABEL(widget) ? gtk_label_get_text(GTK_LABEL(widget)) : gtk_editable_get_text(GTK_EDITABLE(widget));
}
void ckt_set_sensitive(GtkWidget *widget, gboolean sensitive) { gtk_widget_set_sensitive(widget, sensitive); }
void ckt_set_visible(GtkWidget *widget, gboolean visible) { gtk_widget_set_visible(widget, visible); }
void ckt_present(GtkWidget *window) { gtk_window_present(GTK_WINDOW(window)); }

static GMainLoop *loop = NULL;

void ckt_run(void) {
    loop = g_main_loop_new(NULL, FALSE);
    g_main_loop_run(loop);
}

void ckt_quit(void) {
    if (loop != NULL) g_main_loop_quit(loop);
}

static gboolean fire_once(gpointer data) {
    callback *c = data;
    c->fn(c->context);
    return G_SOURCE_REMOVE;
}

void ckt_after(guint milliseconds, ckt_fn fn, void *context) {
    g_timeout_add_full(G_PRIORITY_DEFAULT, milliseconds, fire_once, callback_new(fn, context), g_free);
}

GtkWidget *ckt_find(void *root, const char *name) {
    GtkWidget *widget = root;
    if (widget == NULL) return NULL;
    if (g_strcmp0(gtk_widget_get_name(widget), name) == 0) return widget;
    for (GtkWidget *child = gtk_widget_get_first_child(widget); child != NULL;
         child = gtk_widget_get_next_sibling(child)) {
        GtkWidget *found = ckt_find(child, name);
        if (found != NULL) return found;
    }
    return NULL;
}

void ckt_activate(GtkWidget *widget) { gtk_widget_activate(widget); }

void ckt_type(void *entry, const char *text) {
    GtkWidget *target = GTK_WIDGET(gtk_editable_get_delegate(GTK_EDITABLE(entry)));
    for (const char *p = text; *p != '\0'; p = g_utf8_next_char(p)) {
        char key[8] = {0};
        g_utf8_strncpy(key, p, 1);
        g_signal_emit_by_name(target != NULL ? target : entry, "insert-at-cursor", key);
    }
}

void ckt_iterate(void) {
    while (g_main_context_iteration(NULL, FALSE)) {
    }
}

gboolean ckt_snapshot(void *root, const char *path) {
    GtkWidget *widget = root;
    int width = gtk_widget_get_width(widget), height = gtk_widget_get_height(widget);
    if (width <= 0 || height <= 0 || gtk_widget_get_native(widget) == NULL) return FALSE;
    GdkPaintable *paintable = gtk_widget_paintable_new(widget);
    GtkSnapshot *snapshot = gtk_snapshot_new();
    gdk_paintable_snapshot(paintable, snapshot, width, height);
    g_object_unref(paintable);
    GskRenderNode *node = gtk_snapshot_free_to_node(snapshot);
    if (node == NULL) return FALSE;
    graphene_rect_t bounds = GRAPHENE_RECT_INIT(0, 0, (float)width, (float)height);
    GdkTexture *texture =
        gsk_renderer_render_texture(gtk_native_get_renderer(gtk_widget_get_native(widget)), node, &bounds);
    gsk_render_node_unref(node);
    gboolean saved = texture != NULL && gdk_texture_save_to_png(texture, path);
    if (texture != NULL) g_object_unref(texture);
    return saved;
}

typedef struct {
    gboolean done;
    char *text;
} read_state;

static void read_done(GObject *source, GAsyncResult *result, gpointer data) {
    read_state *state = data;
    state->text = gdk_clipboard_read_text_finish(GDK_CLIPBOARD(source), result, NULL);
    state->done = TRUE;
}

char *ckt_clipboard(void *widget, gboolean primary) {
    GdkClipboard *clipboard = primary ? gtk_widget_get_primary_clipboard(widget) : gtk_widget_get_clipboard(widget);
    read_state state = {FALSE, NULL};
    gdk_clipboard_read_text_async(clipboard, NULL, read_done, &state);
    for (int i = 0; i < 2000 && !state.done; i++) {
        ckt_iterate();
        if (!state.done) g_usleep(1000);
    }
    return state.text;
}
