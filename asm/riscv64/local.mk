# asm/riscv64/local.mk -- riscv64 kernels (GNU as .S through CCAS),
# included from Makefile.am.  The RVV files enable V for themselves
# (.option arch, +v); everything else is plain RV64GC.

if HOST_RISCV64
libmemasm_la_SOURCES += \
	c/kernels-riscv64.c \
	asm/riscv64/asm.h \
	asm/riscv64/memcpy-word.h \
	asm/riscv64/memcpy.S \
	asm/riscv64/memcpy-misaligned.S \
	asm/riscv64/memset.S \
	asm/riscv64/memcpy-rvv.S \
	asm/riscv64/memset-rvv.S
endif
EXTRA_DIST += asm/riscv64/README.md doc/history-riscv64.md
