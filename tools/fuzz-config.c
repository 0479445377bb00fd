/*
 * fuzz-config.c -- libFuzzer target for the configuration parser
 * (c/config.c), built and run by `make fuzz`.
 *
 * The first byte of an input picks the format (odd: a MEMASM_CONFIG file,
 * even: a MEMASM_TUNABLES string), the rest is the text.  The text is copied
 * into a buffer of exactly its size so AddressSanitizer sees any read past
 * the end.  Besides "no crash, no undefined behaviour", each run checks the
 * parser's promises: a problem message exactly when the input is refused,
 * printable and NUL-terminated; accepted values inside every key's legal
 * range and already in sanitized order.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "memasm-internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    int source = data[0] & 1 ? MEMASM_SRC_FILE : MEMASM_SRC_INLINE;
    size_t n = size - 1;
    char *text = malloc(n ? n : 1);
    if (!text)
        return 0;
    memcpy(text, data + 1, n);

    char problem[320];
    uint64_t out[MEMASM_THR_COUNT];
    memset(problem, 'X', sizeof problem);
    int r = memasm_config_try(text, n, source, out, problem, sizeof problem);
    free(text);

    size_t plen = strnlen(problem, sizeof problem);
    if (plen == sizeof problem)
        abort(); /* not NUL-terminated */
    if ((r < 0) != (plen > 0))
        abort(); /* refused without a reason, or a reason without refusal */
    for (size_t i = 0; i < plen; i++)
        if ((unsigned char)problem[i] < 0x20 || (unsigned char)problem[i] > 0x7e)
            abort(); /* untrusted bytes reached the message unfiltered */
    if (r == 0) {
        uint64_t again[MEMASM_THR_COUNT];
        memcpy(again, out, sizeof out);
        memasm_threshold_sanitize(again);
        if (memcmp(again, out, sizeof out) != 0)
            abort(); /* accepted a set that violates a constraint */
        for (size_t i = 0; i < memasm_threshold_defs_count; i++) {
            const struct memasm_threshold_def *d = &memasm_threshold_defs[i];
            if (out[d->index] < d->min || out[d->index] > d->max)
                abort();
        }
    }
    return 0;
}
