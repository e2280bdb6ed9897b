#include "ckt_gtk.h"

void ckt_set_application_name(const char *prgname, const char *name) {
    g_set_prgname(prgname);
    g_set_application_name(name);
}

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
void ckt_grab_focus(GtkWidget *widget) { gtk_widget_grab_focus(widget); }


void ckt_set_invalid(GtkWidget *widget, gboolean invalid, const char *description) {
    gtk_accessible_update_state(GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_STATE_INVALID,
                                invalid ? GTK_ACCESSIBLE_INVALID_TRUE : GTK_ACCESSIBLE_INVALID_FALSE, -1);
    if (invalid && description != NULL) {
        gtk_accessible_update_property(GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, description, -1);
        gtk_widget_add_css_class(widget, "error");
    } else {
        gtk_accessible_reset_property(GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION);
        gtk_widget_remove_css_class(widget, "error");
    }
}

static void on_activate(GtkWidget *entry, gpointer data) {
    (void)entry;
    callback *c = data;
    c->fn(c->context);
}

void ckt_on_activate(GtkWidget *entry, ckt_fn fn, void *context) {
    g_signal_connect_data(entry, "activate", G_CALLBACK(on_activate), callback_new(fn, context), callback_free, 0);
}

