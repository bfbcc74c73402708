#!/usr/bin/env bash
# scripts/sync end to end, against real index pages served by nginx on 127.0.0.1, in a temporary
# copy of the repository's generated/ and data/ (never the working tree):
#   1. the older pages (tests/fixtures/pytorch-index/eras/2025-11-29 laid over a copy of the
#      2026-03-15 pages, without cu130) are the committed state; a sync reports "no change";
#   2. the newer pages: "changed"; the summary calls out exactly the backends and torch versions
#      that appeared (computed here from the pages themselves); generated/catalogue.json changes;
#      the pull request's title, body and the workflow's step outputs say so;
#   3. nothing changed since: "no change", every page a 304;
#   4. a new torch release (torch-2.11.0+cu128 wheels added to the pages): interrupted runs
#      (TERM, INT) during codegen leave generated/ as it was; then the sync opens the pull
#      request: changed=true, a title naming torch 2.11.0 on cu128, the body, the new table;
#   5. crafted outages, each "refused" with the report and generated/ untouched: cu128 answering
#      403, a root index missing half its entries, 60 project pages failing (the report lists
#      50 and counts the rest), an index that cannot be reached.
#   6. a malformed store: an error, not "refused" (the crawler exits 3, not 1).
# With --full, also the whole 2026-03-15 snapshot (129 MB unpacked; a manual run, not in ctest):
# the committed catalogue was crawled from it, so "no change", then all 304s, then an outage.
# With --with-tests (a manual run, minutes: it builds a copy of the repository), the new release
# is synced in a copy of the whole source tree without --skip-tests, as the job does: the build,
# codegen and `ctest -L catalogue-invariant` against the new table pass, and so does every other
# test of that copy (what CI runs on the pull request).
#
#   tests/sync/sync_e2e.sh BUILD_DIR [--full] [--with-tests]
set -euo pipefail
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bin=$(cd "${1:?usage: sync_e2e.sh BUILD_DIR [--full] [--with-tests]}" && pwd)
shift
full=0
with_tests=0
for option in "$@"; do
  case $option in
    --full) full=1 ;;
    --with-tests) with_tests=1 ;;
    *) echo "sync_e2e: unknown option '$option'" >&2; exit 2 ;;
  esac
done
# shellcheck source=scripts/setup.sh
source "$src/scripts/setup.sh"

fixtures=$src/tests/fixtures/pytorch-index
work=$(mktemp -d /tmp/torchdex-sync-e2e-XXXXXX)
chmod 755 "$work"  # nginx workers run as an unprivileged user
trap 'torchdex_nginx_stop; rm -rf "$work"' EXIT

# shellcheck source=tests/support/checks.sh
source "$src/tests/support/checks.sh"

# The repository copy the syncs work on.
repo=$work/repo
mkdir -p "$repo"
cp -r "$src/generated" "$src/data" "$repo/"
store=$work/store.sqlite
fingerprint() { (cd "$repo" && find generated -type f -print0 | sort -z | xargs -0 sha256sum); }

sync_code=0
run_url=https://github.example/torchdex/actions/runs/1
run_sync() {  # run_sync NAME BASE_URL [OPTION...]: runs scripts/sync, keeps stdout, summary,
  # the pull request's files ($work/NAME.pr/), the step outputs ($work/NAME.outputs), exit code
  local name=$1 base=$2
  shift 2
  sync_code=0
  "$src/scripts/sync" --root "$repo" --bin "${sync_bin:-$bin}" --skip-tests --store "$store" \
    --base-url "$base" --summary "$work/$name.md" --pr-dir "$work/$name.pr" \
    --outputs "$work/$name.outputs" --run-url "$run_url" "$@" \
    >"$work/$name.out" 2>"$work/$name.err" || sync_code=$?
  echo "# sync $name: exit $sync_code: $(sed -n 3p "$work/$name.md" 2>/dev/null)"
}
output_of() { sed -n "s/^$2=//p" "$work/$1.outputs"; }  # output_of NAME KEY

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
cp "$repo/generated/catalogue.json" "$work/seed.json"

run_sync unchanged-old "$base"
check "the older pages against their own catalogue: no change (exit 0)" same "$sync_code" 0
check "no change: the step outputs say so" \
  same "$(cat "$work/unchanged-old.outputs")" "verdict=no-change"$'\n'"changed=false"
check "no change: no pull request files" test ! -e "$work/unchanged-old.pr"

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
check "nothing was removed" contains "$work/newer.md" "0 of 5572 wheels removed"
check "the step outputs: changed, the title, the body's path" \
  same "$(output_of newer verdict) $(output_of newer changed) $(output_of newer body-path)" \
  "changed true $work/newer.pr/body.md"
check "the title output is the title file" same "$(output_of newer title)" "$(cat "$work/newer.pr/title.txt")"
newer_title=$(cat "$work/newer.pr/title.txt")
check "the title names the new backend first" \
  same "${newer_title%%;*}" "Catalogue sync: new backend $expected_backends"
for version in $(cut -d: -f2 <<<"$expected_torch" | tr ' ' '\n' | sed 's/+.*//' | sort -u); do
  check "the title names torch $version" contains "$work/newer.pr/title.txt" " $version ("
done
check "the body says what changed and links the run" \
  contains "$work/newer.pr/body.md" "Opened by the [sync run]($run_url)."
check "the body holds the whole summary (not cut)" \
  test "$(tail -n +5 "$work/newer.pr/body.md")" = "$(cat "$work/newer.md")"

# The same body cut short, a few lines into the summary's code block (which runs past the
# limit): within the limit, the code block closed, and the cut says where the whole summary is.
body=$work/newer.pr/body.md
fences=$(grep -n '^```' "$body" | cut -d: -f1 | paste -sd' ')
limit=$(( $(head -n "${fences%% *}" "$body" | wc -c) + 400 ))
check "the summary's code block runs past $limit characters" \
  test "$(head -n "${fences##* }" "$body" | wc -c)" -gt "$limit"
"$bin/crawler/torchdex-crawl" diff "$work/seed.json" "$repo/generated/catalogue.json" --json >"$work/cut.json"
python3 "$src/scripts/sync_pr.py" --diff "$work/cut.json" --summary "$work/newer.md" \
  --title-out "$work/cut.title" --body-out "$work/cut.md" --run-url "$run_url" --max-body "$limit"
check "the cut body is the same title" cmp -s "$work/cut.title" "$work/newer.pr/title.txt"
check "the cut body is within the limit" test "$(wc -c <"$work/cut.md")" -le "$limit"
check "the cut body closes the code block it cut" same "$(grep -c '^```' "$work/cut.md")" 2
check "the cut body says where the whole summary is" \
  contains "$work/cut.md" "The whole summary is on [the run's page]($run_url).)*"

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
cp -r "$repo/generated" "$work/generated-newer"

# 4. A new torch release: torch-2.11.0+cu128 wheels (copies of the 2.10.0 links) on cu128's
# torch page and on the torch page that links every backend's builds.
mkdir -p "$work/release"
cp -r "$work/new/whl" "$work/release/"
for page in whl/cu128/torch/index.html whl/torch/index.html; do
  sed -i '/torch-2\.10\.0%2Bcu128-/{p;s/2\.10\.0/2.11.0/g}' "$work/release/$page"
done
check "the release pages add 21 torch 2.11.0+cu128 wheels" \
  same "$(grep -c '>torch-2.11.0+cu128-' "$work/release/whl/cu128/torch/index.html")" 21
torchdex_nginx_start "$work/release"
base="http://127.0.0.1:$TORCHDEX_NGINX_PORT/whl/"

# Interrupted while torchdex-codegen runs: a codegen that does its work, leaves one output half
# written (as an interrupted one would), and sends the signal to scripts/sync, its parent.
for signal in TERM INT; do
  fake=$work/fake-bin-$signal
  mkdir -p "$fake"
  ln -s "$bin/crawler/torchdex-crawl" "$fake/torchdex-crawl"
  cat >"$fake/torchdex-codegen" <<FAKE
#!/usr/bin/env bash
"$bin/codegen/torchdex-codegen" "\$@" || exit
[ "\$1" = --root ] && head -c 1000 "\$2/generated/catalogue.json" >"\$2/generated/catalogue_table.inc"
kill -$signal "\$PPID"
FAKE
  chmod +x "$fake/torchdex-codegen"
  sync_bin=$fake run_sync "interrupted-$signal" "$base"
  check "a sync interrupted ($signal) during codegen exits $((128 + $(kill -l "$signal")))" \
    same "$sync_code" "$((128 + $(kill -l "$signal")))"
  check "generated/ is as it was after the $signal" same "$(fingerprint)" "$after_newer"
  check "no scratch tree is left behind ($signal)" \
    same "$(find "$repo" -maxdepth 1 -name '.sync-scratch.*' | wc -l)" 0
done

run_sync release "$base"
check "a new torch release: changed (exit 10)" same "$sync_code" 10
check "the release: the step outputs" \
  same "$(output_of release verdict) $(output_of release changed) $(output_of release body-path)" \
  "changed true $work/release.pr/body.md"
check "the release: the title says what changed" \
  same "$(output_of release title)" "Catalogue sync: torch 2.11.0 (cu128)"
check "the release: the body says what changed" \
  contains "$work/release.pr/body.md" "**What changed:** torch 2.11.0 (cu128)."
check "the release: the summary calls out the release" \
  contains "$work/release.pr/body.md" "- new torch release(s): 2.11.0"
check "the release: in generated/catalogue.json" grep -q '"2.11.0+cu128"' "$repo/generated/catalogue.json"
check "the release: in the regenerated table" grep -qF '},  // 2.11.0+cu128' "$repo/generated/catalogue_table.inc"
check "the release: generated/ is fresh (torchdex-codegen --check)" \
  "$bin/codegen/torchdex-codegen" --check --root "$repo"
torchdex_nginx_stop
after_newer=$(fingerprint)

if [ "$with_tests" = 1 ]; then
  # The new release in a copy of the whole source tree, whose generated/ is the newer pages'
  # (not the 2026-03-15 snapshot the behaviour tests' fixture holds): scripts/sync builds it,
  # regenerates, rebuilds and runs `ctest -L catalogue-invariant`, as the job does. The copy
  # lives in the build folder, under CCACHE_BASEDIR with the checkout, so ccache serves it.
  copy=$bin/sync-e2e-tree
  rm -rf "$copy"
  mkdir -p "$copy"
  (cd "$src" && git ls-files -co --exclude-standard -z | tar --null -T - -cf -) | tar -C "$copy" -xf -
  rm -rf "$copy/generated"
  cp -r "$work/generated-newer" "$copy/generated"
  "$bin/codegen/torchdex-codegen" --root "$copy" >/dev/null
  torchdex_nginx_start "$work/release"
  with_code=0
  "$copy/scripts/sync" --store "$work/with-tests.sqlite" \
    --base-url "http://127.0.0.1:$TORCHDEX_NGINX_PORT/whl/" --summary "$work/with-tests.md" \
    --pr-dir "$work/with-tests.pr" --outputs "$work/with-tests.outputs" \
    >"$work/with-tests.out" 2>"$work/with-tests.err" || with_code=$?
  torchdex_nginx_stop
  echo "# sync with-tests: exit $with_code"
  check "with the tests: a new release is changed (exit 10)" same "$with_code" 10 ||
    tail -n 40 "$work/with-tests.err"
  check "with the tests: the catalogue-invariant tests passed" \
    contains "$work/with-tests.md" "Tests (label catalogue-invariant): 100% tests passed"
  check "with the tests: the pull request's title" \
    same "$(cat "$work/with-tests.pr/title.txt")" "Catalogue sync: torch 2.11.0 (cu128)"
  # What CI runs on the pull request: every test of the copy (but this one, and the package).
  # core_differential needs the tools venv scripts/test makes: the checkout's, when it has one.
  skip='^sync_e2e$'
  if [ -x "$src/build/tools-venv/bin/python" ]; then
    ln -s "$src/build/tools-venv" "$copy/build/tools-venv"
  else
    skip='^(sync_e2e|core_differential)$'
    echo "# with the tests: core_differential skipped (no build/tools-venv: scripts/test makes it)"
  fi
  check "with the tests: every other test passes against the new generated/" \
    ctest --test-dir "$copy/build/release" -E "$skip" -LE package -j "$TORCHDEX_JOBS" \
    --output-on-failure -Q
  rm -rf "$copy"
fi

# 5. Outages of the release pages: refused, with the report; generated/ untouched.
torchdex_nginx_start "$work/release" 'location ^~ /whl/cu128/ { return 403; }'
base="http://127.0.0.1:$TORCHDEX_NGINX_PORT/whl/"
run_sync outage-403 "$base"
check "cu128 answering 403: refused (exit 20)" same "$sync_code" 20
# torch keeps its cu128 wheels from the flat torch/ page; the rest of cu128 is gone.
check "the report names the backend" contains "$work/outage-403.md" "- REFUSED: backend cu128 lost its project list (state ok -> ok (flat page only))"
check "the report says what would have been removed" \
  contains "$work/outage-403.md" "- torchvision on cu128: 111 wheel(s) of 10 version(s): 0.22.0 (6)"
check "generated/ is untouched after the 403 outage" same "$(fingerprint)" "$after_newer"
torchdex_nginx_stop

mkdir -p "$work/half"
cp -r "$work/release/whl" "$work/half/"
awk '/<a href/ { if (++n % 2 == 0) next } { print }' "$work/release/whl/index.html" >"$work/half/whl/index.html"
torchdex_nginx_start "$work/half"
base="http://127.0.0.1:$TORCHDEX_NGINX_PORT/whl/"
run_sync outage-half-root "$base"
check "a root index missing half its entries: refused (exit 20)" same "$sync_code" 20
check "the report names a vanished backend" contains "$work/outage-half-root.md" "- REFUSED: backend cu126 disappeared from the index"
check "the report lists the vanished backends' torch builds" contains "$work/outage-half-root.md" "- torch on cu126: "
check "generated/ is untouched after the half root" same "$(fingerprint)" "$after_newer"
torchdex_nginx_stop

# A large outage: 60 project pages answer 400 (a client error: failed, not retried). The report
# lists the first 50 failures and counts the rest; it must not be lost to a pipe closed early.
pages=$(cd "$work/release" && find whl -mindepth 3 -maxdepth 3 -name index.html |
  grep -vE '^whl/(nightly|test)/' | sort | head -n 60)
rules=$(for page in $pages; do echo "location = /${page%/index.html}/ { return 400; }"; done)
check "60 project pages fail" same "$(wc -l <<<"$rules")" 60
torchdex_nginx_start "$work/release" "$rules"
run_sync outage-60 "http://127.0.0.1:$TORCHDEX_NGINX_PORT/whl/"
torchdex_nginx_stop
check "60 failed pages: refused (exit 20)" same "$sync_code" 20
check "60 failed pages: the step outputs say refused" same "$(output_of outage-60 verdict)" refused
check "60 failed pages: the summary file is written" test -s "$work/outage-60.md"
check "60 failed pages: the crawl line counts them" contains "$work/outage-60.md" ", 60 failed;"
check "60 failed pages: the first 50 are listed" \
  same "$(grep -c '^- GET http://127.0.0.1:[0-9]*/whl/.*: HTTP 400' "$work/outage-60.md")" 50
check "60 failed pages: the rest are counted" \
  contains "$work/outage-60.md" "- ... and 10 more (60 failures in all;"
check "generated/ is untouched after the 60 failed pages" same "$(fingerprint)" "$after_newer"
# Every project page of every backend, under a long mirror path: hundreds of failures whose
# list (over 64 KiB) outgrows a pipe's buffer, so a `head -n 50` at the end of a pipeline is
# sure to close it early (the old `grep | sed | head` died of SIGPIPE here, exit 141, with no
# summary at all).
deep=$(printf 'a-long-mirror-path-%.0s' $(seq 10))
mkdir -p "$work/deep/$deep"
ln -s "$work/release/whl" "$work/deep/$deep/whl"
torchdex_nginx_start "$work/deep" 'location ~ /whl/(cpu|cu[0-9]+|rocm[0-9.]+|xpu)/[^/]+/$ { return 400; }'
run_sync outage-all "http://127.0.0.1:$TORCHDEX_NGINX_PORT/$deep/whl/"
torchdex_nginx_stop
all_failed=$(sed -n 's/^Crawl: .* \([0-9]*\) failed;.*/\1/p' "$work/outage-all.md" 2>/dev/null || true)
check "every project page failing: refused (exit 20), with a summary" \
  same "$sync_code $(test -s "$work/outage-all.md" && echo summary)" "20 summary"
check "every project page failing: hundreds of failures" test "${all_failed:-0}" -gt 500
check "every project page failing: over 64 KiB of failures" \
  test "$(grep -c "^torchdex-crawl: error: GET .*/$deep/whl/" "$work/outage-all.err")" -gt 0 -a \
  "$(grep "^torchdex-crawl: error: " "$work/outage-all.err" | wc -c)" -gt 65536
check "every project page failing: 50 listed" \
  same "$(grep -c '^- GET http://127.0.0.1:[0-9]*/.*/whl/.*: HTTP 400' "$work/outage-all.md")" 50
check "every project page failing: the rest counted" \
  contains "$work/outage-all.md" "- ... and $((all_failed - 50)) more ($all_failed failures in all;"

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
