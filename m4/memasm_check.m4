# memasm_check.m4 -- find the Check unit-test framework.
#
# MEMASM_CHECK_LIB
#   --with-check=DIR for a Check installed in a private prefix.  Without it,
#   the prefix ./bootstrap --cross builds for a host that Debian has no
#   package for ($srcdir/.deps-local/$host_cpu: riscv64) is used when it is
#   there, so a cross build needs no option.  Check is optional for building
#   the library; without it 'make check' stops with a message naming the
#   package.  Sets CHECK_CFLAGS, CHECK_LIBS and the HAVE_CHECK conditional.
AC_DEFUN([MEMASM_CHECK_LIB], [
  AC_ARG_WITH([check],
    [AS_HELP_STRING([--with-check=DIR], [prefix where Check is installed])],
    [], [with_check=check])
  AS_IF([test "x$with_check" = xcheck], [
    memasm_local=`cd "$srcdir" && pwd`/.deps-local/$host_cpu
    AS_IF([test -f "$memasm_local/include/check.h"], [with_check=$memasm_local])])
  CHECK_CFLAGS=
  CHECK_LIBS=
  memasm_check_ldflags=
  AS_IF([test "x$with_check" != xcheck && test "x$with_check" != xyes && test "x$with_check" != xno], [
    CHECK_CFLAGS="-I$with_check/include"
    memasm_check_ldflags="-L$with_check/lib"])
  memasm_have_check=no
  AS_IF([test "x$with_check" != xno], [
    memasm_save_CPPFLAGS=$CPPFLAGS; memasm_save_LIBS=$LIBS
    CPPFLAGS="$CPPFLAGS $CHECK_CFLAGS"
    AC_MSG_CHECKING([for Check (check.h, -lcheck)])
    for memasm_libs in "-lcheck -lsubunit -lm -lrt -lpthread" "-lcheck -lm -lrt -lpthread"; do
      LIBS="$memasm_check_ldflags $memasm_libs $memasm_save_LIBS"
      AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <check.h>]],
                                      [[Suite *s = suite_create("x"); SRunner *r = srunner_create(s); srunner_free(r);]])],
        [memasm_have_check=yes; CHECK_LIBS="$memasm_check_ldflags $memasm_libs"; break])
    done
    AC_MSG_RESULT([$memasm_have_check])
    CPPFLAGS=$memasm_save_CPPFLAGS; LIBS=$memasm_save_LIBS])
  AM_CONDITIONAL([HAVE_CHECK], [test "$memasm_have_check" = yes])
  AC_SUBST([CHECK_CFLAGS])
  AC_SUBST([CHECK_LIBS])
  AS_IF([test "$memasm_have_check" = yes],
    [memasm_summary_check="yes ($CHECK_LIBS)"],
    [memasm_summary_check="NOT FOUND: 'make check' will fail; install it with 'apt-get install check' (or ./bootstrap)"])
])
