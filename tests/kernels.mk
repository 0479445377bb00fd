# tests/kernels.mk -- differential fuzzing of the kernels and exhaustive
# small sizes; included from tests/reliability.mk.
#
#   tests/test_corpus   (make check, on every emulated CPU too) replays the
#                       kernel fuzzer's corpus fuzz-kernels/ on every target
#   tests/test_small    (make check-slow) every size <= 512 x destination
#                       alignment x source alignment and every memmove
#                       overlap distance <= 512, for every kernel and the
#                       entry points; on a cross build once per emulated CPU
#                       (reduced, as it says, unless MEMASM_SMALL=full)
#   tests/fuzz-kernels  (make fuzz, clang) the libFuzzer target
# All three check calls through tests/kcase.c.

EXTRA_DIST += tests/fuzz-kernels.c fuzz-kernels

if HAVE_CHECK
check_PROGRAMS += tests/test_corpus tests/test_small
tests_test_corpus_SOURCES = tests/test_corpus.c tests/kcase.c tests/kcase.h tests/kguard.h
tests_test_corpus_CFLAGS = $(memasm_test_cflags)
tests_test_corpus_LDFLAGS = $(memasm_test_ldflags)
tests_test_corpus_LDADD = $(memasm_test_ldadd)

tests_test_small_SOURCES = tests/test_small.c tests/kcase.c tests/kcase.h tests/kguard.h
tests_test_small_CFLAGS = $(memasm_test_cflags)
tests_test_small_LDFLAGS = $(memasm_test_ldflags)
tests_test_small_LDADD = $(memasm_test_ldadd)

# The runs of both: natively the programs themselves; on a cross build one
# stub per emulated CPU, run by that CPU's LOG_COMPILER (tests/local.mk),
# each with its own log tests/<name>-<cpu>.log.  test_corpus is part of
# make check, test_small of make check-slow.
if TESTS_EMULATED
if HOST_RISCV64
memasm_corpus_runs = tests/test_corpus-nov.rvnov tests/test_corpus-v128.rvv128 \
	tests/test_corpus-v256.rvv256 tests/test_corpus-v512.rvv512 tests/test_corpus-v1024.rvv1024
memasm_small_runs = tests/test_small-nov.rvnov tests/test_small-v128.rvv128 \
	tests/test_small-v256.rvv256 tests/test_small-v512.rvv512 tests/test_small-v1024.rvv1024
endif
if HOST_AARCH64
memasm_corpus_runs = tests/test_corpus-sve128.a64sve128 tests/test_corpus-sve256.a64sve256 \
	tests/test_corpus-sve512.a64sve512 tests/test_corpus-sve2048.a64sve2048 \
	tests/test_corpus-nosve.a64nosve
memasm_small_runs = tests/test_small-sve128.a64sve128 tests/test_small-sve256.a64sve256 \
	tests/test_small-sve512.a64sve512 tests/test_small-sve2048.a64sve2048 \
	tests/test_small-nosve.a64nosve
endif
CLEANFILES += $(memasm_corpus_runs) $(memasm_small_runs)
$(memasm_corpus_runs) $(memasm_small_runs):
	$(AM_V_GEN)$(MKDIR_P) tests && echo '# stub: tests/run-test.sh runs the test of this name under qemu' > $@
else !TESTS_EMULATED
memasm_corpus_runs = tests/test_corpus
memasm_small_runs = tests/test_small
endif !TESTS_EMULATED
TESTS += $(memasm_corpus_runs)

# Part of make check-slow (tests/reliability.mk).  A cross build runs the
# stubs through the test harness (in parallel with -j); a native build runs
# the program itself.  Then each run's summary lines from its log.
memasm_small_summary = for r in $(memasm_small_runs); do l=$${r%.*}; l=$$l.log; \
	  echo "$$l:"; grep -E '^(QEMU_CPU|REDUCED|full run|small sizes|.*Checks)' $$l | sed 's/^/  /'; \
	  k=`grep -c SKIPPED $$l`; test $$k -eq 0 || echo "  $$k targets SKIPPED (reasons in the log)"; done
if TESTS_EMULATED
check-slow-small: tests/test_small$(EXEEXT) $(memasm_small_runs)
	@$(MAKE) $(AM_MAKEFLAGS) check-TESTS TESTS='$(memasm_small_runs)' \
	  TEST_SUITE_LOG=tests/check-slow-small.log; st=$$?; \
	$(memasm_small_summary); test $$st -eq 0 || cat tests/check-slow-small.log; exit $$st
else !TESTS_EMULATED
check-slow-small: tests/test_small$(EXEEXT)
	@st=0; ./tests/test_small$(EXEEXT) > tests/test_small.log 2>&1 || st=$$?; \
	$(memasm_small_summary); test $$st -eq 0 || { cat tests/test_small.log; echo "check-slow: test_small FAILED"; }; exit $$st
endif !TESTS_EMULATED
else !HAVE_CHECK
check-slow-small:
	@echo "make check-slow: needs the unit-test framework Check (see make check)" >&2; exit 1
endif !HAVE_CHECK
.PHONY: check-slow-small

# make fuzz (tools/local.mk) builds this with FUZZ_CC and FUZZ_CFLAGS like
# fuzz-config: kcase.c and the target instrumented, the library (assembly
# kernels, C dispatcher) uninstrumented from .libs/libmemasm.a.
tests/fuzz-kernels: $(srcdir)/tests/fuzz-kernels.c $(srcdir)/tests/kcase.c $(srcdir)/tests/kcase.h libmemasm.la
	@$(MKDIR_P) tests
	$(AM_V_CCLD)$(FUZZ_CC) $(FUZZ_CFLAGS) $(DEFS) $(DEFAULT_INCLUDES) $(AM_CPPFLAGS) \
	  $(srcdir)/tests/fuzz-kernels.c $(srcdir)/tests/kcase.c \
	  .libs/libmemasm.a $(CPU_FEATURES_LDFLAGS) $(CPU_FEATURES_LIBS) -o $@
CLEANFILES += tests/fuzz-kernels
