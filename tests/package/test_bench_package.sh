#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds the tilescope-bench Debian package with CPack, checks what it declares (check_depends.sh:
# the libraries it needs come from the packages it names), unpacks it into
# a scratch root (as dpkg would install it) and talks to `tilescope-bench --serve` from there.
# Usage: test_bench_package.sh CPACK BUILD_DIR
set -eu
cpack=$1
build=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

"$cpack" -G DEB -D CPACK_COMPONENTS_ALL=bench -D CPACK_PACKAGE_DIRECTORY="$scratch/out" \
  --config "$build/CPackConfig.cmake" >"$scratch/cpack.log" 2>&1 || {
  cat "$scratch/cpack.log"
  exit 1
}
package=$(ls "$scratch"/out/tilescope-bench_*.deb)
echo "built $(basename "$package")"

fail() {
  echo "FAIL: $*"
  exit 1
}
[ "$(dpkg-deb -f "$package" Package)" = tilescope-bench ] || fail "package name"
depends=$(dpkg-deb -f "$package" Depends)
echo "Depends: $depends"
case $depends in *libopenblas0*) ;; *) fail "no OpenBLAS dependency" ;; esac
case $depends in *qt6* | *Qt6*) fail "the server package depends on Qt" ;; esac
"$(dirname "$0")/check_depends.sh" "$package" usr/bin/tilescope-bench ||
  fail "Depends does not match this machine's packages"
dpkg-deb -c "$package" | grep -q '/usr/bin/tilescope-bench$' || fail "no /usr/bin/tilescope-bench"
dpkg-deb -c "$package" | grep -qv 'bin/tilescope$' || fail "the app is in the server package"
dpkg-deb -c "$package" | grep -q '/usr/share/man/man1/tilescope-bench.1$' ||
  fail "no man page /usr/share/man/man1/tilescope-bench.1"

dpkg-deb -x "$package" "$scratch/root"
replies=$(printf '%s\n' '{"verb":"hello","id":1}' \
  '{"verb":"run","id":2,"backend":"cpu","request":{"kernel":"naive","m":16,"n":16,"k":16,"reps":2}}' \
  '{"verb":"bye","id":3}' | "$scratch/root/usr/bin/tilescope-bench" --serve)
echo "$replies" | grep -q '"protocol":1' || fail "no hello with protocol 1: $replies"
echo "$replies" | grep '"reply":"result"' | grep -q '"verified":true' || fail "no verified result"
echo "$replies" | tail -n 1 | grep -q '"reply":"bye"' || fail "no bye"
echo "tilescope-bench --serve from the unpacked package answered hello, run and bye"
