# tests/local.mk -- test suites, included from Makefile.am.
#
# Check programs (linked with libmemasm statically, so they run under
# qemu-user with no libtool wrapper):
#   tests/test_conform    every kernel against a byte-loop reference,
#                         default thresholds, plus one 64 MiB call each
#   tests/test_profiles   the same under every threshold profile
#   tests/test_abi        every kernel through the ABI checker
#   tests/test_abi_broken the checker catches a deliberately broken kernel
#   tests/test_dispatch   caps, forcing, threads from start-up on
#   tests/test_entry      the public entry points' own small-size paths
#   tests/dispatch-env.sh MEMASM_ISA from the environment
#   tests/sve-vl          aarch64: the emulated CPU's SVE length (rdvl) and
#                         the kernels chosen for it
# tests/config.mk adds the configuration suites, tests/reliability.mk the
# threads/fork/signals suite and make check-slow (sizes across 2 and
# 4 GiB), tests/valgrind.mk make check-valgrind; tests/README.md lists
# them all.
# On a cross build every test runs under $(TEST_EMULATOR) with CK_FORK=no
# (tests/run-test.sh); on riscv64 the whole set runs five times: without V
# and with V at VLEN 128, 256, 512 and 1024; on aarch64 five times too: SVE
# at 128, 256, 512 and 2048 bits, and a Cortex-A57 without SVE.

include tests/config.mk
include tests/reliability.mk
include tests/valgrind.mk

EXTRA_DIST += tests/run-test.sh tests/dispatch-env.sh tests/exports.sh

# The shared library's export list and the header's version (no program
# runs, so the same on every build).
TESTS += tests/exports.sh

TEST_EXTENSIONS = .sh .rvnov .rvv128 .rvv256 .rvv512 .rvv1024 \
	.a64sve128 .a64sve256 .a64sve512 .a64sve2048 .a64nosve
AM_TESTS_ENVIRONMENT = TEST_EMULATOR='$(TEST_EMULATOR)'; export TEST_EMULATOR; \
	NM='$(NM)'; export NM;

if HAVE_CHECK

# Shared machinery and the ABI trampoline of this architecture.
check_LTLIBRARIES += tests/libmemasm-test.la tests/libmemasm-broken.la
tests_libmemasm_test_la_SOURCES = c/xoshiro.h tests/harness.c tests/harness.h tests/abi/abi.h \
	tests/abi_common.h tests/memcheck.c tests/memcheck.h
tests_libmemasm_test_la_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_libmemasm_broken_la_SOURCES =
if HOST_X86_64
tests_libmemasm_test_la_SOURCES += tests/abi/x86_64.asm
tests_libmemasm_broken_la_SOURCES += tests/abi/broken-x86_64.asm
endif
if HOST_AARCH64
tests_libmemasm_test_la_SOURCES += tests/abi/aarch64.S
tests_libmemasm_broken_la_SOURCES += tests/abi/broken-aarch64.S
endif
if HOST_RISCV64
tests_libmemasm_test_la_SOURCES += tests/abi/riscv64.S
tests_libmemasm_broken_la_SOURCES += tests/abi/broken-riscv64.S
endif

memasm_test_progs = tests/test_conform tests/test_profiles tests/test_abi \
	tests/test_abi_broken tests/test_dispatch tests/test_entry
check_PROGRAMS += $(memasm_test_progs)

memasm_test_cflags = $(AM_CFLAGS) $(CHECK_CFLAGS) -pthread
memasm_test_ldflags = -static -pthread
memasm_test_ldadd = tests/libmemasm-test.la libmemasm.la $(CHECK_LIBS)

tests_test_conform_SOURCES = tests/conform.c
tests_test_conform_CFLAGS = $(memasm_test_cflags)
tests_test_conform_LDFLAGS = $(memasm_test_ldflags)
tests_test_conform_LDADD = $(memasm_test_ldadd)

tests_test_profiles_SOURCES = tests/conform.c
tests_test_profiles_CPPFLAGS = $(AM_CPPFLAGS) -DT_PROFILES
tests_test_profiles_CFLAGS = $(memasm_test_cflags)
tests_test_profiles_LDFLAGS = $(memasm_test_ldflags)
tests_test_profiles_LDADD = $(memasm_test_ldadd)

tests_test_abi_SOURCES = tests/test_abi.c
tests_test_abi_CFLAGS = $(memasm_test_cflags)
tests_test_abi_LDFLAGS = $(memasm_test_ldflags)
tests_test_abi_LDADD = $(memasm_test_ldadd)

tests_test_abi_broken_SOURCES = tests/test_abi_broken.c
tests_test_abi_broken_CFLAGS = $(memasm_test_cflags)
tests_test_abi_broken_LDFLAGS = $(memasm_test_ldflags)
tests_test_abi_broken_LDADD = tests/libmemasm-broken.la $(memasm_test_ldadd)

tests_test_dispatch_SOURCES = tests/test_dispatch.c
tests_test_dispatch_CFLAGS = $(memasm_test_cflags)
tests_test_dispatch_LDFLAGS = $(memasm_test_ldflags)
tests_test_dispatch_LDADD = $(memasm_test_ldadd)

tests_test_entry_SOURCES = tests/test_entry.c
tests_test_entry_CFLAGS = $(memasm_test_cflags)
tests_test_entry_LDFLAGS = $(memasm_test_ldflags)
tests_test_entry_LDADD = $(memasm_test_ldadd)

memasm_tests = $(memasm_test_progs) tests/dispatch-env.sh

# aarch64: which CPU each emulated run really is (rdvl, the kernels chosen).
if HOST_AARCH64
check_PROGRAMS += tests/sve-vl
tests_sve_vl_SOURCES = tests/sve-vl.c
tests_sve_vl_LDFLAGS = -static
tests_sve_vl_LDADD = libmemasm.la
endif

# x86_64: where libmemasm.so binds its public names on this CPU and on
# emulated ones (c/entry-select.c); a program linked with the shared
# library, so -no-install (it runs without libtool's wrapper, also under
# qemu-x86_64).  On a cross build the script skips.
if HOST_X86_64
check_PROGRAMS += tests/entry-select
tests_entry_select_SOURCES = tests/entry-select.c
tests_entry_select_LDFLAGS = -no-install
tests_entry_select_LDADD = libmemasm.la
TESTS += tests/entry-select.sh
endif
EXTRA_DIST += tests/entry-select.sh

if TESTS_EMULATED
LOG_COMPILER = $(SHELL) $(top_srcdir)/tests/run-test.sh
SH_LOG_COMPILER = $(SHELL) $(top_srcdir)/tests/run-test.sh
if HOST_RISCV64
# Five emulated CPUs, each a separate run with its own logs: the stub
# tests/<name>-<cpu>.<ext> runs tests/<name> (tests/run-test.sh), and its
# log is tests/<name>-<cpu>.log.
RVNOV_LOG_COMPILER = $(SHELL) $(top_srcdir)/tests/run-test.sh rv64
RVV128_LOG_COMPILER = $(SHELL) $(top_srcdir)/tests/run-test.sh rv64,v=true,vext_spec=v1.0,vlen=128
RVV256_LOG_COMPILER = $(SHELL) $(top_srcdir)/tests/run-test.sh rv64,v=true,vext_spec=v1.0,vlen=256
RVV512_LOG_COMPILER = $(SHELL) $(top_srcdir)/tests/run-test.sh rv64,v=true,vext_spec=v1.0,vlen=512
RVV1024_LOG_COMPILER = $(SHELL) $(top_srcdir)/tests/run-test.sh rv64,v=true,vext_spec=v1.0,vlen=1024
memasm_rv_base = $(memasm_test_progs) tests/dispatch-env
memasm_rv_stubs = $(memasm_rv_base:=-nov.rvnov) $(memasm_rv_base:=-v128.rvv128) \
	$(memasm_rv_base:=-v256.rvv256) $(memasm_rv_base:=-v512.rvv512) \
	$(memasm_rv_base:=-v1024.rvv1024)
TESTS += $(memasm_rv_stubs)
CLEANFILES += $(memasm_rv_stubs)
$(memasm_rv_stubs):
	$(AM_V_GEN)$(MKDIR_P) tests && echo '# stub: tests/run-test.sh runs the test of this name under qemu-riscv64' > $@
else !HOST_RISCV64
if HOST_AARCH64
# Five emulated CPUs, as for riscv64: SVE at 128, 256, 512 and 2048 bits
# (user mode caps the default length at 512 bits, so 2048 also sets it, in
# bytes) and a CPU without SVE, where the dispatcher must fall back and an
# SVE instruction would raise SIGILL.  tests/sve-vl checks each from inside.
A64SVE128_LOG_COMPILER = $(SHELL) $(top_srcdir)/tests/run-test.sh max,sve128=on
A64SVE256_LOG_COMPILER = $(SHELL) $(top_srcdir)/tests/run-test.sh max,sve256=on
A64SVE512_LOG_COMPILER = $(SHELL) $(top_srcdir)/tests/run-test.sh max,sve512=on
A64SVE2048_LOG_COMPILER = $(SHELL) $(top_srcdir)/tests/run-test.sh max,sve2048=on,sve-default-vector-length=256
A64NOSVE_LOG_COMPILER = $(SHELL) $(top_srcdir)/tests/run-test.sh cortex-a57
memasm_a64_base = $(memasm_test_progs) tests/dispatch-env tests/sve-vl
memasm_a64_stubs = $(memasm_a64_base:=-sve128.a64sve128) $(memasm_a64_base:=-sve256.a64sve256) \
	$(memasm_a64_base:=-sve512.a64sve512) $(memasm_a64_base:=-sve2048.a64sve2048) \
	$(memasm_a64_base:=-nosve.a64nosve)
TESTS += $(memasm_a64_stubs)
CLEANFILES += $(memasm_a64_stubs)
$(memasm_a64_stubs):
	$(AM_V_GEN)$(MKDIR_P) tests && echo '# stub: tests/run-test.sh runs the test of this name under qemu-aarch64' > $@
else !HOST_AARCH64
TESTS += $(memasm_tests)
endif !HOST_AARCH64
endif !HOST_RISCV64
else !TESTS_EMULATED
SH_LOG_COMPILER = $(SHELL)
TESTS += $(memasm_tests)
endif !TESTS_EMULATED

else !HAVE_CHECK

check-local:
	@echo "make check: the unit-test framework Check was not found when configure ran." >&2; \
	echo "Install the package 'check' (Debian: apt-get install check, or ./bootstrap)" >&2; \
	echo "and run configure again (--with-check=DIR for a private prefix)." >&2; \
	exit 1

endif !HAVE_CHECK
include tests/sanitizers.mk
