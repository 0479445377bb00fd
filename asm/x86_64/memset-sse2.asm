; memset-sse2.asm -- memasm_k_memset_sse2.
; SSE2 (16-byte xmm vectors): the x86_64 baseline, every x86_64 CPU.
; The algorithm and its assumptions are in memset.inc.
%define VEC 16
%define ISA sse2
%include "memset.inc"
