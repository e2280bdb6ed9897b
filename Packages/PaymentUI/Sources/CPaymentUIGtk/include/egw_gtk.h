// PaymentUI's C boundary: every GObject cast, variadic call, macro and signal connection the Swift
// targets need, as fixed-arity functions prefixed `egwui_`. Swift imports this with `internal import`.
#ifndef EGW_GTK_H
#define EGW_GTK_H

#include <gtk/gtk.h>

// MARK: - Start-up

/// gtk_init_check() once per process; TRUE when a display is available.
gboolean egwui_init(void);

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
/// The entry's input hints (tests read back GTK_INPUT_HINT_PRIVATE and the others).
GtkInputHints egwui_entry_input_hints(GtkWidget *entry);
void egwui_entry_configure(GtkWidget *entry, GtkInputPurpose purpose, gboolean visible, int width_chars,
                           const char *placeholder);
const char *egwui_editable_text(GtkWidget *editable);
int egwui_editable_position(GtkWidget *editable);
void egwui_editable_set_position(GtkWidget *editable, int position);
void egwui_editable_select(GtkWidget *editable, int start, int end);
void egwui_editable_set_text(GtkWidget *editable, const char *text);
gboolean egwui_editable_undo_enabled(GtkWidget *editable);
GtkInputPurpose egwui_entry_input_purpose(GtkWidget *entry);
gboolean egwui_entry_visibility(GtkWidget *entry);

// MARK: - Accessibility

/// GTK_ACCESSIBLE_PROPERTY_LABEL.
void egwui_accessible_set_label(GtkWidget *widget, const char *label);
/// GTK_ACCESSIBLE_STATE_INVALID (true/false) and GTK_ACCESSIBLE_PROPERTY_DESCRIPTION (`description`,
/// or reset when NULL).
void egwui_accessible_set_invalid(GtkWidget *widget, gboolean invalid, const char *description);
/// GTK's test API: NULL when the state/property has the value, else a message to g_free().
char *egwui_accessible_check_invalid(GtkWidget *widget, gboolean invalid);
char *egwui_accessible_check_description(GtkWidget *widget, const char *description);
char *egwui_accessible_check_label(GtkWidget *widget, const char *label);
gboolean egwui_accessible_has_description(GtkWidget *widget);

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
gboolean egwui_widget_is_label(GtkWidget *widget);
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
gboolean egwui_widget_has_class(GtkWidget *widget, const char *css_class);
void egwui_widget_set_halign_end(GtkWidget *widget);
void egwui_widget_set_hexpand(GtkWidget *widget);
void egwui_widget_set_margins(GtkWidget *widget, int margin);
void egwui_widget_grab_focus(GtkWidget *widget);
/// Remembers the window's focused widget (weakly), before its controls turn insensitive and GTK drops
/// the focus; nothing when nothing is focused.
void egwui_focus_keep(GtkWidget *window);
/// Gives the remembered widget the focus back when the window has none (and forgets it).
void egwui_focus_restore(GtkWidget *window);
void egwui_object_ref_sink(GtkWidget *widget);
void egwui_object_unref(GtkWidget *widget);
/// A delay on the default main context.
typedef void (*egwui_timeout_fn)(void *context);
guint egwui_timeout_once(guint milliseconds, egwui_timeout_fn fn, void *context);

// MARK: - Testing and screenshots

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
/// The GtkText inside an entry (what has the keyboard focus and gets the keys).
GtkWidget *egwui_entry_text(GtkWidget *entry);
/// Activates the widget (clicks a button, toggles a check button, activates an entry).
void egwui_widget_activate(GtkWidget *widget);

#endif
