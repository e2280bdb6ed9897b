// A test-only interposer on malloc(), free() and realloc(): while armed on one thread, every block that thread
// releases is scanned for given byte strings (a secret's encodings) before glibc gets it back, so a test
// can prove that an operation leaves no unwiped copy of a secret in freed memory.
// Compiled out (egw_freescan_available() == 0) under ASan/TSan/MSan, whose runtimes own malloc and free.
#ifndef EGW_FREESCAN_H
#define EGW_FREESCAN_H

#include <stddef.h>

/// The most needles one scan takes, and the longest needle (longer ones are truncated to it).
#define EGW_FREESCAN_MAX_NEEDLES 8
#define EGW_FREESCAN_MAX_NEEDLE_LENGTH 2048
/// A hit is any run of this many consecutive bytes of a needle (or any needle shorter than it, whole).
#define EGW_FREESCAN_WINDOW 16

typedef struct {
    /// Blocks released (free, or realloc moving them) by the armed thread while armed.
    size_t releases;
    /// Their usable bytes, all scanned.
    size_t bytesScanned;
    /// Released blocks holding a run of EGW_FREESCAN_WINDOW bytes of any needle.
    size_t hits;
} egw_freescan_result;

/// 1 when free() is interposed in this build, 0 under a sanitizer.
int egw_freescan_available(void);

/// Arms the scan for the calling thread with `count` needles (copied; the caller's buffers may be freed
/// afterwards and are not hits unless they are freed while armed).
void egw_freescan_begin(const unsigned char *const *needles, const size_t *lengths, int count);

/// Disarms the scan and returns what it saw.
egw_freescan_result egw_freescan_end(void);

#endif
