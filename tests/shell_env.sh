# Sourced by the shell test suites (cli, plan, consistency): pass/fail counters and their reporters, a temporary
# directory removed on exit, and an environment free of the user's overlays and colour settings.
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME="$tmp/home" XDG_DATA_HOME="$tmp/xdg"
unset INFRACALC_DATA INFRACALC_WEB_ENGINE NO_COLOR

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
