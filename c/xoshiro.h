/*
 * xoshiro.h -- the pseudo-random generator of the tests and the benchmark
 * (xoshiro256**, seeded through splitmix64).  Not used by the library.
 *
 * Both need reproducible streams from a printed seed; one definition keeps
 * a seed meaning the same sequence in both.
 */
#ifndef MEMASM_XOSHIRO_H
#define MEMASM_XOSHIRO_H

#include <stdint.h>

/* splitmix64: advance *x and return a well-mixed 64-bit value (used to
 * expand one seed into the four words of xoshiro's state). */
static inline uint64_t memasm_splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static inline uint64_t memasm_rotl64(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/* xoshiro256**: next value of the stream whose state is s[4]. */
static inline uint64_t memasm_xoshiro_next(uint64_t s[4])
{
    uint64_t out = memasm_rotl64(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = memasm_rotl64(s[3], 45);
    return out;
}

#endif
