// PaymentUI's C boundary: every GObject cast, variadic call, macro and signal connection the Swift
// targets need, as fixed-arity functions prefixed `egwui_`. Swift imports this with `internal import`.
#ifndef EGW_GTK_H
#define EGW_GTK_H

#include <gtk/gtk.h>

// MARK: - Start-up

/// TRUE when GTK is initialised (GLibMainQueue's GTKRuntime starts it: the SDK's one gtk_init_check);
/// the first such call installs the contrast rules for widgets with the class EGWUI_CONTRAST_CLASS
/// (error text, focus ring; see shim.c) on the default display.
gboolean egwui_styled(void);
/// The CSS class of PaymentUI's widgets whose error text and focus ring keep their contrast in any theme.
#define EGWUI_CONTRAST_CLASS "egwpay"

// MARK: - Card entries

/// Called for every edit of a filtered entry, before GTK applies it: `start..<end` (characters) is
/// replaced by `text` (NUL-terminated UTF-8, "" for a deletion); `caret` is where the caret was (a
/// deletion starting at the caret is a forward delete, one ending there a backspace). Returns the caret after the edit, or
/// -1 when the edit is refused (the entry beeps). The callback shows the result itself with
/// egwui_filter_show(); GTK's own handling of the edit is stopped.
typedef int (*egwui_edit_fn)(void *context, int start, int end, const char *text, int caret);

typedef struct egwui_filter egwui_filter;

/// A GtkEntry whose edits all go through `fn`: the editable's insert-text and delete-text signals (what
/// a keystroke, a paste, a backspace or gtk_editable_set_text emit); undo is off. With `private_text`,
/// copy and cut are refused and the entry never keeps the PRIMARY selection: GTK's offer of its selection is
/// taken back in the same turn of the main loop, leaving PRIMARY without an owner, and the selection in
/// place. The filter is owned by the entry (freed when the entry is finalized).
egwui_filter *egwui_filter_attach(GtkWidget *entry, egwui_edit_fn fn, void *context, gboolean private_text);
/// Sets the entry's text and caret without calling the filter again.
void egwui_filter_show(egwui_filter *filter, const char *text, int caret);
/// Stops calling the filter's function (the Swift owner is going away).
void egwui_filter_detach(egwui_filter *filter);

GtkWidget *egwui_entry_new(void);
void egwui_entry_configure(GtkWidget *entry, GtkInputPurpose purpose, gboolean visible, int width_chars,
                           const char *placeholder);
const char *egwui_editable_text(GtkWidget *editable);

// MARK: - Accessibility

/// GTK_ACCESSIBLE_PROPERTY_LABEL.
void egwui_accessible_set_label(GtkWidget *widget, const char *label);
/// GTK_ACCESSIBLE_STATE_INVALID (true/false) and GTK_ACCESSIBLE_PROPERTY_DESCRIPTION (`description`,
/// or reset when NULL).
void egwui_accessible_set_invalid(GtkWidget *widget, gboolean invalid, const char *description);

// MARK: - Widgets for the sheet

typedef void (*egwui_widget_fn)(void *context, GtkWidget *widget);
/// Connects `clicked` (buttons), `toggled` (check buttons) or `activate` (entries).
gulong egwui_connect_clicked(GtkWidget *button, egwui_widget_fn fn, void *context);
gulong egwui_connect_toggled(GtkWidget *check, egwui_widget_fn fn, void *context);
gulong egwui_connect_activate(GtkWidget *entry, egwui_widget_fn fn, void *context);
/// close-request (returns TRUE: the owner decides) and Escape, both calling `fn`.
void egwui_window_on_close(GtkWidget *window, egwui_widget_fn fn, void *context);

GtkWidget *egwui_window_new(const char *title, GtkWidget *parent, gboolean modal);
void egwui_window_set_child(GtkWidget *window, GtkWidget *child);
void egwui_window_present(GtkWidget *window);
void egwui_window_destroy(GtkWidget *window);
GtkWidget *egwui_box_new(gboolean vertical, int spacing);
void egwui_box_append(GtkWidget *box, GtkWidget *child);
/// Removes every child of the box.
void egwui_box_clear(GtkWidget *box);
GtkWidget *egwui_label_new(const char *text, gboolean wrap);
void egwui_label_set_text(GtkWidget *label, const char *text);
const char *egwui_label_text(GtkWidget *label);
GtkWidget *egwui_button_new(const char *label);
void egwui_button_set_label(GtkWidget *button, const char *label);
GtkWidget *egwui_check_new(const char *label, GtkWidget *group);
void egwui_check_set_active(GtkWidget *check, gboolean active);
gboolean egwui_check_active(GtkWidget *check);
GtkWidget *egwui_spinner_new(void);
void egwui_spinner_set(GtkWidget *spinner, gboolean spinning);
void egwui_widget_set_sensitive(GtkWidget *widget, gboolean sensitive);
void egwui_widget_set_visible(GtkWidget *widget, gboolean visible);
void egwui_widget_set_name(GtkWidget *widget, const char *name);
void egwui_widget_add_class(GtkWidget *widget, const char *css_class);
void egwui_widget_remove_class(GtkWidget *widget, const char *css_class);
void egwui_widget_set_halign_end(GtkWidget *widget);
void egwui_widget_set_hexpand(GtkWidget *widget);
void egwui_widget_set_margins(GtkWidget *widget, int margin);
void egwui_object_ref_sink(GtkWidget *widget);
void egwui_object_unref(GtkWidget *widget);
/// A delay on the default main context.

// What tests do with the widgets is in CPaymentUITestHooks (PaymentUITesting's), not here.

#endif
