/*
 * diag.c -- the library's one-line messages on stderr.
 *
 * Layer 0 (with cpu.c): uses only the C library; every other layer may use
 * it.  See c/README.md for the layers.
 *
 * Messages are built in a bounded buffer and written with one write(2):
 * no stdio, no allocation, errno kept.  Text that came from outside (an
 * environment value, a file name) is shortened and made printable first.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "memasm-internal.h"

void memasm_diag_append(char *buf, size_t *len, size_t cap, const char *src, size_t n,
                        int untrusted)
{
    size_t limit = untrusted && n > 64 ? 64 : n;
    for (size_t i = 0; i < limit && *len + 1 < cap; i++) {
        unsigned char ch = (unsigned char)src[i];
        buf[(*len)++] = untrusted && (ch < 0x20 || ch > 0x7e) ? '?' : (char)ch;
    }
    if (limit < n)
        memasm_diag_append(buf, len, cap, "...", 3, 0);
}

void memasm_diag(const char *msg, const char *bad, size_t bad_len, const char *tail)
{
    char line[512];
    size_t len = 0;
    int saved = errno;
    memasm_diag_append(line, &len, sizeof line - 1, "libmemasm: ", 11, 0);
    memasm_diag_append(line, &len, sizeof line - 1, msg, strlen(msg), 0);
    if (bad)
        memasm_diag_append(line, &len, sizeof line - 1, bad, bad_len, 1);
    if (tail)
        memasm_diag_append(line, &len, sizeof line - 1, tail, strlen(tail), 0);
    line[len++] = '\n';
    ssize_t r = write(STDERR_FILENO, line, len);
    (void)r;
    errno = saved;
}
