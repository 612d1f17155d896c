// libFuzzer's entry for a program with a main of its own (compiler-rt's FuzzerInterface.h): it reads libFuzzer's
// options from the command line as libFuzzer's main would, and calls `test` with each input. `-sanitize=fuzzer`
// links it.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*test)(const uint8_t *data, size_t size));
