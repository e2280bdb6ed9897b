// Proof only: what tests of PaymentUI (through PaymentUITesting) do with and read from GTK widgets, kept
// out of the products' C target `CPaymentUIGtk` so a shipped app links none of it. Keys as the text's
// key bindings emit them, the clipboard, focus moves, accessibility checks (gtk_test_accessible_*),
// window snapshots. Main thread only, like GTK.
#ifndef EGW_GTK_TEST_HOOKS_H
#define EGW_GTK_TEST_HOOKS_H

#include <gtk/gtk.h>

/// The entry's input hints (tests read back GTK_INPUT_HINT_PRIVATE and the others).
GtkInputHints egwui_entry_input_hints(GtkWidget *entry);
int egwui_editable_position(GtkWidget *editable);
void egwui_editable_set_position(GtkWidget *editable, int position);
void egwui_editable_select(GtkWidget *editable, int start, int end);
void egwui_editable_set_text(GtkWidget *editable, const char *text);
gboolean egwui_editable_undo_enabled(GtkWidget *editable);
GtkInputPurpose egwui_entry_input_purpose(GtkWidget *entry);
gboolean egwui_entry_visibility(GtkWidget *entry);
/// GTK's test API: NULL when the state/property has the value, else a message to g_free().
char *egwui_accessible_check_invalid(GtkWidget *widget, gboolean invalid);
char *egwui_accessible_check_description(GtkWidget *widget, const char *description);
char *egwui_accessible_check_label(GtkWidget *widget, const char *label);
gboolean egwui_accessible_has_description(GtkWidget *widget);
gboolean egwui_widget_is_label(GtkWidget *widget);
gboolean egwui_widget_has_class(GtkWidget *widget, const char *css_class);
void egwui_widget_grab_focus(GtkWidget *widget);
/// The first widget named `name` under `root` (depth first), or NULL.
GtkWidget *egwui_find_named(GtkWidget *root, const char *name);
/// Emits the GtkText action signals a keystroke's key binding emits on the entry's text: insert-at-cursor,
/// backspace, delete-from-cursor (one character forward), paste-clipboard, copy-clipboard, cut-clipboard.
void egwui_key_insert(GtkWidget *entry, const char *text);
void egwui_key_backspace(GtkWidget *entry);
void egwui_key_delete(GtkWidget *entry);
void egwui_key_paste(GtkWidget *entry);
/// Enter: the text's activate signal (its key binding for Return).
void egwui_key_enter(GtkWidget *entry);
void egwui_key_copy(GtkWidget *entry);
void egwui_key_cut(GtkWidget *entry);
/// Runs the text widget's `text.undo` action.
void egwui_text_undo(GtkWidget *entry);
/// Puts `text` on the widget's CLIPBOARD.
void egwui_clipboard_set(GtkWidget *widget, const char *text);
/// Reads CLIPBOARD (or PRIMARY) as text, iterating the main context until it answers (at most ~2 s);
/// NULL when empty. g_free() the result.
char *egwui_clipboard_read(GtkWidget *widget, gboolean primary);
/// Iterates the default main context without blocking until nothing is pending.
void egwui_iterate(void);
/// Renders `widget` (realized, mapped) into a PNG; FALSE when it could not.
gboolean egwui_snapshot_png(GtkWidget *widget, const char *path);
/// How many controls (buttons, check buttons, entries) under `root` have no accessible label; their
/// names are written into `names` (comma separated, up to `size` bytes) when it is not NULL.
int egwui_count_unlabelled_controls(GtkWidget *root, char *names, gsize size);
/// Moves the keyboard focus as Tab, Shift+Tab or an arrow key does (`direction`), and returns the name
/// of the focused widget or its nearest named ancestor (NULL when nothing is focused).
const char *egwui_focus_move(GtkWidget *window, GtkDirectionType direction);
/// Runs the action of the widget's own shortcut for `keyval` (no modifiers), as pressing the key would;
/// FALSE when the widget has no such shortcut.
gboolean egwui_press_shortcut(GtkWidget *widget, guint keyval);
/// Activates the widget (clicks a button, toggles a check button, activates an entry).
void egwui_widget_activate(GtkWidget *widget);

#endif
