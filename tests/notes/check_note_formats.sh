#!/bin/sh
# Notes and table text quote numbers through units/format (Context::quote, quote_count, quote_number, quote_percent),
# so that --digits and --binary reach them (issue 20, item 9). This check counts the hand-written fmt number specs
# ({:.1f}, {:.4g}, {:g}, {:,} ...) in each plugin .cpp file and fails when a file has more than its allowance in
# note_formats_allow.txt (a file absent from it is allowed none). The allowance is a ratchet: a file
# with fewer specs than allowed fails too, so that the list shrinks with every conversion.
# Usage: check_note_formats.sh SOURCE_DIR
set -u
src=${1:-.}
allow="$src/tests/notes/note_formats_allow.txt"
pattern='\{:[^}]*[.][0-9]+[a-zA-Z]?\}|\{:[0-9]*[fegL]\}|\{:,\}'
status=0
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
(cd "$src" && find plugins catalog host documents units/counts.cpp -name '*.cpp' | sort | while read -r f; do
  n=$(grep -c -E "$pattern" "$f")
  [ "$n" -gt 0 ] && echo "$f $n"
done) >"$tmp"
# Every file with specs must be allowed at least that many.
while read -r f n; do
  a=$(awk -v f="$f" '$1 == f { print $2 }' "$allow")
  if [ -z "$a" ]; then
    echo "FAIL $f: $n hand-written number formats ({:.1f}, {:g}, ...); quote numbers with ctx.quote/quote_count/quote_number/quote_percent:"
    (cd "$src" && grep -n -E "$pattern" "$f" | head -5)
    status=1
  elif [ "$n" -gt "$a" ]; then
    echo "FAIL $f: $n hand-written number formats, $a allowed; quote new numbers with ctx.quote and friends:"
    (cd "$src" && grep -n -E "$pattern" "$f" | head -5)
    status=1
  elif [ "$n" -lt "$a" ]; then
    echo "FAIL $f: $n hand-written number formats, fewer than the $a allowed: lower its line in tests/notes/note_formats_allow.txt"
    status=1
  fi
done <"$tmp"
# Every allowance must name a file that still has specs.
grep -v '^#' "$allow" | while read -r f a rest; do
  [ -z "$f" ] && continue
  if ! grep -q "^$f " "$tmp"; then
    echo "FAIL $f is allowed $a hand-written number formats but has none: remove its line from tests/notes/note_formats_allow.txt"
    exit 1
  fi
done || status=1
[ "$status" -eq 0 ] && echo "ok: $(wc -l <"$tmp") plugin files within their allowance"
exit "$status"
