// The engine's WebAssembly travels inside the page that uses it: gzipped, in base64, as the text of a
// <script type="application/gzip"> element. The HTML parser reads that text without the script parser, and the
// browser's own base64 and gzip decoders unpack it, so a page opened from file:// (which may not fetch a .wasm) loads
// in about a third of the time, and at a third of the size, of emscripten's -sSINGLE_FILE, whose base64 is a string
// inside the script (docs/web.md, "Measured"). The report `plan --html` writes carries the same element and this file
// (plan/plan_html.cpp), which its what-if panel loads the engine with.
"use strict";

/// The WebAssembly module held, gzipped and in base64, by the element with this id, as a stream of its bytes.
function infracalcEngineStream(id) {
  const text = document.getElementById(id).textContent.trim();
  const gz = typeof Uint8Array.fromBase64 === "function" ? Uint8Array.fromBase64(text)
                                                          : Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  return new Blob([gz]).stream().pipeThrough(new DecompressionStream("gzip"));
}

/// The engine module (emscripten's createInfracalcEngine) with its WebAssembly taken from the element with this id, and
/// the module settings in `options` (the report's panel silences the engine's output). Where the browser compiles while
/// it reads (WebAssembly.instantiateStreaming), the module is compiled from the stream as it is unpacked instead of
/// after.
async function loadInfracalcEngine(id, options = {}) {
  if (typeof WebAssembly.instantiateStreaming !== "function") {
    const wasm = new Uint8Array(await new Response(infracalcEngineStream(id)).arrayBuffer());
    return createInfracalcEngine({ ...options, wasmBinary: wasm });
  }
  const wasm = new Response(infracalcEngineStream(id), { headers: { "Content-Type": "application/wasm" } });
  let failed;
  const failure = new Promise((resolve, reject) => { failed = reject; });
  const engine = createInfracalcEngine({
    ...options,
    instantiateWasm(imports, receive) {
      WebAssembly.instantiateStreaming(wasm, imports).then((r) => receive(r.instance, r.module), failed);
      return {};
    },
  });
  return Promise.race([engine, failure]);
}
