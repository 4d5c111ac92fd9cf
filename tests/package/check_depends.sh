#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Checks a Debian package's declared Depends against this machine's package database:
#  1. every shared library a packaged binary needs directly, where it comes from a package here,
#     comes from a package the Depends line names (so the CUDA runtime and cuBLAS names are
#     checked on a machine that has them from NVIDIA's repository);
#  2. Depends names NVIDIA's CUDA packages only where the binary needs the CUDA runtime or
#     cuBLAS, so that a CPU-only package installs where no NVIDIA software is;
#  3. every Depends clause names at least one package that dpkg or apt-cache knows, or one of the
#     SIBLING packages built with it, except a CUDA clause on a machine whose CUDA libraries come
#     from no package (a runfile install), and any clause not installed where apt has no package
#     lists: those are reported as unchecked, as is a library not installed here.
# Usage: check_depends.sh PACKAGE.deb PATH/IN/PACKAGE/OF/BINARY [SIBLING...]
# Exits 1 on a mismatch; prints what it checked and what it could not.
set -eu
package=$1
binary_in_package=$2
shift 2
siblings=$*
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
command -v dpkg-query >/dev/null || {
  echo "skip: no dpkg-query here"
  exit 0
}

dpkg-deb -x "$package" "$scratch/root"
binary=$scratch/root/$binary_in_package
[ -x "$binary" ] || {
  echo "FAIL: no $binary_in_package in $package"
  exit 1
}
depends=$(dpkg-deb -f "$package" Depends)
echo "Depends: $depends"
# The package names the Depends line offers, one a line, without versions or architectures.
names=$(echo "$depends" | tr ',|' '\n\n' | sed 's/(.*)//; s/:.*//; s/[[:space:]]//g' | grep .)

owner_of() {
  for path in "$1" "$(realpath "$1")"; do
    for candidate in "$path" "${path#/usr}" "/usr${path#/usr}"; do
      if owner=$(dpkg-query -S "$candidate" 2>/dev/null | head -n 1 | cut -d: -f1); then
        [ -n "$owner" ] && echo "$owner" && return 0
      fi
    done
  done
  return 1
}

failed=0
needed=$(readelf -d "$binary" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p')
cuda_depends=$(echo "$names" | grep -E '^(cuda-|libcublas|libcudart|nvidia-)' | tr '\n' ' ')
if echo "$needed" | grep -qE '^lib(cudart|cublas)'; then
  [ -n "$cuda_depends" ] ||
    echo "unchecked: $binary_in_package needs the CUDA runtime and Depends names no CUDA package (built for a runfile install?)"
elif [ -n "$cuda_depends" ]; then
  echo "FAIL: Depends names $cuda_depends but $binary_in_package needs no CUDA library"
  failed=1
else
  echo "ok: no CUDA library needed and no CUDA package named"
fi

cuda_from_packages=no
for library in $needed; do
  case $library in
    libasan.* | libubsan.* | libtsan.* | liblsan.*)
      echo "unchecked: $library is a sanitizer's runtime (a test build, not one to ship)"
      continue
      ;;
  esac
  path=$(ldd "$binary" | awk -v l="$library" '$1 == l { print $3 }')
  if [ -z "$path" ] || [ "$path" = "not" ]; then
    echo "unchecked: $library is not installed here"
    continue
  fi
  if ! owner=$(owner_of "$path"); then
    echo "unchecked: $library ($path) comes from no package here"
    continue
  fi
  case $library in libcudart* | libcublas*) cuda_from_packages=yes ;; esac
  if echo "$names" | grep -qx "$owner"; then
    echo "ok: $library comes from $owner, which Depends names"
  else
    echo "FAIL: $library comes from $owner here, which Depends does not name"
    failed=1
  fi
done

# Without package lists (no `apt-get update`) apt-cache knows only what is installed.
apt_lists=no
if command -v apt-cache >/dev/null && [ "$(apt-cache stats 2>/dev/null | awk '/^Total package names/ { print $4 }')" -gt "$(dpkg-query -W | wc -l)" ] 2>/dev/null; then
  apt_lists=yes
fi
echo "$depends" | tr ',' '\n' | while read -r clause; do
  [ -n "$clause" ] || continue
  known=no
  for name in $(echo "$clause" | tr '|' '\n' | sed 's/(.*)//; s/:.*//; s/[[:space:]]//g'); do
    for sibling in $siblings; do [ "$name" = "$sibling" ] && known=yes; done
  done
  if [ $known = yes ]; then
    echo "ok: '$clause' is built with it"
    continue
  fi
  for name in $(echo "$clause" | tr '|' '\n' | sed 's/(.*)//; s/:.*//; s/[[:space:]]//g'); do
    if dpkg-query -W "$name" >/dev/null 2>&1 ||
      { [ $apt_lists = yes ] && [ -n "$(apt-cache show "$name" 2>/dev/null)" ]; }; then
      known=yes
    fi
  done
  if [ $known = yes ]; then
    echo "ok: '$clause' is a package here"
  else
    if [ $apt_lists = no ]; then
      echo "unchecked: '$clause' is not installed and there are no package lists here"
      continue
    fi
    case $clause in
      *cuda-* | *libcublas*)
        if [ $cuda_from_packages = no ]; then
          echo "unchecked: '$clause' (CUDA is not installed from packages here)"
          continue
        fi
        ;;
    esac
    echo "FAIL: '$clause' names no package dpkg or apt-cache knows here"
    exit 1
  fi
done || failed=1
exit $failed
