// The 3-D Secure browser flow's C (issue 31): the invisible view of the 3DS Method, and what the
// presenter's browser is (EMV browser data) read from WebKit's settings and the monitor it opens on.
#ifndef EGW_WEBKIT_METHOD_H
#define EGW_WEBKIT_METHOD_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Makes `view` a page the buyer can never reach: not focusable, not a pointer target, not visible.
/// It is never added to a window either (the caller's part), so it is never mapped.
void egwwk_view_make_invisible(void *view);

/// What a view's browser is, as a page in it would see it.
typedef struct egwwk_browser_facts {
    /// The monitor's geometry in application pixels (0 when there is no monitor).
    int screen_width;
    int screen_height;
    bool javascript_enabled;
} egwwk_browser_facts;

/// The WebKitSettings every page view gets (egwwk_view_new uses them): JavaScript on, pop-ups routed
/// into the same view, no developer extras, no page cache. A new reference; unref it.
void *egwwk_page_settings_new(void);
/// The facts of `settings` (egwwk_page_settings_new) and of the monitor `near` (a widget, may be NULL)
/// is on, else the display's first monitor. False without a display.
bool egwwk_browser_facts_get(void *settings, void *near, egwwk_browser_facts *out);
/// The user agent of `settings` (webkit_settings_get_user_agent; owned by the settings).
const char *egwwk_settings_user_agent(void *settings);
/// The language every page view has (navigator.language, Accept-Language): WebKit's own derivation
/// from setlocale(LC_CTYPE, NULL) (`_` to `-`, codeset and modifier dropped; C, POSIX or none is
/// en-US, also `C.UTF-8`, which WebKit alone would call "C", no language tag). GTK thread.
const char *egwwk_page_language(void);
/// Makes egwwk_page_language() the preferred (and only) language of `context`, a WebKitWebContext.
void egwwk_context_set_page_language(void *context);

#ifdef __cplusplus
}
#endif

#endif
