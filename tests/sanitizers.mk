# tests/sanitizers.mk -- make check in a build configured with
# --enable-sanitizers (m4/memasm_sanitizers.m4): the options every test
# runs with, ahead of any the caller set (theirs win).  Errors are fatal
# (-fno-sanitize-recover=all; ThreadSanitizer's halt_on_error), so a report
# fails the test that caused it.  Check's timeouts are 4 times longer
# (instrumented code runs 2-5 times slower).  Included last from tests/local.mk (it
# adds to AM_TESTS_ENVIRONMENT).

if SANITIZERS
AM_TESTS_ENVIRONMENT += MEMASM_SANITIZE='$(MEMASM_SANITIZE)'; export MEMASM_SANITIZE; \
	ASAN_OPTIONS="detect_leaks=1:check_initialization_order=1:$${ASAN_OPTIONS-}"; export ASAN_OPTIONS; \
	UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:$${UBSAN_OPTIONS-}"; export UBSAN_OPTIONS; \
	TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:$${TSAN_OPTIONS-}"; export TSAN_OPTIONS; \
	CK_TIMEOUT_MULTIPLIER=$${CK_TIMEOUT_MULTIPLIER-4}; export CK_TIMEOUT_MULTIPLIER;
endif
