// The WebAssembly engine's plans against the native binary (issue 25 item 3): for every example plan, and a few with
// --set overrides, infracalc_run_plan must return what `infracalc plan FILE --json [--set ...]` prints, byte for byte
// (a sweep's JSON Lines included); its "html" view must be the report `plan --html` writes, byte for byte; that page
// must embed this engine (its gzipped WebAssembly) in the what-if panel; and bad plans, overrides and requests must
// come back as error documents, never as exceptions.
//
//   node tests/web/plan_engine_test.mjs build-web/infracalc_engine.js build/bin/infracalc [examples dir]
//
// Run it from the repository root: the plans are named by the path given to both (examples/NAME.toml).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';

const [enginePath, nativePath, examplesArg] = process.argv.slice(2);
if (!enginePath || !nativePath) {
  console.error('usage: node plan_engine_test.mjs ENGINE.js INFRACALC [EXAMPLES_DIR]');
  process.exit(2);
}
const examples = relative(process.cwd(), resolve(examplesArg ?? 'examples'));
const engineDir = dirname(resolve(enginePath));

// The native binary without the user's overlays or colour settings (tests/shell_env.sh), with this engine for --html.
const home = mkdtempSync(join(tmpdir(), 'infracalc-plan-engine-test-'));
const env = { ...process.env, HOME: join(home, 'home'), XDG_DATA_HOME: join(home, 'xdg'), INFRACALC_WEB_ENGINE: engineDir };
delete env.INFRACALC_DATA;
delete env.NO_COLOR;
function native(args) {
  const r = spawnSync(resolve(nativePath), args, { env, maxBuffer: 1 << 30, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const t0 = performance.now();
const createInfracalcEngine = createRequire(import.meta.url)(resolve(enginePath));
const engine = await createInfracalcEngine({ wasmBinary: readFileSync(resolve(enginePath).replace(/\.js$/, '.wasm')) });
const loaded = performance.now() - t0;
const runPlan = engine.cwrap('infracalc_run_plan', 'string', ['string', 'string']);
const times = [];
function run(toml, request) {
  const start = performance.now();
  let got;
  try {
    got = runPlan(toml, request === null ? null : JSON.stringify(request));
  } catch (e) {
    got = `(the engine threw ${typeof e === 'number' ? 'a C++ exception' : String(e).slice(0, 200)})`;
  }
  times.push([performance.now() - start, JSON.stringify(request).slice(0, 100)]);
  return got;
}

let failures = 0, checks = 0;
function same(what, got, want) {
  ++checks;
  if (got === want) return;
  ++failures;
  let at = 0;
  while (at < got.length && got[at] === want[at]) ++at;
  console.error(`FAIL ${what}: first difference at byte ${at} (engine ${got.length} bytes, native ${want.length})\n` +
                `  native: …${want.slice(Math.max(0, at - 80), at + 80)}\n  engine: …${got.slice(Math.max(0, at - 80), at + 80)}`);
}
function expect(what, ok, detail = '') {
  ++checks;
  if (ok) return;
  ++failures;
  console.error(`FAIL ${what}${detail ? `: ${detail}` : ''}`);
}
// The report of a page: what the what-if panel replaces when it re-runs the plan.
function report(page) {
  const from = page.indexOf('<div id="report">'), to = page.indexOf('</div>\n<!-- end of report -->');
  return from < 0 || to < from ? `(no report in ${page.slice(0, 80)})` : page.slice(from, to);
}
const sets = (set) => Object.entries(set).flatMap(([k, v]) => ['--set', `${k}=${v}`]);

const plans = readdirSync(examples).filter((f) => f.endsWith('.toml')).sort().map((f) => ({ file: join(examples, f), set: {} }));
const single = join(examples, 'llama3-70b-h100.toml');
plans.push(
  { file: single, set: { 'workload.rate': '50/s', 'money.life': '3 yr' } },
  { file: single, set: { 'hardware.system': 'dgx-b200', 'money.capex_per_gpu': '$50000', 'money.rental': '' } },
  { file: join(examples, 'llama3-405b-train-16k-h100.toml'), set: { 'hardware.gpus': 8192 } },
  { file: join(examples, 'site-100mw.toml'), set: { 'money.life': '5 yr' } },
  // A sweep whose first point fails a step: both write its page, the steps that failed first.
  { file: join(examples, 'site-100mw.toml'), set: { 'hardware.tp': '5' } },
);
const wasmGz = readFileSync(join(engineDir, 'infracalc_engine.wasm.gz')).toString('base64');
for (const { file, set } of plans) {
  const what = `${file}${Object.keys(set).length ? ` ${JSON.stringify(set)}` : ''}`;
  const toml = readFileSync(file, 'utf8');
  const json = native([...['plan', file, '--json'], ...sets(set)]);
  expect(`${what}: native plan --json exit status`, json.status === 0 || json.status === 1, json.stderr);
  const got = run(toml, { file, set });
  same(`${what} --json`, got + '\n', json.stdout);
  const page = join(home, 'page.html');
  rmSync(page, { force: true });
  const html = native([...['plan', file, '--html', page], ...sets(set)]);
  expect(`${what}: native plan --html exit status`, html.status === 0 || html.status === 1, html.stderr);
  const written = readFileSync(page, 'utf8');
  same(`${what} --html (the report)`, report(run(toml, { file, set, view: 'html' })), report(written));
  // The panel's warm-up: every step run again, nothing kept, the same page.
  same(`${what} --html, every step run afresh`, report(run(toml, { file, set, view: 'html', runs: 'fresh' })), report(written));
  expect(`${what}: the page embeds this engine in the what-if panel`,
         written.includes('<section id="what-if">') && written.includes(`<script type="application/gzip" id="infracalc-engine-wasm">${wasmGz}</script>`));
  const worksheet = run(toml, { file, set, view: 'worksheet' });
  expect(`${what}: the worksheet view is a worksheet`, worksheet.startsWith('{"schema_version": 1, "kind": "plan", '), worksheet.slice(0, 120));
  if (!got.includes('\n')) same(`${what}: the worksheet view of a single plan is its --json`, worksheet, got);
}

// Bad plans, overrides and requests: an error document with a hint, as batch writes them, where the command line
// exits 2.
const toml = readFileSync(single, 'utf8');
const bad = [
  [toml, { file: single, set: { 'workload.rate': '50 GB' } }, 'workload.rate'],
  [toml, { file: single, set: { 'workload.ratee': '50/s' } }, 'workload.rate'],
  [toml, { file: single, set: { 'hardware.gpu': 'h100-sxmm' } }, 'h100-sxm'],
  ['[model\nid = 1', { file: 'broken.toml' }, 'broken.toml'],
  ['', { file: 'empty.toml' }, 'empty.toml'],
  [toml, { file: single, set: ['workload.rate=50/s'] }, '"set" must be an object'],
  [toml, { file: single, view: 'xlsx' }, 'unknown view'],
  [toml, { file: single, colour: 'red' }, 'unknown key'],
  [toml, { file: single, runs: 'sometimes' }, 'unknown runs'],
  [toml, { file: 7 }, '"file" must be a string'],
];
for (const [text, request, names] of bad) {
  const got = run(text, request);
  let doc = null;
  try {
    doc = JSON.parse(got);
  } catch {
    doc = null;
  }
  expect(`bad ${JSON.stringify(request).slice(0, 100)}`, doc !== null && Object.keys(doc).join() === 'schema_version,error,hint' &&
         doc.error.includes(names), got.slice(0, 300));
  if (request.set && !Array.isArray(request.set)) {
    const r = native([...['plan', request.file, '--json'], ...sets(request.set)]);
    expect(`bad ${JSON.stringify(request.set)}: native plan exits 2 with nothing on stdout`, r.status === 2 && r.stdout === '');
  }
}
const notJson = run(toml, null);
expect('no request: the plan as it is, named plan.toml', notJson.includes('"file": "plan.toml"'), notJson.slice(0, 200));
const badJson = run(toml, '{"set": ');
expect('a request that is not JSON', badJson.startsWith('{"schema_version": 1, "error": '), badJson.slice(0, 200));
rmSync(home, { recursive: true, force: true });

times.sort((a, b) => a[0] - b[0]);
const total = times.reduce((s, [t]) => s + t, 0);
console.log(`${enginePath}: load ${loaded.toFixed(0)} ms; ${times.length} plan runs, median ${times[times.length >> 1][0].toFixed(1)} ms, ` +
            `slowest ${times.at(-1)[0].toFixed(0)} ms (${times.at(-1)[1]}), total ${total.toFixed(0)} ms`);
if (failures > 0) {
  console.error(`${failures} of ${checks} checks failed`);
  process.exit(1);
}
console.log(`every plan equals infracalc plan --json and --html byte for byte (${plans.length} plans, ${bad.length + 2} bad requests; ${checks} checks)`);
process.exit(0);
