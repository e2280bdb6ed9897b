#include "uie2e_gtk.h"

GtkWidget *uie2e_find(void *root, const char *name) {
    GtkWidget *widget = root;
    if (widget == NULL) return NULL;
    if (g_strcmp0(gtk_widget_get_name(widget), name) == 0) return widget;
    for (GtkWidget *child = gtk_widget_get_first_child(widget); child != NULL;
         child = gtk_widget_get_next_sibling(child)) {
        GtkWidget *found = uie2e_find(child, name);
        if (found != NULL) return found;
    }
    return NULL;
}

void uie2e_activate(GtkWidget *widget) { gtk_widget_activate(widget); }

void uie2e_type(GtkWidget *entry, const char *text, gboolean enter) {
    GtkWidget *target = GTK_WIDGET(gtk_editable_get_delegate(GTK_EDITABLE(entry)));
    if (target == NULL) target = entry;
    for (const char *p = text; *p != '\0'; p = g_utf8_next_char(p)) {
        char key[8] = {0};
        g_utf8_strncpy(key, p, 1);
        g_signal_emit_by_name(target, "insert-at-cursor", key);
    }
    if (enter) g_signal_emit_by_name(target, "activate");
}

const char *uie2e_text(GtkWidget *widget) {
    return GTK_IS_LABEL(widget) ? gtk_label_get_text(GTK_LABEL(widget)) : gtk_editable_get_text(GTK_EDITABLE(widget));
}

void uie2e_iterate(void) {
    while (g_main_context_iteration(NULL, FALSE)) {
    }
}
