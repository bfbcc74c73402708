#!/usr/bin/env bash
# The wheel end to end, installed the ways users install it (docs/packaging.md), from the file
# scripts/wheel built, with the tools of the pinned tools venv (pip, pipx, uv), never an index:
#   1. the wheel: three programs in its scripts folder, the crawler's data and the man pages in
#      its data folder, nothing grafted, and `auditwheel show` agrees with its platform tag;
#   2. pip into a fresh venv: --version says the wheel's version; `select` and `detect` of a
#      captured host answer exactly what the release build of this tree answers (a cuXYZ
#      backend; the same embedded catalogue); torchdex-crawl crawls the index fixture on
#      loopback nginx into the same catalogue as the release build's crawler, from the data the
#      wheel installed; without libcurl or libxml2 (TORCHDEX_LIBCURL, TORCHDEX_LIBXML2 naming
#      a library that does not exist) it fails saying which package to install; pip uninstall
#      removes it all;
#   3. `pipx install WHEEL` and `uv tool install WHEEL` (temporary homes), and
#      `uvx --from WHEEL torchdex select`: the same answer.
# Every proxy variable points at a closed port of 127.0.0.1, so a tool that tried an index
# would fail here rather than reach the network.
#
#   wheel_test.sh WHEEL_DIR RELEASE_BUILD_DIR TOOLS_PYTHON
# Exits 77 (ctest: skipped) when WHEEL_DIR holds no wheel, unless TORCHDEX_WHEEL_REQUIRED=1
# (scripts/test), which makes that a failure.
set -euo pipefail
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
wheel_dir=${1:?usage: wheel_test.sh WHEEL_DIR RELEASE_BUILD_DIR TOOLS_PYTHON}
release=$(cd "${2:?usage: wheel_test.sh WHEEL_DIR RELEASE_BUILD_DIR TOOLS_PYTHON}" && pwd)
tools=$(dirname "${3:?usage: wheel_test.sh WHEEL_DIR RELEASE_BUILD_DIR TOOLS_PYTHON}")
# shellcheck source=scripts/setup.sh
source "$src/scripts/setup.sh"

wheels=("$wheel_dir"/torchdex-*.whl)
if [ ! -f "${wheels[0]}" ]; then
  echo "wheel_test: no wheel in $wheel_dir: scripts/wheel builds it"
  if [ "${TORCHDEX_WHEEL_REQUIRED:-0}" = 1 ]; then exit 1; fi
  exit 77
fi
[ ${#wheels[@]} = 1 ] || { echo "wheel_test: more than one wheel in $wheel_dir: ${wheels[*]}"; exit 1; }
wheel=${wheels[0]}
for tool in python pip pipx uv uvx auditwheel; do
  [ -x "$tools/$tool" ] || { echo "wheel_test: $tools/$tool is missing (scripts/setup.sh: torchdex_tools_venv)"; exit 1; }
done
echo "wheel_test: $(basename "$wheel") ($(stat -c %s "$wheel") bytes, built $(date -r "$wheel" '+%F %T'))"

work=$(mktemp -d /tmp/torchdex-wheel-test-XXXXXX)
chmod 755 "$work"  # nginx workers run as an unprivileged user
trap 'torchdex_nginx_stop; rm -rf "$work"' EXIT

export http_proxy=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9 all_proxy=http://127.0.0.1:9
export HTTP_PROXY=$http_proxy HTTPS_PROXY=$https_proxy ALL_PROXY=$all_proxy
export no_proxy=127.0.0.1,localhost NO_PROXY=127.0.0.1,localhost
export PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PIP_CONFIG_FILE=/dev/null
export UV_OFFLINE=1 UV_NO_CONFIG=1 UV_PYTHON_DOWNLOADS=never UV_CACHE_DIR=$work/uv-cache
unset TORCHDEX_DATA_DIR TORCHDEX_LIBCURL TORCHDEX_LIBXML2 VIRTUAL_ENV
python=/usr/bin/python3
[ -x "$python" ] || python=$(command -v python3)

# shellcheck source=tests/support/checks.sh
source "$src/tests/support/checks.sh"
quietly() { "$@" >/dev/null 2>&1; }

# 1. The wheel itself.
version=$(basename "$wheel" | cut -d- -f2)
platform=$(basename "$wheel" .whl | cut -d- -f5)
"$tools/python" - "$wheel" "$version" >"$work/contents.txt" <<'PY'
import sys, zipfile
wheel, version = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    for info in z.infolist():
        mode = (info.external_attr >> 16) & 0o777
        print(info.filename, "executable" if mode & 0o100 else "")
PY
data=torchdex-$version.data
for program in torchdex torchdex-crawl torchdex-codegen; do
  check "the wheel has $program in its scripts folder, executable" \
    contains "$work/contents.txt" "$data/scripts/$program executable"
done
check "the wheel has the crawler's data under share/torchdex/data" \
  contains "$work/contents.txt" "$data/data/share/torchdex/data/indexes.json"
check "the wheel has the man pages" contains "$work/contents.txt" "$data/data/share/man/man1/torchdex.1"
check "the wheel grafts no library (no .libs or .scripts folder)" \
  bash -c "! grep -qE '^torchdex\\.(libs|scripts)/' '$work/contents.txt'"
"$tools/auditwheel" show "$wheel" >"$work/show.txt" 2>&1 || true
tr '\n' ' ' <"$work/show.txt" | tr -s ' ' >"$work/show-line.txt"
check "auditwheel show: consistent with $platform, the tag it claims" \
  contains "$work/show-line.txt" "is consistent with the following platform tag: \"$platform\""
check "the tag is a manylinux one" same "${platform%%_[0-9]*}" manylinux

# 2. pip into a fresh venv.
host=$src/tests/fixtures/hosts/linux-rtx3090-driver550-proprietary
"$python" -m venv "$work/venv"
"$work/venv/bin/python" -m pip install --quiet --no-deps "$wheel" >"$work/pip.log" 2>&1 ||
  { cat "$work/pip.log"; echo "FAILED - pip install $(basename "$wheel")"; exit 1; }
bin=$work/venv/bin
check "pip: torchdex --version is the wheel's version" same "$("$bin/torchdex" --version)" "torchdex $version"
check "pip: torchdex-crawl --version" same "$("$bin/torchdex-crawl" --version)" "torchdex-crawl $version"
check "pip: torchdex-codegen --help" quietly "$bin/torchdex-codegen" --help
check "pip: the man pages are in the venv's share/man" test -f "$work/venv/share/man/man1/torchdex-crawl.1"

expected=$("$release/installer/torchdex" select --root "$host" --json |
  "$python" -c 'import json, sys; print(json.load(sys.stdin)["backend"])')
check "the release build chooses a CUDA backend for $(basename "$host") ($expected)" \
  bash -c "[[ '$expected' =~ ^cu[0-9]+$ ]]"
"$release/installer/torchdex" select --root "$host" --explain >"$work/select.expected"
# detect --json without its timings, which differ from run to run.
detect_facts() {
  "$1" detect --root "$host" --json |
    "$python" -c 'import json, sys; d = json.load(sys.stdin); d.pop("timings_us"); print(json.dumps(d, indent=1))'
}
detect_facts "$release/installer/torchdex" >"$work/detect.expected"
"$bin/torchdex" select --root "$host" --explain >"$work/select.pip"
detect_facts "$bin/torchdex" >"$work/detect.pip"
check "pip: select --explain answers as the release build ($expected)" same_file "$work/select.pip" "$work/select.expected"
check "pip: detect --json answers as the release build (but its timings)" same_file "$work/detect.pip" "$work/detect.expected"

torchdex_nginx_start "$src/tests/fixtures/pytorch-index"
base=http://127.0.0.1:$TORCHDEX_NGINX_PORT/whl/
crawl() {  # crawl NAME CRAWLER [ENV...]: crawls the fixture into NAME.sqlite, exports NAME.json
  local name=$1 crawler=$2
  shift 2
  local code=0
  env "$@" "$crawler" crawl --store "$work/$name.sqlite" --base-url "$base" --attempts 1 -q \
    --export "$work/$name.json" >"$work/$name.out" 2>"$work/$name.err" || code=$?
  echo "$code" >"$work/$name.code"
}
without_provenance() {
  "$python" -c 'import json, sys; d = json.load(open(sys.argv[1])); d.pop("provenance"); print(json.dumps(d, sort_keys=True))' "$1"
}
crawl release "$release/crawler/torchdex-crawl" TORCHDEX_DATA_DIR="$src/data"
crawl pip "$bin/torchdex-crawl"
check "pip: torchdex-crawl crawls loopback nginx (exit 0)" same "$(cat "$work/pip.code")" 0
if [ -f "$work/pip.json" ] && [ -f "$work/release.json" ]; then
  without_provenance "$work/pip.json" >"$work/pip.catalogue"
  without_provenance "$work/release.json" >"$work/release.catalogue"
  check "pip: the crawl exports the release build's catalogue" same_file "$work/pip.catalogue" "$work/release.catalogue"
  check "pip: the catalogue has cu128 and torch" \
    "$python" -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(not ("cu128" in d["backends"] and "torch" in d["projects"]))' "$work/pip.json"
else
  check "pip: the crawls exported catalogues" false
fi

# Without libcurl or libxml2: the error names what to install.
crawl no-curl "$bin/torchdex-crawl" TORCHDEX_LIBCURL=libtorchdex-absent.so.4
check "no libcurl: the crawl fails (exit 1)" same "$(cat "$work/no-curl.code")" 1
check "no libcurl: the error names the library" contains "$work/no-curl.err" \
  "TORCHDEX_LIBCURL=libtorchdex-absent.so.4 cannot be loaded"
check "no libcurl: the error names the Debian and the RPM package" contains "$work/no-curl.err" \
  "install libcurl 7.85 or newer: the package libcurl4 (Debian, Ubuntu, openSUSE) or libcurl (Fedora, RHEL)"
crawl no-xml "$bin/torchdex-crawl" TORCHDEX_LIBXML2=libtorchdex-absent.so.2
check "no libxml2: the crawl fails (exit 1)" same "$(cat "$work/no-xml.code")" 1
check "no libxml2: the error names the package" contains "$work/no-xml.err" \
  "TORCHDEX_LIBXML2=libtorchdex-absent.so.2 cannot be loaded"
check "no libxml2: the error says what to install" contains "$work/no-xml.err" "install the package libxml2"

# The installed crawler reads the data the wheel installed: break it and it must say so.
echo '{' >"$work/venv/share/torchdex/data/indexes.json"
crawl broken-data "$bin/torchdex-crawl"
check "pip: torchdex-crawl reads the venv's share/torchdex/data" contains "$work/broken-data.err" \
  "$work/venv/share/torchdex/data/indexes.json"

"$work/venv/bin/python" -m pip uninstall --quiet --yes torchdex >"$work/uninstall.log" 2>&1 || cat "$work/uninstall.log"
check "pip uninstall removes the programs and the data" \
  bash -c "[ ! -e '$bin/torchdex' ] && [ ! -e '$bin/torchdex-crawl' ] && [ ! -e '$work/venv/share/man/man1/torchdex.1' ]"

# 3. pipx and uv, as users install tools.
if env PIPX_HOME="$work/pipx" PIPX_BIN_DIR="$work/pipx-bin" PIPX_MAN_DIR="$work/pipx-man" \
    "$tools/pipx" install --python "$python" "$wheel" >"$work/pipx.log" 2>&1; then
  "$work/pipx-bin/torchdex" select --root "$host" --explain >"$work/select.pipx" 2>&1 || true
  check "pipx install: select answers as the release build" same_file "$work/select.pipx" "$work/select.expected"
  check "pipx install: the man pages are linked" test -f "$work/pipx-man/man1/torchdex.1"
else
  cat "$work/pipx.log"
  check "pipx install $(basename "$wheel")" false
fi

if env UV_TOOL_DIR="$work/uv-tools" UV_TOOL_BIN_DIR="$work/uv-bin" \
    "$tools/uv" tool install --offline --python "$python" "$wheel" >"$work/uv-tool.log" 2>&1; then
  "$work/uv-bin/torchdex" select --root "$host" --explain >"$work/select.uv-tool" 2>&1 || true
  check "uv tool install: select answers as the release build" same_file "$work/select.uv-tool" "$work/select.expected"
  "$work/uv-bin/torchdex-crawl" --version >"$work/uv-crawl.version" 2>&1 || true
  check "uv tool install: torchdex-crawl runs" same "$(cat "$work/uv-crawl.version")" "torchdex-crawl $version"
else
  cat "$work/uv-tool.log"
  check "uv tool install $(basename "$wheel")" false
fi

"$tools/uvx" --offline --python "$python" --from "$wheel" torchdex select --root "$host" --explain \
  >"$work/select.uvx" 2>"$work/uvx.err" || cat "$work/uvx.err"
check "uvx --from WHEEL torchdex select: answers as the release build" same_file "$work/select.uvx" "$work/select.expected"

echo "wheel_test: $passed passed, $failed failed"
[ "$failed" = 0 ]
