/*
 * memcheck.h -- what the conformance suites do differently under valgrind
 * (memcheck) and in the reduced mode make check-valgrind runs them in.
 *
 * - t_reduced(): MEMASM_TEST_REDUCED is set (to anything but "" or "0"):
 *   fewer lengths, alignments and overlap distances, but still every
 *   kernel, every size class (t_keep_len) and every alignment class
 *   (t_align_class).  The suites print that they run reduced.
 * - t_memcheck(): the process runs under memcheck (RUNNING_ON_VALGRIND,
 *   when configure found valgrind/memcheck.h; 0 otherwise).  Then every
 *   checked call is made once more on exact-size heap blocks: the bytes
 *   memcheck lets the kernel touch are exactly [p, p + n), so a read one
 *   byte before or after the range is an "Invalid read" even inside the
 *   same page (the mmap'd arenas, whose neighbouring bytes are
 *   addressable, only catch reads that cross into a guard page), and the
 *   destination starts undefined, so a byte the kernel failed to write is
 *   reported as undefined after the call.
 */
#ifndef MEMASM_TEST_MEMCHECK_H
#define MEMASM_TEST_MEMCHECK_H

#include <stddef.h>

#include "harness.h"

int t_reduced(void);
int t_memcheck(void);

/* Reduced mode: keep length n?  Every n up to 72 (every small path and its
 * boundaries), and 2^k - 1, 2^k, 2^k + 1 and 3 * 2^(k-1) +- 1 above. */
int t_keep_len(size_t n);
/* The alignment classes (mod 64) reduced mode runs: 0, 1, and the vector
 * widths 8, 16, 32 with their neighbours, 63. */
#define T_NALIGN_CLASSES 13
extern const unsigned t_align_class[T_NALIGN_CLASSES];
/* Overlap distances reduced mode runs for length n: d <= n taken from 1, 2,
 * 3, 4, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, n - 1, n.  Returns 1 if
 * dist is one of them. */
int t_keep_dist(size_t n, size_t dist);

/* Under memcheck: the call fn(dst, src, n) with src a heap block holding
 * exactly the n bytes of image at alignment sa (mod 64), dst an exact,
 * undefined block at alignment da; checks the return value, that every
 * destination byte is defined and equals image.  A no-op outside memcheck. */
void t_mc_copy(const t_call *c, t_copy_fn fn, const unsigned char *image, size_t n, unsigned da,
               unsigned sa);
/* The same for memset: exact undefined block at alignment da, then every
 * byte defined and (unsigned char)v. */
void t_mc_set(const t_call *c, t_set_fn fn, int v, size_t n, unsigned da);
/* memmove inside one exact block of n + dist bytes (alignment a) holding
 * image: dst = block + dist, src = block (up) or the reverse; the result
 * is checked against the byte-loop reference. */
void t_mc_move(const t_call *c, t_copy_fn fn, const unsigned char *image, size_t n, size_t dist,
               int up, unsigned a);

/* Memcheck's error count so far (0 outside memcheck); a suite compares it
 * before and after a kernel to name the kernel an error came from. */
unsigned long t_mc_errors(void);
/* Print once what this mode does (reduced, memcheck) for the log. */
void t_mc_banner(const char *suite);

#endif
