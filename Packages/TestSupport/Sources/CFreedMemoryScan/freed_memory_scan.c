#define _GNU_SOURCE
#include "freed_memory_scan.h"

#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define EGW_FREESCAN_DISABLED 1
#endif
#endif

static unsigned char needleBytes[EGW_FREESCAN_MAX_NEEDLES][EGW_FREESCAN_MAX_NEEDLE_LENGTH];
static size_t needleLengths[EGW_FREESCAN_MAX_NEEDLES];
static int needleCount;
// The armed thread (0: disarmed). Only that thread touches the counters while armed.
static _Atomic(pthread_t) owner;
static egw_freescan_result counters;

#ifndef EGW_FREESCAN_DISABLED
extern void *__libc_malloc(size_t);
extern void __libc_free(void *);
extern void *__libc_realloc(void *, size_t);

/// 1 when `block` holds a window of any needle. Windows start every 8 bytes of the needle (and at its
/// end), so any copy of 23 or more consecutive needle bytes, and any prefix of 16, is found.
static int holdsNeedle(const unsigned char *block, size_t size) {
    for (int index = 0; index < needleCount; index++) {
        const unsigned char *needle = needleBytes[index];
        size_t length = needleLengths[index];
        size_t window = length < EGW_FREESCAN_WINDOW ? length : EGW_FREESCAN_WINDOW;
        if (window == 0) continue;
        for (size_t offset = 0;; offset += 8) {
            if (offset + window > length) offset = length - window;
            if (memmem(block, size, needle + offset, window) != NULL) return 1;
            if (offset + window >= length) break;
        }
    }
    return 0;
}

static int isArmedHere(void) {
    pthread_t armed = atomic_load_explicit(&owner, memory_order_acquire);
    return armed != 0 && pthread_equal(armed, pthread_self());
}

void free(void *pointer) {
    if (pointer != NULL && isArmedHere()) {
        size_t size = malloc_usable_size(pointer);
        counters.releases += 1;
        counters.bytesScanned += size;
        if (holdsNeedle(pointer, size)) counters.hits += 1;
    }
    __libc_free(pointer);
}

// While armed, a block is handed out zeroed over its whole usable size: memory an earlier owner released
// unwiped (before the scan, or on another thread) cannot make a hit of a block that never held the secret.
void *malloc(size_t size) {
    void *pointer = __libc_malloc(size);
    if (pointer != NULL && isArmedHere()) memset(pointer, 0, malloc_usable_size(pointer));
    return pointer;
}

void *realloc(void *pointer, size_t size) {
    if (!isArmedHere()) return __libc_realloc(pointer, size);
    size_t old = pointer == NULL ? 0 : malloc_usable_size(pointer);
    int held = pointer != NULL && holdsNeedle(pointer, old);
    void *moved = __libc_realloc(pointer, size);
    if (moved != NULL) {
        size_t now = malloc_usable_size(moved);
        size_t kept = old < size ? old : size;
        if (now > kept) memset((unsigned char *)moved + kept, 0, now - kept);
    }
    if (pointer != NULL && moved != pointer) {
        // The old block went back to the allocator with its bytes (or failed and stays; counted anyway).
        counters.releases += 1;
        counters.bytesScanned += old;
        if (held) counters.hits += 1;
    }
    return moved;
}

int egw_freescan_available(void) { return 1; }
#else
int egw_freescan_available(void) { return 0; }
#endif

void egw_freescan_begin(const unsigned char *const *needles, const size_t *lengths, int count) {
    if (count > EGW_FREESCAN_MAX_NEEDLES) count = EGW_FREESCAN_MAX_NEEDLES;
    for (int index = 0; index < count; index++) {
        size_t length = lengths[index];
        if (length > EGW_FREESCAN_MAX_NEEDLE_LENGTH) length = EGW_FREESCAN_MAX_NEEDLE_LENGTH;
        memcpy(needleBytes[index], needles[index], length);
        needleLengths[index] = length;
    }
    needleCount = count;
    memset(&counters, 0, sizeof counters);
    atomic_store_explicit(&owner, pthread_self(), memory_order_release);
}

egw_freescan_result egw_freescan_end(void) {
    atomic_store_explicit(&owner, (pthread_t)0, memory_order_release);
    egw_freescan_result result = counters;
    return result;
}
