#!/bin/sh
# check-install.sh -- check an installed libmemasm (make installcheck; make
# check-install runs it on a tree installed with DESTDIR).
#
# Environment (set by pkg/local.mk): DESTDIR (may be empty), prefix,
# bindir, libdir, includedir, pkgconfigdir, cmakeconfigdir, man1dir,
# man3dir, man5dir (configure's, without DESTDIR), VERSION, CC, CMAKE,
# PKG_CONFIG, srcdir, MEMASM_API_NAMES (the header's functions),
# MEMASM_PROFILE_LIB (yes when the build has libmemasm-profile.so),
# REQUIRE_TOOLS (yes: a missing pkg-config or cmake fails instead of
# skipping its part).
#
# 1. Every file make install should have put there is there.
# 2. A consumer (pkg/consumer) built with `pkg-config --cflags --libs
#    memasm`, with `pkg-config --static --libs` linked statically to
#    libmemasm (readelf: libmemasm.so is not NEEDED), and with CMake's
#    find_package(memasm) (memasm::memasm, memasm::memasm_static) runs,
#    checks its bytes and prints the library's version, which must be
#    VERSION; the shared ones must load the installed library, not the build
#    tree's.  find_package(memasm 99) must fail.
# 3. The installed programs and the preload libraries run.
# Exit status 0 pass, 1 fail.
set -u
root=$DESTDIR$prefix
d() { printf '%s%s' "$DESTDIR" "$1"; } # a configured directory, staged
work=${TMPDIR:-/tmp}/memasm-installcheck.$$
mkdir "$work" || exit 1
trap 'rm -rf "$work"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
ok() { echo "ok: $*"; }
have() {
    if command -v "${1%% *}" >/dev/null 2>&1; then return 0; fi
    if [ "${REQUIRE_TOOLS:-no}" = yes ]; then fail "$1 not found (bootstrap installs it)"; else echo "SKIP: no $1"; fi
    return 1
}
echo "installed tree: $root (DESTDIR '${DESTDIR}', prefix $prefix)"

# ---- 1. the files -----------------------------------------------------------
lib=$(d "$libdir")
expect="$(d "$bindir")/memasm-info $(d "$bindir")/memasm-tune $(d "$bindir")/memasm-bench
$(d "$includedir")/memasm.h $lib/libmemasm.a $lib/libmemasm.so $lib/libmemasm-preload.so
$(d "$pkgconfigdir")/memasm.pc $(d "$cmakeconfigdir")/memasmConfig.cmake
$(d "$cmakeconfigdir")/memasmConfigVersion.cmake $(d "$man1dir")/memasm-info.1
$(d "$man1dir")/memasm-tune.1 $(d "$man1dir")/memasm-bench.1 $(d "$man3dir")/memasm.3
$(d "$man5dir")/memasm.conf.5"
[ "${MEMASM_PROFILE_LIB:-no}" = yes ] && expect="$expect $lib/libmemasm-profile.so"
for name in $MEMASM_API_NAMES; do
    expect="$expect $(d "$man3dir")/$name.3"
done
missing=
for f in $expect; do
    [ -e "$f" ] || missing="$missing $f"
done
if [ -n "$missing" ]; then
    fail "not installed:$missing"
else
    ok "$(echo $expect | wc -w) files installed (programs, libraries, header, memasm.pc, CMake package, man pages)"
fi
# The man pages format without a warning (man -l on the installed files).
if command -v man >/dev/null 2>&1; then
    for page in "$(d "$man1dir")"/memasm-*.1 "$(d "$man3dir")/memasm.3" "$(d "$man5dir")/memasm.conf.5"; do
        [ -f "$page" ] || continue
        warn=$(cd "$(dirname "$(dirname "$page")")" && LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "$page" 2>&1 >/dev/null)
        [ -z "$warn" ] || fail "man $page: $warn"
    done
    alias=$(cd "$(d "$man3dir")/.." && LC_ALL=C.UTF-8 MANWIDTH=80 man -l man3/memasm_memcpy.3 2>/dev/null | grep -c 'MEMASM_INLINE_SMALL')
    [ "${alias:-0}" -gt 0 ] || fail "man3/memasm_memcpy.3 does not show memasm(3)"
    [ $failed -eq 0 ] && ok "man pages format without warnings; memasm_memcpy(3) shows memasm(3)"
fi

# run WHAT PROGRAM: run a consumer, check its line and exit status, and
# that its memcpy kernel is the one the first consumer got: a static link
# must run the constructor that picks the kernel for this CPU too.
kernel=
run() {
    what=$1
    shift
    out=$("$@" 2>&1)
    st=$?
    case $out in
    "libmemasm $VERSION, header $VERSION, memcpy kernel "*", checks ok")
        k=${out#*memcpy kernel }
        k=${k%%,*}
        [ -n "$kernel" ] || kernel=$k
        if [ $st -ne 0 ]; then
            fail "$what: exit status $st: $out"
        elif [ "$k" != "$kernel" ]; then
            fail "$what: memcpy kernel $k, but $kernel in the first consumer (was the start-up code linked in?): $out"
        else
            ok "$what: $out"
        fi
        ;;
    *) fail "$what: exit status $st: $out" ;;
    esac
}
# loads_installed PROGRAM: the libmemasm.so it loads is the installed one.
loads_installed() {
    so=$(ldd "$1" | awk '/libmemasm\.so/ { print $3 }')
    case $so in
    "$lib"/*) ok "$(basename "$1") loads $so" ;;
    *) fail "$(basename "$1") loads '$so', not the installed $lib/libmemasm.so" ;;
    esac
}
# not_needed PROGRAM: libmemasm.so is not among its NEEDED, and it defines
# memasm_memcpy itself (weak on x86_64: entry.asm's definition, which the
# shared library's indirect function replaces there).
not_needed() {
    if readelf -d "$1" | grep NEEDED | grep -q libmemasm; then
        fail "$(basename "$1"): libmemasm.so is NEEDED: $(readelf -d "$1" | grep NEEDED | tr -s ' ')"
    elif ! nm "$1" | grep -q ' [TW] memasm_memcpy$'; then
        fail "$(basename "$1"): does not contain memasm_memcpy"
    else
        ok "$(basename "$1"): libmemasm linked in (not NEEDED: $(readelf -d "$1" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | paste -sd' '))"
    fi
}

# ---- 2. consumers ------------------------------------------------------------
src=$srcdir/pkg/consumer
if have "${PKG_CONFIG:-pkg-config}"; then
    # A DESTDIR tree is a sysroot to pkg-config: it puts DESTDIR before the
    # .pc file's -I and -L paths.
    pc() {
        PKG_CONFIG_PATH=$(d "$pkgconfigdir") PKG_CONFIG_LIBDIR= PKG_CONFIG_SYSROOT_DIR=$DESTDIR \
            ${PKG_CONFIG:-pkg-config} "$@"
    }
    v=$(pc --modversion memasm)
    [ "$v" = "$VERSION" ] && ok "pkg-config --modversion memasm: $v" || fail "pkg-config --modversion memasm: '$v', not $VERSION"
    cflags=$(pc --cflags memasm) && libs=$(pc --libs memasm) && slibs=$(pc --static --libs memasm) || fail "pkg-config memasm"
    echo "pkg-config: --cflags '$cflags' --libs '$libs' --static --libs '$slibs'"
    # shellcheck disable=SC2086 # the flags are words
    if $CC -o "$work/pc-shared" "$src/consumer.c" $cflags $libs -Wl,-rpath,"$lib"; then
        run "pkg-config --libs" "$work/pc-shared"
        loads_installed "$work/pc-shared"
    else
        fail "$CC consumer.c \$(pkg-config --cflags --libs memasm)"
    fi
    # Static libmemasm in a dynamic program: -Bstatic around the library's
    # own flags (libmemasm.so sits next to libmemasm.a).
    # shellcheck disable=SC2086
    if $CC -o "$work/pc-static" "$src/consumer.c" $cflags -Wl,-Bstatic $slibs -Wl,-Bdynamic; then
        run "pkg-config --static --libs" "$work/pc-static"
        not_needed "$work/pc-static"
    else
        fail "$CC consumer.c -Wl,-Bstatic \$(pkg-config --static --libs memasm) -Wl,-Bdynamic"
    fi
    # And a fully static program.
    # shellcheck disable=SC2086
    if $CC -static -o "$work/pc-allstatic" "$src/consumer.c" $cflags $slibs; then
        run "-static \$(pkg-config --static --libs)" "$work/pc-allstatic"
        readelf -d "$work/pc-allstatic" | grep -q NEEDED && fail "pc-allstatic has NEEDED entries"
    else
        fail "$CC -static consumer.c \$(pkg-config --static --libs memasm)"
    fi
fi

if have "${CMAKE:-cmake}"; then
    cmake=${CMAKE:-cmake}
    b=$work/cmake
    if $cmake -S "$src" -B "$b" -DCMAKE_C_COMPILER="${CC%% *}" -DCMAKE_PREFIX_PATH="$root" \
        -DMEMASM_WANT="${VERSION%.*}" >"$work/cmake.log" 2>&1 &&
        $cmake --build "$b" >>"$work/cmake.log" 2>&1; then
        found=$(sed -n 's/^-- memasm \(.*\)$/\1/p' "$work/cmake.log")
        case $found in
        "$VERSION in $(d "$cmakeconfigdir")") ok "find_package(memasm ${VERSION%.*}): $found" ;;
        *) fail "find_package found '$found', not $VERSION in $(d "$cmakeconfigdir")" ;;
        esac
        run "CMake memasm::memasm" "$b/consumer"
        loads_installed "$b/consumer"
        run "CMake memasm::memasm_static (MEMASM_INLINE_SMALL)" "$b/consumer-static"
        not_needed "$b/consumer-static"
    else
        cat "$work/cmake.log"
        fail "cmake with find_package(memasm)"
    fi
    # A version this package does not satisfy must not be found.
    if $cmake -S "$src" -B "$work/cmake99" -DCMAKE_PREFIX_PATH="$root" -DMEMASM_WANT=99 >"$work/cmake99.log" 2>&1; then
        fail "find_package(memasm 99) succeeded"
    elif grep -q 'version: 0' "$work/cmake99.log" || grep -q "$VERSION" "$work/cmake99.log"; then
        ok "find_package(memasm 99) fails, naming $VERSION"
    else
        cat "$work/cmake99.log"
        fail "find_package(memasm 99) failed for another reason"
    fi
fi

# ---- 3. programs and preload libraries --------------------------------------
bin=$(d "$bindir")
v=$("$bin/memasm-info" --version 2>&1)
case $v in *"$VERSION"*) ok "memasm-info --version: $v" ;; *) fail "memasm-info --version: $v" ;; esac
for p in memasm-tune memasm-bench; do
    "$bin/$p" --help >"$work/help" 2>&1 && grep -qi usage "$work/help" &&
        ok "$p --help" || fail "$p --help: $(head -3 "$work/help")"
done
# sort moves its lines with memmove and memcpy: the calls must be served.
seq 1 100000 | sort -R >"$work/in"
LD_PRELOAD=$lib/libmemasm-preload.so MEMASM_DEBUG=1 sort -n "$work/in" >"$work/out" 2>"$work/err"
served=$(awk '/^libmemasm-preload: (memcpy|memmove) [0-9]+ calls/ { n += $3 } END { print n + 0 }' "$work/err")
if seq 1 100000 | cmp -s - "$work/out" && [ "${served:-0}" -gt 0 ]; then
    ok "LD_PRELOAD=libmemasm-preload.so sort: $served memcpy and memmove calls served, output right"
else
    fail "LD_PRELOAD=libmemasm-preload.so sort: $(cat "$work/err")"
fi
if [ "${MEMASM_PROFILE_LIB:-no}" = yes ]; then
    MEMASM_PROFILE=$work/profile LD_PRELOAD=$lib/libmemasm-profile.so sort -n "$work/in" >"$work/out2" 2>"$work/err"
    if seq 1 100000 | cmp -s - "$work/out2" && grep -q '^memmove' "$work/profile" 2>/dev/null; then
        ok "LD_PRELOAD=libmemasm-profile.so sort: output right, a profile of $(wc -l <"$work/profile") lines"
    else
        fail "LD_PRELOAD=libmemasm-profile.so sort: no profile with memmove ($(cat "$work/err"))"
    fi
fi

if [ $failed -ne 0 ]; then
    echo "installcheck: $failed FAILED"
    exit 1
fi
echo "installcheck: passed"
exit 0
