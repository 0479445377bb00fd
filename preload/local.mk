# preload/local.mk -- libmemasm-preload.so, the drop-in library for
# LD_PRELOAD, and libmemasm-profile.so, the same with a profile of the calls
# (MEMASM_PROFILE); included from Makefile.am after every fragment that adds
# to libmemasm_la_SOURCES.
#
# The module is self-contained: it is built from libmemasm's own sources
# (compiled a second time with the same flags; the NASM objects are shared)
# plus preload/preload.c, so LD_PRELOAD of this one file is enough and it
# never depends on an installed libmemasm.so of another version.  It
# exports exactly the names in preload/exports.sym (libtool writes the
# version script, which makes everything else local: libmemasm's API,
# cpu_features; no --exclude-libs, which would hide preload.c's archive too).
#
# Tests (native only; on a cross build they exit 77, LD_PRELOAD into host
# programs makes no sense under qemu):
#   preload/preload-functions.sh  the names resolve into the module; every
#                                 function against a byte loop; the _chk
#                                 variants abort; also under LD_BIND_NOW=1
#   preload/preload-early.sh      a library's constructor, its malloc and 8
#                                 threads copy before the module's
#                                 constructor; also under LD_BIND_NOW=1
#   preload/preload-debug.sh      MEMASM_DEBUG=1's exit lines; exit with
#                                 threads running and from a signal handler
#   preload/preload-exports.sh    nm -D lists exactly preload/exports.sym,
#                                 for both modules
#   preload/preload-profile.sh    the profile module: known calls counted
#                                 exactly, outputs unchanged, the file's
#                                 safety, secure mode; memasm-bench and
#                                 memasm-tune --mix on good and broken files
# make check-real: real programs with and without the module, outputs
# compared byte for byte, and sqlite3 under the profile module
# (preload/check-real.sh).

lib_LTLIBRARIES += preload/libmemasm-preload.la
preload_libmemasm_preload_la_SOURCES = $(libmemasm_la_SOURCES)
preload_libmemasm_preload_la_CPPFLAGS = $(libmemasm_la_CPPFLAGS)
preload_module_ldflags = -module -avoid-version -shared \
	-export-symbols $(srcdir)/preload/exports.sym \
	-Wl,-z,noexecstack $(CPU_FEATURES_LDFLAGS)
preload_libmemasm_preload_la_LDFLAGS = $(preload_module_ldflags)
preload_libmemasm_preload_la_LIBADD = preload/libpreload-entry.la $(CPU_FEATURES_LIBS)
preload_libmemasm_preload_la_DEPENDENCIES = preload/libpreload-entry.la \
	$(srcdir)/preload/exports.sym

# The exported functions, compiled on their own with -fno-builtin (the
# compiler must not treat their definitions as the builtins they replace).
noinst_LTLIBRARIES += preload/libpreload-entry.la
preload_libpreload_entry_la_SOURCES = preload/preload.c preload/entry-points.h preload/lines.h
preload_libpreload_entry_la_CFLAGS = $(AM_CFLAGS) -fno-builtin
if HOST_X86_64
# memcpy, memmove and memset themselves: a jump to the set of entry points
# libmemasm.so binds on this CPU (asm/x86_64/preload-jump.asm)
preload_libpreload_entry_la_SOURCES += asm/x86_64/preload-jump.asm
asm/x86_64/preload-jump.lo: $(top_srcdir)/asm/x86_64/macros.inc
endif

# libmemasm-profile.so (MEMASM_PROFILE=FILE): the same names, each call
# also counted for the profile written at exit (preload/profile.c); built
# like the module above, so the normal module's calls pay nothing for it.
lib_LTLIBRARIES += preload/libmemasm-profile.la
preload_libmemasm_profile_la_SOURCES = $(libmemasm_la_SOURCES)
preload_libmemasm_profile_la_CPPFLAGS = $(libmemasm_la_CPPFLAGS)
preload_libmemasm_profile_la_LDFLAGS = $(preload_module_ldflags)
preload_libmemasm_profile_la_LIBADD = preload/libprofile-entry.la $(CPU_FEATURES_LIBS)
preload_libmemasm_profile_la_DEPENDENCIES = preload/libprofile-entry.la \
	$(srcdir)/preload/exports.sym
noinst_LTLIBRARIES += preload/libprofile-entry.la
preload_libprofile_entry_la_SOURCES = preload/profile.c preload/entry-points.h preload/lines.h
preload_libprofile_entry_la_CFLAGS = $(AM_CFLAGS) -fno-builtin -fno-tree-loop-distribute-patterns

EXTRA_DIST += preload/exports.sym preload/test-lib.sh preload/check-real.sh \
	preload/preload-functions.sh preload/preload-early.sh \
	preload/preload-debug.sh preload/preload-exports.sh preload/preload-profile.sh

# The test programs link the C library dynamically (LD_PRELOAD needs a
# dynamic program); test-preload-early also links the early library.
check_PROGRAMS += preload/test-preload preload/test-preload-early
preload_test_cflags = $(AM_CFLAGS) -pthread -fno-tree-loop-distribute-patterns
preload_test_preload_SOURCES = preload/test-preload.c
preload_test_preload_CFLAGS = $(preload_test_cflags)
preload_test_preload_LDADD = -ldl -lpthread
preload_test_preload_early_SOURCES = preload/test-preload.c preload/test-early.h
preload_test_preload_early_CPPFLAGS = $(AM_CPPFLAGS) -DTEST_EARLY
preload_test_preload_early_CFLAGS = $(preload_test_cflags)
preload_test_preload_early_LDFLAGS = -no-install
preload_test_preload_early_LDADD = preload/libtest-early.la -ldl -lpthread

# A shared library (-rpath makes libtool build one; it is never installed).
check_LTLIBRARIES += preload/libtest-early.la
preload_libtest_early_la_SOURCES = preload/test-early.c preload/test-early.h
preload_libtest_early_la_CFLAGS = $(AM_CFLAGS) -pthread -fno-builtin
preload_libtest_early_la_LDFLAGS = -rpath /nowhere -avoid-version -shared
preload_libtest_early_la_LIBADD = -ldl -lpthread

# A program of known calls for libmemasm-profile.so (preload/preload-profile.sh,
# which also gives its profile to memasm-bench --mix and broken files to
# memasm-bench and memasm-tune).
check_PROGRAMS += preload/test-profile
preload_test_profile_SOURCES = preload/test-profile.c
preload_test_profile_CPPFLAGS = $(AM_CPPFLAGS) -U_FORTIFY_SOURCE
preload_test_profile_CFLAGS = $(preload_test_cflags) -fno-builtin
preload_test_profile_LDADD = -lpthread
# The same program linked to the module (not preloaded), so that a
# set-user-ID copy of it loads the module in a secure-execution process.
check_PROGRAMS += preload/test-profile-linked
preload_test_profile_linked_SOURCES = preload/test-profile.c
preload_test_profile_linked_CPPFLAGS = $(preload_test_profile_CPPFLAGS)
preload_test_profile_linked_CFLAGS = $(preload_test_profile_CFLAGS)
preload_test_profile_linked_LDFLAGS = -no-install
preload_test_profile_linked_LDADD = preload/libmemasm-profile.la -lpthread

preload_tests = preload/preload-functions.sh preload/preload-early.sh \
	preload/preload-debug.sh preload/preload-exports.sh preload/preload-profile.sh
TESTS += $(preload_tests)
AM_TESTS_ENVIRONMENT += NM='$(NM)'; export NM;

# CHECK_REAL_FLAGS=--mib N: the input size (default 256).
CHECK_REAL_FLAGS =
check-real: preload/libmemasm-preload.la preload/libmemasm-profile.la bench/memasm-bench$(EXEEXT)
	MEMASM_PRELOAD=$(abs_top_builddir)/preload/.libs/libmemasm-preload.so \
	MEMASM_PROFILE_SO=$(abs_top_builddir)/preload/.libs/libmemasm-profile.so \
	MEMASM_BENCH=$(abs_top_builddir)/bench/memasm-bench$(EXEEXT) \
	TEST_EMULATOR='$(TEST_EMULATOR)' bash $(srcdir)/preload/check-real.sh $(CHECK_REAL_FLAGS)
.PHONY: check-real
