// The buyer's hands in the UI end-to-end tests: find a widget of a window by name, click it, type in it.
#ifndef UIE2E_GTK_H
#define UIE2E_GTK_H

#include <gtk/gtk.h>

/// The first widget named `name` under `root` (depth first), or NULL.
GtkWidget *uie2e_find(void *root, const char *name);
/// gtk_widget_activate: clicks a button, toggles a check button.
void uie2e_activate(GtkWidget *widget);
/// Types `text` into an entry one key at a time (the text's insert-at-cursor binding), then Enter.
void uie2e_type(GtkWidget *entry, const char *text, gboolean enter);
/// The text of a label or an editable.
const char *uie2e_text(GtkWidget *widget);
/// One non-blocking pass of the default main context.
void uie2e_iterate(void);

#endif
