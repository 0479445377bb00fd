; preload-jump.asm -- memcpy, memmove and memset of libmemasm-preload.so on
; x86_64 (linked into that module only, preload/local.mk).
;
; Each name goes to one of entry.asm's three sets of entry points, the one
; libmemasm.so's resolvers bind on this CPU (c/entry-select.h), which the
; module's constructor writes into a byte, memasm_preload_set
; (preload/preload.c): 0 the shared entries (also before the constructor:
; they are correct behind every kernel from the first instruction), 1 the
; AVX2 ones, 2 the base ones, 3 the counting functions of MEMASM_DEBUG.
; The choice is made by conditional jumps straight to the entry, each set
; one taken branch away, as the flag's test and direct jump before it: the
; exported names cannot be indirect functions (glibc's loader then warns
; "Relink" in programs with a library relocated before the module), and a
; jump through a pointer cost this path a cycle per call (Zen 5,
; doc/history-x86_64.md).  Shared first: every CPU with AVX-512 takes it.
;
; The hidden aliases memasm_preload_<op> are what the module's other names
; (mempcpy, the _chk variants, ...) call, so they never go back through an
; interposable symbol.  rax, the only register used, is set by every entry.

%define KERNEL_VISIBILITY default
%define KERNEL_ALIAS_VISIBILITY hidden
%include "macros.inc"

extern memasm_preload_set
extern memasm_memcpy_shared
extern memasm_memmove_shared
extern memasm_memset_shared
extern memasm_memcpy_avx2
extern memasm_memmove_avx2
extern memasm_memset_avx2
extern memasm_memcpy_base
extern memasm_memmove_base
extern memasm_memset_base
extern memasm_preload_counting_memcpy
extern memasm_preload_counting_memmove
extern memasm_preload_counting_memset

;; PRELOAD_JUMP op: the exported name op and its hidden alias
%macro PRELOAD_JUMP 1
KERNEL %1, memasm_preload_%1
    movzx eax, byte [rel memasm_preload_set]
    cmp eax, 1
    jb memasm_%1_shared
    je memasm_%1_avx2
    cmp eax, 2
    je memasm_%1_base
    jmp memasm_preload_counting_%1
KERNEL_END
%endmacro

PRELOAD_JUMP memcpy
PRELOAD_JUMP memmove
PRELOAD_JUMP memset
