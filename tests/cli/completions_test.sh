#!/usr/bin/env bash
# Shell completions (issue 20, item 6): each generated script is loaded in its own shell (bash, zsh and fish, the
# Debian packages `make test` installs) and completes a few prefixes; every option the command table lists is one
# its command's parser accepts. Usage: completions_test.sh INFRACALC
set -u
bin=$1
# shellcheck source=../shell_env.sh
source "$(dirname "$0")/../shell_env.sh"
mkdir -p "$tmp/bin" "$tmp/files"
ln -s "$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")" "$tmp/bin/infracalc"
export PATH="$tmp/bin:$PATH"
touch "$tmp/files/scenario.toml" "$tmp/files/second.toml"

# has WORD TEXT: TEXT (one candidate per line) holds WORD as a whole line.
has() { if printf '%s\n' "$2" | grep -qxF -- "$1"; then ok; else bad "$3: no '$1' in: $(printf '%s' "$2" | tr '\n' ' ' | head -c 300)"; fi; }
lacks() { if printf '%s\n' "$2" | grep -qxF -- "$1"; then bad "$3: unexpected '$1'"; else ok; fi; }

# The engine the scripts call.
out=$(infracalc __complete kv size --mo); has --model "$out" "__complete kv size --mo"
out=$(infracalc __complete kv size --model llama-3-7); has llama-3-70b "$out" "model ids"
out=$(infracalc __complete decode ceiling --gpu h2); has h200-sxm "$out" "gpu ids"; lacks llama-3-70b "$out" "gpu ids"
out=$(infracalc __complete kv size --dtype fp); has fp8-e4m3 "$out" "choices"; lacks int8 "$out" "choices"
out=$(infracalc __complete kv size --utiliz); lacks --utilization "$out" "kv size has no utilisation"
out=$(infracalc __complete hw show b2); has b200 "$out" "hw show ids"
out=$(infracalc __complete hw list --kind ""); has network "$out" "hw list --kind"; lacks price "$out" "hw list --kind"
out=$(infracalc __complete data list --kind pr); has price "$out" "data list --kind"
out=$(infracalc __complete plan ""); has :files "$out" "plan FILE"
out=$(infracalc __complete plan f.toml --plot ""); has :dirs "$out" "plan --plot DIR"
out=$(infracalc __complete decode timeline --pl); has --plot "$out" "decode timeline --plot"
out=$(infracalc __complete decode timeline --plot ""); has :files "$out" "decode timeline --plot FILE"
out=$(infracalc __complete kv size --pl); lacks --plot "$out" "kv size has no chart"
out=$(infracalc __complete plan f.toml --set workload.ra); has workload.rate= "$out" "plan --set keys"
out=$(infracalc __complete --json kv si); has size "$out" "output option before the command"
out=$(infracalc __complete completions ""); has fish "$out" "completions SHELL"
out=$(infracalc __complete validate --kind ""); has training "$out" "validate --kind"
out=$(infracalc __complete ""); has calibrate "$out" "commands"; has cooling "$out" "plugins"; lacks __complete "$out" "hidden"

# Every option of the table is accepted by its command's parser (a value where it takes one).
for cmd in calc verify validate calibrate plan batch list hw model data schema completions help; do
  subs=$(infracalc __complete "$cmd" "")
  case "$cmd" in hw | model | data) ;; *) subs="" ;; esac
  for sub in "" $subs; do
    words=("$cmd"); [ -n "$sub" ] && words+=("$sub")
    for opt in $(infracalc __complete "${words[@]}" -); do
      [ "$opt" = "--help" ] && continue
      # As a switch, or with a value where it takes one (a number, a choice or a directory) and an operand where one
      # is needed (calc); the likeliest forms first, as each start of a sanitizer build costs a tenth of a second.
      # --help goes before a switch: after an option that takes a value it would be taken as that value, and the
      # command would run (a whole `verify` for `verify --as-of --help`).
      accepted=0
      "$bin" "${words[@]}" --help "$opt" >/dev/null 2>&1 && accepted=1
      for value in 1 never json "$tmp/files"; do
        [ "$accepted" = 1 ] && break
        if "$bin" "${words[@]}" "$opt" "$value" --help >/dev/null 2>&1 || "$bin" "${words[@]}" "$opt" "$value" 1 --help >/dev/null 2>&1; then
          accepted=1
        fi
      done
      if [ "$accepted" = 1 ]; then ok
      else bad "completions offer '$opt' for '${words[*]}' but its parser rejects it"; fi
    done
  done
done

# bash: the script defines _infracalc; COMP_WORDS as the shell would set them.
infracalc completions bash >"$tmp/c.bash"
bash_complete() {
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _infracalc; printf "%s\n" "${COMPREPLY[@]}"' _ "$tmp/c.bash" "$@"
}
out=$(bash_complete infracalc kv size --model llama-3-8); has llama-3-8b "$out" "bash --model"
out=$(bash_complete infracalc hw com); has compare "$out" "bash hw com"
out=$(cd "$tmp/files" && bash_complete infracalc plan sce); has scenario.toml "$out" "bash plan FILE"
out=$(bash_complete infracalc network energy --optics ""); lacks --optics "$out" "bash text input"

# zsh: loaded through compinit and compdef as a user's .zshrc does; the completion function runs with compadd and
# _files replaced by printers (no terminal here for the line editor).
if command -v zsh >/dev/null; then
  infracalc completions zsh >"$tmp/_infracalc"
  zsh_complete() {
    zsh -f -c 'autoload -U compinit && compinit -u -d "$1/.zcompdump"; source "$1/_infracalc"
      print -r -- "registered:${_comps[infracalc]}"
      compadd() { while [[ "$1" == -* && "$1" != "--" ]]; do shift; done; [[ "$1" == "--" ]] && shift; print -rl -- "$@"; }
      _files() { print -r -- "<files $*>"; }
      shift; words=("$@"); CURRENT=$#; _infracalc' _ "$tmp" "$@"
  }
  out=$(zsh_complete infracalc decode ceiling --gp); has registered:_infracalc "$out" "zsh compdef"; has --gpu "$out" "zsh --gp"
  out=$(zsh_complete infracalc cluster train --model deepseek-v); has deepseek-v3 "$out" "zsh --model"
  out=$(zsh_complete infracalc plan ""); has "<files >" "$out" "zsh plan FILE"
else
  echo "zsh not installed: zsh completions not tested (make deps installs it)" >&2
fi

# fish: the script parses, loads, and `complete -C` (fish's own completion of a command line) uses it.
if command -v fish >/dev/null; then
  infracalc completions fish >"$tmp/c.fish"
  if fish -n "$tmp/c.fish"; then ok; else bad "fish: the script does not parse"; fi
  fish_complete() { fish -N -c "source $tmp/c.fish; complete -C '$1'"; }
  out=$(fish_complete "infracalc kv size --mo"); has --model "$out" "fish --mo"
  out=$(fish_complete "infracalc kv size --model llama-3-"); has llama-3-70b "$out" "fish --model"
  out=$(fish_complete "infracalc hw "); has show "$out" "fish hw"
  out=$(cd "$tmp/files" && fish_complete "infracalc plan sec"); has second.toml "$out" "fish plan FILE"
else
  echo "fish not installed: fish completions not tested (make deps installs it)" >&2
fi

echo "completions tests: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
