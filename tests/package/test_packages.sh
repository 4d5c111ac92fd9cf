#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds the Debian packages of a build directory with CPack and checks them as apt and a user
# would meet them: names, Depends (check_depends.sh: the libraries each program needs come from
# the packages it names; NVIDIA's only where CUDA is linked), stripped programs, gzipped man
# pages, copyright files, the desktop entry, icon and AppStream metainfo; then unpacks the server
# package into a scratch root (as dpkg would install it) and talks to `tilescope-bench --serve`
# from there.
# Usage: test_packages.sh CPACK BUILD_DIR VERSION BENCH_PACKAGE APP_PACKAGE|- CUDA_DEPENDS|-
#                         RUNPATH|-
#   APP_PACKAGE: - when the build has no GUI; CUDA_DEPENDS: the NVIDIA packages both must name,
#   space-separated, or - for none; RUNPATH: the programs' (where CUDA came from no package),
#   or - for none.
set -eu
cpack=$1
build=$2
version=$3
bench_package=$4
app_package=$5
cuda_depends=$6
[ "$cuda_depends" = - ] && cuda_depends=
runpath=$7
[ "$runpath" = - ] && runpath=
here=$(dirname "$0")
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

"$cpack" -G DEB -D CPACK_PACKAGE_DIRECTORY="$scratch/out" --config "$build/CPackConfig.cmake" \
  >"$scratch/cpack.log" 2>&1 || {
  cat "$scratch/cpack.log"
  exit 1
}

# (on stderr: also from inside $(...))
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
# The package of PACKAGE_NAME in $scratch/out.
deb_of() {
  found=$(ls "$scratch/out/$1_${version}_"*.deb 2>/dev/null) || fail "no $1 package: $(ls "$scratch/out")"
  echo "$found"
}
# FILE exists in the package DEB.
has_file() {
  dpkg-deb -c "$1" | awk '{ print $NF }' | grep -qx "./$2" || fail "no /$2 in $(basename "$1")"
}
# The program PATH of DEB has no symbol table (install/strip) and the RUNPATH expected.
program() {
  dpkg-deb --fsys-tarfile "$1" | tar -xOf - "./$2" >"$scratch/program"
  ! readelf -S "$scratch/program" | grep -q '\.symtab' || fail "/$2 in $(basename "$1") is not stripped"
  echo "ok: /$2 is stripped ($(wc -c <"$scratch/program") bytes)"
  found=$(readelf -d "$scratch/program" | sed -n 's/.*(R[UN]*PATH).*\[\(.*\)\]/\1/p')
  [ "$found" = "$runpath" ] || fail "/$2 has the RUNPATH '$found', not '$runpath'"
}
# The man page PAGE of DEB is gzip -9n'd troff.
man_page() {
  has_file "$1" "usr/share/man/man1/$2.1.gz"
  dpkg-deb --fsys-tarfile "$1" | tar -xOf - "./usr/share/man/man1/$2.1.gz" | gzip -dc |
    grep -q '^\.TH ' || fail "/usr/share/man/man1/$2.1.gz is no gzipped man page"
}
copyright() {
  dpkg-deb --fsys-tarfile "$1" | tar -xOf - "./usr/share/doc/$2/copyright" | head -n 1 |
    grep -qx 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' ||
    fail "no machine-readable /usr/share/doc/$2/copyright"
}
# Depends of DEB names every package of $cuda_depends, and with none of them no CUDA package.
cuda_clauses() {
  depends=$(dpkg-deb -f "$1" Depends)
  if [ -z "$cuda_depends" ]; then
    case $depends in *cuda* | *cublas* | *nvidia*) fail "$(basename "$1") names NVIDIA packages: $depends" ;; esac
  fi
  for name in $cuda_depends; do
    echo "$depends" | tr ',' '\n' | grep -qw "$name" || fail "$(basename "$1") does not name $name"
  done
}
# A CUDA package stands in for the CPU-only one of the same program.
replaces() {
  [ "$2" = "$3" ] && return 0
  for field in Provides Conflicts Replaces; do
    dpkg-deb -f "$1" "$field" | grep -qw "$3" || fail "$(basename "$1") has no $field: $3"
  done
}

bench=$(deb_of "$bench_package")
echo "built $(basename "$bench") ($(wc -c <"$bench") bytes)"
[ "$(dpkg-deb -f "$bench" Package)" = "$bench_package" ] || fail "package name"
depends=$(dpkg-deb -f "$bench" Depends)
case $depends in *libopenblas0*) ;; *) fail "no OpenBLAS dependency" ;; esac
case $depends in *qt6* | *Qt6*) fail "the server package depends on Qt" ;; esac
cuda_clauses "$bench"
replaces "$bench" "$bench_package" tilescope-bench
"$here/check_depends.sh" "$bench" usr/bin/tilescope-bench ||
  fail "Depends does not match this machine's packages"
has_file "$bench" usr/bin/tilescope-bench
dpkg-deb -c "$bench" | grep -q 'bin/tilescope$' && fail "the app is in the server package"
program "$bench" usr/bin/tilescope-bench
man_page "$bench" tilescope-bench
copyright "$bench" "$bench_package"

if [ "$app_package" != - ]; then
  app=$(deb_of "$app_package")
  echo "built $(basename "$app") ($(wc -c <"$app") bytes)"
  dpkg-deb -f "$app" Depends | grep -q "^$bench_package (= $version)" ||
    fail "$app_package does not depend on $bench_package (= $version) first"
  cuda_clauses "$app"
  replaces "$app" "$app_package" tilescope
  "$here/check_depends.sh" "$app" usr/bin/tilescope "$bench_package" ||
    fail "the app's Depends does not match this machine's packages"
  program "$app" usr/bin/tilescope
  man_page "$app" tilescope
  copyright "$app" "$app_package"
  has_file "$app" usr/share/applications/io.github.tilescope.TileScope.desktop
  has_file "$app" usr/share/icons/hicolor/scalable/apps/io.github.tilescope.TileScope.svg
  metainfo=usr/share/metainfo/io.github.tilescope.TileScope.metainfo.xml
  has_file "$app" "$metainfo"
  dpkg-deb -x "$app" "$scratch/app"
  # The newest release the metainfo lists is this one.
  grep -o '<release version="[^"]*"' "$scratch/app/$metainfo" | head -n 1 |
    grep -qx "<release version=\"$version\"" ||
    fail "the metainfo's first release is not $version: bump it with the project's version"
  if command -v appstreamcli >/dev/null; then
    appstreamcli validate --no-net "$scratch/app/$metainfo" >"$scratch/appstream.log" 2>&1 || {
      cat "$scratch/appstream.log"
      fail "appstreamcli validate"
    }
    echo "ok: appstreamcli validate --no-net passes the metainfo"
  else
    echo "unchecked: no appstreamcli here to validate the metainfo"
  fi
  if command -v desktop-file-validate >/dev/null; then
    desktop-file-validate "$scratch/app/usr/share/applications/io.github.tilescope.TileScope.desktop" ||
      fail "desktop-file-validate"
  fi
fi

dpkg-deb -x "$bench" "$scratch/root"
replies=$(printf '%s\n' '{"verb":"hello","id":1}' \
  '{"verb":"run","id":2,"backend":"cpu","request":{"kernel":"naive","m":16,"n":16,"k":16,"reps":2}}' \
  '{"verb":"bye","id":3}' | "$scratch/root/usr/bin/tilescope-bench" --serve)
echo "$replies" | grep -q '"protocol":1' || fail "no hello with protocol 1: $replies"
echo "$replies" | grep '"reply":"result"' | grep -q '"verified":true' || fail "no verified result"
echo "$replies" | tail -n 1 | grep -q '"reply":"bye"' || fail "no bye"
echo "tilescope-bench --serve from the unpacked package answered hello, run and bye"
