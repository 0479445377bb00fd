; memmove-sse2.asm -- memasm_k_memmove_sse2 and memasm_k_memcpy_sse2 (one body).
; SSE2 (16-byte xmm vectors): the x86_64 baseline, every x86_64 CPU.
; The algorithm and its assumptions are in memmove.inc.
%define VEC 16
%define ISA sse2
%include "memmove.inc"
