# bench/local.mk -- memasm-bench, included from Makefile.am.
#
# bench/memasm-bench is built by `make` and installed as memasm-bench
# (memasm-bench(1)): its peers (LLVM libc, musl) are objects taken from the
# build machine's archives and linked in, and it links libmemasm statically
# (libtool -static) so the binary runs from the build tree without a wrapper
# script and measures exactly the library that was just built.  Its measuring
# engine, bench/engine.c, is memasm-tune's too (tune/local.mk).
#
# `make bench` runs the quick default set; pass options with
# `make bench BENCH_FLAGS='--full --csv out.csv --plot out.png'`.

bin_PROGRAMS += bench/memasm-bench
bench_memasm_bench_SOURCES = \
	c/xoshiro.h \
	bench/memasm-bench.c \
	bench/bench.h \
	bench/options.c \
	bench/candidates.c \
	bench/workloads.c \
	bench/report.c \
	bench/plot.c \
	bench/engine.c \
	bench/engine.h \
	bench/harness.c \
	bench/harness.h \
	bench/tables.h
nodist_bench_memasm_bench_SOURCES = bench/tables.c
bench_memasm_bench_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/bench \
	-DMEMASM_BENCH_GNUPLOT='"$(GNUPLOT)"'
bench_memasm_bench_LDFLAGS = -static
bench_memasm_bench_LDADD = libmemasm.la -lpthread -lm

# Peers: memcpy/memmove/memset objects out of other C libraries' static
# archives, renamed and checked by bench/peer-extract.sh.
BENCH_PEER_ENV = AR="$(AR)" LD="$(LD)" OBJCOPY="$(OBJCOPY)" NM="$(NM)"
if HAVE_LLVMLIBC
bench_memasm_bench_CPPFLAGS += -DMEMASM_BENCH_LLVMLIBC='"$(LLVMLIBC_A)"'
bench_memasm_bench_LDADD += bench/peer-llvmlibc.o
bench/peer-llvmlibc.o: $(LLVMLIBC_A) $(top_srcdir)/bench/peer-extract.sh
	$(AM_V_GEN)$(MKDIR_P) bench && $(BENCH_PEER_ENV) $(SHELL) $(top_srcdir)/bench/peer-extract.sh \
	  llvmlibc "$(LLVMLIBC_A)" $@ memcpy.cpp.o memmove.cpp.o memset.cpp.o
endif
if HAVE_MUSL
bench_memasm_bench_CPPFLAGS += -DMEMASM_BENCH_MUSL='"$(MUSL_LIBC_A)"'
bench_memasm_bench_LDADD += bench/peer-musl.o
bench/peer-musl.o: $(MUSL_LIBC_A) $(top_srcdir)/bench/peer-extract.sh
	$(AM_V_GEN)$(MKDIR_P) bench && $(BENCH_PEER_ENV) $(SHELL) $(top_srcdir)/bench/peer-extract.sh \
	  musl "$(MUSL_LIBC_A)" $@ memcpy.lo memmove.lo memset.lo
endif
CLEANFILES += bench/peer-llvmlibc.o bench/peer-musl.o

# The size and alignment tables, embedded as text (parsed at run time by the
# same code the unit tests check).
BENCH_TABLES = \
	bench/data/memcpy-sizes-spec2017.tsv \
	bench/data/memset-sizes-spec2017.tsv \
	bench/data/memcpy-align-spec2017.tsv
bench/tables.c: $(BENCH_TABLES:%=$(top_srcdir)/%) $(top_srcdir)/bench/tsv2c.sh
	$(AM_V_GEN)$(MKDIR_P) bench && $(SHELL) $(top_srcdir)/bench/tsv2c.sh \
	  memcpy_sizes=$(top_srcdir)/bench/data/memcpy-sizes-spec2017.tsv \
	  memset_sizes=$(top_srcdir)/bench/data/memset-sizes-spec2017.tsv \
	  memcpy_align=$(top_srcdir)/bench/data/memcpy-align-spec2017.tsv > $@-t && mv $@-t $@
CLEANFILES += bench/tables.c
EXTRA_DIST += $(BENCH_TABLES) bench/peer-extract.sh bench/tsv2c.sh bench/README.md

BENCH_FLAGS =
bench: bench/memasm-bench$(EXEEXT)
	./bench/memasm-bench$(EXEEXT) $(BENCH_FLAGS)
.PHONY: bench

# bench/compare.sh (two builds over several processes, bench/README.md):
# run end to end on this build's libmemasm.so, its refusals checked (no
# timing is asserted; skipped on a cross build).
TESTS += bench/test-compare.sh
EXTRA_DIST += bench/compare.sh bench/test-compare.sh

# Unit tests of the harness logic (no timing is asserted).
if HAVE_CHECK
check_PROGRAMS += bench/test-harness
TESTS += bench/test-harness
bench_test_harness_SOURCES = c/xoshiro.h bench/test-harness.c bench/harness.c bench/harness.h bench/tables.h
nodist_bench_test_harness_SOURCES = bench/tables.c
bench_test_harness_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/bench
bench_test_harness_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
bench_test_harness_LDADD = $(CHECK_LIBS) -lm
endif
