#!/usr/bin/env bash
# Checks every #include of our own headers against ARCHITECTURE.md's table: which folder may depend on
# which, and the plugin order. Prints each violation as file:line and exits 1 if there is any.
# Usage: check_includes.sh SOURCE_DIR
set -euo pipefail
cd "$1"
order=(formats kv fit decode serve cluster network power cooling tco cost chip)
rank() { local i; for i in "${!order[@]}"; do [ "${order[$i]}" = "$1" ] && { echo "$i"; return; }; done; echo -1; }
bad=0
violation() { echo "$1: includes $2 ($3)"; bad=1; }
while IFS=: read -r file line inc; do
  inc=${inc#*\"}; inc=${inc%\"*}
  case $inc in units/* | plugins/* | validation/* | cli/*) ;; *) continue ;; esac
  case $file in
    units/*)
      [[ $inc == units/* ]] || violation "$file:$line" "$inc" "units/ depends on nothing of ours" ;;
    plugins/core/*)
      [[ $inc == units/* || $inc == plugins/core/* || $inc == plugins/catalog/* || $inc == plugins/plugin.hpp ]] ||
        violation "$file:$line" "$inc" "the core sees only units/, plugins/plugin.hpp and the catalog" ;;
    plugins/catalog/*)
      [[ $inc == units/* || $inc == plugins/core/* || $inc == plugins/catalog/* ]] ||
        violation "$file:$line" "$inc" "the catalog sees only units/ and plugins/core/" ;;
    plugins/kernels/*)
      [[ $inc == units/* || $inc == plugins/core/* || $inc == plugins/kernels/* ]] ||
        violation "$file:$line" "$inc" "kernel utilities see only units/ and plugins/core/" ;;
    plugins/registry.*) ;;
    plugins/plugin.hpp)
      [[ $inc == units/* || $inc == plugins/catalog/* ]] || violation "$file:$line" "$inc" "the contract sees only units/ and the catalog" ;;
    plugins/*/*)
      own=${file#plugins/}; own=${own%%/*}
      case $inc in
        units/* | plugins/plugin.hpp | plugins/core/* | plugins/catalog/* | plugins/kernels/* | plugins/"$own"/*) ;;
        plugins/*/*)
          other=${inc#plugins/}; other=${other%%/*}
          if [ "$(rank "$other")" -lt 0 ] || [ "$(rank "$other")" -ge "$(rank "$own")" ]; then
            violation "$file:$line" "$inc" "plugin $own may use only plugins before it: ${order[*]}"
          elif [[ $inc == *_plugin.hpp || $inc == *_calculators.hpp || $inc == *_kernels.hpp ]]; then
            violation "$file:$line" "$inc" "another plugin's descriptor, calculators and kernels are private to it"
          fi ;;
        *) violation "$file:$line" "$inc" "plugins never include validation/ or cli/" ;;
      esac ;;
    validation/*)
      [[ $inc == units/* || $inc == plugins/* || $inc == validation/* ]] ||
        violation "$file:$line" "$inc" "validation/ sees units/ and plugins/, never cli/" ;;
  esac
  [[ $inc == cli/* && $file != cli/* && $file != tests/* && $file != bench/* ]] && violation "$file:$line" "$inc" "nothing depends on cli/"
  true
done < <(grep -rn --include='*.cpp' --include='*.hpp' --include='*.cc' --include='*.cu' '^#include "' units plugins validation cli)
# Heavy headers in one translation unit each.
for pair in "CLI/CLI.hpp:cli/main.cpp" "toml++/toml.h:plugins/core/toml_reader.cpp"; do
  hdr=${pair%%:*}; only=${pair#*:}
  users=$(grep -rl --include='*.cpp' --include='*.hpp' "#include <$hdr>" units plugins cli | grep -v "^$only$" || true)
  [ -z "$users" ] || { echo "$hdr is included outside $only: $users"; bad=1; }
done
[ $bad -eq 0 ] && echo "layering: every include follows ARCHITECTURE.md"
exit $bad
