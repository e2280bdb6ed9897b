#ifndef EGW_EDITLINE_H
#define EGW_EDITLINE_H

#include <stddef.h>

/// Completion hook called by the shim when the user presses Tab.
/// `line` is the edit buffer up to the cursor (NUL-terminated UTF-8).
/// Returns a malloc'ed, NULL-terminated array in readline's convention
/// (element 0 is the text that replaces the current word, then the candidates),
/// or NULL when there is nothing to offer. libedit frees it.
typedef char *_Nullable *_Nullable (*egw_el_completer)(const char *_Nonnull line);

/// Configures libedit's readline emulation for the REPL: program name, the
/// completion hook, whitespace-only word breaks, and no signal handlers of
/// its own (the REPL handles SIGINT itself).
void egw_el_setup(const char *_Nonnull program_name, egw_el_completer _Nullable completer);

/// Reads one line with editing; returns a malloc'ed string or NULL at end of input.
/// When Ctrl-C ends the line (see egw_el_interrupt), the text typed so far is returned
/// and egw_el_was_interrupted() is 1 until the next call.
char *_Nullable egw_el_readline(const char *_Nonnull prompt);

/// 1 when Ctrl-C ended the line egw_el_readline last returned.
int egw_el_was_interrupted(void);

/// Ends the line being read as by Ctrl-C (prints ^C and a newline). Async-signal-safe: one
/// write(2) to a private pipe; callable from any thread.
void egw_el_interrupt(void);

/// Adds a line to the in-memory history.
void egw_el_add_history(const char *_Nonnull line);

/// Loads a history file; returns 0 on success.
int egw_el_read_history(const char *_Nonnull path);

/// Writes the in-memory history to a file; returns 0 on success.
int egw_el_write_history(const char *_Nonnull path);

/// Limits the in-memory history to `count` entries.
void egw_el_stifle_history(int count);

/// Allocates a NULL-terminated match array with room for `count` strings.
char *_Nullable *_Nullable egw_el_matches_alloc(size_t count);

/// Stores a copy of `value` at `index` of a match array.
void egw_el_matches_set(char *_Nullable *_Nonnull matches, size_t index, const char *_Nonnull value);

#endif
