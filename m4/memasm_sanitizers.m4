# memasm_sanitizers.m4 -- --enable-sanitizers for test builds.
#
# MEMASM_SANITIZERS
#   --enable-sanitizers          -fsanitize=address,undefined
#   --enable-sanitizers=thread   ThreadSanitizer
#   --enable-sanitizers=LIST     any list the compiler accepts
# adds -fsanitize=LIST -fno-sanitize-recover=all -fno-omit-frame-pointer -g
# to MEMASM_CFLAGS (every C file: the library's C parts, the tests, the
# tools; they are on the link lines too).  The assembly kernels are not
# instrumented (no sanitizer instruments assembly).  Must come after
# MEMASM_CFLAGS is set.  Sets MEMASM_SANITIZE (the list, empty when off)
# and the SANITIZERS conditional.
AC_DEFUN([MEMASM_SANITIZERS], [
  AC_ARG_ENABLE([sanitizers],
    [AS_HELP_STRING([--enable-sanitizers@<:@=LIST@:>@],
      [build the C code and the tests with -fsanitize=LIST, errors fatal (default LIST: address,undefined; thread for ThreadSanitizer)])],
    [], [enable_sanitizers=no])
  MEMASM_SANITIZE=
  AS_CASE([$enable_sanitizers],
    [no], [],
    [yes], [MEMASM_SANITIZE=address,undefined],
    [MEMASM_SANITIZE=$enable_sanitizers])
  AS_IF([test -n "$MEMASM_SANITIZE"], [
    memasm_san_flags="-fsanitize=$MEMASM_SANITIZE -fno-sanitize-recover=all -fno-omit-frame-pointer -g"
    AC_MSG_CHECKING([whether $CC links with $memasm_san_flags])
    memasm_save_CFLAGS=$CFLAGS
    CFLAGS="$CFLAGS $memasm_san_flags"
    AC_LINK_IFELSE([AC_LANG_PROGRAM([[]], [[]])], [memasm_san_ok=yes], [memasm_san_ok=no])
    CFLAGS=$memasm_save_CFLAGS
    AC_MSG_RESULT([$memasm_san_ok])
    AS_IF([test $memasm_san_ok = no],
      [AC_MSG_ERROR([$CC cannot build with -fsanitize=$MEMASM_SANITIZE (Debian: the runtime comes with gcc; for clang install libclang-rt-14-dev)])])
    MEMASM_CFLAGS="$MEMASM_CFLAGS $memasm_san_flags"
    memasm_summary_san="-fsanitize=$MEMASM_SANITIZE"], [
    memasm_summary_san="no"])
  AM_CONDITIONAL([SANITIZERS], [test -n "$MEMASM_SANITIZE"])
  AC_SUBST([MEMASM_SANITIZE])
])
