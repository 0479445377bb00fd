# memasm_cpu_features.m4 -- detect Google's cpu_features (no pkg-config file).
#
# MEMASM_CPU_FEATURES
#   --with-cpu-features=DIR looks in DIR/include and DIR/lib.  On x86_64 and
#   aarch64 the library is required; on riscv64 (cpu_features 0.7.0 has no
#   RISC-V support) the kernel's AT_HWCAP and the riscv_hwprobe system call
#   are used instead and the summary says so.
#   Sets CPU_FEATURES_CPPFLAGS, CPU_FEATURES_LDFLAGS, CPU_FEATURES_LIBS and
#   defines HAVE_CPU_FEATURES.
AC_DEFUN([MEMASM_CPU_FEATURES], [
  AC_ARG_WITH([cpu-features],
    [AS_HELP_STRING([--with-cpu-features=DIR],
      [prefix where cpu_features is installed (DIR/include/cpu_features, DIR/lib)])],
    [], [with_cpu_features=check])
  CPU_FEATURES_CPPFLAGS=
  CPU_FEATURES_LDFLAGS=
  CPU_FEATURES_LIBS=
  AS_CASE([$memasm_arch],
    [x86_64], [memasm_cf_header=cpuinfo_x86.h; memasm_cf_func=GetX86Info],
    [aarch64], [memasm_cf_header=cpuinfo_aarch64.h; memasm_cf_func=GetAarch64Info],
    [memasm_cf_header=cpuinfo_riscv.h; memasm_cf_func=GetRiscvInfo])
  AS_IF([test "x$with_cpu_features" != xcheck && test "x$with_cpu_features" != xyes && test "x$with_cpu_features" != xno], [
    CPU_FEATURES_CPPFLAGS="-I$with_cpu_features/include"
    for memasm_d in lib lib64 "lib/$host_alias" "lib/$host_cpu-$host_os"; do
      AS_IF([test -d "$with_cpu_features/$memasm_d"],
        [CPU_FEATURES_LDFLAGS="$CPU_FEATURES_LDFLAGS -L$with_cpu_features/$memasm_d"])
    done])
  memasm_have_cf=no
  AS_IF([test "x$with_cpu_features" != xno], [
    memasm_save_CPPFLAGS=$CPPFLAGS; memasm_save_LDFLAGS=$LDFLAGS; memasm_save_LIBS=$LIBS
    CPPFLAGS="$CPPFLAGS $CPU_FEATURES_CPPFLAGS"
    LDFLAGS="$LDFLAGS $CPU_FEATURES_LDFLAGS"
    LIBS="-lcpu_features $LIBS"
    AC_MSG_CHECKING([for cpu_features ($memasm_cf_header, $memasm_cf_func)])
    AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <cpu_features/$memasm_cf_header>]],
                                    [[(void)$memasm_cf_func();]])],
      [memasm_have_cf=yes], [memasm_have_cf=no])
    AC_MSG_RESULT([$memasm_have_cf])
    CPPFLAGS=$memasm_save_CPPFLAGS; LDFLAGS=$memasm_save_LDFLAGS; LIBS=$memasm_save_LIBS])
  AS_IF([test "$memasm_have_cf" = yes], [
    CPU_FEATURES_LIBS=-lcpu_features
    AC_DEFINE([HAVE_CPU_FEATURES], [1], [Define to 1 when cpu_features supports this architecture])
    memasm_summary_cpu="cpu_features ($memasm_cf_func)"
  ], [test "$memasm_arch" = riscv64], [
    memasm_summary_cpu="kernel AT_HWCAP + riscv_hwprobe (cpu_features has no RISC-V support here)"
  ], [
    AC_MSG_ERROR([cpu_features is required on $memasm_arch: install it with 'apt-get install libcpu-features-dev' (for a cross build: libcpu-features-dev:arm64), or point --with-cpu-features=DIR at it])
  ])
  AC_SUBST([CPU_FEATURES_CPPFLAGS])
  AC_SUBST([CPU_FEATURES_LDFLAGS])
  AC_SUBST([CPU_FEATURES_LIBS])
])
