#include "egw_gtk_test_hooks.h"

GtkInputHints egwui_entry_input_hints(GtkWidget *entry) { return gtk_entry_get_input_hints(GTK_ENTRY(entry)); }

int egwui_editable_position(GtkWidget *editable) { return gtk_editable_get_position(GTK_EDITABLE(editable)); }

void egwui_editable_set_position(GtkWidget *editable, int position) {
    gtk_editable_set_position(GTK_EDITABLE(editable), position);
}

void egwui_editable_select(GtkWidget *editable, int start, int end) {
    gtk_editable_select_region(GTK_EDITABLE(editable), start, end);
}

void egwui_editable_set_text(GtkWidget *editable, const char *text) {
    gtk_editable_set_text(GTK_EDITABLE(editable), text);
}

gboolean egwui_editable_undo_enabled(GtkWidget *editable) {
    return gtk_editable_get_enable_undo(GTK_EDITABLE(editable));
}

GtkInputPurpose egwui_entry_input_purpose(GtkWidget *entry) { return gtk_entry_get_input_purpose(GTK_ENTRY(entry)); }

gboolean egwui_entry_visibility(GtkWidget *entry) { return gtk_entry_get_visibility(GTK_ENTRY(entry)); }

char *egwui_accessible_check_invalid(GtkWidget *widget, gboolean invalid) {
    return gtk_test_accessible_check_state(GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_STATE_INVALID,
                                           invalid ? GTK_ACCESSIBLE_INVALID_TRUE : GTK_ACCESSIBLE_INVALID_FALSE);
}

char *egwui_accessible_check_description(GtkWidget *widget, const char *description) {
    return gtk_test_accessible_check_property(GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                              description);
}

char *egwui_accessible_check_label(GtkWidget *widget, const char *label) {
    return gtk_test_accessible_check_property(GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_PROPERTY_LABEL, label);
}

gboolean egwui_accessible_has_description(GtkWidget *widget) {
    return gtk_test_accessible_has_property(GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION);
}

gboolean egwui_widget_is_label(GtkWidget *widget) { return GTK_IS_LABEL(widget); }

gboolean egwui_widget_has_class(GtkWidget *widget, const char *css_class) {
    return gtk_widget_has_css_class(widget, css_class);
}

void egwui_widget_grab_focus(GtkWidget *widget) { gtk_widget_grab_focus(widget); }

GtkWidget *egwui_find_named(GtkWidget *root, const char *name) {
    if (root == NULL) return NULL;
    if (g_strcmp0(gtk_widget_get_name(root), name) == 0) return root;
    for (GtkWidget *child = gtk_widget_get_first_child(root); child != NULL;
         child = gtk_widget_get_next_sibling(child)) {
        GtkWidget *found = egwui_find_named(child, name);
        if (found != NULL) return found;
    }
    return NULL;
}

static GtkWidget *text_of(GtkWidget *entry) {
    return GTK_IS_EDITABLE(entry) && gtk_editable_get_delegate(GTK_EDITABLE(entry)) != NULL
               ? GTK_WIDGET(gtk_editable_get_delegate(GTK_EDITABLE(entry)))
               : entry;
}

const char *egwui_focus_move(GtkWidget *window, GtkDirectionType direction) {
    GtkWidget *focus = gtk_root_get_focus(GTK_ROOT(window));
    // An arrow key goes to the focused widget first (a check button moves within its group).
    if (direction == GTK_DIR_TAB_FORWARD || direction == GTK_DIR_TAB_BACKWARD || focus == NULL ||
        !gtk_widget_child_focus(focus, direction))
        gtk_widget_child_focus(window, direction);
    for (focus = gtk_root_get_focus(GTK_ROOT(window)); focus != NULL; focus = gtk_widget_get_parent(focus)) {
        const char *name = gtk_widget_get_name(focus);
        // GTK names an unnamed widget after its type (GtkText, GtkBox): skip those.
        if (name != NULL && !g_str_has_prefix(name, "Gtk")) return name;
    }
    return NULL;
}

gboolean egwui_press_shortcut(GtkWidget *widget, guint keyval) {
    GListModel *controllers = gtk_widget_observe_controllers(widget);
    gboolean done = FALSE;
    for (guint i = 0; !done && i < g_list_model_get_n_items(controllers); i++) {
        GObject *controller = g_list_model_get_item(controllers, i);
        if (GTK_IS_SHORTCUT_CONTROLLER(controller)) {
            GListModel *shortcuts = G_LIST_MODEL(controller);
            for (guint j = 0; !done && j < g_list_model_get_n_items(shortcuts); j++) {
                GtkShortcut *shortcut = g_list_model_get_item(shortcuts, j);
                GtkShortcutTrigger *trigger = gtk_shortcut_get_trigger(shortcut);
                if (GTK_IS_KEYVAL_TRIGGER(trigger) && gtk_keyval_trigger_get_keyval(GTK_KEYVAL_TRIGGER(trigger)) == keyval &&
                    gtk_keyval_trigger_get_modifiers(GTK_KEYVAL_TRIGGER(trigger)) == 0)
                    done = gtk_shortcut_action_activate(gtk_shortcut_get_action(shortcut), 0, widget, NULL);
                g_object_unref(shortcut);
            }
        }
        g_object_unref(controller);
    }
    g_object_unref(controllers);
    return done;
}

void egwui_key_insert(GtkWidget *entry, const char *text) {
    g_signal_emit_by_name(text_of(entry), "insert-at-cursor", text);
}

void egwui_key_backspace(GtkWidget *entry) { g_signal_emit_by_name(text_of(entry), "backspace"); }

void egwui_key_delete(GtkWidget *entry) {
    g_signal_emit_by_name(text_of(entry), "delete-from-cursor", GTK_DELETE_CHARS, 1);
}

void egwui_key_enter(GtkWidget *entry) { g_signal_emit_by_name(text_of(entry), "activate"); }

void egwui_key_paste(GtkWidget *entry) { g_signal_emit_by_name(text_of(entry), "paste-clipboard"); }

void egwui_key_copy(GtkWidget *entry) { g_signal_emit_by_name(text_of(entry), "copy-clipboard"); }

void egwui_key_cut(GtkWidget *entry) { g_signal_emit_by_name(text_of(entry), "cut-clipboard"); }

void egwui_text_undo(GtkWidget *entry) { gtk_widget_activate_action_variant(text_of(entry), "text.undo", NULL); }

void egwui_clipboard_set(GtkWidget *widget, const char *text) {
    gdk_clipboard_set_text(gtk_widget_get_clipboard(widget), text);
}

typedef struct {
    gboolean done;
    char *text;
} clipboard_read;

static void clipboard_read_done(GObject *source, GAsyncResult *result, gpointer data) {
    clipboard_read *read = data;
    read->text = gdk_clipboard_read_text_finish(GDK_CLIPBOARD(source), result, NULL);
    read->done = TRUE;
}

char *egwui_clipboard_read(GtkWidget *widget, gboolean primary) {
    GdkClipboard *clipboard = primary ? gtk_widget_get_primary_clipboard(widget) : gtk_widget_get_clipboard(widget);
    clipboard_read read = {FALSE, NULL};
    gdk_clipboard_read_text_async(clipboard, NULL, clipboard_read_done, &read);
    for (int i = 0; i < 2000 && !read.done; i++) {
        while (g_main_context_iteration(NULL, FALSE)) {
        }
        if (!read.done) g_usleep(1000);
    }
    return read.text;
}

void egwui_iterate(void) {
    while (g_main_context_iteration(NULL, FALSE)) {
    }
}

gboolean egwui_snapshot_png(GtkWidget *widget, const char *path) {
    int width = gtk_widget_get_width(widget);
    int height = gtk_widget_get_height(widget);
    GtkNative *native = gtk_widget_get_native(widget);
    if (width <= 0 || height <= 0 || native == NULL) return FALSE;
    GdkPaintable *paintable = gtk_widget_paintable_new(widget);
    GtkSnapshot *snapshot = gtk_snapshot_new();
    gdk_paintable_snapshot(paintable, snapshot, width, height);
    GskRenderNode *node = gtk_snapshot_free_to_node(snapshot);
    g_object_unref(paintable);
    if (node == NULL) return FALSE;
    GskRenderer *renderer = gtk_native_get_renderer(native);
    graphene_rect_t bounds = GRAPHENE_RECT_INIT(0, 0, (float)width, (float)height);
    GdkTexture *texture = gsk_renderer_render_texture(renderer, node, &bounds);
    gsk_render_node_unref(node);
    gboolean saved = texture != NULL && gdk_texture_save_to_png(texture, path);
    if (texture != NULL) g_object_unref(texture);
    return saved;
}

int egwui_count_unlabelled_controls(GtkWidget *root, char *names, gsize size) {
    if (root == NULL) return 0;
    if (GTK_IS_BUTTON(root) || GTK_IS_CHECK_BUTTON(root) || GTK_IS_ENTRY(root)) {
        if (gtk_test_accessible_has_property(GTK_ACCESSIBLE(root), GTK_ACCESSIBLE_PROPERTY_LABEL)) return 0;
        if (names != NULL) {
            g_strlcat(names, gtk_widget_get_name(root), size);
            g_strlcat(names, ",", size);
        }
        return 1;
    }
    int count = 0;
    for (GtkWidget *child = gtk_widget_get_first_child(root); child != NULL;
         child = gtk_widget_get_next_sibling(child))
        count += egwui_count_unlabelled_controls(child, names, size);
    return count;
}

void egwui_widget_activate(GtkWidget *widget) { gtk_widget_activate(widget); }
