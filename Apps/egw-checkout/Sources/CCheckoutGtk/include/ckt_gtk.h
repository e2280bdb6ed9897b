// egw-checkout's C boundary: a window from GtkBuilder XML and signal connections (GTK's start and main
// loop are GLibMainQueue's GTKRuntime).
#ifndef CKT_GTK_H
#define CKT_GTK_H

#include <gtk/gtk.h>

typedef void (*ckt_fn)(void *context);

/// Names the program before GTK starts (g_set_prgname, g_set_application_name): the name assistive
/// technology announces for the application (AT-SPI reads it when GTK opens the display; unset, "Unnamed").
void ckt_set_application_name(const char *prgname, const char *name);
/// The builder for `xml` (a GtkBuilder UI description); aborts on a malformed description.
GtkBuilder *ckt_builder(const char *xml);
/// The builder's object `id` as a widget.
GtkWidget *ckt_widget(GtkBuilder *builder, const char *id);
/// Calls `fn(context)` on the button's `clicked`.
void ckt_on_clicked(GtkWidget *button, ckt_fn fn, void *context);
/// Calls `fn(context)` when the window is asked to close (it then closes).
void ckt_on_close(GtkWidget *window, ckt_fn fn, void *context);
/// Calls `fn(context)` once, when the widget's first frame is about to be drawn.
void ckt_on_first_frame(GtkWidget *widget, ckt_fn fn, void *context);
void ckt_append(GtkWidget *box, void *child);
/// A label aligned to the start.
GtkWidget *ckt_label_new(const char *text);
void ckt_set_text(GtkWidget *label, const char *text);
const char *ckt_text(GtkWidget *widget);
void ckt_set_sensitive(GtkWidget *widget, gboolean sensitive);
void ckt_set_visible(GtkWidget *widget, gboolean visible);
void ckt_present(GtkWidget *window);
/// Moves keyboard focus to the widget (what a screen reader then reads).
void ckt_grab_focus(GtkWidget *widget);
/// Marks an entry invalid (AT-SPI `invalid-entry`, the theme's `error` class) with `description` read
/// beside its name, or valid again (`description` NULL).
void ckt_set_invalid(GtkWidget *widget, gboolean invalid, const char *description);
/// Calls `fn(context)` on the entry's `activate` (Enter).
void ckt_on_activate(GtkWidget *entry, ckt_fn fn, void *context);
#endif
