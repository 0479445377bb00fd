# asm/aarch64/local.mk -- aarch64 kernels (GNU as through CCAS), included
# from Makefile.am.  The .S files include asm.h and the two templates from
# this directory (AM_CCASFLAGS has -I$(top_srcdir)/asm/$(MEMASM_ARCH)).

if HOST_AARCH64
libmemasm_la_SOURCES += \
	c/kernels-aarch64.c \
	asm/aarch64/asm.h \
	asm/aarch64/copy-template.h \
	asm/aarch64/set-template.h \
	asm/aarch64/memcpy.S \
	asm/aarch64/memcpy-neon.S \
	asm/aarch64/memset.S \
	asm/aarch64/memset-neon.S \
	asm/aarch64/memcpy-sve.S \
	asm/aarch64/memset-sve.S
endif

EXTRA_DIST += asm/aarch64/README.md doc/history-aarch64.md
