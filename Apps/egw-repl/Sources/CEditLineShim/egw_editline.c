// A tiny C shim over libedit's readline emulation. Swift 6 treats the rl_*
// globals as shared mutable state, so they are only touched here.
#include "egw_editline.h"

#include <editline/readline.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static egw_el_completer egw_completer = NULL;

static char **egw_attempted_completion(const char *text, int start, int end) {
    (void)text;
    (void)start;
    rl_attempted_completion_over = 1;  // never fall back to file names
    if (egw_completer == NULL) {
        return NULL;
    }
    const char *buffer = rl_line_buffer != NULL ? rl_line_buffer : "";
    size_t length = strlen(buffer);
    size_t cut = end < 0 ? 0 : (size_t)end;
    if (cut > length) {
        cut = length;
    }
    char *prefix = strndup(buffer, cut);
    if (prefix == NULL) {
        return NULL;
    }
    char **matches = egw_completer(prefix);
    free(prefix);
    return matches;
}

void egw_el_setup(const char *program_name, egw_el_completer completer) {
    egw_completer = completer;
    rl_readline_name = program_name;
    rl_catch_signals = 0;
    rl_basic_word_break_characters = " \t\n";
    rl_completer_word_break_characters = (char *)" \t\n";
    rl_completion_append_character = ' ';
    rl_attempted_completion_function = egw_attempted_completion;
    using_history();
}

char *egw_el_readline(const char *prompt) { return readline(prompt); }

void egw_el_add_history(const char *line) { add_history(line); }

int egw_el_read_history(const char *path) { return read_history(path); }

int egw_el_write_history(const char *path) { return write_history(path); }

void egw_el_stifle_history(int count) { stifle_history(count); }

char **egw_el_matches_alloc(size_t count) { return calloc(count + 1, sizeof(char *)); }

void egw_el_matches_set(char **matches, size_t index, const char *value) { matches[index] = strdup(value); }

int egw_term_columns(int fd) {
    struct winsize size;
    if (ioctl(fd, TIOCGWINSZ, &size) != 0) {
        return 0;
    }
    return (int)size.ws_col;
}
