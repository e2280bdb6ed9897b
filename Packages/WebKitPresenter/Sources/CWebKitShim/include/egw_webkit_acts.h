// What a page may not do outside its window: downloads and JavaScript dialogs. Kept apart from
// egw_webkit.h (the view and its navigation); nothing here is public API of WebKitPresenter.
#ifndef EGW_WEBKIT_ACTS_H
#define EGW_WEBKIT_ACTS_H

#include <stdbool.h>

#include "egw_webkit.h"  // EGWWK_CLOSED_ENUM, EGWWK_SWIFT_NAME

#ifdef __cplusplus
extern "C" {
#endif

/// What was refused; a closed enum (Swift switches over it are exhaustive).
typedef enum EGWWK_CLOSED_ENUM egwwk_act {
    /// A download: cancelled before a destination was chosen, no file written. `uri`: what it fetched.
    EGWWK_ACT_DOWNLOAD EGWWK_SWIFT_NAME(download) = 0,
    /// JavaScript dialogs, never shown: alert dismissed, confirm false, prompt null, beforeunload "leave".
    EGWWK_ACT_ALERT EGWWK_SWIFT_NAME(alert) = 1,
    EGWWK_ACT_CONFIRM EGWWK_SWIFT_NAME(confirm) = 2,
    EGWWK_ACT_PROMPT EGWWK_SWIFT_NAME(prompt) = 3,
    EGWWK_ACT_BEFORE_UNLOAD EGWWK_SWIFT_NAME(beforeUnload) = 4,
} egwwk_act;

/// Called on the GTK thread for each act refused: `uri` is the download's URL (else the page's, may be
/// ""), `length` the characters of a dialog's message (else 0). The message itself is never passed on.
typedef void (*egwwk_act_fn)(void *context, egwwk_act act, const char *uri, long length);

/// Keeps `view`'s pages inside their window until egwwk_view_unguard: every download of `session` (the
/// view's own) is cancelled as it starts, and every script dialog of `view` is answered without being
/// shown; each is reported to `acted` with `context`. Call once per view, before it loads.
void egwwk_view_guard(void *view, void *session, egwwk_act_fn acted, void *context);
/// Stops reporting to `acted`: later acts of the view are still refused, silently. `session` as given to
/// egwwk_view_guard.
void egwwk_view_unguard(void *session);

/// Whether a response decision (EGWWK_POLICY_RESPONSE) is one a browser would save rather than show: an
/// attachment (`Content-Disposition: attachment`) or a MIME type WebKit cannot show. Valid while the
/// decision is.
bool egwwk_response_is_download(void *decision);
/// Answers a response decision with "download" (and releases it): the session's download-started
/// then cancels and reports it (egwwk_view_guard), so the page reports one refusal and shows nothing.
void egwwk_decision_download(void *decision);

#ifdef __cplusplus
}
#endif

#endif
