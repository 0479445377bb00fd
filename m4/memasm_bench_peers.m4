# memasm_bench_peers.m4 -- optional peers for the benchmark.
#
# MEMASM_BENCH_PEERS
#   memasm-bench measures libmemasm against the system C library and, when
#   they are installed, LLVM's libc (libllvmlibc-NN-dev) and musl (musl-dev),
#   whose memcpy/memmove/memset are linked in under other names.  Missing
#   peers are reported by the benchmark as "not available".  Sets
#   LLVMLIBC_A, MUSL_LIBC_A, GNUPLOT and the HAVE_LLVMLIBC / HAVE_MUSL
#   conditionals.
AC_DEFUN([MEMASM_BENCH_PEERS], [
  AC_ARG_WITH([llvm-libc],
    [AS_HELP_STRING([--with-llvm-libc=ARCHIVE], [LLVM libc static archive for the benchmark (default: newest /usr/lib/llvm-*/lib/libllvmlibc.a)])],
    [], [with_llvm_libc=check])
  AC_ARG_WITH([musl],
    [AS_HELP_STRING([--with-musl=ARCHIVE], [musl libc.a for the benchmark (default: /usr/lib/<arch>-linux-musl/libc.a)])],
    [], [with_musl=check])
  LLVMLIBC_A=
  MUSL_LIBC_A=
  memasm_summary_peers="system libc"
  AS_IF([test "$cross_compiling" != yes], [
    AS_CASE([$with_llvm_libc],
      [no], [],
      [check|yes], [LLVMLIBC_A=`ls -d /usr/lib/llvm-*/lib/libllvmlibc.a 2>/dev/null | sort -t- -k2 -n | tail -n 1`],
      [LLVMLIBC_A=$with_llvm_libc])
    AS_CASE([$with_musl],
      [no], [],
      [check|yes], [AS_IF([test -f "/usr/lib/$host_cpu-linux-musl/libc.a"], [MUSL_LIBC_A="/usr/lib/$host_cpu-linux-musl/libc.a"])],
      [MUSL_LIBC_A=$with_musl])
  ])
  AS_IF([test -n "$LLVMLIBC_A" && test ! -f "$LLVMLIBC_A"], [AC_MSG_ERROR([LLVM libc archive '$LLVMLIBC_A' not found])])
  AS_IF([test -n "$MUSL_LIBC_A" && test ! -f "$MUSL_LIBC_A"], [AC_MSG_ERROR([musl archive '$MUSL_LIBC_A' not found])])
  dnl Why a peer is missing: disabled, a cross build, or not installed.
  memasm_peer_why_llvm="apt-get install libllvmlibc-22-dev"
  memasm_peer_why_musl="apt-get install musl-dev"
  AS_IF([test "$cross_compiling" = yes],
    [memasm_peer_why_llvm="cross build: peers are native only"; memasm_peer_why_musl=$memasm_peer_why_llvm])
  AS_IF([test "x$with_llvm_libc" = xno], [memasm_peer_why_llvm="--without-llvm-libc"])
  AS_IF([test "x$with_musl" = xno], [memasm_peer_why_musl="--without-musl"])
  AS_IF([test -n "$LLVMLIBC_A"], [memasm_summary_peers="$memasm_summary_peers, LLVM libc ($LLVMLIBC_A)"],
        [memasm_summary_peers="$memasm_summary_peers, LLVM libc NOT AVAILABLE ($memasm_peer_why_llvm)"])
  AS_IF([test -n "$MUSL_LIBC_A"], [memasm_summary_peers="$memasm_summary_peers, musl ($MUSL_LIBC_A)"],
        [memasm_summary_peers="$memasm_summary_peers, musl NOT AVAILABLE ($memasm_peer_why_musl)"])
  AC_CHECK_TOOLS([OBJCOPY], [objcopy], [objcopy])
  AC_PATH_PROGS([GNUPLOT], [gnuplot])
  AC_SUBST([LLVMLIBC_A])
  AC_SUBST([MUSL_LIBC_A])
  AM_CONDITIONAL([HAVE_LLVMLIBC], [test -n "$LLVMLIBC_A"])
  AM_CONDITIONAL([HAVE_MUSL], [test -n "$MUSL_LIBC_A"])
])
