#!/usr/bin/env bash
# Issue 20, item 12: the manual page from the descriptors, `cmake --install` (binary, man page, completions), and
# `plan init KIND` writing a scenario that `plan -` runs as it stands. Usage: install_test.sh INFRACALC BUILD_DIR
set -u
bin=$1
build=$2
# shellcheck source=../shell_env.sh
source "$(dirname "$0")/../shell_env.sh"

# A starting scenario of each kind runs through `plan -` (standard input) without an edit.
for kind in serve train finetune site; do
  if "$bin" plan init "$kind" | "$bin" plan - >"$tmp/plan.out" 2>"$tmp/plan.err"; then ok; else bad "plan init $kind | plan -: $(head -3 "$tmp/plan.err")"; fi
done
# It lists every key its kind of plan reads (from the schema): the serve one has rate but not pp, the train one both pp
# and tokens, each set or commented out.
"$bin" plan init serve >"$tmp/serve.toml"
"$bin" plan init train >"$tmp/train.toml"
for key in "rate = " "kv_dtype = " "mbu = " "grid = " "capex_per_gpu = " "rental = "; do
  if grep -qE "^(# )?${key}" "$tmp/serve.toml"; then ok; else bad "plan init serve lacks '${key}'"; fi
done
if grep -qE "^(# )?pp = " "$tmp/serve.toml"; then bad "plan init serve lists the training key pp"; else ok; fi
for key in "pp = " "tokens = " "deadline = "; do
  if grep -qE "^(# )?${key}" "$tmp/train.toml"; then ok; else bad "plan init train lacks '${key}'"; fi
done
"$bin" plan init serve --out "$tmp/s.toml" 2>/dev/null && ok || bad "plan init --out"
if "$bin" plan init serve --out "$tmp/s.toml" 2>"$tmp/err"; then bad "plan init --out replaced a file without --force"; else ok; fi
if "$bin" plan init mine 2>"$tmp/err"; then bad "plan init mine exited 0"; else grep -q "plan init serve" "$tmp/err" && ok || bad "plan init mine: $(cat "$tmp/err")"; fi
if "$bin" plan - </dev/null >/dev/null 2>"$tmp/err"; then bad "plan - of an empty stdin exited 0"; else ok; fi

# The manual page: one section per plugin, every calculator, roff that groff reads without errors (when installed).
"$bin" __man >"$tmp/infracalc.1"
for plugin in $("$bin" list | grep -E '^[a-z]+ ' | cut -d' ' -f1); do
  if grep -qx ".SH PLUGIN $plugin" "$tmp/infracalc.1"; then ok; else bad "man page lacks the section of $plugin"; fi
done
if grep -q '^\.SS "kv size"' "$tmp/infracalc.1" && grep -q '^\\fB\\-\\-tokens\\fR' "$tmp/infracalc.1"; then ok; else bad "man page lacks kv size --tokens"; fi
if command -v groff >/dev/null; then
  if groff -man -Tutf8 -ww "$tmp/infracalc.1" 2>"$tmp/groff.err" >/dev/null && ! grep -q "error" "$tmp/groff.err"; then ok; else bad "groff: $(head -3 "$tmp/groff.err")"; fi
fi

# cmake --install puts the binary, the man page and the three completion scripts where Debian's packages look.
if cmake --install "$build" --prefix "$tmp/prefix" >/dev/null 2>"$tmp/install.err"; then ok; else bad "cmake --install: $(cat "$tmp/install.err")"; fi
for f in bin/infracalc share/man/man1/infracalc.1 share/bash-completion/completions/infracalc share/zsh/vendor-completions/_infracalc \
  share/fish/vendor_completions.d/infracalc.fish; do
  if [ -s "$tmp/prefix/$f" ]; then ok; else bad "cmake --install did not install $f"; fi
done
if "$tmp/prefix/bin/infracalc" kv size --model llama-3-8b --tokens 8k >/dev/null; then ok; else bad "the installed binary does not run"; fi

echo "install tests: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
