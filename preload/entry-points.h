/*
 * entry-points.h -- the C library's names, for the LD_PRELOAD modules
 * (libmemasm-preload.so, libmemasm-profile.so): included once by the file
 * that defines the module, after it has defined
 *
 *   static inline void *copy(void *restrict dst, const void *restrict src, size_t n);
 *   static inline void *move(void *dst, const void *src, size_t n);
 *   static inline void *set(void *dst, int c, size_t n);
 *
 * (each forwarding to memasm_memcpy, memasm_memmove or memasm_memset, with
 * whatever the module does around the call), and PRELOAD_NAMES_IN_ASM if
 * memcpy, memmove and memset themselves are defined in assembly.  Every exported name goes
 * through one of the three, so the plain and the _chk names share them and
 * a _chk call never goes back through an interposable symbol.  The module
 * exports exactly these names (preload/exports.sym).
 *
 * The _chk variants are what _FORTIFY_SOURCE compiles calls into when the
 * destination object's size is known: glibc's __chk_fail when it is smaller
 * than n (message "*** buffer overflow detected ***: terminated", abort).
 *
 * The including file is compiled with -fno-builtin: the compiler must not
 * treat the definitions below as the builtins they replace (or turn
 * anything there into a call to memcpy or memset).
 */
#ifndef MEMASM_PRELOAD_ENTRY_POINTS_H
#define MEMASM_PRELOAD_ENTRY_POINTS_H

#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>

/* Declared here rather than through <string.h>/<strings.h>, whose fortified
 * inline wrappers (_FORTIFY_SOURCE) and attributes are for callers. */
#define PRELOAD_API __attribute__((visibility("default")))
PRELOAD_API void *memcpy(void *restrict dst, const void *restrict src, size_t n);
PRELOAD_API void *memmove(void *dst, const void *src, size_t n);
PRELOAD_API void *memset(void *dst, int c, size_t n);
PRELOAD_API void *mempcpy(void *restrict dst, const void *restrict src, size_t n);
PRELOAD_API void bzero(void *dst, size_t n);
PRELOAD_API void bcopy(const void *src, void *dst, size_t n);
PRELOAD_API void explicit_bzero(void *dst, size_t n);
PRELOAD_API void *__memcpy_chk(void *restrict dst, const void *restrict src, size_t n,
                               size_t dstlen);
PRELOAD_API void *__memmove_chk(void *dst, const void *src, size_t n, size_t dstlen);
PRELOAD_API void *__memset_chk(void *dst, int c, size_t n, size_t dstlen);
PRELOAD_API void *__mempcpy_chk(void *restrict dst, const void *restrict src, size_t n,
                                size_t dstlen);
PRELOAD_API void __explicit_bzero_chk(void *dst, size_t n, size_t dstlen);

#ifdef HAVE___CHK_FAIL
extern void __chk_fail(void) __attribute__((noreturn));
#else
/* What glibc's __chk_fail does. */
static __attribute__((noreturn)) void __chk_fail(void)
{
    static const char msg[] = "*** buffer overflow detected ***: terminated\n";
    ssize_t r = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)r;
    abort();
}
#endif

/* The call cannot be dropped as a dead store: memasm_memset is opaque to
 * the compiler, and under link-time optimisation the asm barrier says the
 * bytes at dst are read. */
static inline void zero_for_sure(void *dst, size_t n)
{
    set(dst, 0, n);
    __asm__ __volatile__("" : : "r"(dst) : "memory");
}

#ifndef PRELOAD_NAMES_IN_ASM /* the including file's assembly defines these three */
void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    return copy(dst, src, n);
}

void *memmove(void *dst, const void *src, size_t n)
{
    return move(dst, src, n);
}

void *memset(void *dst, int c, size_t n)
{
    return set(dst, c, n);
}
#endif

void *mempcpy(void *restrict dst, const void *restrict src, size_t n)
{
    return (char *)copy(dst, src, n) + n;
}

void bzero(void *dst, size_t n)
{
    set(dst, 0, n);
}

void bcopy(const void *src, void *dst, size_t n)
{
    move(dst, src, n);
}

void explicit_bzero(void *dst, size_t n)
{
    zero_for_sure(dst, n);
}

void *__memcpy_chk(void *restrict dst, const void *restrict src, size_t n, size_t dstlen)
{
    if (dstlen < n)
        __chk_fail();
    return copy(dst, src, n);
}

void *__memmove_chk(void *dst, const void *src, size_t n, size_t dstlen)
{
    if (dstlen < n)
        __chk_fail();
    return move(dst, src, n);
}

void *__memset_chk(void *dst, int c, size_t n, size_t dstlen)
{
    if (dstlen < n)
        __chk_fail();
    return set(dst, c, n);
}

void *__mempcpy_chk(void *restrict dst, const void *restrict src, size_t n, size_t dstlen)
{
    if (dstlen < n)
        __chk_fail();
    return (char *)copy(dst, src, n) + n;
}

void __explicit_bzero_chk(void *dst, size_t n, size_t dstlen)
{
    if (dstlen < n)
        __chk_fail();
    zero_for_sure(dst, n);
}

#endif /* MEMASM_PRELOAD_ENTRY_POINTS_H */
