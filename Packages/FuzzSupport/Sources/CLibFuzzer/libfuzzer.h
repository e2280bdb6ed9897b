// libFuzzer's driver entry (compiler-rt, FuzzerInterface.h). Only declared here: the symbol exists
// when the executable is linked with -sanitize=fuzzer, and FuzzSupport calls it only in a build
// compiled with -DEGW_FUZZ, so a plain build never references it.
#ifndef EGW_LIBFUZZER_H
#define EGW_LIBFUZZER_H
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
