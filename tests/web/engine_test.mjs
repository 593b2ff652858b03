// The WebAssembly engine against the native binary: every record's result line from infracalc_run_record must be
// the line `infracalc batch` prints for it, byte for byte. The records: one per golden case of a calculator
// (tests/golden/*.toml, its command line turned into a batch record), one with no inputs for every calculator
// `infracalc list` names and no golden case covers, and records that must fail. Prints the engine's load time and
// the time per record. A fourth argument, the site's index.html, checks the engine the page carries the same way.
//
//   node tests/web/engine_test.mjs build-web/infracalc_engine.js build/bin/infracalc [golden dir [site/index.html]]
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

const [enginePath, nativePath, goldenArg, sitePagePath] = process.argv.slice(2);
if (!enginePath || !nativePath) {
  console.error('usage: node engine_test.mjs ENGINE.js INFRACALC [GOLDEN_DIR [SITE_INDEX.html]]');
  process.exit(2);
}
const goldenDir = goldenArg ?? join(dirname(fileURLToPath(import.meta.url)), '..', 'golden');

// The native binary without the user's overlays or colour settings, as the shell tests run it (tests/shell_env.sh).
const home = mkdtempSync(join(tmpdir(), 'infracalc-web-test-'));
const env = { ...process.env, HOME: join(home, 'home'), XDG_DATA_HOME: join(home, 'xdg') };
delete env.INFRACALC_DATA;
delete env.NO_COLOR;
const native = (args, input) => execFileSync(resolve(nativePath), args, { env, input, maxBuffer: 1 << 30, encoding: 'utf8' });
// `batch` exits 1 when a record fails, and says which on stderr; its stdout holds every line.
function native_batch(input) {
  const r = spawnSync(resolve(nativePath), ['batch', '-'], { env, input, maxBuffer: 1 << 30, encoding: 'utf8' });
  if (r.status !== 0 && r.status !== 1) throw new Error(`infracalc batch exited with ${r.status}: ${r.stderr}`);
  return r.stdout;
}

// A golden case's command line (["kv", "size", "--model", "llama-3-70b", "--tokens", "1"]) as a batch record. A flag
// followed by another flag, or by nothing, is a switch: true. --as-of and --json are options of the whole run;
// a case with --data-dir (an overlay directory) needs files a record cannot name, and is left out.
function record_of(args) {
  const [plugin, calculator, ...rest] = args;
  const inputs = {};
  for (let i = 0; i < rest.length; ++i) {
    if (!rest[i].startsWith('--')) return null;  // an operand: not a calculator's command line
    const name = rest[i].slice(2);
    const value = i + 1 < rest.length && !rest[i + 1].startsWith('--') ? rest[++i] : true;
    if (name === 'data-dir') return null;
    if (name === 'as-of' || name === 'json') continue;
    inputs[name] = value;
  }
  return { plugin, calculator, inputs };
}

const listing = JSON.parse(native(['list', '--json']));
const calculators = new Map(listing.plugins.map((p) => [p.name, new Set(p.calculators.map((c) => c.name))]));
const records = [];
const covered = new Set();
for (const file of readdirSync(goldenDir).filter((f) => f.endsWith('.toml')).sort()) {
  for (const line of readFileSync(join(goldenDir, file), 'utf8').split('\n')) {
    const m = /^args = (\[.*\])\s*$/.exec(line);
    if (!m) continue;
    const args = JSON.parse(m[1]);  // TOML's basic strings in an inline array read as JSON
    if (!calculators.get(args[0])?.has(args[1])) continue;  // calc, hw, model, data: commands, not calculators
    const rec = record_of(args);
    if (rec === null) continue;
    records.push(JSON.stringify(rec));
    covered.add(`${rec.plugin} ${rec.calculator}`);
  }
}
const golden = records.length;
for (const [plugin, names] of calculators)
  for (const calculator of names)
    if (!covered.has(`${plugin} ${calculator}`)) records.push(JSON.stringify({ plugin, calculator, id: 'defaults' }));
const bad = [
  'not json',
  '[1, 2]',
  '{}',
  '{"plugin": "kv"}',
  '{"plugin": 3, "calculator": "size"}',
  '{"plugin": "kvv", "calculator": "size"}',
  '{"plugin": "kv", "calculator": "sise"}',
  '{"plugin": "kv", "calculator": "size", "colour": "red"}',
  '{"plugin": "kv", "calculator": "size", "inputs": [1]}',
  '{"plugin": "kv", "calculator": "size", "inputs": {"tokens": [8000]}}',
  '{"plugin": "kv", "calculator": "size", "inputs": {"model": "llama-3-70b", "tokens": "8000 parsecs"}}',
  '{"plugin": "kv", "calculator": "size", "inputs": {"model": "llama-3-70c", "tokens": 8000}}',
  '{"plugin": "kv", "calculator": "size", "inputs": {"model": "llama-3-70b", "tokens": 8000, "tokenz": 1}}',
  '{"plugin": "kv", "calculator": "size", "inputs": {"model": "llama-3-70b", "tokens": 1e300}}',
  '{"plugin": "kv", "calculator": "size", "inputs": {"model": "llama-3-70b", "tokens": "1,5"}}',
  '{"plugin": "kv", "calculator": "size", "id": "named \\u00e9 \\"quoted\\"", "inputs": {"model": "llama-3-70b", "tokens": "8Ki"}}',
  '{"plugin": "kv", "calculator": "size", "id": 7, "inputs": {"model": "llama-3-70b", "tokens": 0.5}}',
  '{"plugin": "kv", "calculator": "paged", "inputs": {"trace": "trace.txt"}}',
  '{"plan": "serve.toml", "set": {"workload.rate": "50/s"}}',
  '{"plan": 3}',
  '{"plugin": "kv", "calculator": "size", "inputs": {"model": "llama-3-70b", "tokens": "8000"}',
  '{"plugin": "kv", "calculator": "size", "inputs": {"model": "\\u0007bell", "tokens": "1"}}',
];
records.push(...bad);

const expected = native_batch(records.join('\n') + '\n').split('\n');
expected.pop();  // the last newline
rmSync(home, { recursive: true, force: true });
if (expected.length !== records.length) {
  console.error(`native batch printed ${expected.length} lines for ${records.length} records`);
  process.exit(1);
}

// Records whose numbers may differ in their last digits: the last bits of transcendental functions (log10, pow,
// exp) differ between glibc's libm and emscripten's musl-based one, and an iterative solver carries such a bit
// into its 17-digit JSON numbers and into the size of its residual ("node imbalance 5.732e-13 of the flow"). For
// these the text between the numbers must still match byte for byte; every other record must match whole.
const LIBM_SENSITIVE = new Set([
  '{"plugin":"cooling","calculator":"loop","inputs":{"racks":"7x130kW,90kW","flow-per-kw":"1.5L/min/kW"}}',
]);
const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;
// The numbers themselves must agree to 1e-9 relative, or both be below 1e-9 in size (a solver's residual, which is
// rounding noise in either build).
function numbers_only(a, b) {
  const na = a.match(NUMBER) ?? [], nb = b.match(NUMBER) ?? [];
  if (na.length !== nb.length || a.split(NUMBER).join('\u0000') !== b.split(NUMBER).join('\u0000')) return false;
  return na.every((x, i) => {
    const u = Number(x), v = Number(nb[i]);
    return Math.abs(u - v) <= 1e-9 * Math.max(Math.abs(u), Math.abs(v)) || (Math.abs(u) < 1e-9 && Math.abs(v) < 1e-9);
  });
}

// Loads one engine module and runs every record through it; true when every line is the native one.
async function check(path, options) {
  const t0 = performance.now();
  const createInfracalcEngine = createRequire(import.meta.url)(resolve(path));
  const engine = await createInfracalcEngine(options);
  const run = engine.cwrap('infracalc_run_record', 'string', ['string', 'number']);
  const loaded = performance.now() - t0;
  const failures = [];
  const last_bits = [];
  const times = [];
  records.forEach((rec, i) => {
    const start = performance.now();
    let got;
    try {
      got = run(rec, i + 1);
    } catch (e) {
      // An exception out of the engine (a bug: batch turns every user error into a line) is a difference too.
      got = `(the engine threw ${typeof e === 'number' ? 'a C++ exception' : String(e).slice(0, 200)})`;
    }
    times.push([performance.now() - start, rec]);
    if (got === expected[i]) return;
    if (LIBM_SENSITIVE.has(rec) && numbers_only(got, expected[i])) {
      last_bits.push(rec);
      return;
    }
    failures.push(rec);
    if (failures.length <= 10) {
      let at = 0;
      while (at < got.length && got[at] === expected[i][at]) ++at;
      console.error(`FAIL ${path} record ${i + 1}: ${rec}\n  first difference at byte ${at}\n  native: …${expected[i].slice(Math.max(0, at - 60), at + 80)}\n  engine: …${got.slice(Math.max(0, at - 60), at + 80)}`);
    }
  });
  times.sort((a, b) => a[0] - b[0]);
  const total = times.reduce((s, [t]) => s + t, 0);
  console.log(`${path}: load ${loaded.toFixed(0)} ms; records: total ${total.toFixed(0)} ms, median ${times[times.length >> 1][0].toFixed(2)} ms, ` +
              `mean ${(total / times.length).toFixed(2)} ms, slowest ${times.at(-1)[0].toFixed(0)} ms (${times.at(-1)[1].slice(0, 100)})`);
  if (last_bits.length > 0) {
    console.log(`  ${last_bits.length} records differ only in numbers, as glibc's and emscripten's libm differ in last bits:`);
    for (const rec of last_bits) console.log(`    ${rec.slice(0, 160)}`);
  }
  if (failures.length > 0) {
    console.error(`  ${failures.length} of ${records.length} records differ from infracalc batch:`);
    for (const rec of failures) console.error(`    ${rec.slice(0, 160)}`);
    return false;
  }
  console.log(`  every other line equals infracalc batch byte for byte (${records.length - last_bits.length} of ${records.length})`);
  return true;
}

const errors = expected.filter((l) => l.includes('"error": ')).length;
console.log(`${records.length} records (${golden} from golden cases, ${records.length - golden - bad.length} calculators with defaults only, ` +
            `${bad.length} bad; ${errors} error lines), ${calculators.size} plugins, ` +
            `${[...calculators.values()].reduce((n, s) => n + s.size, 0)} calculators, ${covered.size} of them with golden cases`);
// Node's fetch cannot read a file path, so the module is handed its bytes. The site's page carries them itself,
// gzipped and in base64 inside an element (web/site/engine_loader.js): taken from there, they must be the same engine.
let ok = await check(enginePath, { wasmBinary: readFileSync(resolve(enginePath).replace(/\.js$/, '.wasm')) });
if (sitePagePath) {
  const page = readFileSync(sitePagePath, 'utf8');
  const m = /<script type="application\/gzip" id="infracalc-engine-wasm">\s*([A-Za-z0-9+/=]+)\s*<\/script>/.exec(page);
  if (!m) {
    console.error(`FAIL ${sitePagePath}: no engine inside the page`);
    ok = false;
  } else {
    ok = (await check(join(dirname(sitePagePath), 'infracalc_engine.js'), { wasmBinary: gunzipSync(Buffer.from(m[1], 'base64')) })) && ok;
  }
}
process.exit(ok ? 0 : 1);
