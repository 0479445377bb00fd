/*
 * candidates.c -- memasm-bench's candidates: libmemasm's entry points, the
 * system C library, the peers configure found (LLVM libc, musl), single
 * kernels of libmemasm's master list, and other libmemasm builds (--lib).
 */
#include "config.h"

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <gnu/libc-version.h>
#endif

#include "memasm-internal.h"
#include "memasm.h"
#include "bench.h"

/* ---- peers -------------------------------------------------------------- */

/* A peer's archive (configure's path) and its three renamed functions, or
 * NULLs when configure did not find it. */
#ifdef MEMASM_BENCH_LLVMLIBC
void *memasm_peer_llvmlibc_memcpy(void *, const void *, size_t);
void *memasm_peer_llvmlibc_memmove(void *, const void *, size_t);
void *memasm_peer_llvmlibc_memset(void *, int, size_t);
#define PEER_LLVMLIBC MEMASM_BENCH_LLVMLIBC, memasm_peer_llvmlibc_memcpy, \
    memasm_peer_llvmlibc_memmove, memasm_peer_llvmlibc_memset
#else
#define PEER_LLVMLIBC NULL, NULL, NULL, NULL
#endif
#ifdef MEMASM_BENCH_MUSL
void *memasm_peer_musl_memcpy(void *, const void *, size_t);
void *memasm_peer_musl_memmove(void *, const void *, size_t);
void *memasm_peer_musl_memset(void *, int, size_t);
#define PEER_MUSL MEMASM_BENCH_MUSL, memasm_peer_musl_memcpy, memasm_peer_musl_memmove, \
    memasm_peer_musl_memset
#else
#define PEER_MUSL NULL, NULL, NULL, NULL
#endif

struct peer {
    const char *name;    /* candidate name and column label                 */
    const char *label;   /* what it is, for the description                 */
    const char *archive; /* where its objects came from; NULL: not found    */
    copy_fn cpy, mov;
    set_fn set;
    const char *missing; /* why it is not available, when archive is NULL   */
};

static const struct peer peers[] = {
    {"llvm-libc", "LLVM libc", PEER_LLVMLIBC,
     "configure found no LLVM libc archive (apt-get install libllvmlibc-22-dev, or --with-llvm-libc=ARCHIVE; none on cross builds)"},
    {"musl", "musl", PEER_MUSL,
     "configure found no musl libc.a (apt-get install musl-dev, or --with-musl=ARCHIVE; none on cross builds)"},
};

/* The system library's functions, read through volatile pointers so the
 * compiler cannot see which function is called and replace it with its
 * built-in expansion. */
static copy_fn volatile sys_memcpy = memcpy;
static copy_fn volatile sys_memmove = memmove;
static set_fn volatile sys_memset = memset;

/* ---- candidates --------------------------------------------------------- */

struct cand cands[MAX_CANDS];
int ncands;
int ref_index;

static struct cand *cand_add(const char *name)
{
    if (ncands == MAX_CANDS) {
        fprintf(stderr, "memasm-bench: too many candidates (at most %d)\n", MAX_CANDS);
        exit(2);
    }
    struct cand *c = &cands[ncands++];
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", name);
    return c;
}

const char *sys_libc_name(void)
{
#ifdef __GLIBC__
    return "glibc";
#else
    return "libc";
#endif
}

/* Add the built-in candidate called name; returns 0, -1 if unknown. */
int cand_add_builtin(const char *name)
{
    struct cand *c;
    if (strcmp(name, "memasm") == 0) {
        c = cand_add("memasm");
        c->available = 1;
        /* what a program linked with libmemasm.so runs on this CPU */
        struct memasm_entries e;
        memasm_entries_bound(&e);
        c->cpy = e.cpy;
        c->mov = e.mov;
        c->set = e.set;
        snprintf(c->desc, sizeof c->desc, "libmemasm %s %s entry points (memcpy: %s, memmove: %s, memset: %s)",
                 memasm_version(), e.name, memasm_kernel_current(MEMASM_OP_MEMCPY),
                 memasm_kernel_current(MEMASM_OP_MEMMOVE), memasm_kernel_current(MEMASM_OP_MEMSET));
    } else if (strcmp(name, sys_libc_name()) == 0 || strcmp(name, "libc") == 0) {
        c = cand_add(sys_libc_name());
        c->available = 1;
        c->cpy = sys_memcpy;
        c->mov = sys_memmove;
        c->set = sys_memset;
#ifdef __GLIBC__
        snprintf(c->desc, sizeof c->desc, "system C library, glibc %s (its own run-time choice), via function pointer",
                 gnu_get_libc_version());
#else
        snprintf(c->desc, sizeof c->desc, "system C library, via function pointer");
#endif
    } else {
        for (size_t i = 0; i < sizeof peers / sizeof peers[0]; i++) {
            const struct peer *p = &peers[i];
            if (strcmp(name, p->name) != 0)
                continue;
            c = cand_add(p->name);
            if (p->archive) {
                c->available = 1;
                c->cpy = p->cpy;
                c->mov = p->mov;
                c->set = p->set;
                snprintf(c->desc, sizeof c->desc, "%s, objects from %s, renamed at build time", p->label,
                         p->archive);
            } else {
                snprintf(c->desc, sizeof c->desc, "NOT AVAILABLE: %s", p->missing);
            }
            return 0;
        }
        return -1;
    }
    return 0;
}

/* Whether the object opened as h defines NAME itself: dlsym on a handle also
 * searches the object's dependencies, where the C library's memcpy is. */
static int defines_own(void *h, const char *name)
{
    struct link_map *lm;
    Dl_info info;
    void *p = dlsym(h, name);
    return p && dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && dladdr(p, &info) &&
           info.dli_fname && lm->l_name && strcmp(info.dli_fname, lm->l_name) == 0;
}

/*
 * Add the entry points of another libmemasm build, NAME=PATH (a shared
 * libmemasm.so): loaded with RTLD_LOCAL, so its dispatcher, thresholds and
 * kernels are its own, side by side with the one linked in.  Two builds in
 * one process, interleaved round by round, is the way to compare a change
 * at small sizes, where separate runs land a cycle apart.  Returns 0, or
 * -1 after a message for a malformed argument; a library that does not
 * load is a candidate marked NOT AVAILABLE with the loader's reason.
 */
int cand_add_lib(const char *arg)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || !eq[1]) {
        fprintf(stderr, "memasm-bench: --lib wants NAME=PATH (PATH: a libmemasm.so)\n");
        return -1;
    }
    char name[40];
    snprintf(name, sizeof name, "%.*s", (int)(eq - arg), arg);
    struct cand *c = cand_add(name);
    void *h = dlopen(eq + 1, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(c->desc, sizeof c->desc, "NOT AVAILABLE: %s", dlerror());
        return 0;
    }
    c->cpy = (copy_fn)dlsym(h, "memasm_memcpy");
    c->mov = (copy_fn)dlsym(h, "memasm_memmove");
    c->set = (set_fn)dlsym(h, "memasm_memset");
    const char *what = "libmemasm entry points";
    if (!c->cpy && !c->mov && !c->set && defines_own(h, "memcpy") && defines_own(h, "memmove") &&
        defines_own(h, "memset")) {
        /* a drop-in module (libmemasm-preload.so): the C library's names,
         * what a program that preloads it calls */
        c->cpy = (copy_fn)dlsym(h, "memcpy");
        c->mov = (copy_fn)dlsym(h, "memmove");
        c->set = (set_fn)dlsym(h, "memset");
        what = "the C library's names";
    }
    if (!c->cpy || !c->mov || !c->set) {
        snprintf(c->desc, sizeof c->desc,
                 "NOT AVAILABLE: %s has neither memasm_memcpy/memmove/memset nor memcpy/memmove/memset of its own",
                 eq + 1);
        c->cpy = c->mov = NULL;
        c->set = NULL;
        return 0;
    }
    c->available = 1;
    snprintf(c->desc, sizeof c->desc, "%s from %s (its own dispatcher)", what, eq + 1);
    return 0;
}

/* Add kernel NAME from libmemasm's master list; returns 0 or -1 (message). */
int cand_add_kernel(const char *name)
{
    long i = memasm_kernel_find(name);
    memasm_kernel_desc d;
    if (i < 0 || memasm_kernel_info((size_t)i, &d) != 0) {
        fprintf(stderr, "memasm-bench: no kernel called '%s' (--list shows them)\n", name);
        return -1;
    }
    struct cand *c = cand_add(d.name);
    if (!d.usable) {
        snprintf(c->desc, sizeof c->desc, "NOT AVAILABLE: kernel %s (%s) needs CPU features this machine lacks",
                 d.name, d.isa);
        return 0;
    }
    c->available = 1;
    switch (d.op) {
    case MEMASM_OP_MEMCPY:
        c->cpy = (copy_fn)d.fn;
        break;
    case MEMASM_OP_MEMMOVE: /* a memmove kernel is also a memcpy */
        c->cpy = (copy_fn)d.fn;
        c->mov = (copy_fn)d.fn;
        break;
    case MEMASM_OP_MEMSET:
        c->set = (set_fn)d.fn;
        break;
    default:
        break;
    }
    snprintf(c->desc, sizeof c->desc, "libmemasm kernel %s (%s, ISA level %s), called directly", d.name,
             memasm_op_name(d.op), d.isa);
    return 0;
}
