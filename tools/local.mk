# tools/local.mk -- memasm-info, the configuration parser and its fuzzer;
# included from Makefile.am.

libmemasm_la_SOURCES += c/config.c

# memasm-info reads the library's internal CPU description and
# configuration record, so it links libmemasm statically.
bin_PROGRAMS += memasm-info
memasm_info_SOURCES = tools/memasm-info.c
memasm_info_CPPFLAGS = $(AM_CPPFLAGS) $(CPU_FEATURES_CPPFLAGS)
memasm_info_LDFLAGS = -static
memasm_info_LDADD = libmemasm.la

dist_man_MANS += doc/memasm-info.1 doc/memasm.conf.5
EXTRA_DIST += doc/configuration.md tools/fuzz-config.c
# The seed corpus fuzz/ goes into the tarball by dist-hook, not EXTRA_DIST:
# a distributed name is also a prerequisite of distdir, and "fuzz" is the
# phony target below, so listing it ran both fuzzers on every make dist.
dist-hook: dist-fuzz-seeds
dist-fuzz-seeds:
	cp -pR $(srcdir)/fuzz $(distdir)/
	chmod -R u+w $(distdir)/fuzz
.PHONY: dist-fuzz-seeds

# ---------------------------------------------------------------------------
# make fuzz: libFuzzer over the configuration parser (both formats), for
# FUZZ_SECONDS (default 60).  Needs clang with libFuzzer (Debian:
# clang-14 + libclang-rt-14-dev).  c/config.c is compiled instrumented; the
# rest of the library comes uninstrumented from .libs/libmemasm.a (its own
# config.o is then never pulled from the archive).  New inputs go to
# fuzz-corpus/ in the build tree; fuzz/ in the source tree is the seed.
# Then the kernel fuzzer tests/fuzz-kernels (tests/kernels.mk) for
# FUZZ_SECONDS too: fuzz-kernels-corpus/, seeded from fuzz-kernels/.
# ---------------------------------------------------------------------------
FUZZ_SECONDS = 60
FUZZ_CC = clang
FUZZ_CFLAGS = -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
FUZZ_ARGS =

fuzz-config: $(srcdir)/tools/fuzz-config.c $(srcdir)/c/config.c $(srcdir)/c/memasm-internal.h libmemasm.la
	$(AM_V_CCLD)$(FUZZ_CC) $(FUZZ_CFLAGS) $(DEFS) $(DEFAULT_INCLUDES) $(AM_CPPFLAGS) \
	  $(CPU_FEATURES_CPPFLAGS) $(srcdir)/tools/fuzz-config.c $(srcdir)/c/config.c \
	  .libs/libmemasm.a $(CPU_FEATURES_LDFLAGS) $(CPU_FEATURES_LIBS) -o $@

fuzz: fuzz-config tests/fuzz-kernels
	$(MKDIR_P) fuzz-corpus
	./fuzz-config -max_total_time=$(FUZZ_SECONDS) -max_len=70000 -timeout=10 \
	  -print_final_stats=1 $(FUZZ_ARGS) fuzz-corpus $(srcdir)/fuzz
	$(MKDIR_P) fuzz-kernels-corpus
	./tests/fuzz-kernels -max_total_time=$(FUZZ_SECONDS) -max_len=64 -timeout=10 \
	  -artifact_prefix=kernels- -print_final_stats=1 $(FUZZ_ARGS) fuzz-kernels-corpus $(srcdir)/fuzz-kernels

CLEANFILES += fuzz-config
clean-local: clean-fuzz
clean-fuzz:
	-rm -rf fuzz-corpus fuzz-kernels-corpus crash-* leak-* timeout-* oom-* slow-unit-* kernels-crash-* kernels-timeout-* kernels-oom-* kernels-slow-unit-*
.PHONY: fuzz clean-fuzz
