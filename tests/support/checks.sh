# shellcheck shell=bash
# The checks of the shell end-to-end tests (tests/sync/sync_e2e.sh, tests/package/wheel_test.sh):
# each `check` counts as passed or failed and says which; the test ends with
# `echo "NAME: $passed passed, $failed failed"` and exits non-zero when any failed.
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
same_file() { cmp -s "$1" "$2" || { diff "$2" "$1" | head -n 20 | sed 's/^/  | /'; return 1; }; }
contains() { grep -qF -- "$2" "$1" || { echo "  '$2' not in $1:"; sed 's/^/    | /' "$1" | head -n 60; return 1; }; }
