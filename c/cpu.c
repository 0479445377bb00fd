/*
 * cpu.c -- what the CPU (and the OS) let the kernels use.
 *
 * Layer 0 (CPU facts), the bottom: uses only the C library and
 * cpu_features; every other layer may use it.  See c/README.md.
 *
 * x86_64 asks Google's cpu_features; FSRM, which cpu_features 0.7.0 does
 * not report, is read from CPUID leaf 7 directly.  aarch64 reads AT_HWCAP
 * and MIDR_EL1 itself (see detect()).  riscv64 uses
 * the kernel's AT_HWCAP ('V' bit) and, where the running kernel has it, the
 * riscv_hwprobe system call (Debian 12's headers predate it, so the few
 * constants needed are defined here; ENOSYS means "not available").
 *
 * Cache sizes come from cpu_features where it knows them (Intel), then from
 * glibc's sysconf, then from sysfs.  Runs once, from the constructor or from
 * the first control call; never on a copy's call path.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "memasm-internal.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <cpu_features/cpuinfo_x86.h>
#elif defined(__aarch64__)
/* Bits of AT_HWCAP (Linux, arch/arm64/include/uapi/asm/hwcap.h). */
#define A64_HWCAP_ASIMD (1ul << 1)
#define A64_HWCAP_CPUID (1ul << 11)
#define A64_HWCAP_SVE (1ul << 22)
#elif defined(__riscv)
#include <sys/syscall.h>
#endif

static struct memasm_cpu cpu;
static atomic_int cpu_state; /* 0 = not yet, 1 = detecting, 2 = ready */

/* Copy src into dst[cap] without its leading and trailing blanks: CPUID's
 * brand string comes padded with spaces (leading on older Intel parts,
 * trailing on some AMD VMs), and every reader prints or compares it. */
static void copy_str(char *dst, size_t cap, const char *src)
{
    while (*src == ' ')
        src++;
    size_t i = 0;
    for (; i + 1 < cap && src[i]; i++)
        dst[i] = src[i];
    while (i > 0 && dst[i - 1] == ' ')
        i--;
    dst[i] = '\0';
}

/* Parse a sysfs cache size such as "48K" or "1024K"; 0 when unreadable. */
static size_t sysfs_size(const char *path)
{
    char buf[32];
    int saved = errno;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        errno = saved;
        return 0;
    }
    ssize_t got = read(fd, buf, sizeof buf - 1);
    close(fd);
    errno = saved;
    if (got <= 0)
        return 0;
    size_t v = 0;
    ssize_t i = 0;
    for (; i < got && buf[i] >= '0' && buf[i] <= '9' && v < ((size_t)1 << 40); i++)
        v = v * 10 + (size_t)(buf[i] - '0');
    if (i < got && buf[i] == 'K')
        v <<= 10;
    else if (i < got && buf[i] == 'M')
        v <<= 20;
    return v;
}

/* Fill cache sizes that are still unknown, from sysconf and then sysfs. */
static void fill_caches(void)
{
#ifdef _SC_LEVEL1_DCACHE_SIZE
    long v;
    if (!cpu.l1d && (v = sysconf(_SC_LEVEL1_DCACHE_SIZE)) > 0)
        cpu.l1d = (size_t)v;
    if (!cpu.l2 && (v = sysconf(_SC_LEVEL2_CACHE_SIZE)) > 0)
        cpu.l2 = (size_t)v;
    if (!cpu.l3 && (v = sysconf(_SC_LEVEL3_CACHE_SIZE)) > 0)
        cpu.l3 = (size_t)v;
#endif
    /* sysfs: index0 is L1d on every kernel we know, then L1i, L2, L3. */
    static const char *const paths[] = {
        "/sys/devices/system/cpu/cpu0/cache/index0/size",
        "/sys/devices/system/cpu/cpu0/cache/index2/size",
        "/sys/devices/system/cpu/cpu0/cache/index3/size",
    };
    if (!cpu.l1d)
        cpu.l1d = sysfs_size(paths[0]);
    if (!cpu.l2)
        cpu.l2 = sysfs_size(paths[1]);
    if (!cpu.l3)
        cpu.l3 = sysfs_size(paths[2]);
}

#if defined(__x86_64__)
static void detect(void)
{
    X86Info info = GetX86Info();
    if (info.features.sse2)
        cpu.features |= MEMASM_F_X86_SSE2;
    if (info.features.avx2)
        cpu.features |= MEMASM_F_X86_AVX2;
    if (info.features.avx512f)
        cpu.features |= MEMASM_F_X86_AVX512F;
    if (info.features.avx512bw)
        cpu.features |= MEMASM_F_X86_AVX512BW;
    if (info.features.avx512vl)
        cpu.features |= MEMASM_F_X86_AVX512VL;
    if (info.features.erms)
        cpu.features |= MEMASM_F_X86_ERMS;
    if (info.features.bmi2)
        cpu.features |= MEMASM_F_X86_BMI2;
    unsigned a, b, c, d;
    if (__get_cpuid_max(0, NULL) >= 7) {
        __cpuid_count(7, 0, a, b, c, d);
        if (d & (1u << 4))
            cpu.features |= MEMASM_F_X86_FSRM;
    }
    (void)a, (void)b, (void)c;
    copy_str(cpu.vendor, sizeof cpu.vendor, info.vendor);
    copy_str(cpu.brand, sizeof cpu.brand, info.brand_string);
    cpu.family = info.family;
    cpu.model = info.model;
    cpu.stepping = info.stepping;

    const uint32_t avx512 = MEMASM_F_X86_AVX512F | MEMASM_F_X86_AVX512BW | MEMASM_F_X86_AVX512VL;
    if ((cpu.features & avx512) == avx512)
        cpu.isa_max = 2;
    else if (cpu.features & MEMASM_F_X86_AVX2)
        cpu.isa_max = 1;
    else
        cpu.isa_max = 0;

    CacheInfo ci = GetX86CacheInfo();
    for (int i = 0; i < ci.size && i < CPU_FEATURES_MAX_CACHE_LEVEL; i++) {
        const CacheLevelInfo *l = &ci.levels[i];
        if (l->cache_size <= 0)
            continue;
        if (l->level == 1 && l->cache_type == CPU_FEATURE_CACHE_DATA)
            cpu.l1d = (size_t)l->cache_size;
        else if (l->level == 2 && l->cache_type != CPU_FEATURE_CACHE_INSTRUCTION)
            cpu.l2 = (size_t)l->cache_size;
        else if (l->level == 3 && l->cache_type != CPU_FEATURE_CACHE_INSTRUCTION)
            cpu.l3 = (size_t)l->cache_size;
    }
}

#elif defined(__aarch64__)
/*
 * AT_HWCAP directly, not cpu_features: its aarch64 build falls back to
 * reading /proc/self/auxv when AT_HWCAP2 is 0, as it is on every ARMv8.0
 * core (Cortex-A53/A57/A72), and says so with puts() -- a line on the
 * standard output of every program linked with libmemasm.  MIDR_EL1
 * (implementer, part, variant, revision: the fingerprint) is readable at
 * EL0 when the kernel emulates it, which HWCAP_CPUID announces.
 */
static void detect(void)
{
    unsigned long hwcap = getauxval(AT_HWCAP);
    if (hwcap & A64_HWCAP_ASIMD)
        cpu.features |= MEMASM_F_A64_ASIMD;
    if (hwcap & A64_HWCAP_SVE)
        cpu.features |= MEMASM_F_A64_SVE;
    copy_str(cpu.vendor, sizeof cpu.vendor, "ARM");
    if (hwcap & A64_HWCAP_CPUID) {
        uint64_t midr;
        __asm__ volatile("mrs %0, midr_el1" : "=r"(midr));
        cpu.family = (int)(midr >> 24 & 0xff);
        cpu.model = (int)(midr >> 4 & 0xfff);
        cpu.stepping = (int)((midr >> 20 & 0xf) * 16 + (midr & 0xf));
    }

    /* DCZID_EL0 is readable at EL0: bit 4 prohibits dc zva, bits 3:0 give
     * log2 of the block size in 4-byte words. */
    uint64_t dczid;
    __asm__ volatile("mrs %0, dczid_el0" : "=r"(dczid));
    if (!(dczid & 16)) {
        cpu.features |= MEMASM_F_A64_DCZVA;
        cpu.zva_size = 4u << (dczid & 15);
    }

    if (cpu.features & MEMASM_F_A64_SVE)
        cpu.isa_max = 2;
    else if (cpu.features & MEMASM_F_A64_ASIMD)
        cpu.isa_max = 1;
    else
        cpu.isa_max = 0;
}

#elif defined(__riscv)
/* riscv_hwprobe (Linux 6.4+); defined here because Debian 12's headers
 * predate it. */
#ifndef __NR_riscv_hwprobe
#define __NR_riscv_hwprobe 258
#endif
struct memasm_hwprobe {
    int64_t key;
    uint64_t value;
};
#define HWPROBE_KEY_MVENDORID 0
#define HWPROBE_KEY_MARCHID 1
#define HWPROBE_KEY_IMA_EXT_0 4
#define HWPROBE_IMA_V (1u << 2)
#define HWPROBE_KEY_CPUPERF_0 5
#define HWPROBE_MISALIGNED_MASK 7
#define HWPROBE_MISALIGNED_FAST 3
#define HWPROBE_KEY_MISALIGNED_SCALAR_PERF 9

static void detect(void)
{
    unsigned long hwcap = getauxval(AT_HWCAP);
    int v = (hwcap >> ('V' - 'A')) & 1;

    struct memasm_hwprobe p[5] = {
        {HWPROBE_KEY_MVENDORID, 0}, {HWPROBE_KEY_MARCHID, 0},
        {HWPROBE_KEY_IMA_EXT_0, 0}, {HWPROBE_KEY_CPUPERF_0, 0},
        {HWPROBE_KEY_MISALIGNED_SCALAR_PERF, 0},
    };
    int saved = errno;
    long r = syscall(__NR_riscv_hwprobe, p, 5, 0, NULL, 0);
    errno = saved;
    if (r == 0) {
        /* A key the kernel does not know comes back with key = -1. */
        if (p[2].key >= 0)
            v = (p[2].value & HWPROBE_IMA_V) != 0;
        if (p[4].key >= 0 ? p[4].value == HWPROBE_MISALIGNED_FAST
                          : (p[3].key >= 0 && (p[3].value & HWPROBE_MISALIGNED_MASK) ==
                                                  HWPROBE_MISALIGNED_FAST))
            cpu.features |= MEMASM_F_RV_MISALIGNED_FAST;
        if (p[0].key >= 0)
            cpu.family = (int)p[0].value;
        if (p[1].key >= 0)
            cpu.model = (int)p[1].value;
    }
    copy_str(cpu.vendor, sizeof cpu.vendor, "riscv");
    if (v) {
        unsigned long vlenb;
        __asm__ volatile(".option push\n\t.option arch, +v\n\t"
                         "csrr %0, vlenb\n\t.option pop"
                         : "=r"(vlenb));
        cpu.features |= MEMASM_F_RV_V;
        cpu.vlen = (unsigned)(vlenb * 8);
    }
    cpu.isa_max = v ? 1 : 0;
}
#else
#error "unsupported architecture"
#endif

const struct memasm_cpu *memasm_cpu_get(void)
{
    int expected = 0;
    if (atomic_compare_exchange_strong(&cpu_state, &expected, 1)) {
        detect();
        fill_caches();
        atomic_store_explicit(&cpu_state, 2, memory_order_release);
    } else {
        /* Another thread is detecting: wait for it (only at start-up). */
        while (atomic_load_explicit(&cpu_state, memory_order_acquire) != 2)
            ;
    }
    return &cpu;
}
