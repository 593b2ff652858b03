#!/usr/bin/env bash
# Input safety (issue 23, items 13, 16, 18): nothing from input or data reaches a terminal raw, spreadsheet cells
# never start a formula, and an unreadable part of an overlay is an error. Exit-2 cases with a fixed message are in
# tests/bad-inputs/input-safety.toml; these need stdout, generated input or file permissions.
# Usage: input_safety_test.sh INFRACALC REPO_ROOT
set -u
bin=$1
root=$2
# shellcheck source=../shell_env.sh
source "$(dirname "$0")/../shell_env.sh"

run() { "$@" >"$tmp/out" 2>"$tmp/err"; }
# no_raw_controls FILE WHAT: FILE holds no ESC, BEL, other C0 control but LF and TAB, DEL, C1 control (as UTF-8),
# bidirectional override, or invalid UTF-8.
no_raw_controls() {
  if LC_ALL=C grep -qP '[\x00-\x08\x0B-\x1F\x7F]' "$1"; then bad "$2: raw control byte"; od -c "$1" | head -5 >&2; return; fi
  if grep -qP '[\x{80}-\x{9F}\x{202A}-\x{202E}\x{2066}-\x{2069}]' "$1" 2>/dev/null; then bad "$2: C1 or bidi control"; return; fi
  if ! iconv -f UTF-8 -t UTF-8 "$1" >/dev/null 2>&1; then bad "$2: invalid UTF-8"; return; fi
  ok
}

# Item 16, as a property: random bytes as an id, a flag value or a command never reach stderr raw.
for i in $(seq 1 20); do
  junk=$(head -c 24 /dev/urandom | tr -d '\000')
  run "$bin" kv size --model "$junk" --tokens 8k; no_raw_controls "$tmp/err" "random --model #$i"
  run "$bin" kv size --model llama-3-70b --tokens "$junk"; no_raw_controls "$tmp/err" "random --tokens #$i"
  run "$bin" "$junk"; no_raw_controls "$tmp/err" "random command #$i"
done
# ... and the hostile set the issue names.
for s in $'\e]0;pwned\a' $'\e[2J' $'\xe2\x80\xae' $'\xc2\x9b31m' $'\x7f' $'\xff\xfe' $'a\nb'; do
  run "$bin" kv size --model "$s" --tokens 8k; no_raw_controls "$tmp/err" "hostile --model"
  run "$bin" "$s"; no_raw_controls "$tmp/err" "hostile command"
done

# Item 16: text from a data file (an overlay's name, source and note) is escaped in every text format; JSON stays JSON.
mkdir -p "$tmp/ov/models"
sed -e 's/^name = .*/name = "=HYPERLINK(\\"x\\") \\u001b]0;t\\u0007 \\u202e \\u0085"/' \
    -e 's/^sources = .*/sources = ["\\u001b[2J src"]/' "$root/data/models/llama-3-70b.toml" >"$tmp/ov/models/llama-3-70b.toml"
for args in "model show llama-3-70b" "model list" "model list --csv" "kv size --model llama-3-70b --tokens 8k" \
            "kv size --model llama-3-70b --tokens 8k --format md" "kv size --model llama-3-70b --tokens 8k --csv"; do
  # shellcheck disable=SC2086
  run "$bin" $args --data-dir "$tmp/ov"
  if [ -s "$tmp/out" ]; then ok; else bad "$args: no output"; cat "$tmp/err" >&2; fi
  no_raw_controls "$tmp/out" "$args (stdout)"; no_raw_controls "$tmp/err" "$args (stderr)"
done
run "$bin" model show llama-3-70b --data-dir "$tmp/ov"
if grep -qF '\x1B]0;t\x07 U+202E U+0085' "$tmp/out"; then ok; else bad "model show: escaped name missing"; cat "$tmp/out" >&2; fi
run "$bin" kv size --model llama-3-70b --tokens 8k --data-dir "$tmp/ov" --json
if grep -qF '"source": "\u001b[2J src"' "$tmp/out"; then ok; else bad "JSON: source not JSON-escaped"; grep -o '"source": "[^"]*"' "$tmp/out" | head -2 >&2; fi

# Item 18: CSV and xlsx text cells that begin with = + - @ get a leading quote; numbers (negative ones too) do not.
run "$bin" model list --csv --data-dir "$tmp/ov"
if grep -qF ",\"'=HYPERLINK(\"\"x\"\")" "$tmp/out"; then ok; else bad "model list --csv: formula not escaped"; grep llama-3-70b "$tmp/out" >&2; fi
plan="$root/examples/llama3-70b-h100.toml"
run "$bin" plan "$plan" --set 'plan.name=@SUM(1+1)' --csv
if grep -qF "'@SUM(1+1)" "$tmp/out"; then ok; else bad "plan --csv: formula name not escaped"; grep SUM "$tmp/out" >&2; fi
if grep -qE ',-[0-9]' "$tmp/out" || ! grep -qF "'-" "$tmp/out"; then ok; else bad "plan --csv: a number got a quote"; fi
run "$bin" plan "$plan" --sweep 'workload.rate=10/s,20/s' --set 'plan.name=-cmd' --csv
no_raw_controls "$tmp/out" "plan sweep --csv"
if command -v unzip >/dev/null; then
  run "$bin" plan "$plan" --set 'plan.name==cmd|calc' --xlsx "$tmp/q.xlsx"
  if unzip -p "$tmp/q.xlsx" xl/sharedStrings.xml 2>/dev/null | grep -qF "'=cmd|calc"; then ok
  elif ! [ -f "$tmp/q.xlsx" ] && grep -qF "libxlsxwriter" "$tmp/err"; then ok  # built without libxlsxwriter
  else bad "plan --xlsx: formula name not escaped"; cat "$tmp/err" >&2; fi
fi

# Item 17: a record names a file under --files-from DIR, relative to it, and runs.
echo '{"plugin": "serve", "calculator": "simulate", "inputs": {"model": "llama-3-8b", "gpu": "h100-sxm", "requests_file": "ok.txt"}}' >"$tmp/rec.jsonl"
run "$bin" batch "$tmp/rec.jsonl" --files-from "$root/tests/bad-inputs/files/robust/requests"
if grep -qF '"calculator": "simulate"' "$tmp/out" && [ ! -s "$tmp/err" ]; then ok; else bad "batch --files-from: a file inside did not run"; cat "$tmp/err" >&2; fi

# Item 13: an unreadable folder or file in an overlay is an error naming it (not a silently smaller catalog). Root
# reads everything, so the check runs as nobody where it can.
mkdir -p "$tmp/locked/models/secret" "$tmp/lockedfile/models"
cp "$root/data/models/llama-3-70b.toml" "$tmp/locked/models/"
cp "$root/data/models/llama-3-70b.toml" "$tmp/lockedfile/models/"
touch "$tmp/locked/models/secret/x.toml"
chmod 000 "$tmp/locked/models/secret" "$tmp/lockedfile/models/llama-3-70b.toml"
chmod 755 "$tmp"
as_user=()
if [ "$(id -u)" -eq 0 ]; then
  # As root every file is readable: the check runs as nobody, when nobody can run the binary (a build inside a
  # private folder, such as a fresh clone under mktemp -d, cannot; then it is skipped and says so).
  if command -v runuser >/dev/null && runuser -u nobody -- "$bin" --version >/dev/null 2>&1; then as_user=(runuser -u nobody --); else as_user=(skip); fi
fi
if [ "${as_user[0]:-}" != skip ]; then
  run "${as_user[@]}" "$bin" data check --data-dir "$tmp/locked"
  if [ "$(wc -c <"$tmp/out")" -eq 0 ] && grep -qF "models/secret (Permission denied)" "$tmp/err"; then ok; else bad "unreadable overlay folder"; cat "$tmp/err" >&2; fi
  run "${as_user[@]}" "$bin" kv size --model llama-3-8b --tokens 8k --data-dir "$tmp/lockedfile"
  if grep -qF "cannot read $tmp/lockedfile/models/llama-3-70b.toml" "$tmp/err"; then ok; else bad "unreadable overlay file"; cat "$tmp/err" >&2; fi
else
  echo "unreadable-overlay checks skipped: running as root and user nobody cannot run $bin" >&2
fi
chmod -R u+rwx "$tmp/locked" "$tmp/lockedfile"

echo "input safety tests: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
