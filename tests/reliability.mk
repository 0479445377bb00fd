# tests/reliability.mk -- threads, fork, signals and huge sizes; included
# from tests/local.mk.
#
#   tests/test_reliability  (make check) threads from start-up on while the
#                           configuration changes, fork during copies,
#                           signal handlers interrupting the first call and
#                           large non-temporal calls
#   tests/test_huge         (make check-slow) copies, fills and moves across
#                           the 2 GiB and 4 GiB marks, at each ISA level;
#                           skips where memory is short or under qemu
# tests/kernels.mk adds the kernel fuzzer's corpus replay (make check) and
# the exhaustive small sizes (make check-slow, every emulated CPU).

EXTRA_DIST += tests/README.md

# Kernel fuzzing, its corpus replay and the exhaustive small sizes.
include tests/kernels.mk

if HAVE_CHECK
check_PROGRAMS += tests/test_reliability
TESTS += tests/test_reliability
tests_test_reliability_SOURCES = tests/test_reliability.c
tests_test_reliability_CFLAGS = $(memasm_test_cflags)
tests_test_reliability_LDFLAGS = $(memasm_test_ldflags)
tests_test_reliability_LDADD = $(memasm_test_ldadd)
endif

# make check-slow: built with the check programs, run only here (minutes,
# about 8.6 GiB of memory); exit status 77 is a skip with its reason printed.
if HAVE_CHECK
check_PROGRAMS += tests/test_huge
tests_test_huge_SOURCES = tests/test_huge.c
tests_test_huge_CFLAGS = $(memasm_test_cflags)
tests_test_huge_LDFLAGS = $(memasm_test_ldflags)
tests_test_huge_LDADD = $(memasm_test_ldadd)

check-slow: tests/test_huge$(EXEEXT) check-slow-small
	@st=0; TEST_EMULATOR='$(TEST_EMULATOR)' CK_FORK=no $(TEST_EMULATOR) ./tests/test_huge$(EXEEXT) || st=$$?; \
	if test $$st -eq 77; then echo "check-slow: SKIPPED (reason above)"; \
	elif test $$st -ne 0; then echo "check-slow: FAILED"; exit 1; \
	else echo "check-slow: passed"; fi
else !HAVE_CHECK
check-slow:
	@echo "make check-slow: needs the unit-test framework Check (see make check)" >&2; exit 1
endif !HAVE_CHECK
.PHONY: check-slow
