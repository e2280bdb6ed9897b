#include "egw_gtk.h"

#include <string.h>

// MARK: - Start-up

// Contrast the theme does not give, for widgets with the `egwpay` class (PaymentUI's entries, buttons and
// error labels; an app may add the class to its own controls), measured from the pixels by
// Tests/Accessibility/test_seen.py in Adwaita, HighContrast, Adwaita dark and at 2x text:
// - text in the `error` state (WCAG 1.4.3, 4.5:1): GTK 4.8's Adwaita draws `.error` in #cc0000 in its light
//   and its dark variant alike, 2.3:1 on the dark background; the theme's error colour mixed 60 % towards
//   its text colour stays red and measures at least 5:1 on either;
// - the focus ring of an entry and a button (WCAG 1.4.11, 3:1): Adwaita's half-transparent accent ring is
//   1.8:1 against the unfocused control (1.7:1 dark); the selection colour mixed 35 % towards the text
//   colour measures 5.5:1 (4.8:1 dark).
// One below the application priority: GTK 4.8's theme rules outrank anything at THEME + 1 (seen here), and
// an app's own CSS (at GTK_STYLE_PROVIDER_PRIORITY_APPLICATION or USER) still wins.
static void install_contrast_rules(void) {
    GdkDisplay *display = gdk_display_get_default();
    if (display == NULL) return;
    GtkCssProvider *provider = gtk_css_provider_new();
    gtk_css_provider_load_from_data(provider,
                                    "." EGWUI_CONTRAST_CLASS ".error { color: mix(@error_color, @theme_fg_color, 0.6); }\n"
                                    "entry." EGWUI_CONTRAST_CLASS ":focus-within, button." EGWUI_CONTRAST_CLASS
                                    ":focus-visible {"
                                    " outline-color: mix(@theme_selected_bg_color, @theme_fg_color, 0.35); }",
                                    -1);
    gtk_style_context_add_provider_for_display(display, GTK_STYLE_PROVIDER(provider),
                                               GTK_STYLE_PROVIDER_PRIORITY_APPLICATION - 1);
    g_object_unref(provider);
}

gboolean egwui_styled(void) {
    if (!gtk_is_initialized()) return FALSE;
    static gsize once = 0;
    if (g_once_init_enter(&once)) {
        install_contrast_rules();
        g_once_init_leave(&once, 1);
    }
    return TRUE;
}

// MARK: - Card entries

struct egwui_filter {
    GtkWidget *entry;
    GtkWidget *text;  // the entry's GtkText (its editable delegate), which emits the edit signals
    egwui_edit_fn fn;
    void *context;
    gulong insert_handler;
    gulong delete_handler;
    gboolean private_text;
};

static void wipe_and_free(char *text) {
    if (text == NULL) return;
    explicit_bzero(text, strlen(text));
    g_free(text);
}

static void on_insert_text(GtkEditable *editable, const char *text, int length, int *position, gpointer data) {
    egwui_filter *filter = data;
    g_signal_stop_emission_by_name(editable, "insert-text");
    if (filter->fn == NULL) return;
    char *copy = length < 0 ? g_strdup(text) : g_strndup(text, (gsize)length);
    int caret = filter->fn(filter->context, *position, *position, copy, *position);
    wipe_and_free(copy);
    if (caret < 0) {
        gtk_widget_error_bell(filter->entry);
        return;
    }
    *position = caret;
}

static void on_delete_text(GtkEditable *editable, int start, int end, gpointer data) {
    egwui_filter *filter = data;
    g_signal_stop_emission_by_name(editable, "delete-text");
    if (filter->fn == NULL) return;
    int length = (int)g_utf8_strlen(gtk_editable_get_text(editable), -1);
    if (end < 0 || end > length) end = length;
    if (start < 0) start = 0;
    int caret = gtk_editable_get_position(editable);
    if (filter->fn(filter->context, start, end, "", caret) < 0) gtk_widget_error_bell(filter->entry);
}

static void refuse_clipboard(GtkWidget *text, gpointer data) {
    (void)data;
    // copy-clipboard and cut-clipboard are run-last: stopping here keeps GTK's handler from running.
    g_signal_stop_emission_by_name(text, g_signal_name(g_signal_get_invocation_hint(text)->signal_id));
    gtk_widget_error_bell(text);
}

// GtkText offers its selection as the PRIMARY selection (X11, Wayland) whenever it changes, and cancels
// the selection when it loses that offer. A private entry takes every such offer back in the same turn of
// the main loop, before GDK answers any other client (it answers selection requests from the event
// source, after this handler returns): the display's PRIMARY clipboard is watched (`notify::content`), and
// a local offer whose text is a private entry's selection is replaced by no content, so X's PRIMARY has no
// owner. The offer is marked first, so that losing it leaves the entry's selection in place (GTK's
// GtkTextContent `detach_clipboard`, which cancels it, is wrapped to skip marked offers): the buyer can
// still select, delete or type over the digits. Another widget's offer is left alone.
static GSList *private_texts = NULL;  // the GtkText of every private entry, main thread only
static void (*gtk_text_content_detach)(GdkContentProvider *, GdkClipboard *) = NULL;
static const char *const private_offer_key = "egwui-private-offer";

static void detach_unless_private(GdkContentProvider *provider, GdkClipboard *clipboard) {
    if (g_object_get_data(G_OBJECT(provider), private_offer_key) != NULL) {
        g_object_set_data(G_OBJECT(provider), private_offer_key, NULL);
        return;  // the entry keeps its selection: it only stops offering it
    }
    if (gtk_text_content_detach != NULL) gtk_text_content_detach(provider, clipboard);
}

/// What GtkText offers for the selection `start..<end` of `text`: the characters, or for hidden text (the
/// security code) as many invisible characters.
static char *offered_selection(GtkWidget *text, int start, int end) {
    if (gtk_text_get_visibility(GTK_TEXT(text))) return gtk_editable_get_chars(GTK_EDITABLE(text), start, end);
    char bullet[6] = {0};
    g_unichar_to_utf8(gtk_text_get_invisible_char(GTK_TEXT(text)), bullet);
    GString *shown = g_string_new(NULL);
    for (int i = start; i < end; i++) g_string_append(shown, bullet);
    return g_string_free(shown, FALSE);
}

/// Whether `offer` is the text of a private entry's selection (GTK's offer reads it when asked).
static gboolean is_private_selection(GdkContentProvider *offer) {
    gboolean found = FALSE;
    GValue value = G_VALUE_INIT;
    g_value_init(&value, G_TYPE_STRING);
    if (!gdk_content_provider_get_value(offer, &value, NULL)) {
        g_value_unset(&value);
        return FALSE;
    }
    for (GSList *item = private_texts; item != NULL && !found; item = item->next) {
        int start, end;
        if (!gtk_editable_get_selection_bounds(GTK_EDITABLE(item->data), &start, &end)) continue;
        char *selected = offered_selection(GTK_WIDGET(item->data), start, end);
        found = g_strcmp0(g_value_get_string(&value), selected) == 0;
        wipe_and_free(selected);
    }
    char *offered = g_value_dup_string(&value);
    wipe_and_free(offered);
    g_value_unset(&value);
    return found;
}

static void on_primary_content(GObject *object, GParamSpec *pspec, gpointer data) {
    (void)pspec;
    (void)data;
    GdkClipboard *primary = GDK_CLIPBOARD(object);
    GdkContentProvider *offer = gdk_clipboard_get_content(primary);
    if (offer == NULL || !gdk_clipboard_is_local(primary)) return;
    if (g_strcmp0(G_OBJECT_TYPE_NAME(offer), "GtkTextContent") != 0 || !is_private_selection(offer)) return;
    if (gtk_text_content_detach == NULL) {
        // Wrap the class's detach once (the first offer of a private entry shows the class).
        GdkContentProviderClass *klass = GDK_CONTENT_PROVIDER_GET_CLASS(offer);
        gtk_text_content_detach = klass->detach_clipboard;
        klass->detach_clipboard = detach_unless_private;
    }
    g_object_set_data(G_OBJECT(offer), private_offer_key, GINT_TO_POINTER(1));
    gdk_clipboard_set_content(primary, NULL);
}

static void forget_private_text(gpointer data, GObject *gone) {
    (void)data;
    private_texts = g_slist_remove(private_texts, gone);
}

/// Watches the display's PRIMARY clipboard once, and registers `text` as a private entry's.
static void refuse_primary(GtkWidget *text) {
    GdkClipboard *primary = gtk_widget_get_primary_clipboard(text);
    if (g_object_get_data(G_OBJECT(primary), "egwui-primary-watched") == NULL) {
        g_object_set_data(G_OBJECT(primary), "egwui-primary-watched", GINT_TO_POINTER(1));
        g_signal_connect(primary, "notify::content", G_CALLBACK(on_primary_content), NULL);
    }
    private_texts = g_slist_prepend(private_texts, text);
    g_object_weak_ref(G_OBJECT(text), forget_private_text, NULL);
}

// Kept as a second line of defence: when a private entry loses the focus it takes back the offer that is
// its own (the local PRIMARY content whose text is this entry's selection), should one ever remain.
static void on_focus_changed(GObject *object, GParamSpec *pspec, gpointer data) {
    (void)pspec;
    (void)data;
    GtkWidget *text = GTK_WIDGET(object);
    GdkClipboard *primary = gtk_widget_get_primary_clipboard(text);
    GdkContentProvider *offer = gdk_clipboard_get_content(primary);
    int start, end;
    if (gtk_widget_has_focus(text) || offer == NULL || !gdk_clipboard_is_local(primary) ||
        !gtk_editable_get_selection_bounds(GTK_EDITABLE(text), &start, &end))
        return;
    GValue value = G_VALUE_INIT;
    g_value_init(&value, G_TYPE_STRING);
    if (gdk_content_provider_get_value(offer, &value, NULL)) {
        char *selected = gtk_editable_get_chars(GTK_EDITABLE(text), start, end);
        if (g_strcmp0(g_value_get_string(&value), selected) == 0) gdk_clipboard_set_content(primary, NULL);
        wipe_and_free(selected);
        char *offered = g_value_dup_string(&value);
        wipe_and_free(offered);
    }
    g_value_unset(&value);
}

egwui_filter *egwui_filter_attach(GtkWidget *entry, egwui_edit_fn fn, void *context, gboolean private_text) {
    egwui_filter *filter = g_new0(egwui_filter, 1);
    filter->entry = entry;
    filter->text = GTK_WIDGET(gtk_editable_get_delegate(GTK_EDITABLE(entry)));
    filter->fn = fn;
    filter->context = context;
    filter->private_text = private_text;
    filter->insert_handler = g_signal_connect(filter->text, "insert-text", G_CALLBACK(on_insert_text), filter);
    filter->delete_handler = g_signal_connect(filter->text, "delete-text", G_CALLBACK(on_delete_text), filter);
    gtk_editable_set_enable_undo(GTK_EDITABLE(entry), FALSE);
    if (private_text) {
        g_signal_connect(filter->text, "copy-clipboard", G_CALLBACK(refuse_clipboard), NULL);
        g_signal_connect(filter->text, "cut-clipboard", G_CALLBACK(refuse_clipboard), NULL);
        g_signal_connect(filter->text, "notify::has-focus", G_CALLBACK(on_focus_changed), NULL);
        refuse_primary(filter->text);
    }
    g_object_set_data_full(G_OBJECT(entry), "egwui-filter", filter, g_free);
    return filter;
}

void egwui_filter_show(egwui_filter *filter, const char *text, int caret) {
    g_signal_handler_block(filter->text, filter->insert_handler);
    g_signal_handler_block(filter->text, filter->delete_handler);
    if (strcmp(gtk_editable_get_text(GTK_EDITABLE(filter->text)), text) != 0)
        gtk_editable_set_text(GTK_EDITABLE(filter->text), text);
    gtk_editable_set_position(GTK_EDITABLE(filter->text), caret);
    g_signal_handler_unblock(filter->text, filter->delete_handler);
    g_signal_handler_unblock(filter->text, filter->insert_handler);
}

void egwui_filter_detach(egwui_filter *filter) {
    filter->fn = NULL;
    filter->context = NULL;
}

GtkWidget *egwui_entry_new(void) { return gtk_entry_new(); }

void egwui_entry_configure(GtkWidget *entry, GtkInputPurpose purpose, gboolean visible, int width_chars,
                           const char *placeholder) {
    gtk_entry_set_input_purpose(GTK_ENTRY(entry), purpose);
    // Every card entry: input methods are told not to learn it, and offer no spelling or emoji completion.
    gtk_entry_set_input_hints(GTK_ENTRY(entry),
                              GTK_INPUT_HINT_NO_SPELLCHECK | GTK_INPUT_HINT_NO_EMOJI | GTK_INPUT_HINT_PRIVATE);
    gtk_entry_set_visibility(GTK_ENTRY(entry), visible);
    gtk_editable_set_width_chars(GTK_EDITABLE(entry), width_chars);
    if (placeholder != NULL) gtk_entry_set_placeholder_text(GTK_ENTRY(entry), placeholder);
    gtk_widget_add_css_class(entry, EGWUI_CONTRAST_CLASS);  // error text and focus ring (install_contrast_rules)
}

const char *egwui_editable_text(GtkWidget *editable) { return gtk_editable_get_text(GTK_EDITABLE(editable)); }

// MARK: - Accessibility

void egwui_accessible_set_label(GtkWidget *widget, const char *label) {
    gtk_accessible_update_property(GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
}

void egwui_accessible_set_invalid(GtkWidget *widget, gboolean invalid, const char *description) {
    gtk_accessible_update_state(GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_STATE_INVALID,
                                invalid ? GTK_ACCESSIBLE_INVALID_TRUE : GTK_ACCESSIBLE_INVALID_FALSE, -1);
    if (description != NULL)
        gtk_accessible_update_property(GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, description,
                                       -1);
    else
        gtk_accessible_reset_property(GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION);
}

// MARK: - Widgets for the sheet

typedef struct {
    egwui_widget_fn fn;
    void *context;
} widget_callback;

static void call_widget_callback(GtkWidget *widget, gpointer data) {
    widget_callback *callback = data;
    callback->fn(callback->context, widget);
}

static void free_widget_callback(gpointer data, GClosure *closure) {
    (void)closure;
    g_free(data);
}

static gulong connect_widget(GtkWidget *widget, const char *signal, egwui_widget_fn fn, void *context) {
    widget_callback *callback = g_new0(widget_callback, 1);
    callback->fn = fn;
    callback->context = context;
    return g_signal_connect_data(widget, signal, G_CALLBACK(call_widget_callback), callback, free_widget_callback,
                                 0);
}

gulong egwui_connect_clicked(GtkWidget *button, egwui_widget_fn fn, void *context) {
    return connect_widget(button, "clicked", fn, context);
}
gulong egwui_connect_toggled(GtkWidget *check, egwui_widget_fn fn, void *context) {
    return connect_widget(check, "toggled", fn, context);
}
gulong egwui_connect_activate(GtkWidget *entry, egwui_widget_fn fn, void *context) {
    return connect_widget(entry, "activate", fn, context);
}

static gboolean on_close_request(GtkWindow *window, gpointer data) {
    widget_callback *callback = data;
    callback->fn(callback->context, GTK_WIDGET(window));
    return TRUE;
}

static gboolean on_escape(GtkWidget *widget, GVariant *args, gpointer data) {
    (void)args;
    widget_callback *callback = data;
    callback->fn(callback->context, widget);
    return TRUE;
}

void egwui_window_on_close(GtkWidget *window, egwui_widget_fn fn, void *context) {
    widget_callback *callback = g_new0(widget_callback, 1);
    callback->fn = fn;
    callback->context = context;
    g_signal_connect_data(window, "close-request", G_CALLBACK(on_close_request), callback, free_widget_callback, 0);
    GtkEventController *shortcuts = gtk_shortcut_controller_new();
    GtkShortcut *escape = gtk_shortcut_new(gtk_keyval_trigger_new(GDK_KEY_Escape, 0),
                                           gtk_callback_action_new(on_escape, callback, NULL));
    gtk_shortcut_controller_add_shortcut(GTK_SHORTCUT_CONTROLLER(shortcuts), escape);
    gtk_widget_add_controller(window, shortcuts);
}

GtkWidget *egwui_window_new(const char *title, GtkWidget *parent, gboolean modal) {
    GtkWidget *window = gtk_window_new();
    gtk_window_set_title(GTK_WINDOW(window), title);
    if (parent != NULL) gtk_window_set_transient_for(GTK_WINDOW(window), GTK_WINDOW(parent));
    gtk_window_set_modal(GTK_WINDOW(window), modal);
    gtk_window_set_destroy_with_parent(GTK_WINDOW(window), TRUE);
    return window;
}
void egwui_window_set_child(GtkWidget *window, GtkWidget *child) {
    gtk_window_set_child(GTK_WINDOW(window), child);
}
void egwui_window_present(GtkWidget *window) { gtk_window_present(GTK_WINDOW(window)); }
void egwui_window_destroy(GtkWidget *window) { gtk_window_destroy(GTK_WINDOW(window)); }
GtkWidget *egwui_box_new(gboolean vertical, int spacing) {
    return gtk_box_new(vertical ? GTK_ORIENTATION_VERTICAL : GTK_ORIENTATION_HORIZONTAL, spacing);
}
void egwui_box_append(GtkWidget *box, GtkWidget *child) { gtk_box_append(GTK_BOX(box), child); }
void egwui_box_clear(GtkWidget *box) {
    GtkWidget *child;
    while ((child = gtk_widget_get_first_child(box)) != NULL) gtk_box_remove(GTK_BOX(box), child);
}
GtkWidget *egwui_label_new(const char *text, gboolean wrap) {
    GtkWidget *label = gtk_label_new(text);
    gtk_label_set_xalign(GTK_LABEL(label), 0);
    gtk_label_set_wrap(GTK_LABEL(label), wrap);
    return label;
}
void egwui_label_set_text(GtkWidget *label, const char *text) { gtk_label_set_text(GTK_LABEL(label), text); }
const char *egwui_label_text(GtkWidget *label) { return gtk_label_get_text(GTK_LABEL(label)); }
GtkWidget *egwui_button_new(const char *label) {
    GtkWidget *button = gtk_button_new_with_label(label);
    gtk_widget_add_css_class(button, EGWUI_CONTRAST_CLASS);  // its focus ring (install_contrast_rules)
    return button;
}
void egwui_button_set_label(GtkWidget *button, const char *label) { gtk_button_set_label(GTK_BUTTON(button), label); }
GtkWidget *egwui_check_new(const char *label, GtkWidget *group) {
    // One choice of several: a screen reader says "radio button, 1 of 2", not "check box" (GTK 4.8 keeps
    // the check-box role for grouped check buttons; the role can only be set at construction).
    GtkWidget *check = g_object_new(GTK_TYPE_CHECK_BUTTON, "label", label, "accessible-role",
                                    GTK_ACCESSIBLE_ROLE_RADIO, NULL);
    if (group != NULL) gtk_check_button_set_group(GTK_CHECK_BUTTON(check), GTK_CHECK_BUTTON(group));
    // WCAG 2.2 2.5.8: a row a buyer clicks is at least 24 px high (Adwaita's is 16: the indicator and one
    // line of text). The request counts the theme's margins (4 px above and below in Adwaita and
    // HighContrast), which are not part of the target: 32 leaves 24 (Tests/Accessibility/test_seen.py).
    gtk_widget_set_size_request(check, -1, 32);
    return check;
}
void egwui_check_set_active(GtkWidget *check, gboolean active) {
    gtk_check_button_set_active(GTK_CHECK_BUTTON(check), active);
}
gboolean egwui_check_active(GtkWidget *check) { return gtk_check_button_get_active(GTK_CHECK_BUTTON(check)); }
GtkWidget *egwui_spinner_new(void) { return gtk_spinner_new(); }
void egwui_spinner_set(GtkWidget *spinner, gboolean spinning) {
    gtk_spinner_set_spinning(GTK_SPINNER(spinner), spinning);
}
void egwui_widget_set_sensitive(GtkWidget *widget, gboolean sensitive) { gtk_widget_set_sensitive(widget, sensitive); }
void egwui_widget_set_visible(GtkWidget *widget, gboolean visible) { gtk_widget_set_visible(widget, visible); }
void egwui_widget_set_name(GtkWidget *widget, const char *name) { gtk_widget_set_name(widget, name); }
void egwui_widget_add_class(GtkWidget *widget, const char *css_class) { gtk_widget_add_css_class(widget, css_class); }
void egwui_widget_remove_class(GtkWidget *widget, const char *css_class) {
    gtk_widget_remove_css_class(widget, css_class);
}
void egwui_widget_set_halign_end(GtkWidget *widget) { gtk_widget_set_halign(widget, GTK_ALIGN_END); }
void egwui_widget_set_hexpand(GtkWidget *widget) { gtk_widget_set_hexpand(widget, TRUE); }
void egwui_widget_set_margins(GtkWidget *widget, int margin) {
    gtk_widget_set_margin_top(widget, margin);
    gtk_widget_set_margin_bottom(widget, margin);
    gtk_widget_set_margin_start(widget, margin);
    gtk_widget_set_margin_end(widget, margin);
}

void egwui_object_ref_sink(GtkWidget *widget) { g_object_ref_sink(widget); }
void egwui_object_unref(GtkWidget *widget) { g_object_unref(widget); }

