/*
 * test-profile.c -- a program whose copy calls are known, for
 * preload/preload-profile.sh.
 *
 *   test-profile calls   makes the calls of the table below (through every
 *                        exported name: memcpy, mempcpy, memmove, bcopy,
 *                        memset, bzero, explicit_bzero and the _chk ones)
 *                        from the main thread, from a thread that ends
 *                        before the others start, and from two threads at
 *                        once; prints what a profile of them must hold, one
 *                        "key<TAB>value<TAB>count" line per entry (the
 *                        script adds up equal keys), then a checksum of the
 *                        buffers, so that a run with a module and one
 *                        without must print the same bytes
 *   test-profile fork    the same calls in the parent; a child (fork, then
 *                        exit) makes one memset of 77 bytes
 *   test-profile threads N  the main thread's calls, then N threads one
 *                        after another, each making them too
 *
 * Sizes above 1024 are chosen one per group of the profile's histogram, so
 * each group's mean is the size itself.  Compiled with -fno-builtin: every
 * call below is a call.  Exit status 0, or 1 when a check fails.
 */
#define _GNU_SOURCE
#include "config.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

void *__memcpy_chk(void *dst, const void *src, size_t n, size_t dstlen);
void *__memmove_chk(void *dst, const void *src, size_t n, size_t dstlen);
void *__memset_chk(void *dst, int c, size_t n, size_t dstlen);
void *__mempcpy_chk(void *dst, const void *src, size_t n, size_t dstlen);
void __explicit_bzero_chk(void *dst, size_t n, size_t dstlen);

enum name { MEMCPY, MEMPCPY, MEMCPY_CHK, MEMPCPY_CHK, MEMMOVE, BCOPY, MEMMOVE_CHK, MEMSET, BZERO,
            EXPLICIT_BZERO, MEMSET_CHK, EXPLICIT_BZERO_CHK };

struct call {
    enum name fn;
    size_t n;
    unsigned src_off, dst_off; /* from 4096-aligned buffers */
    unsigned times;
};

static const struct call calls[] = {
    {MEMCPY, 7, 0, 0, 100},          {MEMCPY, 7, 1, 3, 20},        {MEMCPY, 0, 8, 16, 5},
    {MEMCPY, 1024, 32, 64, 3},       {MEMCPY, 1025, 2, 4, 2},      {MEMCPY, 5000, 0, 128, 4},
    {MEMCPY, 100000, 4, 0, 1},       {MEMCPY, (size_t)3 << 20, 0, 0, 1},
    {MEMPCPY, 33, 16, 48, 10},       {MEMCPY_CHK, 12, 0, 6, 7},    {MEMPCPY_CHK, 200, 24, 40, 3},
    {MEMMOVE, 64, 0, 32, 11},        {MEMMOVE, 300, 5, 0, 2},      {BCOPY, 9, 12, 8, 6},
    {MEMMOVE_CHK, 70000, 64, 0, 1},  {MEMSET, 40, 0, 8, 50},       {MEMSET, 4095, 0, 1, 2},
    {BZERO, 16, 0, 0, 9},            {EXPLICIT_BZERO, 24, 0, 2, 4}, {MEMSET_CHK, 2048, 0, 1024, 3},
    {EXPLICIT_BZERO_CHK, 1, 0, 63, 8},
};
#define NCALLS (sizeof calls / sizeof calls[0])

#define BUF ((size_t)8 << 20)
static unsigned char *buf_a, *buf_b;

static void make(const struct call *c, unsigned char *a, unsigned char *b)
{
    unsigned char *dst = b + c->dst_off, *src = a + c->src_off;
    for (unsigned i = 0; i < c->times; i++) {
        switch (c->fn) {
        case MEMCPY: memcpy(dst, src, c->n); break;
        case MEMPCPY: mempcpy(dst, src, c->n); break;
        case MEMCPY_CHK: __memcpy_chk(dst, src, c->n, c->n); break;
        case MEMPCPY_CHK: __mempcpy_chk(dst, src, c->n, c->n + 1); break;
        case MEMMOVE: memmove(dst, src, c->n); break;
        case BCOPY: bcopy(src, dst, c->n); break;
        case MEMMOVE_CHK: __memmove_chk(dst, src, c->n, c->n); break;
        case MEMSET: memset(dst, (int)(i + c->n), c->n); break;
        case BZERO: bzero(dst, c->n); break;
        case EXPLICIT_BZERO: explicit_bzero(dst, c->n); break;
        case MEMSET_CHK: __memset_chk(dst, 0x3c, c->n, c->n); break;
        case EXPLICIT_BZERO_CHK: __explicit_bzero_chk(dst, c->n, c->n); break;
        }
        /* Vary the source so the checksum depends on every copy. */
        a[(c->src_off + i) % BUF] ^= (unsigned char)(i * 31 + 7);
    }
}

static const char *op_of(enum name fn)
{
    return fn <= MEMPCPY_CHK ? "memcpy" : fn <= MEMMOVE_CHK ? "memmove" : "memset";
}

/* The profile's alignment of an offset from a 4096-aligned buffer. */
static unsigned align_of(unsigned off)
{
    return off == 0 || (off & -off) >= 64 ? 64 : off & -off;
}

/* What the table's calls, made `runs` times over, put into a profile. */
static void print_expected(unsigned runs)
{
    for (size_t i = 0; i < NCALLS; i++) {
        const struct call *c = &calls[i];
        const char *op = op_of(c->fn);
        unsigned k = c->times * runs;
        printf("%s.size\t%zu\t%u\n", op, c->n, k);
        if (strcmp(op, "memset") != 0)
            printf("%s.src\t%u\t%u\n", op, align_of(c->src_off), k);
        printf("%s.dst\t%u\t%u\n", op, align_of(c->dst_off), k);
    }
}

/* Each thread copies between buffers of its own. */
static void *thread_main(void *arg)
{
    unsigned char *a = arg, *b = a + BUF;
    for (size_t i = 0; i < NCALLS; i++)
        make(&calls[i], a, b);
    return NULL;
}

static uint64_t checksum(const unsigned char *p, size_t n, uint64_t h)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3u;
    return h;
}

static unsigned char *buffers(void)
{
    unsigned char *p = aligned_alloc(4096, 2 * BUF);
    if (!p) {
        fprintf(stderr, "test-profile: out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < 2 * BUF; i++)
        p[i] = (unsigned char)(i * 131 + (i >> 12));
    return p;
}

int main(int argc, char **argv)
{
    int threads = argc == 3 && strcmp(argv[1], "threads") == 0 ? atoi(argv[2]) : -1;
    if (!(argc == 2 && (strcmp(argv[1], "calls") == 0 || strcmp(argv[1], "fork") == 0)) && threads < 1) {
        fprintf(stderr, "usage: test-profile calls|fork|threads N\n");
        return 2;
    }
    unsigned char *mem = buffers();
    buf_a = mem;
    buf_b = mem + BUF;
    unsigned char *th[3] = {buffers(), buffers(), buffers()};
    for (size_t i = 0; i < NCALLS; i++)
        make(&calls[i], buf_a, buf_b);
    unsigned runs = 1;
    if (threads > 0) {
        for (int i = 0; i < threads; i++) {
            pthread_t t;
            if (pthread_create(&t, NULL, thread_main, th[0]) != 0 || pthread_join(t, NULL) != 0) {
                fprintf(stderr, "test-profile: thread %d failed\n", i);
                return 1;
            }
        }
        runs += (unsigned)threads;
    } else if (strcmp(argv[1], "calls") == 0) {
        /* One thread that ends before the others start, then two at once. */
        pthread_t t[3];
        if (pthread_create(&t[0], NULL, thread_main, th[0]) != 0 || pthread_join(t[0], NULL) != 0 ||
            pthread_create(&t[1], NULL, thread_main, th[1]) != 0 ||
            pthread_create(&t[2], NULL, thread_main, th[2]) != 0 || pthread_join(t[1], NULL) != 0 ||
            pthread_join(t[2], NULL) != 0) {
            fprintf(stderr, "test-profile: threads failed\n");
            return 1;
        }
        runs = 4;
    } else {
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            memset(buf_b, 1, 77);
            exit(0);
        }
        int st;
        if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            fprintf(stderr, "test-profile: the child failed\n");
            return 1;
        }
    }
    /* Away from the start directory, where a relative MEMASM_PROFILE must
     * still be written. */
    if (chdir("/") != 0)
        return 1;
    print_expected(runs);
    uint64_t h = checksum(mem, 2 * BUF, 0xcbf29ce484222325u);
    for (int i = 0; i < 3 && runs > 1; i++)
        h = checksum(th[i], 2 * BUF, h); /* (unused ones are as initialised) */
    printf("checksum %016llx\n", (unsigned long long)h);
    return 0;
}
