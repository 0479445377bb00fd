# tests/valgrind.mk -- make check-valgrind: the conformance suites and a
# program linked with libmemasm.so under valgrind's memcheck
# (tests/valgrind.sh); included from tests/local.mk.  Not part of make
# check (a few minutes); .ci/run runs it.  Native builds only.
#
#   tests/memcheck-prog   a user's program: libmemasm.so, exact-size
#                         malloc'd buffers; --overread and --uninit are the
#                         negative controls memcheck must catch

EXTRA_DIST += tests/valgrind.sh
CLEANFILES += tests/valgrind-*.log tests/valgrind-*.vg

if HAVE_CHECK
check_PROGRAMS += tests/memcheck-prog
tests_memcheck_prog_SOURCES = tests/memcheck-prog.c
tests_memcheck_prog_LDADD = libmemasm.la

memasm_vg_suites = tests/test_conform tests/test_profiles tests/test_entry tests/test_abi
check-valgrind: $(memasm_vg_suites:=$(EXEEXT)) tests/memcheck-prog$(EXEEXT) memasm-info$(EXEEXT)
	VALGRIND='$(VALGRIND)' LIBTOOL='$(LIBTOOL)' MEMASM_ARCH='$(MEMASM_ARCH)' \
	TEST_EMULATOR='$(TEST_EMULATOR)' $(SHELL) $(srcdir)/tests/valgrind.sh $(memasm_vg_suites)
else !HAVE_CHECK
check-valgrind:
	@echo "make check-valgrind: needs the unit-test framework Check (see make check)" >&2; exit 1
endif !HAVE_CHECK
.PHONY: check-valgrind
