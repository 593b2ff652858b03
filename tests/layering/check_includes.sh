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
  case $inc in units/* | documents/* | catalog/* | host/* | plugins/* | validation/* | plan/* | cli/* | web/*) ;; *) continue ;; esac
  case $file in
    units/*)
      [[ $inc == units/* ]] || violation "$file:$line" "$inc" "units/ depends on nothing of ours" ;;
    documents/*)
      [[ $inc == units/* || $inc == documents/* ]] || violation "$file:$line" "$inc" "documents/ sees only units/" ;;
    catalog/*)
      [[ $inc == units/* || $inc == documents/* || $inc == catalog/* ]] ||
        violation "$file:$line" "$inc" "the catalog sees only units/ and documents/" ;;
    host/*)
      [[ $inc == units/* || $inc == documents/* || $inc == catalog/* || $inc == host/* ]] ||
        violation "$file:$line" "$inc" "the host sees only units/, documents/ and the catalog, never a plugin" ;;
    plugins/kernels/*)
      [[ $inc == units/* || $inc == documents/* || $inc == host/* || $inc == plugins/kernels/* ]] ||
        violation "$file:$line" "$inc" "kernel utilities see only units/, documents/ and host/" ;;
    plugins/registry.*)
      [[ $inc == units/* || $inc == host/* || $inc == plugins/*/*_plugin.hpp || $inc == plugins/registry.hpp ]] ||
        violation "$file:$line" "$inc" "the registry sees the plugins' descriptors and the host" ;;
    plugins/*/*)
      own=${file#plugins/}; own=${own%%/*}
      case $inc in
        units/* | documents/* | catalog/* | host/* | plugins/kernels/* | plugins/"$own"/*) ;;
        plugins/*/*)
          other=${inc#plugins/}; other=${other%%/*}
          if [ "$(rank "$other")" -lt 0 ] || [ "$(rank "$other")" -ge "$(rank "$own")" ]; then
            violation "$file:$line" "$inc" "plugin $own may use only plugins before it: ${order[*]}"
          elif [[ $inc == *_plugin.hpp || $inc == *_calculators.hpp || $inc == *_kernels.hpp ]]; then
            violation "$file:$line" "$inc" "another plugin's descriptor, calculators and kernels are private to it"
          fi ;;
        *) violation "$file:$line" "$inc" "plugins never include validation/, plan/ or cli/" ;;
      esac ;;
    validation/*)
      [[ $inc == units/* || $inc == documents/* || $inc == catalog/* || $inc == host/* || $inc == plugins/* || $inc == validation/* ]] ||
        violation "$file:$line" "$inc" "validation/ sees the layers up to plugins/, never plan/ or cli/" ;;
    plan/*)
      [[ $inc == units/* || $inc == documents/* || $inc == catalog/* || $inc == host/* || $inc == plugins/* || $inc == plan/* ]] ||
        violation "$file:$line" "$inc" "plan/ sees the layers up to plugins/, never validation/ or cli/" ;;
    web/*)
      [[ $inc == units/* || $inc == documents/* || $inc == catalog/* || $inc == host/* || $inc == plugins/* || $inc == plan/* || $inc == web/* ]] ||
        violation "$file:$line" "$inc" "the WebAssembly engine sees the layers up to plan/, never validation/ or cli/" ;;
  esac
  [[ $inc == cli/* && $file != cli/* && $file != tests/* && $file != bench/* ]] && violation "$file:$line" "$inc" "nothing depends on cli/"
  [[ $inc == web/* && $file != web/* ]] && violation "$file:$line" "$inc" "nothing depends on web/"
  true
done < <(grep -rn --include='*.cpp' --include='*.hpp' --include='*.cc' --include='*.cu' '^#include "' units documents catalog host plugins validation plan cli web)
# Heavy headers in one translation unit each.
for pair in "CLI/CLI.hpp:cli/main.cpp" "toml++/toml.h:documents/toml_reader.cpp"; do
  hdr=${pair%%:*}; only=${pair#*:}
  users=$(grep -rl --include='*.cpp' --include='*.hpp' "#include <$hdr>" units documents catalog host plugins validation plan cli web | grep -v "^$only$" || true)
  [ -z "$users" ] || { echo "$hdr is included outside $only: $users"; bad=1; }
done
[ $bad -eq 0 ] && echo "layering: every include follows ARCHITECTURE.md"
exit $bad
