# Writes a page with the engine inside it: PAGE (a page with the line INFRACALC_ENGINE_WASM_GZIP_BASE64) with that
# line replaced by the text of WASM_TEXT (the engine's .wasm gzipped, in base64), to OUT.
#   cmake -DPAGE=... -DWASM_TEXT=... -DOUT=... -P assemble_page.cmake
file(READ ${PAGE} page)
file(READ ${WASM_TEXT} wasm)
string(STRIP "${wasm}" wasm)
string(FIND "${page}" "INFRACALC_ENGINE_WASM_GZIP_BASE64" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${PAGE} has no line INFRACALC_ENGINE_WASM_GZIP_BASE64")
endif()
string(REPLACE "INFRACALC_ENGINE_WASM_GZIP_BASE64" "${wasm}" page "${page}")
file(WRITE ${OUT} "${page}")
