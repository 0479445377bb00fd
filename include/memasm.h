/*
 * memasm.h -- public interface of libmemasm.
 *
 * libmemasm provides memcpy, memmove and memset built from hand-written
 * assembly kernels.  At load time a dispatcher picks, for each operation, the
 * best kernel the CPU can run; size thresholds that steer strategies inside a
 * kernel (rep movsb windows, non-temporal stores, vector start sizes) are data
 * read at run time, set from CPU cache sizes and overridable by the
 * configuration that `memasm-tune` writes (MEMASM_CONFIG / MEMASM_TUNABLES).
 *
 * The three copy functions may be called at any time, from any thread, also
 * before the library's constructor has run: they start on the baseline kernel
 * of the architecture.  They take no locks and never allocate.
 *
 * The control functions below (kernel list, forcing, ISA cap, thresholds) are
 * for tests, the benchmark and the tuner.  They are thread-safe with respect
 * to the copy functions (a concurrent call runs on either the old or the new
 * choice), but calls to the control functions themselves must not race each
 * other.
 */
#ifndef MEMASM_H
#define MEMASM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define MEMASM_API __attribute__((visibility("default")))
#else
#define MEMASM_API
#endif

/* The version of this header; memasm_version() is the library's, which a
 * program can compare with MEMASM_VERSION to catch a mismatched install. */
#define MEMASM_VERSION_MAJOR 0
#define MEMASM_VERSION_MINOR 1
#define MEMASM_VERSION_PATCH 0
#define MEMASM_VERSION "0.1.0"

/* ------------------------------------------------------------------------ */
/* Copy functions: the C standard's semantics and return values.            */
/* ------------------------------------------------------------------------ */

/*
 * Copy n bytes from src to dst and return dst.  The regions must not overlap,
 * except that dst == src (self-copy, which compilers emit for struct
 * self-assignment) is allowed and leaves the bytes unchanged.  n == 0 touches
 * neither pointer.  The parameters are not restrict-qualified because they
 * may alias (dst == src); that also keeps this header valid C89 and C++.
 */
MEMASM_API void *memasm_memcpy(void *dst, const void *src, size_t n);

/* Copy n bytes from src to dst, regions may overlap in any way; return dst. */
MEMASM_API void *memasm_memmove(void *dst, const void *src, size_t n);

/* Fill n bytes at dst with (unsigned char)c; return dst. */
MEMASM_API void *memasm_memset(void *dst, int c, size_t n);

/* ------------------------------------------------------------------------ */
/* Introspection and control                                                */
/* ------------------------------------------------------------------------ */

/* The operations a kernel can implement. */
typedef enum memasm_op {
    MEMASM_OP_MEMCPY = 0,
    MEMASM_OP_MEMMOVE = 1,
    MEMASM_OP_MEMSET = 2,
    MEMASM_OP_COUNT
} memasm_op;

/* "memcpy", "memmove" or "memset"; NULL for an invalid op. */
MEMASM_API const char *memasm_op_name(memasm_op op);

/* A kernel of this build, as listed by memasm_kernel_info(). */
typedef struct memasm_kernel_desc {
    const char *name;     /* unique, e.g. "memcpy_avx2"                       */
    memasm_op op;         /* the operation it implements                      */
    const char *isa;      /* ISA level name, e.g. "avx2" (see memasm_isa_*)   */
    int level;            /* index of that level, 0 = baseline                */
    int usable;           /* non-zero when this CPU can run it                */
    int eligible;         /* non-zero when the dispatcher may choose it here:
                             usable, and the CPU has the features that make
                             it worth it (e.g. fast misaligned loads); a
                             usable but not eligible kernel can still be
                             forced, tested and benchmarked               */
    /* The kernel itself, callable directly when usable (tests, benchmark).
     * memcpy/memmove kernels: void *(*)(void *, const void *, size_t);
     * memset kernels:         void *(*)(void *, int, size_t).               */
    void (*fn)(void);
} memasm_kernel_desc;

/* Number of kernels compiled into this build (for this architecture). */
MEMASM_API size_t memasm_kernel_count(void);

/*
 * Describe kernel number i (0 <= i < memasm_kernel_count()) in *out.
 * Returns 0, or -1 (errno EINVAL) when i is out of range or out is NULL.
 */
MEMASM_API int memasm_kernel_info(size_t i, memasm_kernel_desc *out);

/* Index of the kernel called name, or -1 (errno ENOENT) if there is none. */
MEMASM_API long memasm_kernel_find(const char *name);

/* Name of the kernel that currently serves op; NULL for an invalid op. */
MEMASM_API const char *memasm_kernel_current(memasm_op op);

/*
 * Make the kernel called name serve its operation, overriding the automatic
 * choice and the ISA cap.  Returns 0; -1 with errno ENOENT (no such kernel)
 * or ENOTSUP (this CPU cannot run it).  memasm_kernel_auto(op) returns op to
 * the automatic choice.
 */
MEMASM_API int memasm_kernel_force(const char *name);
MEMASM_API int memasm_kernel_auto(memasm_op op);

/*
 * ISA levels, lowest first:
 *   x86_64:  "sse2", "avx2", "avx512"
 *   aarch64: "generic", "neon", "sve"
 *   riscv64: "scalar", "rvv"
 * memasm_isa_count()/memasm_isa_name(i) list them; memasm_isa_cpu() is the
 * highest this CPU supports and memasm_isa_cap() the cap in force.
 */
MEMASM_API int memasm_isa_count(void);
MEMASM_API const char *memasm_isa_name(int level);
MEMASM_API int memasm_isa_level(const char *name); /* -1 if unknown */
MEMASM_API int memasm_isa_cpu(void);
MEMASM_API int memasm_isa_cap(void);

/*
 * Cap the ISA level (by name) and redo the automatic choice for every
 * operation that is not forced.  A level above what the CPU supports caps at
 * the CPU's level; it can never enable a kernel the CPU cannot run.  NULL
 * removes the cap.  Returns 0, or -1 with errno EINVAL for an unknown name.
 * The environment variable MEMASM_ISA sets the same cap at start-up.
 */
MEMASM_API int memasm_isa_set_cap(const char *name);

/* ------------------------------------------------------------------------ */
/* Thresholds                                                               */
/* ------------------------------------------------------------------------ */

/*
 * Size thresholds in bytes that steer strategies inside the kernels.  Keys
 * are the configuration file's ("memcpy.erms_min", "memset.nt_min", ...); see
 * memasm.conf(5) for each key and its default; memasm-info --json prints each
 * key's legal range.  Only the keys of
 * this build's architecture are listed; all are valid names in the
 * configuration.
 */
MEMASM_API size_t memasm_threshold_count(void);
/* Key of threshold number i, or NULL when out of range. */
MEMASM_API const char *memasm_threshold_key(size_t i);

/* Current value of key into *value.  Returns 0, or -1 (errno ENOENT). */
MEMASM_API int memasm_threshold_get(const char *key, size_t *value);

/*
 * Set key to value.  Values outside the key's legal range are clamped into
 * it, and ordering constraints (erms_min <= erms_max) are restored by moving
 * the other bound; *applied (if not NULL) receives the value in force.
 * Returns 0, or -1 with errno ENOENT (unknown key for this architecture).
 * The new set of thresholds is published at once, so a concurrent copy sees
 * either the old or the new set, never a mix.
 */
MEMASM_API int memasm_threshold_set(const char *key, size_t value, size_t *applied);

/* A threshold's value for "never" (a strategy switched off), as
 * memasm_threshold_get reports it and memasm_threshold_set takes it: the
 * configuration file's "never". */
#define MEMASM_NEVER ((size_t)-1)

/* Restore every threshold to the default computed from this CPU. */
MEMASM_API void memasm_threshold_reset(void);

/* Library version string, e.g. "0.1.0". */
MEMASM_API const char *memasm_version(void);

/* ------------------------------------------------------------------------ */
/* Opt-in: small constant sizes expanded by the compiler                    */
/* ------------------------------------------------------------------------ */

/*
 * With `#define MEMASM_INLINE_SMALL` before this header, a call of
 * memasm_memcpy, memasm_memmove or memasm_memset whose size is a constant
 * of at most MEMASM_INLINE_SMALL_MAX bytes (default 16; define it to change
 * it) is expanded by the compiler into a few loads and stores, as it does
 * for memcpy(&x, p, 8); any other call goes to libmemasm.  Semantics and
 * return values are unchanged: a copy loads all its bytes before it stores
 * any (so memasm_memcpy(p, p, n) and overlapping memmoves stay correct, and
 * no overlapping __builtin_memcpy is ever emitted).  It needs GCC or Clang
 * with optimisation, on x86_64 or aarch64 (riscv64 compilers expand small
 * copies byte by byte or call the C library); elsewhere, and at -O0, every
 * call goes to libmemasm.  Above 16 bytes a compiler may emit a call to the
 * C library's memmove instead of the expansion.  The macros are
 * function-like: (memasm_memcpy)(...) and &memasm_memcpy reach the library.
 */
#if defined(MEMASM_INLINE_SMALL) && defined(__GNUC__) && \
    (defined(__x86_64__) || defined(__aarch64__))
#ifndef MEMASM_INLINE_SMALL_MAX
#define MEMASM_INLINE_SMALL_MAX 16
#endif
#if MEMASM_INLINE_SMALL_MAX < 1 || MEMASM_INLINE_SMALL_MAX > 64
#error "MEMASM_INLINE_SMALL_MAX must be 1 to 64"
#endif

/* Through a local buffer: the compiler keeps it in registers, and the
 * expansion is a memmove, valid whatever the overlap.  The parameters have
 * prefixed names, so -Wshadow never meets a program's own. */
static __inline__ __attribute__((__always_inline__)) void *
memasm_inline_move_(void *memasm_dst, const void *memasm_src, size_t memasm_n,
                    int memasm_overlap)
{
    if (__builtin_constant_p(memasm_n) && memasm_n <= MEMASM_INLINE_SMALL_MAX) {
        unsigned char memasm_tmp[MEMASM_INLINE_SMALL_MAX];
        __builtin_memcpy(memasm_tmp, memasm_src, memasm_n);
        return __builtin_memcpy(memasm_dst, memasm_tmp, memasm_n);
    }
    return memasm_overlap ? memasm_memmove(memasm_dst, memasm_src, memasm_n)
                          : memasm_memcpy(memasm_dst, memasm_src, memasm_n);
}

static __inline__ __attribute__((__always_inline__)) void *
memasm_inline_set_(void *memasm_dst, int memasm_c, size_t memasm_n)
{
    if (__builtin_constant_p(memasm_n) && memasm_n <= MEMASM_INLINE_SMALL_MAX)
        return __builtin_memset(memasm_dst, memasm_c, memasm_n);
    return memasm_memset(memasm_dst, memasm_c, memasm_n);
}

#define memasm_memcpy(dst, src, n) memasm_inline_move_((dst), (src), (n), 0)
#define memasm_memmove(dst, src, n) memasm_inline_move_((dst), (src), (n), 1)
#define memasm_memset(dst, c, n) memasm_inline_set_((dst), (c), (n))
#endif /* MEMASM_INLINE_SMALL */

#ifdef __cplusplus
}
#endif
#endif /* MEMASM_H */
