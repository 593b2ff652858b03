// The engine's WebAssembly travels inside the page that uses it: gzipped, in base64, as the text of a
// <script type="application/gzip"> element. The HTML parser reads that text without the script parser, and the
// browser's own base64 and gzip decoders unpack it, so a page opened from file:// (which may not fetch a .wasm) loads
// in about a third of the time, and at a third of the size, of emscripten's -sSINGLE_FILE, whose base64 is a string
// inside the script (docs/web.md, "Measured"). Used by the site and by the report `plan --html` writes.
"use strict";

/// The bytes of the WebAssembly module held, gzipped and in base64, by the element with this id.
async function infracalcEngineBinary(id) {
  const text = document.getElementById(id).textContent.trim();
  const gz = typeof Uint8Array.fromBase64 === "function" ? Uint8Array.fromBase64(text)
                                                          : Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  const wasm = new Blob([gz]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Uint8Array(await new Response(wasm).arrayBuffer());
}

/// The engine module (emscripten's createInfracalcEngine) with its WebAssembly taken from the element with this id.
async function loadInfracalcEngine(id) {
  return createInfracalcEngine({ wasmBinary: await infracalcEngineBinary(id) });
}
