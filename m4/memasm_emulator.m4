# memasm_emulator.m4 -- run the test suite of a cross build under qemu-user.
#
# MEMASM_TEST_EMULATOR
#   On a cross build, finds qemu-<arch> and the target's sysroot (Debian's
#   cross toolchains install the C library in /usr/<triplet>) so that
#   'make check' runs every test program under emulation with no extra step.
#   Sets TEST_EMULATOR (the command prefix, empty for a native build), QEMU,
#   QEMU_SYSROOT and the TESTS_EMULATED conditional.
AC_DEFUN([MEMASM_TEST_EMULATOR], [
  AC_ARG_VAR([QEMU], [qemu-user emulator that runs the tests of a cross build])
  AC_ARG_VAR([QEMU_SYSROOT], [directory qemu-user uses as the target's root (its -L option)])
  TEST_EMULATOR=
  memasm_summary_emulator="none (native)"
  AS_IF([test "$cross_compiling" = yes], [
    AC_PATH_PROGS([QEMU], [qemu-$memasm_arch qemu-$memasm_arch-static])
    AS_IF([test -z "$QEMU"],
      [AC_MSG_ERROR([cross build for $memasm_arch: qemu-$memasm_arch is needed to run the tests; install it with 'apt-get install qemu-user' (or ./bootstrap --cross)])])
    AC_MSG_CHECKING([for the $host_alias sysroot])
    dnl A Debian multiarch C library of the target (libc6:arm64, which
    dnl check:arm64 pulls in) is found through the host's ld.so.cache even
    dnl under -L, so it must run with its own loader, not the cross
    dnl sysroot's (another release: pthread_create hangs).  Use / then.
    AS_IF([test -z "$QEMU_SYSROOT" && test -f "/usr/lib/$host_cpu-linux-gnu/libc.so.6" &&
           ls /lib/ld-linux-$host_cpu*.so.1 >/dev/null 2>&1], [QEMU_SYSROOT=/])
    AS_IF([test -z "$QEMU_SYSROOT"], [
      for memasm_d in "/usr/$host_alias" "/usr/$host_cpu-linux-gnu"; do
        AS_IF([test -d "$memasm_d/lib"], [QEMU_SYSROOT=$memasm_d; break])
      done])
    AS_IF([test -z "$QEMU_SYSROOT"],
      [AC_MSG_RESULT([not found])
       AC_MSG_ERROR([no sysroot for $host_alias; install the cross C library (apt-get install gcc-$host_alias) or set QEMU_SYSROOT])])
    AC_MSG_RESULT([$QEMU_SYSROOT])
    dnl The CPU model comes from QEMU_CPU (tests/run-test.sh), so that
    dnl one build's suite runs on several emulated CPUs; "max" otherwise.
    TEST_EMULATOR="$QEMU -L $QEMU_SYSROOT"
    memasm_summary_emulator="$TEST_EMULATOR"
  ])
  AM_CONDITIONAL([TESTS_EMULATED], [test -n "$TEST_EMULATOR"])
  AC_SUBST([TEST_EMULATOR])
])
