// Makes Synchronization.Mutex visible to ThreadSanitizer (compiled in only under -fsanitize=thread).
//
// Mutex's fast paths (`_lock`, `_unlock`, `_tryLock`) are @_transparent: their atomic
// compare-exchange is inlined into our TSan-instrumented code, so TSan sees the acquire and the
// release. Only the contended paths are out of line, in libswiftSynchronization.so, which is not
// instrumented: there a waiter takes the lock through FUTEX_LOCK_PI, the kernel hands ownership
// over, and TSan sees no synchronisation at all. Every access made under a lock that was ever
// contended is then reported as a race (PLATFORM-NOTES: 8 false reports in PaymentFlow, 7 in
// GatewaySandbox, all inside `withLock`).
//
// This file defines the three out-of-line entry points under their Swift symbol names. A test
// binary that links it binds its calls to these instead of the library's (a definition in the
// executable wins over a shared library's at static link time). They take the same lock word with
// instrumented atomics and never sleep in the kernel: a contended lock is retried with
// sched_yield(). Since no thread ever waits in FUTEX_LOCK_PI, the kernel never sets the waiters
// bit, so `_unlock`'s inline compare-exchange always succeeds and `_unlockSlow` is not reached.
//
// ABI: `_MutexHandle` holds only its `Atomic<UInt32>` word (Synchronization.swiftinterface, Swift
// 6.3.1) and is address-only, so a borrowing method receives its address as `self` (the swiftself
// register, which clang's `swift_context` parameter maps to). A real race between two threads that
// do not share a lock is still reported (checked with a 10-line program before and after).
#include "mutex_visibility.h"

int egw_mutex_visibility_linked(void) { return 1; }

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

#define SWIFT_METHOD __attribute__((swiftcall))
#define SWIFT_SELF __attribute__((swift_context))

// Synchronization._MutexHandle._lockSlow(_ selfId: UInt32)
SWIFT_METHOD void egw_mutex_lock_slow(uint32_t self_id, void *SWIFT_SELF handle) __asm__(
    "$s15Synchronization12_MutexHandleV9_lockSlowyys6UInt32VF");
// Synchronization._MutexHandle._tryLockSlow() -> Bool
SWIFT_METHOD bool egw_mutex_try_lock_slow(void *SWIFT_SELF handle) __asm__(
    "$s15Synchronization12_MutexHandleV12_tryLockSlowSbyF");
// Synchronization._MutexHandle._unlockSlow()
SWIFT_METHOD void egw_mutex_unlock_slow(void *SWIFT_SELF handle) __asm__(
    "$s15Synchronization12_MutexHandleV11_unlockSlowyyF");

SWIFT_METHOD void egw_mutex_lock_slow(uint32_t self_id, void *SWIFT_SELF handle) {
    uint32_t *word = handle;
    for (;;) {
        uint32_t expected = 0;
        if (__atomic_compare_exchange_n(word, &expected, self_id, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
            return;
        }
        sched_yield();
    }
}

SWIFT_METHOD bool egw_mutex_try_lock_slow(void *SWIFT_SELF handle) {
    (void)handle;
    return false;  // the inline attempt already found the lock taken
}

SWIFT_METHOD void egw_mutex_unlock_slow(void *SWIFT_SELF handle) {
    __atomic_store_n((uint32_t *)handle, 0, __ATOMIC_RELEASE);
}
#endif
#endif
