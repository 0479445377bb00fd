# memasm_nasm.m4 -- find NASM and make sure it can assemble AVX-512.
#
# MEMASM_PROG_NASM
#   Sets NASM and NASMFLAGS (ELF64, position independent).  Stops configure
#   with the package to install when NASM is missing or too old to know the
#   AVX-512 instructions the x86_64 kernels use.
AC_DEFUN([MEMASM_PROG_NASM], [
  AC_ARG_VAR([NASM], [the Netwide Assembler, for the x86_64 kernels])
  AC_CHECK_PROGS([NASM], [nasm])
  AS_IF([test -z "$NASM"],
    [AC_MSG_ERROR([NASM is required to build the x86_64 kernels: install it with 'apt-get install nasm' (or run ./bootstrap)])])
  AC_CACHE_CHECK([whether $NASM assembles AVX-512 instructions], [memasm_cv_nasm_avx512], [
    cat > conftest.asm <<_MEMASM_EOF
default rel
section .text
global probe
probe:
	vmovdqu64 zmm16, [[rsi + 64]]
	vpbroadcastb zmm1, esi
	vmovntdq [[rdi]], zmm16
	rep movsb
	vzeroupper
	ret
_MEMASM_EOF
    AS_IF([$NASM -f elf64 -o conftest.o conftest.asm >&AS_MESSAGE_LOG_FD 2>&1],
      [memasm_cv_nasm_avx512=yes], [memasm_cv_nasm_avx512=no])
    rm -f conftest.asm conftest.o])
  AS_IF([test "$memasm_cv_nasm_avx512" != yes],
    [AC_MSG_ERROR([$NASM cannot assemble AVX-512 instructions; install NASM >= 2.14 with 'apt-get install nasm'])])
  AC_SUBST([NASMFLAGS], ["-f elf64 -DPIC -Werror"])
  memasm_summary_as="`$NASM -v 2>/dev/null | sed 1q` (x86_64 .asm)"
])

# MEMASM_CHECK_RVV_AS
#   The riscv64 RVV kernels are assembled with '.option arch, +v' so that the
#   rest of the library keeps running on cores without V.  Checks that the
#   assembler understands it.
AC_DEFUN([MEMASM_CHECK_RVV_AS], [
  AC_CACHE_CHECK([whether $CCAS assembles RVV 1.0 behind .option arch], [memasm_cv_as_rvv], [
    cat > conftest.S <<_MEMASM_EOF
	.option push
	.option arch, +v
	vsetvli t0, a2, e8, m8, ta, ma
	vle8.v v0, (a1)
	vse8.v v0, (a0)
	.option pop
_MEMASM_EOF
    AS_IF([$CCAS $CCASFLAGS -c -o conftest.o conftest.S >&AS_MESSAGE_LOG_FD 2>&1],
      [memasm_cv_as_rvv=yes], [memasm_cv_as_rvv=no])
    rm -f conftest.S conftest.o])
  AS_IF([test "$memasm_cv_as_rvv" != yes],
    [AC_MSG_ERROR([$CCAS cannot assemble RVV 1.0 with '.option arch, +v'; binutils >= 2.40 is needed (apt-get install gcc-riscv64-linux-gnu)])])
  memasm_summary_as="$CCAS (GNU as .S, RVV via .option arch)"
])
