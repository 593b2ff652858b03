// The page in a real browser: headless Chromium (Debian's package) loads build-web/site/index.html from file://,
// with no network, and for every widget checks that each figure it shows is the number `infracalc batch` gives for
// the very records the widget ran and that no two labels of its chart overlap as rendered; then it moves every
// control by keyboard (an arrow key, End, Home) and checks again. It also checks that every control is reached by
// Tab, that nothing goes to the console, that the page asks for nothing but its own files, and (given a plan) the
// same for a report written by `infracalc plan --html` and its what-if panel: each value the panel redraws must be
// the one a report written with the same --set shows. Load time and redraw times are printed, never asserted. With
// --screenshot FILE it saves a PNG of the page as it opens.
//
//   node tests/web/browser_test.mjs --chromium /usr/bin/chromium --site build-web/site/index.html \
//        --infracalc build/bin/infracalc [--plan examples/x.toml ...] [--screenshot FILE]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Browser } from './cdp_pipe.mjs';

const WIDGETS = ['w-roofline', 'w-speculative', 'w-tp', 'w-timeline'];

function parse_args(argv) {
  const o = { plans: [] };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (value === undefined) usage(`${flag} needs a value`);
    if (flag === '--chromium') o.chromium = value;
    else if (flag === '--site') o.site = value;
    else if (flag === '--infracalc') o.infracalc = value;
    else if (flag === '--plan') o.plans.push(value);
    else if (flag === '--screenshot') o.screenshot = value;
    else usage(`unknown option ${flag}`);
  }
  if (!o.chromium || !o.site || !o.infracalc) usage('--chromium, --site and --infracalc are required');
  return o;
}
function usage(why) {
  console.error(`browser_test: ${why}\nusage: node browser_test.mjs --chromium BIN --site INDEX.html --infracalc BIN [--plan F.toml ...] [--screenshot F.png]`);
  process.exit(2);
}
const opts = parse_args(process.argv.slice(2));

// The native binary without the user's overlays or colour settings, as the shell tests run it (tests/shell_env.sh).
const scratch = mkdtempSync(join(tmpdir(), 'infracalc-browser-test-'));
const env = { ...process.env, HOME: join(scratch, 'home'), XDG_DATA_HOME: join(scratch, 'xdg') };
delete env.INFRACALC_DATA;
delete env.NO_COLOR;
function native(args, input) {
  const r = spawnSync(resolve(opts.infracalc), args, { env, input, maxBuffer: 1 << 30, encoding: 'utf8' });
  if (r.status !== 0 && !(args[0] === 'batch' && r.status === 1))
    throw new Error(`infracalc ${args.join(' ')} exited with ${r.status}: ${r.stderr}`);
  return r.stdout;
}

let failures = 0;
function fail(what) {
  ++failures;
  if (failures <= 40) console.error(`FAIL ${what}`);
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

// A figure's number in the engine's document: results.NAME is a result's value, tables.T.ROW.COLUMN a table cell.
function value_at(doc, key) {
  const [kind, ...rest] = key.split('.');
  if (kind === 'results') return doc.results?.[rest.join('.')]?.value;
  if (kind === 'tables') {
    const [table, row, ...column] = rest;
    const t = doc.tables?.[table];
    const c = t?.columns.findIndex((col) => col.key === column.join('.'));
    return c === undefined || c < 0 ? undefined : t.rows[Number(row)]?.[c];
  }
  return undefined;
}

// What the page shows for a number: four significant digits after an SI prefix, as its si() writes them. The test
// reads the shown text back and accepts it when it rounds the engine's number to within half a unit in the fourth
// digit, whatever the prefix.
const PREFIX = { P: 1e15, T: 1e12, G: 1e9, M: 1e6, k: 1e3, m: 1e-3, 'µ': 1e-6, n: 1e-9 };
function shown_matches(text, value) {
  const m = /^\s*(-?[0-9.]+(?:e[-+]?\d+)?)\s*(\S*)/.exec(text.replace(/,/g, ''));
  if (!m) return false;
  const number = Number(m[1]);
  if (value === 0) return number === 0;
  const scale = PREFIX[m[2][0]] !== undefined && m[2].length > 1 ? PREFIX[m[2][0]] : 1;
  for (const s of new Set([scale, 1])) if (Math.abs(number * s - value) <= Math.abs(value) * 6e-4) return true;
  return false;
}

// What is wrong with the labels of the charts under `selector`: text labels whose rendered boxes overlap (by more than
// a pixel each way), or a chart none of whose labels has a box to compare (not laid out: the check would pass without
// looking).
async function colliding_labels(page, selector) {
  return page.eval(`[...document.querySelectorAll(${JSON.stringify(selector + ' svg')})].flatMap((svg) => {
    const labels = [...svg.querySelectorAll('text')].filter((t) => t.textContent.trim() !== '');
    const boxes = labels.map((t) => {
      const r = t.getBoundingClientRect();
      return { text: t.textContent.trim(), x0: r.left + 1, y0: r.top + 1, x1: r.right - 1, y1: r.bottom - 1 };
    }).filter((b) => b.x1 > b.x0 && b.y1 > b.y0);
    if (labels.length > 0 && boxes.length === 0) return ["chart's " + labels.length + " labels have no box to compare"];
    const pairs = [];
    for (let i = 0; i < boxes.length; ++i)
      for (let j = i + 1; j < boxes.length; ++j) {
        const a = boxes[i], b = boxes[j];
        if (a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1) pairs.push('chart labels "' + a.text + '" and "' + b.text + '" overlap');
      }
    return pairs;
  })`);
}

// Every figure of one widget against native batch on the records the widget ran, and its chart's labels apart.
// Returns the redraw time.
async function check_widget(page, id, when) {
  for (const problem of await colliding_labels(page, `#${id}`)) fail(`${id} ${when}: the ${problem}`);
  const state = await page.eval(`(() => {
    const s = document.getElementById(${JSON.stringify(id)});
    return { records: JSON.parse(s.dataset.records ?? '[]'), ms: Number(s.dataset.redrawMs), text: s.innerText,
             figs: [...s.querySelectorAll('.fig')].map((f) => ({ record: Number(f.dataset.record), key: f.dataset.key,
                                                               value: f.dataset.value, text: f.textContent })) };
  })()`);
  if (state.records.length === 0) { fail(`${id} ${when}: no records ran`); return NaN; }
  const lines = native(['batch', '-'], state.records.map((r) => r + '\n').join('')).trimEnd().split('\n');
  const docs = lines.map((l) => JSON.parse(l));
  if (docs.length !== state.records.length) fail(`${id} ${when}: ${state.records.length} records gave ${docs.length} lines`);
  docs.forEach((doc, i) => {
    if (doc.error && !state.text.includes(doc.error)) fail(`${id} ${when}: record ${i} fails natively (${doc.error}) and the page does not say so`);
  });
  if (docs.every((d) => !d.error) && state.figs.length === 0) fail(`${id} ${when}: no figures shown`);
  for (const f of state.figs) {
    const doc = docs[f.record];
    const want = doc ? value_at(doc, f.key) : undefined;
    if (want === undefined) { fail(`${id} ${when}: figure ${f.key} of record ${f.record} is not in infracalc's result`); continue; }
    if (String(want) !== f.value) fail(`${id} ${when}: ${f.key} is ${f.value} in the page, ${want} from infracalc`);
    if (typeof want === 'number' && !shown_matches(f.text, want)) fail(`${id} ${when}: ${f.key} shows "${f.text}" for ${want}`);
  }
  return state.ms;
}

// Presses Tab from the top of the page until focus comes round again; returns the ids focused, in order.
async function tab_order(page) {
  await page.eval('document.activeElement?.blur(), window.scrollTo(0, 0), true');
  const seen = [];
  for (let i = 0; i < 400; ++i) {
    await page.press('Tab');
    const id = await page.eval('document.activeElement === document.body ? null : (document.activeElement.id || document.activeElement.tagName)');
    if (id !== null && seen.includes(id) && seen.indexOf(id) === 0) break;
    if (id !== null) seen.push(id);
  }
  return seen;
}

function check_quiet(page, what) {
  for (const c of page.console) fail(`${what}: the console says (${c.level}) ${c.text}`);
  for (const url of page.requests)
    if (!/^(file|data|blob|about):/.test(url)) fail(`${what}: the page asked the network for ${url}`);
  page.console.length = 0;
}

async function open(browser, file) {
  const page = await browser.new_page();
  await page.enable();
  const started = performance.now();
  await page.navigate(pathToFileURL(resolve(file)).href);
  await page.wait_for('document.body && document.body.dataset.ready === "1"', 20000);
  const load_ms = performance.now() - started;
  // What the person moving a control waits for: the browser's Event Timing entries, each from the key's press to the
  // next frame painted after the page handled it (handler, style, layout and paint; in steps of 8 ms). The browser
  // reports only those of 16 ms or more.
  await page.eval(`window.infracalcInteractions = [];
    new PerformanceObserver((list) => { for (const e of list.getEntries()) window.infracalcInteractions.push(e.duration); })
      .observe({ type: 'event', durationThreshold: 16 }), true`);
  return { page, load_ms };
}

// Forgets the interactions timed so far.
const forget_interactions = (page) => page.eval('window.infracalcInteractions.length = 0, true');

// The longest interaction since the last forget_interactions, from key press to painted frame: 16 ms when the
// browser reported none (all were shorter). Waits two frames first, as the browser reports an entry after its paint.
const interaction_ms = (page) => page.eval(`new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() =>
    setTimeout(() => done(Math.max(16, ...window.infracalcInteractions)), 20))))`);

// The three slowest moves by the page's handler, then the three slowest to a painted frame.
const worst = (moves) => [(m) => m.ms, (m) => m.paint_ms].map((key) =>
  [...moves].sort((a, b) => key(b) - key(a)).slice(0, 3).map((m) => m.what).join('; ')).join('; slowest painted: ');

// "median M ms, max X ms" of a list of times.
const spread = (xs) => `median ${median(xs).toFixed(1)} ms, max ${Math.max(...xs).toFixed(1)} ms`;

async function check_site(browser) {
  const { page, load_ms } = await open(browser, opts.site);
  // The page's own clock, from the navigation's start to every widget drawn: in the browser just started, then in
  // three more tabs of the same browser (as a page opened in a browser already running).
  const own = [Number(await page.eval('document.body.dataset.readyMs'))];
  for (let i = 0; i < 3; ++i) {
    const again = await open(browser, opts.site);
    own.push(Number(await again.page.eval('document.body.dataset.readyMs')));
    check_quiet(again.page, 'site, opened again');
    await browser.send('Target.closeTarget', { targetId: (await again.page.send('Target.getTargetInfo')).targetInfo.targetId });
  }
  console.log(`site: loaded and drawn in ${own[0].toFixed(0)} ms in a browser just started (${load_ms.toFixed(0)} ms from the ` +
              `navigation command), then ${own.slice(1).map((t) => t.toFixed(0)).join(', ')} ms in new tabs (the page's own clock)`);
  // The README's picture: the page as it opens, every control at its default.
  if (opts.screenshot) {
    writeFileSync(opts.screenshot, await page.screenshot(1280));
    await page.send('Emulation.clearDeviceMetricsOverride');
    console.log(`site: screenshot ${opts.screenshot}`);
  }
  const present = await page.eval('[...document.querySelectorAll("section.widget")].map((s) => s.id)');
  for (const id of WIDGETS) if (!present.includes(id)) fail(`site: widget ${id} is missing`);
  const controls = await page.eval(`[...document.querySelectorAll("section.widget")].map((s) => [s.id,
      [...s.querySelectorAll("select, input[type=range]")].map((c) => ({ id: c.id, tag: c.tagName,
        labelled: !!document.querySelector('label[for="' + c.id + '"]') }))])`);
  const reached = new Set(await tab_order(page));
  const redraws = [], first_draws = [], painted = [];
  const slowest = [];
  let moves = 0;
  for (const [widget, list] of controls) {
    for (const c of list) {
      if (!c.id) fail(`${widget}: a control has no id`);
      else if (!c.labelled) fail(`${widget}: control ${c.id} has no <label for>`);
      else if (!reached.has(c.id)) fail(`${widget}: control ${c.id} is not reached by Tab`);
    }
  }
  check_quiet(page, 'site as loaded');
  for (const [widget, list] of controls) {
    first_draws.push(await check_widget(page, widget, 'as loaded'));
    for (const c of list.filter((c) => c.id)) {
      const keys = c.tag === 'SELECT' ? ['ArrowDown', 'End', 'Home'] : ['ArrowRight', 'End', 'Home'];
      for (const key of keys) {
        const before = await page.eval(`document.getElementById(${JSON.stringify(widget)}).dataset.records + "|" +
                                         document.getElementById(${JSON.stringify(widget)}).dataset.redrawMs`);
        await page.eval(`document.getElementById(${JSON.stringify(c.id)}).focus(), true`);
        const value = await page.eval(`document.getElementById(${JSON.stringify(c.id)}).value`);
        await forget_interactions(page);
        await page.press(key);
        const after = await page.eval(`document.getElementById(${JSON.stringify(c.id)}).value`);
        if (after === value) continue;  // already at that end
        ++moves;
        await page.wait_for(`(document.getElementById(${JSON.stringify(widget)}).dataset.records + "|" +
                              document.getElementById(${JSON.stringify(widget)}).dataset.redrawMs) !== ${JSON.stringify(before)}`);
        const what = `after ${key} on ${c.id} (${value} → ${after})`;
        const ms = await check_widget(page, widget, what);
        const paint_ms = await interaction_ms(page);
        redraws.push(ms);
        painted.push(paint_ms);
        slowest.push({ ms, paint_ms, what: `${ms.toFixed(0)} ms ${what}, painted after ${paint_ms.toFixed(0)} ms` });
      }
    }
  }
  check_quiet(page, 'site');
  const ok = redraws.filter(Number.isFinite);
  console.log(`site: ${controls.length} widgets, ${controls.reduce((n, [, l]) => n + l.length, 0)} controls, ${moves} moves checked; ` +
              `first draws at load ${first_draws.map((t) => t.toFixed(0)).join(', ')} ms; ` +
              `redraw after a move ${spread(ok)}; from key press to painted frame ${spread(painted)}: ` +
              worst(slowest));
}

// The values a report shows, by line id.
const lines_of = (page) => page.eval('Object.fromEntries([...document.querySelectorAll("[data-line]")].map((e) => [e.dataset.line, e.textContent.trim()]))');

// The report's markup without the panel's marks (a changed value's class and its title, the value as written): the
// panel brings the page's report to the engine's node by node, so this must be the native report's markup exactly,
// charts included.
const report_markup = (page) => page.eval(`(() => {
  const r = document.getElementById('report').cloneNode(true);
  for (const e of r.querySelectorAll('[data-line]')) {
    e.classList.remove('changed');
    if (e.getAttribute('class') === '') e.removeAttribute('class');
    e.removeAttribute('title');
  }
  return r.outerHTML;
})()`);

async function check_report(browser, plan) {
  const report = join(scratch, 'report.html');
  native(['plan', plan, '--html', report, '--force']);
  const { page, load_ms } = await open(browser, report);
  console.log(`report ${plan}: loaded in ${load_ms.toFixed(0)} ms`);
  for (const problem of await colliding_labels(page, '#report')) fail(`report ${plan}: the ${problem}`);
  const controls = await page.eval('[...document.querySelectorAll("#what-if select, #what-if input")].map((c) => ({ id: c.id, tag: c.tagName, type: c.type }))');
  if (controls.length === 0) fail(`report ${plan}: the what-if panel has no controls`);
  const reached = new Set(await tab_order(page));
  const redraws = [], painted = [];
  const slowest = [];
  let moves = 0, refused = 0;
  // Each control moved once from the plan as written (an arrow key; Enter commits a typed field), then the panel's
  // reset: after each move the page must equal a report written natively with the same overrides, or, where the
  // native run fails, the panel must say the plan failed.
  const overrides_now = 'document.getElementById("what-if").dataset.overrides + "|" + document.getElementById("what-if").dataset.redrawMs';
  for (const c of controls) {
    if (!reached.has(c.id)) fail(`report ${plan}: control ${c.id} is not reached by Tab`);
    let before = await page.eval(overrides_now);
    await page.eval(`document.getElementById(${JSON.stringify(c.id)}).focus(), true`);
    const value = await page.eval(`document.getElementById(${JSON.stringify(c.id)}).value`);
    await forget_interactions(page);
    await page.press(c.tag === 'SELECT' ? 'ArrowDown' : 'ArrowUp');
    if (await page.eval(`document.getElementById(${JSON.stringify(c.id)}).value`) === value) continue;  // a text field
    if (c.tag === 'INPUT' && c.type !== 'range') await page.press('Enter');
    await page.wait_for(`(${overrides_now}) !== ${JSON.stringify(before)}`);
    const state = await page.eval('({ overrides: JSON.parse(document.getElementById("what-if").dataset.overrides), ms: Number(document.getElementById("what-if").dataset.redrawMs), engine_ms: Number(document.getElementById("what-if").dataset.engineMs), failed: document.getElementById("wi-status").className === "fail", status: document.getElementById("wi-status").textContent })');
    const paint_ms = await interaction_ms(page);
    redraws.push(state.ms);
    painted.push(paint_ms);
    ++moves;
    const sets = Object.entries(state.overrides).flatMap(([k, v]) => ['--set', `${k}=${v}`]);
    if (Number.isFinite(state.ms))
      slowest.push({ ms: state.ms, paint_ms, what: `${state.ms.toFixed(0)} ms after ${sets.filter((s) => s !== '--set').join(' ')} ` +
                                                  `(engine ${state.engine_ms.toFixed(0)} ms, painted after ${paint_ms.toFixed(0)} ms)` });
    const expected_file = join(scratch, 'expected.html');
    // The native page without its panel (INFRACALC_WEB_ENGINE empty): the values are the same, and it loads at once.
    const r = spawnSync(resolve(opts.infracalc), ['plan', plan, ...sets, '--html', expected_file, '--force'],
                        { env: { ...env, INFRACALC_WEB_ENGINE: '' }, encoding: 'utf8' });
    // Exit status 1 is a plan that ran and failed a check, or a sweep with a point that failed a step (the page shows
    // the first point, with the steps that failed there); 2 is a plan that did not run.
    if (r.status !== 0 && r.status !== 1) {
      ++refused;
      if (!state.failed) fail(`report ${plan}: ${sets.join(' ')} fails natively (${r.stderr.trim().split('\n').at(-1)}) and the panel says "${state.status}"`);
    } else {
      const shown = await lines_of(page);
      const expected_page = await browser.new_page();
      await expected_page.send('Page.enable');
      await expected_page.navigate(pathToFileURL(expected_file).href);
      const expected = await lines_of(expected_page);
      const failed_steps = await expected_page.eval('document.getElementById("failed-steps") !== null');
      if (state.failed !== failed_steps)
        fail(`report ${plan}: ${sets.join(' ')} ${failed_steps ? 'fails a step' : 'runs'} natively and the panel says "${state.status}"`);
      const [markup, expected_markup] = [await report_markup(page), await report_markup(expected_page)];
      if (markup !== expected_markup) {
        let at = 0;
        while (markup[at] === expected_markup[at]) ++at;
        fail(`report ${plan} ${sets.join(' ')}: the page's report differs from the native one at character ${at}: ` +
             `"…${markup.slice(Math.max(0, at - 60), at + 60)}" against "…${expected_markup.slice(Math.max(0, at - 60), at + 60)}"`);
      }
      await browser.send('Target.closeTarget', { targetId: (await expected_page.send('Target.getTargetInfo')).targetInfo.targetId });
      const ids = Object.keys(expected);
      if (ids.length === 0) fail(`report ${plan}: no value carries data-line`);
      for (const id of ids)
        if (expected[id] !== shown[id]) fail(`report ${plan} ${sets.join(' ')}: line ${id} shows "${shown[id]}", the native report "${expected[id]}"`);
      for (const problem of await colliding_labels(page, '#report')) fail(`report ${plan} ${sets.join(' ')}: the ${problem}`);
    }
    before = await page.eval(overrides_now);
    await page.eval('document.getElementById("wi-reset").click(), true');
    await page.wait_for(`(${overrides_now}) !== ${JSON.stringify(before)}`);
    // The reset's frame painted before the next key, as a person's next move would find it.
    await page.eval('new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done(true))))');
  }
  check_quiet(page, `report ${plan}`);
  const ok = redraws.filter(Number.isFinite);
  console.log(`report ${plan}: ${controls.length} controls, ${moves} moves checked (${refused} of them refused); re-run ${spread(ok)}; from key press to painted frame ${spread(painted)}: ` +
              worst(slowest));
}

const browser = await Browser.launch(opts.chromium);
try {
  await check_site(browser);
  for (const plan of opts.plans) await check_report(browser, plan);
} catch (e) {
  fail(e.stack ?? String(e));
} finally {
  await browser.close();
  rmSync(scratch, { recursive: true, force: true });
}
if (failures > 0) {
  console.error(`browser_test: ${failures} failures`);
  process.exit(1);
}
console.log('browser_test: all checks passed');
