#!/bin/sh
# tests/valgrind.sh SUITE... -- make check-valgrind (tests/valgrind.mk).
#
# Under valgrind's memcheck (--error-exitcode=1, --partial-loads-ok=no so
# that an aligned load reaching past the end is an error too):
#  1. memasm-info: valgrind emulates no AVX-512, so the dispatcher must
#     fall back (the level it reports is not avx512, no avx512 kernel is
#     installed, MEMASM_ISA=avx512 cannot raise it, no SIGILL or unhandled
#     instruction); the native run is printed beside it;
#  2. each SUITE (tests/test_conform, ...) with MEMASM_TEST_REDUCED=1 and
#     CK_FORK=no: every kernel the emulated CPU runs, the rest SKIPPED by
#     name; the suites make each call once more on exact-size heap blocks
#     (tests/memcheck.c) and fail a kernel during which memcheck counted an
#     error;
#  3. tests/memcheck-prog, linked with libmemasm.so, on exact-size malloc'd
#     blocks under every ISA cap;
#  4. the negative controls: memcheck-prog --overread must give "Invalid
#     read" errors, --uninit "uninitialised value" errors.
# Logs: tests/valgrind-NAME.log (program output), tests/valgrind-NAME.vg
# (valgrind's).  Environment from the makefile: VALGRIND, LIBTOOL,
# MEMASM_ARCH, TEST_EMULATOR.
set -u

if [ -n "${TEST_EMULATOR:-}" ]; then
    echo "check-valgrind: SKIPPED: this is a cross build (its tests run under $TEST_EMULATOR); run it in a native build"
    exit 0
fi
if [ -z "${VALGRIND:-}" ] || [ ! -x "$VALGRIND" ]; then
    echo "check-valgrind: valgrind was not found when configure ran; install it (Debian: apt-get install valgrind, or ./bootstrap) and run configure again" >&2
    exit 1
fi

vg="$VALGRIND --tool=memcheck --error-exitcode=1 --partial-loads-ok=no"
failed=0
t_all=$(date +%s.%N)

fail() {
    echo "check-valgrind: FAIL: $*"
    failed=1
}

since() {
    echo "$1 $(date +%s.%N)" | awk '{ printf "%.1f s", $2 - $1 }'
}

# Valgrind's verdict on one run: exit status 0 and no error in its log.
clean() { # name status
    if [ "$2" -ne 0 ] || ! grep -q 'ERROR SUMMARY: 0 errors' "tests/valgrind-$1.vg"; then
        fail "$1: exit status $2, $(grep 'ERROR SUMMARY' "tests/valgrind-$1.vg" | sed 's/^==[0-9]*== //')" \
             "(tests/valgrind-$1.log, tests/valgrind-$1.vg)"
        return 1
    fi
    if grep -qiE 'unhandled instruction|SIGILL' "tests/valgrind-$1.vg" "tests/valgrind-$1.log"; then
        fail "$1: an instruction valgrind cannot run was executed (tests/valgrind-$1.vg)"
        return 1
    fi
    return 0
}

# ---- 1. the dispatcher's fallback --------------------------------------
t=$(date +%s.%N)
native_isa=$(./memasm-info | sed -n 's/^isa: *//p')
native_cpu=$(./memasm-info | sed -n 's/^cpu: *//p')
st=0
$vg --log-file=tests/valgrind-memasm-info.vg ./memasm-info > tests/valgrind-memasm-info.log 2>&1 || st=$?
if clean memasm-info $st; then
    vg_isa=$(sed -n 's/^isa: *//p' tests/valgrind-memasm-info.log)
    vg_cpu=$(sed -n 's/^cpu: *//p' tests/valgrind-memasm-info.log)
    echo "memasm-info natively:      cpu $native_cpu; isa $native_isa"
    echo "memasm-info under memcheck: cpu $vg_cpu; isa $vg_isa"
    sed -n '/^features:/p; /^kernels:/,/^thresholds:/p' tests/valgrind-memasm-info.log | sed '$d; s/^/    /'
    if [ "$MEMASM_ARCH" = x86_64 ]; then
        case $vg_isa in
        *avx512*) fail "memasm-info under valgrind reports '$vg_isa': valgrind runs no AVX-512" ;;
        esac
        if sed -n '/^kernels:/,/^thresholds:/p' tests/valgrind-memasm-info.log | grep -q avx512; then
            fail "an avx512 kernel is installed under valgrind"
        fi
        st=0
        MEMASM_ISA=avx512 $vg --log-file=tests/valgrind-memasm-info-cap.vg ./memasm-info \
            > tests/valgrind-memasm-info-cap.log 2>&1 || st=$?
        if clean memasm-info-cap $st; then
            if sed -n '/^kernels:/,/^thresholds:/p' tests/valgrind-memasm-info-cap.log | grep -q avx512; then
                fail "MEMASM_ISA=avx512 installed an avx512 kernel under valgrind"
            else
                echo "MEMASM_ISA=avx512 under memcheck: isa $(sed -n 's/^isa: *//p' tests/valgrind-memasm-info-cap.log) (a cap cannot raise the level)"
            fi
        fi
    else
        echo "(the AVX-512 fallback check is x86_64's; this is $MEMASM_ARCH)"
    fi
fi
echo "memasm-info: $(since "$t")"

# ---- 2. the suites -----------------------------------------------------
for suite in "$@"; do
    name=${suite##*/}
    t=$(date +%s.%N)
    st=0
    MEMASM_TEST_REDUCED=1 CK_FORK=no $vg --log-file="tests/valgrind-$name.vg" "./$suite" \
        > "tests/valgrind-$name.log" 2>&1 || st=$?
    result=$(grep -E '^[0-9]+%: Checks' "tests/valgrind-$name.log" | tail -n 1)
    if clean "$name" $st; then
        case $name in
        test_conform | test_profiles | test_entry)
            grep -q 'under memcheck: every call' "tests/valgrind-$name.log" ||
                fail "$name did not recognise memcheck (configure found no valgrind/memcheck.h?): no exact-size heap calls"
            ;;
        esac
        if [ "$MEMASM_ARCH" = x86_64 ] && grep -qE '^[a-z]+_avx512 +\[' "tests/valgrind-$name.log"; then
            fail "$name ran an avx512 kernel under valgrind"
        fi
    fi
    ran=$(sed -n 's/^\([a-z0-9_]*\) *\[[^]]*\]: [0-9]* \(checks\|calls\).*/\1/p' "tests/valgrind-$name.log" | sort -u | tr '\n' ' ')
    skipped=$(sed -n 's/^\([a-z0-9_]*\) *SKIPPED:.*/\1/p' "tests/valgrind-$name.log" | sort -u | tr '\n' ' ')
    echo "$name: ${result:-no result line}; $(since "$t")"
    [ -z "$ran" ] || echo "    kernels run: $ran"
    sed -n 's/^entry points, cap/    entry points, cap/p' "tests/valgrind-$name.log"
    [ -z "$skipped" ] || echo "    kernels SKIPPED (the emulated CPU lacks their ISA): $skipped"
done

# ---- 3. a program linked with libmemasm.so -----------------------------
t=$(date +%s.%N)
linked=$($LIBTOOL --mode=execute ldd tests/memcheck-prog 2>/dev/null | sed -n 's/^[[:space:]]*\(libmemasm[^ ]*\) .*/\1/p' | head -n 1)
st=0
$LIBTOOL --mode=execute $vg --log-file=tests/valgrind-memcheck-prog.vg tests/memcheck-prog \
    > tests/valgrind-memcheck-prog.log 2>&1 || st=$?
clean memcheck-prog $st && sed 's/^/    /' tests/valgrind-memcheck-prog.log
echo "memcheck-prog (linked with ${linked:-libmemasm statically: no shared library built}): $(since "$t")"

# ---- 4. negative controls: memcheck must see these ---------------------
t=$(date +%s.%N)
st=0
$LIBTOOL --mode=execute $vg --log-file=tests/valgrind-overread.vg tests/memcheck-prog --overread \
    > tests/valgrind-overread.log 2>&1 || st=$?
n=$(grep -c 'Invalid read of size' tests/valgrind-overread.vg)
if [ "$st" -ne 1 ] || [ "$n" -lt 2 ]; then
    fail "negative control: a one-byte overread of a malloc'd block gave exit status $st and $n 'Invalid read' report(s), expected 1 and 2 or more (tests/valgrind-overread.vg)"
else
    echo "negative control --overread: $n 'Invalid read' reports (n = 101 and 5000, one byte past the block), exit status $st: seen"
fi
st=0
$LIBTOOL --mode=execute $vg --log-file=tests/valgrind-uninit.vg tests/memcheck-prog --uninit \
    > tests/valgrind-uninit.log 2>&1 || st=$?
if [ "$st" -ne 1 ] || ! grep -q 'uninitialised value' tests/valgrind-uninit.vg; then
    fail "negative control: a branch on copied never-written bytes gave exit status $st and no 'uninitialised value' report (tests/valgrind-uninit.vg)"
else
    echo "negative control --uninit: 'uninitialised value' reported after the copy, exit status $st: seen"
fi
echo "negative controls: $(since "$t")"

if [ $failed -ne 0 ]; then
    echo "check-valgrind: FAILED ($(since "$t_all"))"
    exit 1
fi
echo "check-valgrind: passed ($(since "$t_all"))"
