# tests/config.mk -- tests of the configuration parser (c/config.c, c/env.c)
# and memasm-info; included from tests/local.mk.

if HAVE_CHECK
# Linked statically to reach the library's hidden configuration entry points.
check_PROGRAMS += tests/test_config
tests_test_config_SOURCES = tests/test_config.c
tests_test_config_CPPFLAGS = $(AM_CPPFLAGS) $(CHECK_CFLAGS)
tests_test_config_LDFLAGS = -static
tests_test_config_LDADD = libmemasm.la $(CHECK_LIBS)
TESTS += tests/test_config
endif

# memasm-info end to end: its --config output and a hand-written file with
# every key of every architecture are accepted back through MEMASM_CONFIG.
TESTS += tests/config-roundtrip.sh
EXTRA_DIST += tests/config-roundtrip.sh tests/config-data

# include/memasm.h as C89, C99, C11, C++11 and C++17, warnings as errors,
# with configure's CC (written to tests/header-compile.env) and the gcc,
# clang, g++ and clang++ found on PATH.
TESTS += tests/header-compile.sh
EXTRA_DIST += tests/header-compile.sh
CLEANFILES += tests/header-compile.env
tests/header-compile.log: tests/header-compile.env
tests/header-compile.env: Makefile
	$(AM_V_GEN)$(MKDIR_P) tests && echo "CONFIGURED_CC='$(CC)'" > $@
