# pkg/local.mk -- what make install adds for people who build against
# libmemasm, and its tests; included from Makefile.am.
#
#   $(libdir)/cmake/memasm/   memasmConfig.cmake, memasmConfigVersion.cmake:
#                             find_package(memasm), memasm::memasm and
#                             memasm::memasm_static; generated here with the
#                             configured directories, and relocatable: the
#                             prefix is found from the file's own place
#   memasm(3), memasm-bench(1) and one memasm_<function>(3) alias per API
#                             function (a .so line pointing at memasm(3))
#   make installcheck         pkg/check-install.sh on the installed tree
#   make check-install        install into a DESTDIR under the build tree,
#                             installcheck there, uninstall, and fail if
#                             any file is left
#   tests/inline-small.sh, tests/test_inline_small (make check): the
#                             header's MEMASM_INLINE_SMALL

# ---- CMake package -----------------------------------------------------------
cmakeconfigdir = $(libdir)/cmake/memasm
nodist_cmakeconfig_DATA = pkg/memasmConfig.cmake pkg/memasmConfigVersion.cmake
EXTRA_DIST += pkg/memasmConfig.cmake.in pkg/memasmConfigVersion.cmake.in \
	pkg/check-install.sh pkg/consumer/consumer.c pkg/consumer/CMakeLists.txt
CLEANFILES += $(nodist_cmakeconfig_DATA)

# Substituted at make time, when $(libdir) and the others are plain paths.
# UP_TO_PREFIX is the way from $(cmakeconfigdir) up to $(prefix) ("../../.."
# for lib/cmake/memasm), and the library and header directories are written
# relative to the prefix the file computes, when they lie under $(prefix);
# otherwise every path is the configured one, absolute.  SONAME is
# libmemasm.so.<current - age> (libtool's -version-info).
pkg/memasmConfig.cmake pkg/memasmConfigVersion.cmake: Makefile
pkg/memasmConfig.cmake: $(srcdir)/pkg/memasmConfig.cmake.in
pkg/memasmConfigVersion.cmake: $(srcdir)/pkg/memasmConfigVersion.cmake.in
pkg/memasmConfig.cmake pkg/memasmConfigVersion.cmake:
	$(AM_V_GEN)$(MKDIR_P) pkg && \
	prefix='$(prefix)'; prefix=$${prefix%/}; \
	under() { case $$1 in "$$prefix"/*) echo "$${1#"$$prefix"/}" ;; *) return 1 ;; esac; }; \
	if test -n "$$prefix" && rel=`under '$(cmakeconfigdir)'` && \
	   lib=`under '$(libdir)'` && inc=`under '$(includedir)'`; then \
	  up=`echo "$$rel" | sed 's|[^/][^/]*|..|g'`; \
	  libdir="\$${_memasm_prefix}/$$lib"; incdir="\$${_memasm_prefix}/$$inc"; \
	else \
	  up=; libdir='$(libdir)'; incdir='$(includedir)'; \
	fi; \
	lt='$(MEMASM_LT_VERSION)'; cur=$${lt%%:*}; age=$${lt##*:}; \
	v='$(PACKAGE_VERSION)'; \
	sed -e "s|%VERSION%|$$v|g" -e "s|%VERSION_MAJOR%|$${v%%.*}|g" \
	    -e "s|%VERSION_MINOR%|`echo $$v | cut -d. -f2`|g" \
	    -e "s|%PREFIX%|$$prefix|g" -e "s|%UP_TO_PREFIX%|$$up|g" \
	    -e "s|%CMAKECONFIGDIR%|$(cmakeconfigdir)|g" \
	    -e "s|%LIBDIR%|$$libdir|g" -e "s|%INCLUDEDIR%|$$incdir|g" \
	    -e "s|%SONAME%|libmemasm.so.$$(($$cur - $$age))|g" \
	    -e "s|%LIBS_PRIVATE%|`echo $(CPU_FEATURES_LDFLAGS) $(CPU_FEATURES_LIBS)`|g" \
	    $(srcdir)/$@.in > $@-t && \
	if grep '%[A-Z_]*%' $@-t; then echo "$@: a placeholder left"; exit 1; fi && \
	mv $@-t $@

# ---- manual pages ------------------------------------------------------------
dist_man_MANS += doc/memasm.3 doc/memasm-bench.1
# Every function of memasm.h (check-install compares with the header).
memasm_man3_aliases = doc/memasm_memcpy.3 doc/memasm_memmove.3 doc/memasm_memset.3 \
	doc/memasm_op_name.3 doc/memasm_kernel_count.3 doc/memasm_kernel_info.3 \
	doc/memasm_kernel_find.3 doc/memasm_kernel_current.3 doc/memasm_kernel_force.3 \
	doc/memasm_kernel_auto.3 doc/memasm_isa_count.3 doc/memasm_isa_name.3 \
	doc/memasm_isa_level.3 doc/memasm_isa_cpu.3 doc/memasm_isa_cap.3 \
	doc/memasm_isa_set_cap.3 doc/memasm_threshold_count.3 doc/memasm_threshold_key.3 \
	doc/memasm_threshold_get.3 doc/memasm_threshold_set.3 doc/memasm_threshold_reset.3 \
	doc/memasm_version.3
nodist_man_MANS = $(memasm_man3_aliases)
CLEANFILES += $(memasm_man3_aliases)
$(memasm_man3_aliases):
	$(AM_V_GEN)$(MKDIR_P) doc && echo '.so man3/memasm.3' > $@

# ---- installcheck, check-install ---------------------------------------------
CMAKE = cmake
PKG_CONFIG = pkg-config
memasm_installcheck_env = DESTDIR='$(DESTDIR)' prefix='$(prefix)' bindir='$(bindir)' \
	libdir='$(libdir)' includedir='$(includedir)' pkgconfigdir='$(pkgconfigdir)' \
	cmakeconfigdir='$(cmakeconfigdir)' man1dir='$(man1dir)' man3dir='$(man3dir)' \
	man5dir='$(man5dir)' VERSION='$(PACKAGE_VERSION)' CC='$(CC)' CMAKE='$(CMAKE)' \
	PKG_CONFIG='$(PKG_CONFIG)' srcdir='$(srcdir)'
# The consumers run here, so not on a cross build (its TEST_EMULATOR is set).
installcheck-local:
	@if test -n '$(TEST_EMULATOR)'; then \
	  echo "installcheck: skipped on a cross build (the consumers would not run here)"; exit 0; \
	fi; \
	names=`sed -n 's/^MEMASM_API[^(]*[ *]\(memasm_[a-z0-9_]*\)(.*/\1/p' $(srcdir)/include/memasm.h`; \
	profile=no; case '$(lib_LTLIBRARIES)' in *libmemasm-profile.la*) profile=yes ;; esac; \
	$(memasm_installcheck_env) MEMASM_API_NAMES="$$names" MEMASM_PROFILE_LIB=$$profile \
	  REQUIRE_TOOLS='$(REQUIRE_TOOLS)' $(SHELL) $(srcdir)/pkg/check-install.sh

REQUIRE_TOOLS =
check_install_dir = $(abs_builddir)/check-install.tmp
check-install: all
	rm -rf '$(check_install_dir)'
	$(MAKE) $(AM_MAKEFLAGS) install DESTDIR='$(check_install_dir)'
	$(MAKE) $(AM_MAKEFLAGS) installcheck DESTDIR='$(check_install_dir)' REQUIRE_TOOLS=yes
	$(MAKE) $(AM_MAKEFLAGS) uninstall DESTDIR='$(check_install_dir)'
	@left=`find '$(check_install_dir)' ! -type d`; \
	if test -n "$$left"; then \
	  echo "check-install: make uninstall left:"; echo "$$left"; exit 1; \
	fi; \
	echo "check-install: make uninstall left no file ($$(find '$(check_install_dir)' -type d | wc -l) empty directories)"; \
	rm -rf '$(check_install_dir)'
.PHONY: check-install

# ---- MEMASM_INLINE_SMALL -----------------------------------------------------
# inline-small.sh: constant 8-byte calls compile to no call at -O2, variable
# sizes call libmemasm.  test_inline_small: every small constant size gives
# the byte loop's bytes and return value (built at -O2, where the expansion
# happens; statically linked, so it runs under qemu-user too).
TESTS += tests/inline-small.sh tests/test_inline_small
EXTRA_DIST += tests/inline-small.sh
tests/inline-small.log: tests/header-compile.env
check_PROGRAMS += tests/test_inline_small
tests_test_inline_small_SOURCES = tests/test_inline_small.c
tests_test_inline_small_CFLAGS = $(AM_CFLAGS) -O2
tests_test_inline_small_LDFLAGS = -static
tests_test_inline_small_LDADD = libmemasm.la
