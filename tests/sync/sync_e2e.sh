#!/usr/bin/env bash
# scripts/sync end to end, against real index pages served by nginx on 127.0.0.1, in a temporary
# copy of the repository's generated/ and data/ (never the working tree):
#   1. the older pages (tests/fixtures/pytorch-index/eras/2025-11-29 laid over a copy of the
#      2026-03-15 pages, without cu130) are the committed state; a sync reports "no change";
#   2. the newer pages: "changed"; the summary calls out exactly the backends and torch versions
#      that appeared (computed here from the pages themselves); generated/catalogue.json changes;
#   3. nothing changed since: "no change", every page a 304;
#   4. crafted outages, each "refused" with the report and generated/ untouched: cu128 answering
#      403, a root index missing half its entries, an index that cannot be reached;
#   5. a malformed store: an error, not "refused" (the crawler exits 3, not 1).
# With --full, also the whole 2026-03-15 snapshot (129 MB unpacked; a manual run, not in ctest):
# the committed catalogue was crawled from it, so "no change", then all 304s, then an outage.
#
#   tests/sync/sync_e2e.sh BUILD_DIR [--full]
set -euo pipefail
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bin=$(cd "${1:?usage: sync_e2e.sh BUILD_DIR [--full]}" && pwd)
full=0
if [ "${2:-}" = --full ]; then
  full=1
fi
# shellcheck source=scripts/setup.sh
source "$src/scripts/setup.sh"

fixtures=$src/tests/fixtures/pytorch-index
work=$(mktemp -d /tmp/torchdex-sync-e2e-XXXXXX)
chmod 755 "$work"  # nginx workers run as an unprivileged user
trap 'torchdex_nginx_stop; rm -rf "$work"' EXIT

passed=0
failed=0
check() {  # check DESCRIPTION COMMAND...
  local what=$1
  shift
  if "$@"; then
    passed=$((passed + 1))
    echo "ok - $what"
  else
    failed=$((failed + 1))
    echo "FAILED - $what"
  fi
}
same() { [ "$1" = "$2" ] || { printf '  expected: %s\n  actual:   %s\n' "$2" "$1"; return 1; }; }
contains() { grep -qF -- "$2" "$1" || { echo "  '$2' not in $1:"; sed 's/^/    | /' "$1" | head -n 60; return 1; }; }

# The repository copy the syncs work on.
repo=$work/repo
mkdir -p "$repo"
cp -r "$src/generated" "$src/data" "$repo/"
store=$work/store.sqlite
fingerprint() { (cd "$repo" && find generated -type f -print0 | sort -z | xargs -0 sha256sum); }

sync_code=0
run_sync() {  # run_sync NAME BASE_URL: runs scripts/sync, keeps stdout, summary and exit code
  local name=$1 base=$2
  sync_code=0
  "$src/scripts/sync" --root "$repo" --bin "$bin" --skip-tests --store "$store" \
    --base-url "$base" --summary "$work/$name.md" >"$work/$name.out" 2>"$work/$name.err" || sync_code=$?
  echo "# sync $name: exit $sync_code: $(sed -n 3p "$work/$name.md" 2>/dev/null)"
}

# The two states of the index. Older: the 2025-11-29 cu128 pages over the 2026-03-15 ones, and
# no cu130 yet (its directory, its root entry and the torch page's links into it removed).
mkdir -p "$work/old" "$work/new"
cp -r "$fixtures/whl" "$work/new/"
cp -r "$fixtures/whl" "$work/old/"
cp -r "$fixtures/eras/2025-11-29/whl/cu128/." "$work/old/whl/cu128/"
rm -rf "$work/old/whl/cu130"
sed -i '/href="cu130\//d' "$work/old/whl/index.html"
sed -i '/\/whl\/cu130\//d' "$work/old/whl/torch/index.html"
ln -s old "$work/served"
torchdex_nginx_start "$work/served"
base="http://127.0.0.1:$TORCHDEX_NGINX_PORT/whl/"

# The committed state: the older pages, crawled into the store the syncs use.
"$bin/crawler/torchdex-crawl" crawl --store "$store" --base-url "$base" --channel stable -q \
  --export "$repo/generated/catalogue.json" --note "older state" 2>"$work/seed.err" ||
  { cat "$work/seed.err"; exit 1; }
"$bin/codegen/torchdex-codegen" --root "$repo" >/dev/null

run_sync unchanged-old "$base"
check "the older pages against their own catalogue: no change (exit 0)" same "$sync_code" 0

# 2. The newer pages.
before=$(fingerprint)
ln -sfn new "$work/served"
run_sync newer "$base"
check "the newer pages: changed (exit 10)" same "$sync_code" 10
check "the summary file is what stdout printed" cmp -s "$work/newer.md" "$work/newer.out"
check "generated/ changed" test "$(fingerprint)" != "$before"
check "generated/catalogue.json is the newer catalogue" \
  grep -q '"cu130"' "$repo/generated/catalogue.json"

# What appeared, from the pages: backend directories, and the torch versions of each backend's
# page whose files live in that backend's directory (the pages also list the channel root's
# files, torch-0.1 ..., which belong to no backend).
versions_of() {  # versions_of PAGE BACKEND
  [ -f "$1" ] || return 0
  grep -o "href=\"[^\"]*/whl/$2/torch-[^\"]*\"[^>]*>torch-[^-]*-" "$1" | sed 's/.*>torch-//; s/-$//' | sort -u
}
dirs_of() { find "$1" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | sort; }
expected_backends=$(comm -13 <(dirs_of "$work/old/whl") <(dirs_of "$work/new/whl") |
  grep -E '^(cpu|xpu|cu[0-9]+|rocm[0-9.]+)$' | paste -sd' ')
check "the pages add exactly one backend (cu130)" same "$expected_backends" "cu130"
called_backends=$(sed -n 's/^- new backend: \([^ ]*\) .*/\1/p' "$work/newer.md" | sort | paste -sd' ')
check "the summary calls out exactly the new backends" same "$called_backends" "$expected_backends"
check "the diff lists exactly the new backends" contains "$work/newer.md" "backends added: $expected_backends"
expected_torch=""
for page in "$work"/new/whl/*/torch/index.html; do
  backend=$(basename "$(dirname "$(dirname "$page")")")
  added=$(comm -13 <(versions_of "$work/old/whl/$backend/torch/index.html" "$backend") \
    <(versions_of "$page" "$backend") |
    sort -V | paste -sd' ')
  if [ -n "$added" ]; then
    expected_torch+="$backend: $added"$'\n'
  fi
done
called_torch=$(sed -n 's/^- new torch version(s) on \([^ :]*\)\( (new backend)\)\{0,1\}: \(.*\)/\1: \3/p' \
  "$work/newer.md" | sed 's/, / /g' | while read -r b vs; do
    echo "${b%:} $(tr ' ' '\n' <<<"$vs" | sort -V | paste -sd' ')"
  done)
check "the pages add torch versions on cu128 and cu130 only" \
  same "$(cut -d: -f1 <<<"$expected_torch" | paste -sd' ')" "cu128 cu130 "
check "the summary calls out exactly the torch versions that appeared" \
  same "$called_torch" "$(sed '/^$/d; s/: / /' <<<"$expected_torch")"
check "the new backend is flagged as new in the torch call-out" \
  contains "$work/newer.md" "- new torch version(s) on cu130 (new backend): 2.9.0+cu130, 2.9.1+cu130, 2.10.0+cu130"
check "call-outs come before the guard's verdict" \
  test "$(grep -n '^- new backend' "$work/newer.md" | cut -d: -f1)" -lt "$(grep -n '^### Guard' "$work/newer.md" | cut -d: -f1)"
check "nothing was removed" contains "$work/newer.md" "0 of 4353 wheels removed"

# 3. Nothing changed since: no change, all 304s.
after_newer=$(fingerprint)
# Pages that answered 200 or 304 in the last run.
served_pages() { sed -n 's/^Crawled .* pages: \([0-9]*\) fetched, [0-9]* changed, \([0-9]*\) not modified.*/\1 + \2/p' "$1"; }
served=$(($(served_pages "$work/newer.md")))
run_sync unchanged-new "$base"
check "a third run with nothing changed: no change (exit 0)" same "$sync_code" 0
check "its summary says no change" contains "$work/unchanged-new.md" "**Verdict: no change**"
check "every page it fetched before is a 304 now" \
  contains "$work/unchanged-new.md" ": 0 fetched, 0 changed, $served not modified (304),"
check "generated/ is untouched" same "$(fingerprint)" "$after_newer"
torchdex_nginx_stop

# 4. Outages: refused, with the report; generated/ untouched.
torchdex_nginx_start "$work/new" 'location ^~ /whl/cu128/ { return 403; }'
base="http://127.0.0.1:$TORCHDEX_NGINX_PORT/whl/"
run_sync outage-403 "$base"
check "cu128 answering 403: refused (exit 20)" same "$sync_code" 20
check "the report names the backend" contains "$work/outage-403.md" "- REFUSED: backend cu128 lost its project list (state ok -> empty)"
check "the report says what would have been removed" \
  contains "$work/outage-403.md" "- torch on cu128: 111 wheel(s) of 6 version(s): 2.7.0+cu128 (18)"
check "generated/ is untouched after the 403 outage" same "$(fingerprint)" "$after_newer"
torchdex_nginx_stop

mkdir -p "$work/half"
cp -r "$work/new/whl" "$work/half/"
awk '/<a href/ { if (++n % 2 == 0) next } { print }' "$work/new/whl/index.html" >"$work/half/whl/index.html"
torchdex_nginx_start "$work/half"
base="http://127.0.0.1:$TORCHDEX_NGINX_PORT/whl/"
run_sync outage-half-root "$base"
check "a root index missing half its entries: refused (exit 20)" same "$sync_code" 20
check "the report names a vanished backend" contains "$work/outage-half-root.md" "- REFUSED: backend cu126 disappeared from the index"
check "the report lists the vanished backends' torch builds" contains "$work/outage-half-root.md" "- torch on cu126: "
check "generated/ is untouched after the half root" same "$(fingerprint)" "$after_newer"
torchdex_nginx_stop

run_sync unreachable "http://127.0.0.1:1/whl/"
check "an index that cannot be reached: refused (exit 20)" same "$sync_code" 20
check "the report gives the crawl's failure" contains "$work/unreachable.md" "Couldn't connect to server"
check "generated/ is untouched after the failed crawl" same "$(fingerprint)" "$after_newer"

# 5. A store the crawl cannot read (a malformed b-tree page, as a failing disk leaves it) is the
# job's error (exit 1), not the index's refusal (exit 20): torchdex-crawl exits 3, not 1.
cp "$store" "$work/damaged.sqlite"
python3 - "$work/damaged.sqlite" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
root, = db.execute("SELECT rootpage FROM sqlite_master WHERE type='table' AND name='pages'").fetchone()
size, = db.execute("PRAGMA page_size").fetchone()
db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
db.close()
with open(sys.argv[1], "r+b") as f:
    f.seek((root - 1) * size)
    f.write(b"\x5a" * size)
PY
saved_store=$store
store=$work/damaged.sqlite
run_sync damaged-store "http://127.0.0.1:1/whl/"
store=$saved_store
check "a malformed store: an error (exit 1), not refused" same "$sync_code" 1
check "the error says what the store holds" contains "$work/damaged-store.err" "database disk image is malformed"
check "the crawler's status is the store's (3)" contains "$work/damaged-store.err" "torchdex-crawl crawl exited 3"
check "generated/ is untouched after the malformed store" same "$(fingerprint)" "$after_newer"

if [ "$full" = 1 ]; then
  snapshot=$src/../shared/fixtures/pytorch-index-full/whl-2026-03-15.tar.xz
  [ -f "$snapshot" ] || snapshot=/work/shared/fixtures/pytorch-index-full/whl-2026-03-15.tar.xz
  mkdir -p "$work/full"
  tar -xJf "$snapshot" -C "$work/full"
  rm -rf "$repo/generated" "$store"
  cp -r "$src/generated" "$repo/"
  committed=$(fingerprint)
  torchdex_nginx_start "$work/full"
  base="http://127.0.0.1:$TORCHDEX_NGINX_PORT/whl/"
  run_sync full "$base"
  check "full snapshot against the committed catalogue crawled from it: no change" same "$sync_code" 0
  served=$(($(served_pages "$work/full.md")))
  run_sync full-again "$base"
  check "full snapshot again: no change" same "$sync_code" 0
  check "full snapshot again: all 304s" \
    contains "$work/full-again.md" ": 0 fetched, 0 changed, $served not modified (304),"
  torchdex_nginx_stop
  torchdex_nginx_start "$work/full" 'location ^~ /whl/cu128/ { return 403; }'
  run_sync full-outage "http://127.0.0.1:$TORCHDEX_NGINX_PORT/whl/"
  check "full snapshot, cu128 answering 403: refused" same "$sync_code" 20
  check "generated/ is the committed one" same "$(fingerprint)" "$committed"
  torchdex_nginx_stop
fi

echo "sync_e2e: $passed passed, $failed failed"
[ "$failed" = 0 ]
