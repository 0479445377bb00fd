/*
 * lines.h -- text for the preload modules' messages, built without the C
 * library's formatting (their code runs inside any process, from exit and
 * from signal handlers): append to a fixed buffer, never past its end.
 */
#ifndef MEMASM_PRELOAD_LINES_H
#define MEMASM_PRELOAD_LINES_H

#include <stddef.h>
#include <stdint.h>

/* Append text to buf[*len..cap). */
static inline void put(char *buf, size_t *len, size_t cap, const char *text)
{
    while (*text && *len < cap)
        buf[(*len)++] = *text++;
}

static inline void put_u64(char *buf, size_t *len, size_t cap, uint64_t v)
{
    char digits[24];
    size_t n = sizeof digits - 1;
    digits[n] = '\0';
    do
        digits[--n] = (char)('0' + v % 10);
    while (v /= 10);
    put(buf, len, cap, digits + n);
}

#endif /* MEMASM_PRELOAD_LINES_H */
