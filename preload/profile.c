/*
 * profile.c -- libmemasm-profile.so: the C library's copy functions served
 * by libmemasm, as in libmemasm-preload.so, and a profile of the calls.
 *
 *   MEMASM_PROFILE=FILE LD_PRELOAD=libmemasm-profile.so program
 *
 * counts every memcpy, memmove and memset call of the program (with the
 * names that map onto them: mempcpy, bcopy, bzero, explicit_bzero, the _chk
 * variants) by size, source alignment and destination alignment, and at
 * exit writes the histograms in the format of the bench/data tables, one
 * key per operation and histogram (memcpy.size, memcpy.src, memcpy.dst,
 * ...), which memasm-bench --mix and memasm-tune --mix read.  "%p" in FILE
 * is the process id, "%%" a percent sign; a relative FILE is in the
 * directory the process started in.
 *
 * Counting.  Each thread counts into a block of its own, taken on its first
 * call and found again through an initial-exec TLS pointer.  A counter is
 * bumped with a relaxed load and store (plain instructions, no lock, no
 * line shared with another thread).  Blocks are mapped (mmap, not malloc:
 * this code runs inside malloc's own calls), pushed once onto a lock-free
 * list and never unmapped; when a thread ends, its counts are added into
 * the shared block and its block, zeroed, goes to the next new thread, so
 * the sum at exit includes the threads that ended and memory follows the
 * threads alive at once: at most MAX_BLOCKS blocks of about 46 KiB, the
 * threads beyond sharing one block with atomic additions.  Sizes up to
 * EXACT_MAX are counted exactly, larger ones in 8 groups per power of two,
 * each written as the mean size of its calls.
 *
 * Safety.  MEMASM_PROFILE is read once, at the first call or at the
 * constructor, and never in a secure-execution process (setuid, file
 * capabilities: AT_SECURE), where the module only forwards.  The file is
 * written at exit through a new temporary file in the same directory
 * (O_CREAT | O_EXCL: never a file or link planted under that name) renamed
 * over FILE, which replaces a symbolic link at FILE rather than following
 * it; a failure is one line on a copy of stderr taken at start-up and
 * changes nothing else (exit status, errno).  A program that crashes or
 * ends with _exit writes no profile; the program's own data never depend
 * on it.  After fork the child starts from zero counts.
 *
 * Compiled with -fno-builtin and -fno-tree-loop-distribute-patterns: no
 * loop here may become a call to memcpy or memset.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h> /* rename */
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "memasm-internal.h"
#include "lines.h"

/* ---- histograms --------------------------------------------------------- */

enum { P_COPY, P_MOVE, P_SET, P_OPS };
static const char *const op_key[P_OPS] = {"memcpy", "memmove", "memset"};

#define EXACT_MAX 1024 /* sizes 0..EXACT_MAX have a bucket each           */
#define LOG_FIRST 10   /* then floor(log2 n) = 10..63, 8 buckets each      */
#define LOG_SUB 8
#define LOG_BUCKETS ((64 - LOG_FIRST) * LOG_SUB)
#define ALIGNS 7       /* 1, 2, 4, ... 64                                  */

struct op_hist {
    _Atomic uint64_t exact[EXACT_MAX + 1];
    _Atomic uint64_t log_calls[LOG_BUCKETS];
    _Atomic uint64_t log_bytes[LOG_BUCKETS]; /* for the bucket's mean size */
    _Atomic uint64_t src[ALIGNS], dst[ALIGNS];
};

struct block {
    struct op_hist op[P_OPS];
    struct block *next;      /* the list of every block, for the sum at exit */
    struct block *free_next; /* the free list (under fold_lock)              */
};
#define BLOCK_COUNTERS (sizeof(struct op_hist) * P_OPS / sizeof(uint64_t))

#define MAX_BLOCKS 256

/* The threads past MAX_BLOCKS count here atomically, and ended threads'
 * counts are added here. */
static struct block shared_block;
static _Atomic(struct block *) blocks;
static atomic_uint nblocks;
static __thread struct block *my_block __attribute__((tls_model("initial-exec")));

/* A thread's end is seen through a key's destructor (the key made by the
 * constructor; its value is the thread's block).  Only for a key whose
 * value glibc keeps in the thread descriptor (the first 32): a later one's
 * pthread_setspecific may allocate, which must not happen inside malloc. */
static pthread_key_t end_key;
static atomic_int end_key_ok;
static pthread_mutex_t fold_lock = PTHREAD_MUTEX_INITIALIZER;
static struct block *free_blocks; /* under fold_lock */

/* Index of a log bucket of n > EXACT_MAX. */
static inline unsigned log_bucket(size_t n)
{
    unsigned o = 63 - (unsigned)__builtin_clzll((unsigned long long)n);
    return (o - LOG_FIRST) * LOG_SUB + (unsigned)(n >> (o - 3)) % LOG_SUB;
}

/* The alignment index of an address: log2 of its largest power-of-two
 * divisor, at most 6 (64 bytes). */
static inline unsigned align_index(const void *p)
{
    return (unsigned)__builtin_ctzll((unsigned long long)(uintptr_t)p | 64);
}

static inline void bump(struct block *b, _Atomic uint64_t *c, uint64_t v)
{
    if (__builtin_expect(b == &shared_block, 0))
        atomic_fetch_add_explicit(c, v, memory_order_relaxed);
    else
        atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + v, memory_order_relaxed);
}

/* ---- the switch: MEMASM_PROFILE ----------------------------------------- */

enum { UNDECIDED, DECIDING, ON, OFF };
static atomic_int state;
static int report_fd = -1; /* a copy of stderr taken when switched on */

#define TARGET_MAX 3072 /* bytes of MEMASM_PROFILE; longer is refused */
#define CWD_MAX 4096    /* a relative name is kept after the directory    */
static char target[CWD_MAX + TARGET_MAX + 2];

/* One line on stderr (the copy, or fd 2 before there is one): the prefix,
 * msg, then up to 64 bytes of untrusted text made printable, then tail. */
static void say(const char *msg, const char *bad, const char *tail)
{
    char line[512];
    size_t len = 0, cap = sizeof line - 1;
    put(line, &len, cap, "libmemasm-profile: ");
    put(line, &len, cap, msg);
    if (bad) {
        size_t i = 0;
        for (; bad[i] && i < 64 && len < cap; i++) {
            unsigned char ch = (unsigned char)bad[i];
            line[len++] = ch < 0x20 || ch > 0x7e ? '?' : (char)ch;
        }
        if (bad[i])
            put(line, &len, cap, "...");
    }
    if (tail)
        put(line, &len, cap, tail);
    line[len++] = '\n';
    ssize_t r = write(report_fd >= 0 ? report_fd : STDERR_FILENO, line, len);
    (void)r;
}

/* Check and keep the value of MEMASM_PROFILE; 0 when it names a file. */
static int take_target(const char *v)
{
    size_t n = 0;
    while (n <= TARGET_MAX && v[n])
        n++;
    if (n == 0) {
        say("MEMASM_PROFILE is empty: nothing recorded", NULL, NULL);
        return -1;
    }
    if (n > TARGET_MAX) {
        say("MEMASM_PROFILE is longer than 3072 bytes: nothing recorded", NULL, NULL);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        if (v[i] == '%' && v[i + 1] != 'p' && v[i + 1] != '%') {
            say("MEMASM_PROFILE: '", v, "': only %p (the process id) and %% may follow a %; nothing recorded");
            return -1;
        } else if (v[i] == '%') {
            i++;
        }
    /* A relative name is taken in the directory the process starts in,
     * wherever it is at exit. */
    size_t len = 0;
    if (v[0] != '/') {
        if (!getcwd(target, CWD_MAX)) {
            say("MEMASM_PROFILE: '", v, "' is relative and the working directory has no name; nothing recorded");
            return -1;
        }
        while (target[len])
            len++;
        if (len > 1)
            target[len++] = '/';
    }
    for (size_t i = 0; i < n; i++)
        target[len++] = v[i];
    target[len] = '\0';
    return 0;
}

static void decide(void)
{
    int expected = UNDECIDED;
    if (!atomic_compare_exchange_strong(&state, &expected, DECIDING))
        return; /* decided, or another thread is deciding: its calls count */
    int saved = errno, on = 0;
    if (!memasm_secure_mode()) {
        const char *v = getenv("MEMASM_PROFILE");
        if (!v)
            say("MEMASM_PROFILE is not set: calls are forwarded, nothing recorded", NULL, NULL);
        else if (take_target(v) == 0)
            on = 1;
    }
    if (on) {
        /* Programs often close stderr in an atexit handler, before this
         * module's destructor reports a failure. */
        report_fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 10);
    }
    errno = saved;
    atomic_store_explicit(&state, on ? ON : OFF, memory_order_release);
}

/* A thread's first counted call: its block (an ended thread's, or a new
 * one). */
static __attribute__((noinline, cold)) struct block *new_block(void)
{
    int saved = errno, recycle = atomic_load_explicit(&end_key_ok, memory_order_acquire);
    struct block *b = NULL;
    if (recycle) {
        pthread_mutex_lock(&fold_lock);
        b = free_blocks;
        if (b)
            free_blocks = b->free_next;
        pthread_mutex_unlock(&fold_lock);
    }
    if (!b && atomic_fetch_add_explicit(&nblocks, 1, memory_order_relaxed) < MAX_BLOCKS) {
        void *p = mmap(NULL, sizeof *b, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p != MAP_FAILED) {
            b = p;
            b->next = atomic_load_explicit(&blocks, memory_order_relaxed);
            while (!atomic_compare_exchange_weak_explicit(&blocks, &b->next, b, memory_order_release,
                                                          memory_order_relaxed))
                ;
        }
    }
    if (!b)
        b = &shared_block;
    else if (recycle)
        pthread_setspecific(end_key, b);
    errno = saved;
    return my_block = b;
}

/* The key's destructor: a thread ends.  Its later calls (other destructors)
 * count atomically in the shared block; its counts move there, and its
 * block, zeroed, to the free list, both under fold_lock, which the sum at
 * exit also takes, so no call is counted twice or lost. */
static void thread_end(void *arg)
{
    struct block *b = arg;
    int saved = errno;
    my_block = &shared_block;
    pthread_mutex_lock(&fold_lock);
    _Atomic uint64_t *from = (_Atomic uint64_t *)b->op, *to = (_Atomic uint64_t *)shared_block.op;
    for (size_t i = 0; i < BLOCK_COUNTERS; i++) {
        uint64_t v = atomic_load_explicit(&from[i], memory_order_relaxed);
        if (v) {
            atomic_fetch_add_explicit(&to[i], v, memory_order_relaxed);
            atomic_store_explicit(&from[i], 0, memory_order_relaxed);
        }
    }
    b->free_next = free_blocks;
    free_blocks = b;
    pthread_mutex_unlock(&fold_lock);
    errno = saved;
}

/* Count one call into this thread's block (inlined into every exported
 * function: a TLS load, three counter bumps). */
static inline __attribute__((always_inline)) void count(int op, const void *dst, const void *src, size_t n)
{
    struct block *b = my_block;
    if (__builtin_expect(!b, 0))
        b = new_block();
    struct op_hist *h = &b->op[op];
    if (n <= EXACT_MAX) {
        bump(b, &h->exact[n], 1);
    } else {
        unsigned k = log_bucket(n);
        bump(b, &h->log_calls[k], 1);
        bump(b, &h->log_bytes[k], n);
    }
    if (src)
        bump(b, &h->src[align_index(src)], 1);
    bump(b, &h->dst[align_index(dst)], 1);
}

/* The process's first call (before the constructor, or racing it). */
static __attribute__((noinline, cold)) void count_first(int op, const void *dst, const void *src, size_t n)
{
    decide();
    if (atomic_load_explicit(&state, memory_order_acquire) == ON)
        count(op, dst, src, n);
}

static inline __attribute__((always_inline)) void record(int op, const void *dst, const void *src, size_t n)
{
    int s = atomic_load_explicit(&state, memory_order_relaxed);
    if (__builtin_expect(s == ON, 1))
        count(op, dst, src, n);
    else if (__builtin_expect(s == UNDECIDED, 0))
        count_first(op, dst, src, n);
}

/* ---- start, fork ---------------------------------------------------------- */

/* Every block's counts to zero (the child of a fork counts its own calls;
 * only its thread runs, so plain stores do). */
static void zero_counts(void)
{
    for (struct block *b = atomic_load(&blocks); b; b = b->next)
        memasm_memset(b->op, 0, sizeof b->op);
    memasm_memset(shared_block.op, 0, sizeof shared_block.op);
}

static void after_fork(void)
{
    if (atomic_load_explicit(&state, memory_order_relaxed) != ON)
        return;
    zero_counts();
    /* A thread of the parent may have held it; none runs here. */
    pthread_mutex_init(&fold_lock, NULL);
}

/* libmemasm's own start-up (its configuration) makes a few calls: they
 * count into a block of their own that no sum reads.  A constructor with a
 * priority runs before the library's own (memasm_init runs once). */
static struct block startup_block;

__attribute__((constructor(101))) static void profile_start(void)
{
    struct block *mine = my_block;
    my_block = &startup_block;
    memasm_init();
    my_block = mine;
    decide();
    if (atomic_load_explicit(&state, memory_order_acquire) != ON)
        return;
    pthread_atfork(NULL, NULL, after_fork);
    if (pthread_key_create(&end_key, thread_end) == 0 && end_key < 32)
        atomic_store_explicit(&end_key_ok, 1, memory_order_release);
}

/* ---- the file ------------------------------------------------------------ */

/* The sum of every block, built at exit, and how many blocks were mapped. */
static struct op_hist total[P_OPS];
static unsigned nmapped;

static uint64_t ld(_Atomic uint64_t *c)
{
    return atomic_load_explicit(c, memory_order_relaxed);
}

static void sum_blocks(void)
{
    /* A thread that is ending moves its counts under fold_lock; wait a
     * little for it, but never forever (exit may come from a signal
     * handler that interrupted the holder). */
    int locked = 0;
    for (int i = 0; i < 1000 && !locked; i++) {
        locked = pthread_mutex_trylock(&fold_lock) == 0;
        if (!locked)
            sched_yield();
    }
    for (int op = 0; op < P_OPS; op++) {
        struct op_hist *t = &total[op];
        for (struct block *b = atomic_load_explicit(&blocks, memory_order_acquire); ; b = b->next) {
            struct op_hist *h = b ? &b->op[op] : &shared_block.op[op];
            for (size_t i = 0; i <= EXACT_MAX; i++)
                t->exact[i] += ld(&h->exact[i]);
            for (size_t i = 0; i < LOG_BUCKETS; i++) {
                t->log_calls[i] += ld(&h->log_calls[i]);
                t->log_bytes[i] += ld(&h->log_bytes[i]);
            }
            for (size_t i = 0; i < ALIGNS; i++) {
                t->src[i] += ld(&h->src[i]);
                t->dst[i] += ld(&h->dst[i]);
            }
            if (!b)
                break;
            if (op == 0)
                nmapped++;
        }
    }
    if (locked)
        pthread_mutex_unlock(&fold_lock);
}

/* Output through a buffer to fd; the first error sticks. */
struct out {
    int fd, err;
    size_t len;
    char buf[4096];
};

static void out_flush(struct out *o)
{
    size_t done = 0;
    while (done < o->len && !o->err) {
        ssize_t w = write(o->fd, o->buf + done, o->len - done);
        if (w > 0)
            done += (size_t)w;
        else if (w < 0 && errno == EINTR)
            continue;
        else
            o->err = w < 0 ? errno : EIO;
    }
    o->len = 0;
}

static void out_str(struct out *o, const char *s)
{
    for (; *s; s++) {
        if (o->len == sizeof o->buf)
            out_flush(o);
        o->buf[o->len++] = *s;
    }
}

static void out_u64(struct out *o, uint64_t v)
{
    char d[24];
    size_t len = 0;
    put_u64(d, &len, sizeof d - 1, v);
    d[len] = '\0';
    out_str(o, d);
}

static void out_row(struct out *o, int op, const char *what, uint64_t value, uint64_t count)
{
    out_str(o, op_key[op]);
    out_str(o, what);
    out_str(o, "\t");
    out_u64(o, value);
    out_str(o, "\t");
    out_u64(o, count);
    out_str(o, "\n");
}

/* The mean size of log bucket k, kept inside the bucket (a sum that
 * wrapped around cannot move it out). */
static uint64_t bucket_mean(unsigned k, uint64_t calls, uint64_t bytes)
{
    unsigned o = LOG_FIRST + k / LOG_SUB;
    uint64_t lo = ((uint64_t)(LOG_SUB + k % LOG_SUB)) << (o - 3);
    uint64_t hi = lo + ((uint64_t)1 << (o - 3)) - 1;
    if (lo <= EXACT_MAX)
        lo = EXACT_MAX + 1;
    uint64_t m = (bytes + calls / 2) / calls;
    return m < lo ? lo : m > hi ? hi : m;
}

static void write_profile(struct out *o)
{
    uint64_t calls[P_OPS] = {0};
    for (int op = 0; op < P_OPS; op++)
        for (size_t i = 0; i < ALIGNS; i++)
            calls[op] += total[op].dst[i];
    out_str(o, "# libmemasm-profile: the memcpy, memmove and memset calls of one process, for\n"
               "# memasm-bench --mix and memasm-tune --mix.\n# pid ");
    out_u64(o, (uint64_t)getpid());
    out_str(o, "; calls: memcpy ");
    out_u64(o, calls[P_COPY]);
    out_str(o, ", memmove ");
    out_u64(o, calls[P_MOVE]);
    out_str(o, ", memset ");
    out_u64(o, calls[P_SET]);
    out_str(o, "; per-thread blocks ");
    out_u64(o, nmapped);
    out_str(o, "\n# Columns: key<TAB>value<TAB>count.  OP.size: the call's size in bytes (sizes above 1024\n"
               "# in 8 groups per power of two, each written as its calls' mean size); OP.src, OP.dst:\n"
               "# the address's alignment (its largest power-of-two divisor, at most 64).\n");
    for (int op = 0; op < P_OPS; op++) {
        struct op_hist *t = &total[op];
        for (uint64_t i = 0; i <= EXACT_MAX; i++)
            if (t->exact[i])
                out_row(o, op, ".size", i, t->exact[i]);
        for (unsigned k = 0; k < LOG_BUCKETS; k++)
            if (t->log_calls[k])
                out_row(o, op, ".size", bucket_mean(k, t->log_calls[k], t->log_bytes[k]), t->log_calls[k]);
        for (unsigned i = 0; i < ALIGNS && op != P_SET; i++)
            if (t->src[i])
                out_row(o, op, ".src", (uint64_t)1 << i, t->src[i]);
        for (unsigned i = 0; i < ALIGNS; i++)
            if (t->dst[i])
                out_row(o, op, ".dst", (uint64_t)1 << i, t->dst[i]);
    }
    out_flush(o);
}

/* target with %p and %% expanded, and then suffix, into buf; 0, or -1 when
 * it does not fit. */
static int file_name(char *buf, size_t cap, const char *suffix, uint64_t suffix_num)
{
    size_t len = 0;
    for (const char *p = target; *p; p++) {
        if (*p == '%' && p[1] == 'p') {
            put_u64(buf, &len, cap, (uint64_t)getpid());
            p++;
        } else {
            if (*p == '%')
                p++;
            if (len < cap)
                buf[len++] = *p;
        }
    }
    if (suffix) {
        put(buf, &len, cap, suffix);
        put_u64(buf, &len, cap, suffix_num);
    }
    if (len >= cap)
        return -1;
    buf[len] = '\0';
    return 0;
}

/* The usual reasons in words (strerror is not async-signal-safe). */
static const char *reason(int err)
{
    switch (err) {
    case ENOENT: return "no such file or directory";
    case EACCES: return "permission denied";
    case EPERM: return "operation not permitted";
    case ENOSPC: return "no space left on device";
    case EDQUOT: return "disk quota exceeded";
    case EROFS: return "read-only file system";
    case EISDIR: return "is a directory";
    case ENOTDIR: return "not a directory";
    case EMFILE: return "too many open files";
    case EIO: return "input/output error";
    default: return NULL;
    }
}

static void fail(const char *what, const char *name, int err)
{
    char tail[160];
    size_t len = 0;
    const char *why = reason(err);
    put(tail, &len, sizeof tail - 1, ": ");
    put(tail, &len, sizeof tail - 1, what);
    put(tail, &len, sizeof tail - 1, " (");
    if (why) {
        put(tail, &len, sizeof tail - 1, why);
    } else {
        put(tail, &len, sizeof tail - 1, "errno ");
        put_u64(tail, &len, sizeof tail - 1, (uint64_t)err);
    }
    put(tail, &len, sizeof tail - 1, "); no profile written");
    tail[len] = '\0';
    say("", name, tail);
}

/* At exit, once: only system calls and this file's code (exit may come
 * from a signal handler; other threads may still be copying, their later
 * calls are simply not in the file). */
__attribute__((destructor)) static void profile_write(void)
{
    static atomic_int written;
    if (atomic_load_explicit(&state, memory_order_acquire) != ON ||
        atomic_exchange_explicit(&written, 1, memory_order_relaxed))
        return;
    int saved = errno;
    static char name[sizeof target + 64], tmp[sizeof target + 128];
    static struct out o;
    if (file_name(name, sizeof name, NULL, 0) != 0) {
        say("the file name is too long once %p is expanded: no profile written", NULL, NULL);
        errno = saved;
        return;
    }
    /* A fresh temporary name; O_EXCL refuses anything already there. */
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t r = (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32);
    int fd = -1;
    for (int tries = 0; fd < 0 && tries < 100; tries++, r = r * 6364136223846793005u + 1442695040888963407u) {
        if (file_name(tmp, sizeof tmp, ".tmp-", r >> 16) != 0)
            break;
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        fail("cannot create a temporary file beside it", name, errno);
        errno = saved;
        return;
    }
    sum_blocks();
    o.fd = fd;
    write_profile(&o);
    if (close(fd) != 0 && !o.err)
        o.err = errno;
    if (o.err) {
        unlink(tmp);
        fail("cannot write", name, o.err);
    } else if (rename(tmp, name) != 0) {
        int e = errno;
        unlink(tmp);
        fail("cannot rename the temporary file to it", name, e);
    }
    errno = saved;
}

/* ---- the exported functions ---------------------------------------------- */

/* What every exported name does (preload/entry-points.h): count, forward. */
static inline void *copy(void *restrict dst, const void *restrict src, size_t n)
{
    record(P_COPY, dst, src, n);
    return memasm_memcpy(dst, src, n);
}

static inline void *move(void *dst, const void *src, size_t n)
{
    record(P_MOVE, dst, src, n);
    return memasm_memmove(dst, src, n);
}

static inline void *set(void *dst, int c, size_t n)
{
    record(P_SET, dst, NULL, n);
    return memasm_memset(dst, c, n);
}

#include "entry-points.h"
