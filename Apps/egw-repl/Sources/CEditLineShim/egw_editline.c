// A tiny C shim over libedit's readline emulation. Swift 6 treats the rl_*
// globals as shared mutable state, so they are only touched here.
#include "egw_editline.h"

#include <editline/readline.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static egw_el_completer egw_completer = NULL;

// Ctrl-C at the prompt: SIGINT is ignored by the process and counted by a Dispatch
// source, which calls egw_el_interrupt(); that writes one byte to this pipe, and the
// character reader below, polling the terminal and the pipe together, ends the line.
static int egw_interrupt_pipe[2] = {-1, -1};
static int egw_interrupted = 0;

static void egw_drain_interrupts(void) {
    char bytes[64];
    while (egw_interrupt_pipe[0] >= 0 && read(egw_interrupt_pipe[0], bytes, sizeof bytes) > 0) {
    }
}

static int egw_read_byte(void) {
    unsigned char byte;
    for (;;) {
        ssize_t count = read(STDIN_FILENO, &byte, 1);
        if (count == 1) {
            return byte;
        }
        if (count < 0 && errno == EINTR) {
            continue;
        }
        return -1;
    }
}

// libedit's rl_getc_function: one character (a Unicode scalar decoded from UTF-8) from the
// terminal, or, when Ctrl-C arrived, a newline that ends the line with the interrupt flag set.
static int egw_getc(FILE *stream) {
    (void)stream;
    for (;;) {
        struct pollfd fds[2] = {{STDIN_FILENO, POLLIN, 0}, {egw_interrupt_pipe[0], POLLIN, 0}};
        int ready = poll(fds, egw_interrupt_pipe[0] >= 0 ? 2 : 1, -1);
        if (ready < 0) {
            if (errno == EINTR) {
                continue;
            }
            return -1;
        }
        if (egw_interrupt_pipe[0] >= 0 && (fds[1].revents & POLLIN)) {
            egw_drain_interrupts();
            egw_interrupted = 1;
            fputs("^C", stdout);
            fflush(stdout);
            return '\n';
        }
        if (fds[0].revents == 0) {
            continue;
        }
        int lead = egw_read_byte();
        if (lead < 0x80) {
            return lead;  // ASCII, or -1 at end of input
        }
        int extra = lead >= 0xF0 ? 3 : lead >= 0xE0 ? 2 : lead >= 0xC0 ? 1 : 0;
        int scalar = lead & (0x3F >> extra);
        for (int i = 0; i < extra; i++) {
            int next = egw_read_byte();
            if (next < 0) {
                return -1;
            }
            scalar = (scalar << 6) | (next & 0x3F);
        }
        return scalar;
    }
}

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
    if (egw_interrupt_pipe[0] < 0 && pipe(egw_interrupt_pipe) == 0) {
        for (int i = 0; i < 2; i++) {
            fcntl(egw_interrupt_pipe[i], F_SETFL, fcntl(egw_interrupt_pipe[i], F_GETFL) | O_NONBLOCK);
            fcntl(egw_interrupt_pipe[i], F_SETFD, FD_CLOEXEC);
        }
    }
    rl_getc_function = egw_getc;  // before using_history(), which initialises libedit
    rl_readline_name = program_name;
    rl_catch_signals = 0;
    rl_basic_word_break_characters = " \t\n";
    rl_completer_word_break_characters = (char *)" \t\n";
    rl_completion_append_character = ' ';
    rl_attempted_completion_function = egw_attempted_completion;
    using_history();
}

char *egw_el_readline(const char *prompt) {
    egw_drain_interrupts();  // a Ctrl-C typed before the prompt appeared is not for this line
    egw_interrupted = 0;
    return readline(prompt);
}

int egw_el_was_interrupted(void) { return egw_interrupted; }

void egw_el_interrupt(void) {
    if (egw_interrupt_pipe[1] >= 0) {
        const char byte = 'c';
        (void)write(egw_interrupt_pipe[1], &byte, 1);
    }
}

void egw_el_add_history(const char *line) { add_history(line); }

int egw_el_read_history(const char *path) { return read_history(path); }

int egw_el_write_history(const char *path) { return write_history(path); }

void egw_el_stifle_history(int count) { stifle_history(count); }

char **egw_el_matches_alloc(size_t count) { return calloc(count + 1, sizeof(char *)); }

void egw_el_matches_set(char **matches, size_t index, const char *value) { matches[index] = strdup(value); }
