# asm/x86_64/local.mk -- x86_64 kernels (NASM), included from Makefile.am.

if HOST_X86_64
libmemasm_la_SOURCES += c/kernels-x86_64.c c/entry-select.h asm/x86_64/entry.asm \
	asm/x86_64/memmove-sse2.asm asm/x86_64/memmove-avx2.asm \
	asm/x86_64/memmove-avx512.asm asm/x86_64/memset-sse2.asm \
	asm/x86_64/memset-avx2.asm asm/x86_64/memset-avx512.asm
# Templates and macros the .asm files include (for dist; NASM has no
# dependency tracking here, so the objects also depend on them explicitly).
EXTRA_DIST += asm/x86_64/macros.inc asm/x86_64/vec.inc asm/x86_64/small.inc \
	asm/x86_64/memmove.inc asm/x86_64/memset.inc asm/x86_64/README.md \
	doc/history-x86_64.md
x86_64_asm_deps = asm/x86_64/thresholds.inc \
	$(top_srcdir)/asm/x86_64/macros.inc $(top_srcdir)/asm/x86_64/vec.inc \
	$(top_srcdir)/asm/x86_64/small.inc
asm/x86_64/memmove-sse2.lo asm/x86_64/memmove-avx2.lo \
asm/x86_64/memmove-avx512.lo: $(x86_64_asm_deps) \
	$(top_srcdir)/asm/x86_64/memmove.inc
asm/x86_64/memset-sse2.lo asm/x86_64/memset-avx2.lo \
asm/x86_64/memset-avx512.lo: $(x86_64_asm_deps) \
	$(top_srcdir)/asm/x86_64/memset.inc
asm/x86_64/entry.lo: $(x86_64_asm_deps)

# libmemasm.so binds the public names per CPU (c/entry-select.c); the static
# archive keeps entry.asm's weak definitions of them.  libtool has no
# per-source way to keep an object out of the archive, so the object is
# compiled through a convenience library and handed to the shared link
# alone, as a linker input (not an archive: --exclude-libs,ALL would hide
# its exported names).  The path is the PIC object libtool writes.
noinst_LTLIBRARIES += c/libentry-select.la
c_libentry_select_la_SOURCES = c/entry-select.c
libmemasm_la_LDFLAGS += -Wl,c/.libs/entry-select.o
EXTRA_libmemasm_la_DEPENDENCIES = c/libentry-select.la

# NASM objects go through libtool like C objects (build-aux/nasm-lt).
SUFFIXES += .asm
.asm.lo:
	$(AM_V_GEN)$(LIBTOOL) $(AM_V_lt) --tag=CC --mode=compile \
	  $(SHELL) $(top_srcdir)/build-aux/nasm-lt $(NASM) $(NASMFLAGS) \
	  -I$(top_srcdir)/asm/x86_64/ -I$(top_builddir)/asm/x86_64/ $< -o $@

# Threshold indices for NASM, generated from the C header (one source).
asm/x86_64/thresholds.inc: $(top_srcdir)/c/memasm-internal.h
	$(AM_V_GEN)$(MKDIR_P) asm/x86_64 && \
	  sed -n 's/^#define \(MEMASM_THR_[A-Z0-9_]*\) \([0-9][0-9]*\).*/%define \1 \2/p' $< > $@
BUILT_SOURCES += asm/x86_64/thresholds.inc
CLEANFILES += asm/x86_64/thresholds.inc
endif
