// A headless Chromium driven through the DevTools protocol over a pipe (--remote-debugging-pipe: the browser reads
// commands on its fd 3 and writes replies and events on its fd 4, each message JSON ended by a NUL byte). No npm
// package and no port: nothing on the machine can reach the browser but this process.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/// Flags for a browser that reaches no network: every host name resolves nowhere and every proxy is refused, so a
/// page that tries to fetch anything off the machine fails the test's request log instead of loading it.
const OFFLINE_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run',
  '--no-default-browser-check', '--disable-quic', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--disable-extensions', '--mute-audio', '--host-resolver-rules=MAP * ~NOTFOUND',
  '--proxy-server=127.0.0.1:9', '--allow-file-access-from-files', '--hide-scrollbars'];

/// One browser process and its protocol connection.
export class Browser {
  /// Starts `binary` headless with a throw-away profile and the given window size.
  static async launch(binary, { width = 1280, height = 900 } = {}) {
    const profile = mkdtempSync(join(tmpdir(), 'infracalc-chromium-'));
    const child = spawn(binary, [...OFFLINE_FLAGS, `--user-data-dir=${profile}`, `--window-size=${width},${height}`,
      '--remote-debugging-pipe', 'about:blank'], { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'], detached: true });
    const browser = new Browser(child, profile);
    await browser.send('Target.setDiscoverTargets', { discover: true });
    return browser;
  }

  constructor(child, profile) {
    this.child = child;
    this.profile = profile;
    this.next_id = 1;
    this.pending = new Map();
    this.listeners = [];
    this.stderr = '';
    child.stderr.on('data', (d) => { this.stderr = (this.stderr + d).slice(-4000); });
    let buffered = Buffer.alloc(0);
    child.stdio[4].on('data', (chunk) => {
      buffered = Buffer.concat([buffered, chunk]);
      for (let end; (end = buffered.indexOf(0)) >= 0; buffered = buffered.subarray(end + 1))
        this.dispatch(JSON.parse(buffered.subarray(0, end).toString('utf8')));
    });
    this.exited = new Promise((resolve) => child.on('exit', resolve));
    this.exited.then(() => {
      for (const { reject } of this.pending.values()) reject(new Error(`the browser exited: ${this.stderr}`));
    });
  }

  dispatch(message) {
    if (message.id !== undefined) {
      const waiting = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (!waiting) return;
      if (message.error) waiting.reject(new Error(`${waiting.method}: ${message.error.message}`));
      else waiting.resolve(message.result);
      return;
    }
    for (const listener of this.listeners) listener(message);
  }

  /// Sends one protocol command (to a page when `session` names one) and resolves with its result.
  send(method, params = {}, session = undefined) {
    const id = this.next_id++;
    const message = { id, method, params };
    if (session) message.sessionId = session;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, method });
      this.child.stdio[3].write(JSON.stringify(message) + '\0');
    });
  }

  /// Calls `listener(message)` for every event.
  on_event(listener) { this.listeners.push(listener); }

  /// Opens a page at about:blank and attaches to it; returns a Page.
  async new_page() {
    const { targetId } = await this.send('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = await this.send('Target.attachToTarget', { targetId, flatten: true });
    return new Page(this, sessionId);
  }

  /// Ends the browser and removes its profile.
  async close() {
    try { await Promise.race([this.send('Browser.close'), new Promise((r) => setTimeout(r, 2000))]); } catch { /* gone */ }
    // The browser runs in a process group of its own (detached): its renderer and utility processes end with it.
    try { process.kill(-this.child.pid, 'SIGKILL'); } catch { /* already gone */ }
    await this.exited;
    rmSync(this.profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}

/// One page (a target with its own session): evaluation, keys, events.
export class Page {
  constructor(browser, session) {
    this.browser = browser;
    this.session = session;
    this.console = [];   // {level, text} of every console message, exception and log entry
    this.requests = [];  // every URL the page asked for
    browser.on_event((m) => {
      if (m.sessionId !== session) return;
      if (m.method === 'Runtime.consoleAPICalled')
        this.console.push({ level: m.params.type, text: m.params.args.map((a) => a.value ?? a.description ?? '').join(' ') });
      else if (m.method === 'Runtime.exceptionThrown')
        this.console.push({ level: 'exception', text: m.params.exceptionDetails.exception?.description ?? m.params.exceptionDetails.text });
      else if (m.method === 'Log.entryAdded')
        this.console.push({ level: m.params.entry.level, text: `${m.params.entry.text} ${m.params.entry.url ?? ''}` });
      else if (m.method === 'Network.requestWillBeSent') this.requests.push(m.params.request.url);
    });
  }

  send(method, params = {}) { return this.browser.send(method, params, this.session); }

  /// Turns on the events the checks read.
  async enable() {
    for (const domain of ['Runtime', 'Log', 'Network', 'Page']) await this.send(`${domain}.enable`);
  }

  /// Evaluates `expression` in the page (awaiting a promise) and returns its value as JSON.
  async eval(expression) {
    const r = await this.send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true });
    if (r.exceptionDetails) throw new Error(`in the page: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
    return r.result.value;
  }

  /// Polls `expression` until it is truthy; throws after `timeout_ms`.
  async wait_for(expression, timeout_ms = 10000) {
    const until = Date.now() + timeout_ms;
    for (;;) {
      const v = await this.eval(expression);
      if (v) return v;
      if (Date.now() > until) throw new Error(`timed out waiting for ${expression}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  /// Presses one key (a DOM key name such as 'Tab', 'ArrowRight', 'ArrowDown', 'End') on the focused element.
  async press(key, modifiers = 0) {
    const codes = { Tab: 9, ArrowLeft: 37, ArrowUp: 38, ArrowRight: 39, ArrowDown: 40, Home: 36, End: 35, Enter: 13 };
    const common = { key, code: key, windowsVirtualKeyCode: codes[key], nativeVirtualKeyCode: codes[key], modifiers };
    await this.send('Input.dispatchKeyEvent', { type: 'rawKeyDown', ...common });
    await this.send('Input.dispatchKeyEvent', { type: 'keyUp', ...common });
  }

  /// Loads `url` and resolves when the load event has fired (the Page domain must be enabled); throws after
  /// `timeout_ms`.
  async navigate(url, timeout_ms = 30000) {
    let timer;
    const loaded = new Promise((resolve, reject) => {
      const listener = (m) => { if (m.sessionId === this.session && m.method === 'Page.loadEventFired') resolve(); };
      this.browser.on_event(listener);
      timer = setTimeout(() => reject(new Error(`${url}: no load event in ${timeout_ms} ms`)), timeout_ms);
    });
    const r = await this.send('Page.navigate', { url });
    if (r.errorText) throw new Error(`${url}: ${r.errorText}`);
    await loaded.finally(() => clearTimeout(timer));
  }

  /// A PNG of the whole page, `width` CSS pixels wide.
  async screenshot(width) {
    const height = await this.eval('Math.ceil(document.documentElement.scrollHeight)');
    await this.send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile: false });
    const { data } = await this.send('Page.captureScreenshot', { format: 'png', captureBeyondViewport: true });
    return Buffer.from(data, 'base64');
  }
}
