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

EXTRA_DIST += tests/README.md

if HAVE_CHECK
check_PROGRAMS += tests/test_reliability
TESTS += tests/test_reliability
tests_test_reliability_SOURCES = tests/test_reliability.c
tests_test_reliability_CFLAGS = $(memasm_test_cflags)
tests_test_reliability_LDFLAGS = $(memasm_test_ldflags)
tests_test_reliability_LDADD = $(memasm_test_ldadd)
endif
