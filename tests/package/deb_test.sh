#!/usr/bin/env bash
# Builds the .deb with cpack into a scratch folder, unpacks it with `dpkg -x` into a scratch
# root, and runs the programs from there: --version of each, and torchdex-crawl reading the
# data files it was installed with (not the source tree's). Checks the declared dependencies.
#   deb_test.sh CPACK CPackConfig.cmake
set -euo pipefail
cpack=$1
config=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "deb_test: $*" >&2; exit 1; }

"$cpack" -G DEB --config "$config" -B "$scratch/out" >"$scratch/cpack.log" 2>&1 ||
  { cat "$scratch/cpack.log" >&2; fail "cpack failed"; }
debs=("$scratch"/out/torchdex_*.deb)
[ -f "${debs[0]}" ] || fail "cpack made no .deb: $(ls "$scratch/out")"
deb=${debs[0]}
echo "deb_test: built $(basename "$deb") ($(stat -c %s "$deb") bytes)"

depends=$(dpkg-deb -f "$deb" Depends)
echo "deb_test: Depends: $depends"
for needed in libc6 libstdc++6 libcurl libxml2 libsqlite3 libboost-program-options; do
  [[ $depends == *"$needed"* ]] || fail "Depends lacks $needed"
done

root="$scratch/root"
dpkg -x "$deb" "$root"
for path in usr/bin/torchdex usr/bin/torchdex-crawl usr/bin/torchdex-codegen \
    usr/share/man/man1/torchdex.1 usr/share/man/man1/torchdex-crawl.1 \
    usr/share/man/man1/torchdex-codegen.1 usr/share/doc/torchdex/detection.md \
    usr/share/torchdex/data/indexes.json usr/share/torchdex/data/routing-policy.json; do
  [ -e "$root/$path" ] || fail "the package lacks /$path"
done

version=$(env -u TORCHDEX_DATA_DIR "$root/usr/bin/torchdex" --version)
[[ $version == "torchdex "* ]] || fail "torchdex --version said '$version'"
crawl_version=$(env -u TORCHDEX_DATA_DIR "$root/usr/bin/torchdex-crawl" --version)
[[ $crawl_version == "torchdex-crawl "* ]] || fail "torchdex-crawl --version said '$crawl_version'"
"$root/usr/bin/torchdex-codegen" --help >/dev/null || fail "torchdex-codegen --help failed"
echo "deb_test: $version; $crawl_version"

# The installed crawler must find its installed data: break the copy and it must say so.
echo '{' >"$root/usr/share/torchdex/data/indexes.json"
set +e
env -u TORCHDEX_DATA_DIR "$root/usr/bin/torchdex-crawl" crawl --store "$scratch/s.sqlite" \
  --base-url http://127.0.0.1:9/whl/ --attempts 1 --quiet >"$scratch/crawl.out" 2>"$scratch/crawl.err"
rc=$?
set -e
grep -q "$root/usr/share/torchdex/data/indexes.json" "$scratch/crawl.err" ||
  { cat "$scratch/crawl.err" >&2; fail "torchdex-crawl (rc $rc) did not read the installed indexes.json"; }
echo "deb_test: ok"
