// Real-Chromium harness for the Typst Side Agent extension.
//
// - launches Debian Chromium (never a downloaded browser) with the extension loaded,
//   in a fresh temporary profile each time;
// - answers every request of the browser context itself (`context.route`, which
//   also sees the extension service worker's fetch()): the typst.app stand-in, a
//   blank non-Typst site, scripted model endpoints; everything else is aborted and
//   recorded;
// - talks to the extension the way its own pages do (`chrome.runtime.sendMessage`
//   from an extension page, the "control page");
// - stops the service worker through CDP and waits for its target to go away;
// - opens the REAL side panel (`chrome.sidePanel.open` with a user gesture) and
//   drives it through a raw CDP session on its target;
// - extracts the packaged ZIP (STORED and DEFLATE entries) for the packaged run.
//
// See tests/README.md for how each CDP helper works in this Chromium.

import { chromium } from 'playwright-core';
import { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBundles, bundlePath } from '../fixtures/build-bundles.mjs';
import { extractZip } from './zip.mjs';

export const TESTS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const REPO_ROOT = resolve(TESTS_DIR, '..');
export const FIXTURES_DIR = join(TESTS_DIR, 'fixtures');

export const CHROMIUM_PATH = process.env.TSA_CHROMIUM_PATH || '/usr/lib/chromium/chromium';
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const TYPST_ORIGIN = 'https://typst.app';
export const FIXTURE_ASSET_PREFIX = `${TYPST_ORIGIN}/__fixture/`;
export const NON_TYPST_URL = 'https://example.test/';
export const STRICT_CSP = "script-src 'self'";
export const MAIN_WORLD_SCRIPT_ID = 'typst-side-agent-main';

/** Unpacked extension folder under test. */
export function unpackedExtensionDir() {
  return resolve(process.env.TSA_EXTENSION_DIR || join(REPO_ROOT, 'target', 'extension'));
}

/** Packaged ZIP under test. */
export function packageZipPath() {
  return resolve(process.env.TSA_PACKAGE_ZIP || join(REPO_ROOT, 'target', 'typst-side-agent.zip'));
}

/**
 * The two builds every suite runs against. `skip` is false or a reason (only the
 * ZIP variant is ever skipped: when the ZIP file does not exist). `prepare()`
 * returns {dir, cleanup}.
 */
export function extensionBuilds() {
  const unpacked = unpackedExtensionDir();
  const zip = packageZipPath();
  return [
    {
      label: 'unpacked build',
      skip: false,
      async prepare() {
        if (!existsSync(join(unpacked, 'manifest.json'))) {
          throw new Error(`No extension build at ${unpacked} (manifest.json missing). ` +
            'Run `cargo xtask build` first or set TSA_EXTENSION_DIR.');
        }
        if (process.env.TSA_LOAD_IN_PLACE === '1') return { dir: unpacked, cleanup: async () => {} };
        // Load a snapshot: the build folder may be rewritten by a concurrent
        // `cargo xtask build` while a suite runs, which would break wasm loads mid-test.
        const temporary = await mkdtemp(join(tmpdir(), 'tsa-unpacked-'));
        const dir = join(temporary, 'extension');
        await cp(unpacked, dir, { recursive: true });
        return { dir, cleanup: () => rm(temporary, { recursive: true, force: true }) };
      },
    },
    {
      label: 'packaged ZIP',
      skip: existsSync(zip) ? false
        : `packaged ZIP not found at ${zip} (run \`cargo xtask package\` or set TSA_PACKAGE_ZIP)`,
      async prepare() {
        const temporary = await mkdtemp(join(tmpdir(), 'tsa-zip-'));
        const dir = join(temporary, 'extension');
        await extractZip(await readFile(zip), dir);
        return { dir, cleanup: () => rm(temporary, { recursive: true, force: true }) };
      },
    },
  ];
}

export const sleep = ms => new Promise(resolveSleep => { setTimeout(resolveSleep, ms); });

/**
 * Polls `fn` until it returns a truthy value (returned) or the timeout passes
 * (throws, quoting the last value or error). Never used to assert durations.
 */
export async function poll(fn, { timeout = 30_000, interval = 100, message = 'condition' } = {}) {
  const deadline = Date.now() + timeout;
  let last;
  let lastError;
  for (;;) {
    try {
      last = await fn();
      lastError = undefined;
      if (last) return last;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const detail = lastError ? `last error: ${lastError.message}` : `last value: ${safeJson(last)}`;
      throw new Error(`Timed out after ${timeout} ms waiting for ${message} (${detail})`);
    }
    await sleep(interval);
  }
}

function safeJson(value) {
  try { return JSON.stringify(value); } catch { return String(value); }
}

function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
    }),
  ]);
}

/**
 * A CDP session on a target that Playwright does not attach to (the side panel).
 *
 * Playwright's CDPSession cannot address flattened child sessions, so this uses
 * the non-flattened mode: `Target.attachToTarget {flatten:false}` on a parent
 * session, then `Target.sendMessageToTarget` / `Target.receivedMessageFromTarget`.
 * Chromium 156 still supports it.
 */
export class RawTargetSession extends EventEmitter {
  static async attach(parent, targetId) {
    const { sessionId } = await parent.send('Target.attachToTarget', { targetId, flatten: false });
    return new RawTargetSession(parent, targetId, sessionId);
  }

  #parent;
  #pending = new Map();
  #nextId = 1;
  #onMessage;
  #onDetached;

  constructor(parent, targetId, sessionId) {
    super();
    this.#parent = parent;
    this.targetId = targetId;
    this.sessionId = sessionId;
    this.detached = false;
    this.#onMessage = event => {
      if (event.sessionId !== sessionId) return;
      let message;
      try { message = JSON.parse(event.message); } catch { return; }
      if (message.id !== undefined && this.#pending.has(message.id)) {
        const { resolve: ok, reject, method } = this.#pending.get(message.id);
        this.#pending.delete(message.id);
        if (message.error) reject(new Error(`${method}: ${message.error.message}`));
        else ok(message.result);
      } else if (message.method) {
        this.emit(message.method, message.params);
        this.emit('event', message);
      }
    };
    this.#onDetached = event => {
      if (event.sessionId !== sessionId) return;
      this.#markDetached('target detached');
    };
    parent.on('Target.receivedMessageFromTarget', this.#onMessage);
    parent.on('Target.detachedFromTarget', this.#onDetached);
  }

  #markDetached(reason) {
    if (this.detached) return;
    this.detached = true;
    this.#parent.off('Target.receivedMessageFromTarget', this.#onMessage);
    this.#parent.off('Target.detachedFromTarget', this.#onDetached);
    for (const { reject, method } of this.#pending.values()) reject(new Error(`${method}: ${reason}`));
    this.#pending.clear();
    this.emit('detached', reason);
  }

  send(method, params = {}) {
    if (this.detached) return Promise.reject(new Error(`${method}: session is detached`));
    const id = this.#nextId++;
    return new Promise((ok, reject) => {
      this.#pending.set(id, { resolve: ok, reject, method });
      this.#parent.send('Target.sendMessageToTarget', {
        sessionId: this.sessionId,
        message: JSON.stringify({ id, method, params }),
      }).catch(error => {
        this.#pending.delete(id);
        reject(error);
      });
    });
  }

  /**
   * Evaluates `fn(arg)` (a function, serialised with its source) or an expression
   * string in the target's main context, awaiting promises, returning by value.
   */
  async evaluate(fn, arg, { userGesture = false } = {}) {
    const expression = typeof fn === 'function' ? `(${fn.toString()})(${arg === undefined ? '' : JSON.stringify(arg)})` : fn;
    const result = await this.send('Runtime.evaluate', {
      expression,
      awaitPromise: true,
      returnByValue: true,
      userGesture,
    });
    if (result.exceptionDetails) {
      const details = result.exceptionDetails;
      const text = details.exception?.description || details.exception?.value || details.text;
      throw new Error(`evaluate failed: ${text}`);
    }
    return result.result?.value;
  }

  async detach() {
    if (this.detached) return;
    try {
      await this.#parent.send('Target.detachFromTarget', { sessionId: this.sessionId });
    } catch {
      // already gone
    }
    this.#markDetached('detached by harness');
  }
}

/** The real side panel, driven through a RawTargetSession. */
export class SidePanel {
  constructor(harness, session, target) {
    this.harness = harness;
    this.session = session;
    this.targetId = target.targetId;
    this.url = target.url;
  }

  evaluate(fn, arg) {
    return this.session.evaluate(fn, arg);
  }

  /** Polls `fn(arg)` inside the panel until truthy; returns that value. */
  waitFor(fn, arg, { timeout = 30_000, interval = 100, message } = {}) {
    return poll(() => this.evaluate(fn, arg), {
      timeout, interval, message: message ?? `side panel: ${fn.toString().slice(0, 120)}`,
    });
  }

  /** Waits until the Rust panel has rendered (html[data-panel-ready="true"]). */
  waitForReady(options = {}) {
    return this.waitFor(() => document.documentElement.dataset.panelReady === 'true', undefined,
      { message: 'html[data-panel-ready="true"] in the side panel', ...options });
  }

  /** Reloads the panel document in place (same target, same session). */
  async reload() {
    await this.session.send('Page.enable').catch(() => {});
    await this.session.send('Page.reload', { ignoreCache: true });
    await poll(async () => {
      const state = await this.evaluate(() => ({ ready: document.readyState, url: location.href }));
      return state.ready === 'complete' && state.url.startsWith(this.harness.sidePanelUrl);
    }, { message: 'side panel reload' });
  }

  /** Closes the panel target and waits until it is gone. */
  async close() {
    await this.session.detach();
    try {
      await this.harness.browserSession.send('Target.closeTarget', { targetId: this.targetId });
    } catch {
      // already closed
    }
    await poll(async () => !(await this.harness.targets()).some(t => t.targetId === this.targetId),
      { message: 'side panel target to close' });
  }
}

export class Harness {
  /**
   * Launches Chromium with the extension in `extensionDir`.
   * @param {string} extensionDir unpacked extension folder
   * @param {object} [options]
   * @param {string} [options.label] used in error reports
   */
  static async launch(extensionDir, { label = 'extension' } = {}) {
    const manifest = JSON.parse(await readFile(join(extensionDir, 'manifest.json'), 'utf8'));
    await ensureBundles();
    const userDataDir = await mkdtemp(join(tmpdir(), 'tsa-profile-'));
    let context;
    try {
      context = await chromium.launchPersistentContext(userDataDir, {
        executablePath: CHROMIUM_PATH,
        headless: true,
        serviceWorkers: 'allow',
        viewport: { width: 1280, height: 800 },
        args: [
          `--disable-extensions-except=${extensionDir}`,
          `--load-extension=${extensionDir}`,
          ...CHROMIUM_ARGS,
        ],
      });
    } catch (error) {
      await rm(userDataDir, { recursive: true, force: true });
      throw error;
    }
    const harness = new Harness(context, { extensionDir, manifest, userDataDir, label });
    try {
      await harness.#init();
    } catch (error) {
      await harness.close();
      throw error;
    }
    return harness;
  }

  #routes = [];
  #requestCounter = 0;
  #projectCounter = 0;
  #projects = new Map();
  #watchedWorkers = new WeakSet();

  constructor(context, { extensionDir, manifest, userDataDir, label }) {
    this.context = context;
    this.extensionDir = extensionDir;
    this.manifest = manifest;
    this.userDataDir = userDataDir;
    this.label = label;
    /** Uncaught errors and console errors of watched pages and the side panel. */
    this.errors = [];
    /** Console errors of the service worker (reported, not failed on). */
    this.workerConsoleErrors = [];
    /** Requests no route handled; they were aborted. */
    this.unexpectedRequests = [];
    this.extensionId = null;
    this.browserSession = null;
    this.control = null;
    this.controlSession = null;
  }

  get serviceWorkerPath() {
    return String(this.manifest.background?.service_worker ?? '').replace(/^\/+/, '');
  }

  get sidePanelPath() {
    return String(this.manifest.side_panel?.default_path ?? 'src/sidepanel/index.html').replace(/^\/+/, '');
  }

  get extensionOrigin() {
    return `chrome-extension://${this.extensionId}`;
  }

  get serviceWorkerUrl() {
    return `${this.extensionOrigin}/${this.serviceWorkerPath}`;
  }

  get sidePanelUrl() {
    return `${this.extensionOrigin}/${this.sidePanelPath}`;
  }

  async #init() {
    this.context.setDefaultTimeout(30_000);
    await this.context.route('**/*', route => this.#dispatch(route));
    this.#installFixtureSite();

    const isOurWorker = worker => {
      try {
        const url = new URL(worker.url());
        return url.protocol === 'chrome-extension:' && url.pathname === `/${this.serviceWorkerPath}`;
      } catch {
        return false;
      }
    };
    const worker = this.context.serviceWorkers().find(isOurWorker) ||
      await this.context.waitForEvent('serviceworker', { predicate: isOurWorker, timeout: 30_000 });
    this.extensionId = new URL(worker.url()).host;
    for (const existing of this.context.serviceWorkers()) this.#watchWorker(existing);
    this.context.on('serviceworker', w => this.#watchWorker(w));

    const browser = this.context.browser();
    // Playwright 1.65 returns the Browser of a persistent context, so a
    // browser-level CDP session is available. Older versions returned null; then a
    // page session still lists every target (Target.getTargets) and can close them.
    this.control = this.context.pages()[0] || await this.context.newPage();
    this.watchPage(this.control, 'control page');
    await this.control.goto(`${this.extensionOrigin}/manifest.json`);
    this.controlSession = await this.context.newCDPSession(this.control);
    this.browserSession = browser ? await browser.newBrowserCDPSession() : this.controlSession;
    await poll(() => this.control.evaluate(() => typeof chrome?.runtime?.sendMessage === 'function'),
      { message: 'chrome.runtime in the control page' });
  }

  #watchWorker(worker) {
    if (this.#watchedWorkers.has(worker)) return;
    this.#watchedWorkers.add(worker);
    worker.on('console', message => {
      if (message.type() === 'error') {
        this.workerConsoleErrors.push({ url: worker.url(), text: message.text() });
      }
    });
  }

  /** Records uncaught errors and console errors of a Playwright page. */
  watchPage(page, label) {
    page.on('pageerror', error => {
      this.errors.push({ source: label, kind: 'pageerror', text: error.stack || error.message });
    });
    page.on('console', message => {
      if (message.type() === 'error') {
        const location = message.location();
        this.errors.push({
          source: label, kind: 'console.error', text: message.text(),
          at: location?.url ? `${location.url}:${location.lineNumber}` : undefined,
        });
      }
    });
    return page;
  }

  /** Human-readable list of recorded errors (empty string when none). */
  describeErrors() {
    return this.errors.map(e => `[${e.source}] ${e.kind}: ${e.text}${e.at ? ` (${e.at})` : ''}`).join('\n');
  }

  // ---------------------------------------------------------------- routing

  /**
   * Adds a route handler in front of the built-in ones. `match(url, request)`
   * decides, `handle(route)` answers. Returns a function that removes it.
   */
  addRoute(match, handle) {
    const entry = { match, handle };
    this.#routes.unshift(entry);
    return () => {
      const index = this.#routes.indexOf(entry);
      if (index >= 0) this.#routes.splice(index, 1);
    };
  }

  /**
   * Lets requests to one loopback origin a test started a server on (a
   * tool server of tests/tool-servers) reach the real network:
   * `route.continue()` for exactly `http://127.0.0.1:<port>` or
   * `http://localhost:<port>`; every other request stays routed or aborted.
   * Returns a function that removes the pass-through.
   */
  passThrough(serverUrl) {
    const { origin, hostname, protocol } = new URL(serverUrl);
    if (protocol !== 'http:' || !['127.0.0.1', 'localhost'].includes(hostname)) {
      throw new Error(`passThrough is for loopback servers a test started, not ${origin}`);
    }
    return this.addRoute(url => {
      try {
        return new URL(url).origin === origin;
      } catch {
        return false;
      }
    }, route => route.continue());
  }

  /** Routes a ModelEndpoint (fixtures/model-endpoint.mjs) through this context. */
  useModelEndpoint(endpoint) {
    return this.addRoute(url => endpoint.matches(url), route => endpoint.handle(route));
  }

  async #dispatch(route) {
    const request = route.request();
    const url = request.url();
    try {
      for (const entry of this.#routes) {
        if (entry.match(url, request)) {
          await entry.handle(route);
          return;
        }
      }
      if (/^(chrome-extension|data|blob):/.test(url)) {
        await route.continue();
        return;
      }
      this.unexpectedRequests.push({ url, method: request.method(), resourceType: request.resourceType() });
      await route.abort('blockedbyclient');
    } catch (error) {
      // A route can be torn down while a page closes; record, never throw into Playwright.
      if (!/closed|Target page|has been closed/i.test(error.message)) {
        this.unexpectedRequests.push({ url, method: request.method(), error: error.message });
      }
    }
  }

  #installFixtureSite() {
    const assets = new Map([
      ['typst-page.css', { file: join(FIXTURES_DIR, 'site', 'typst-page.css'), type: 'text/css; charset=utf-8' }],
      ['boot.js', { file: join(FIXTURES_DIR, 'site', 'boot.js'), type: 'text/javascript; charset=utf-8' }],
      ['cm-latest.js', { file: bundlePath('latest'), type: 'text/javascript; charset=utf-8' }],
      ['cm-6.38.js', { file: bundlePath('6.38'), type: 'text/javascript; charset=utf-8' }],
    ]);
    // typst.app stand-in: /project/<id> pages and /__fixture/ assets.
    this.#routes.push({
      match: url => url.startsWith(`${TYPST_ORIGIN}/`),
      handle: async route => {
        const url = new URL(route.request().url());
        const headers = { 'cache-control': 'no-store' };
        if (url.pathname.startsWith('/__fixture/')) {
          const asset = assets.get(url.pathname.slice('/__fixture/'.length));
          if (asset) {
            await route.fulfill({ status: 200, headers: { ...headers, 'content-type': asset.type }, body: await readFile(asset.file) });
            return;
          }
        }
        const project = url.pathname.match(/^\/project\/([A-Za-z0-9_-]+)\/?$/);
        if (project) {
          const options = this.#projects.get(project[1]) ?? { csp: false };
          if (options.csp) headers['content-security-policy'] = STRICT_CSP;
          await route.fulfill({
            status: 200,
            headers: { ...headers, 'content-type': 'text/html; charset=utf-8' },
            body: await readFile(join(FIXTURES_DIR, 'typst-page.html')),
          });
          return;
        }
        this.unexpectedRequests.push({ url: url.href, method: route.request().method(), resourceType: route.request().resourceType() });
        await route.abort('blockedbyclient');
      },
    });
    // A site that is not Typst, to switch the active tab to.
    this.#routes.push({
      match: url => url.startsWith('https://example.test/'),
      handle: route => route.fulfill({
        status: 200,
        contentType: 'text/html; charset=utf-8',
        body: '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Example (not Typst)</title>' +
          '<link rel="icon" href="data:,"></head><body><p>Not a Typst page.</p></body></html>',
      }),
    });
  }

  // ---------------------------------------------------------------- tabs

  /**
   * URL of a fixture project page. `cm` is '6.38' or 'latest'; `csp` adds the
   * header `Content-Security-Policy: script-src 'self'` to the page response.
   */
  fixtureUrl({ cm = 'latest', csp = false, project } = {}) {
    const id = project ?? `fx${++this.#projectCounter}-${cm === '6.38' ? 'cm638' : 'cmlatest'}-${csp ? 'csp' : 'plain'}`;
    this.#projects.set(id, { csp });
    const query = cm === '6.38' ? '?cm=6.38' : '';
    return `${TYPST_ORIGIN}/project/${id}${query}`;
  }

  /** Opens a fixture tab and waits for its editor. Returns {page, url, tabId}. */
  async openFixtureTab(options = {}) {
    const url = this.fixtureUrl(options);
    const page = this.watchPage(await this.context.newPage(), `fixture ${new URL(url).pathname}${new URL(url).search}`);
    await page.goto(url);
    await page.waitForSelector('html[data-fixture-ready="true"]', { state: 'attached' });
    const tabId = await this.tabIdFor(url);
    return { page, url, tabId };
  }

  /** Opens a tab on a non-Typst site (https://example.test/). */
  async openNonTypstTab(url = NON_TYPST_URL) {
    const page = this.watchPage(await this.context.newPage(), `non-typst ${url}`);
    await page.goto(url);
    const tabId = await this.tabIdFor(url);
    return { page, url, tabId };
  }

  /** chrome.tabs id of the tab showing `url` (polled; needs the "tabs" permission). */
  tabIdFor(url) {
    return poll(() => this.control.evaluate(async wanted => {
      const tabs = await chrome.tabs.query({});
      return tabs.find(tab => tab.url === wanted)?.id ?? null;
    }, url), { message: `a chrome.tabs entry for ${url}` });
  }

  /** Makes a tab the active one of its window (fires tabs.onActivated). */
  async activateTab(tabId) {
    await this.control.evaluate(id => chrome.tabs.update(id, { active: true }), tabId);
    await poll(() => this.control.evaluate(async id => (await chrome.tabs.get(id)).active, tabId),
      { message: `tab ${tabId} to become active` });
  }

  async tabInfo(tabId) {
    return this.control.evaluate(id => chrome.tabs.get(id), tabId);
  }

  // ---------------------------------------------------------------- messaging

  nextRequestId(prefix = 'harness') {
    this.#requestCounter += 1;
    return `${prefix}-${this.#requestCounter}`;
  }

  /**
   * Sends an envelope {type, requestId, payload[, runId]} to the worker from the
   * control page (an extension page) and resolves with the response envelope.
   */
  send(type, payload = {}, { requestId = this.nextRequestId(), runId } = {}) {
    const envelope = { type, requestId, payload };
    if (runId !== undefined) envelope.runId = runId;
    return this.control.evaluate(message => chrome.runtime.sendMessage(message), envelope);
  }

  /** Like send(), but returns `payload.data` and throws on `ok:false`. */
  async request(type, payload = {}, options = {}) {
    const response = await this.send(type, payload, options);
    if (!response || response.type !== 'PROTOCOL_RESPONSE' || response.payload?.ok !== true) {
      throw new Error(`${type} failed: ${safeJson(response)}`);
    }
    return response.payload.data;
  }

  // ---------------------------------------------------------------- worker

  /** All CDP targets (browser-wide). */
  async targets() {
    const { targetInfos } = await this.browserSession.send('Target.getTargets');
    return targetInfos;
  }

  /** Running service-worker targets of this extension. */
  async serviceWorkerTargets() {
    return (await this.targets()).filter(t => t.type === 'service_worker' && t.url.startsWith(`${this.extensionOrigin}/`));
  }

  /**
   * Stops the extension's service worker: `Target.closeTarget` on each of its
   * service_worker targets (browser session), then polls `Target.getTargets`
   * until none is left. Falls back to `ServiceWorker.stopAllWorkers` on the control
   * page's session (extension origin) if closing a target is refused.
   */
  async stopWorker({ timeout = 30_000 } = {}) {
    const running = await this.serviceWorkerTargets();
    let method = 'none (already stopped)';
    for (const target of running) {
      try {
        await this.browserSession.send('Target.closeTarget', { targetId: target.targetId });
        method = 'Target.closeTarget';
      } catch {
        await this.controlSession.send('ServiceWorker.enable');
        await this.controlSession.send('ServiceWorker.stopAllWorkers');
        method = 'ServiceWorker.stopAllWorkers';
      }
    }
    let polls = 0;
    await poll(async () => {
      polls += 1;
      return (await this.serviceWorkerTargets()).length === 0;
    }, { timeout, interval: 50, message: 'the service worker target to disappear' });
    return { method, stoppedTargets: running.map(t => t.targetId), polls };
  }

  /** Starts the worker if it is not running, by sending it a message. */
  async wakeWorker() {
    if ((await this.serviceWorkerTargets()).length) return false;
    await this.send('HARNESS_WAKE').catch(() => {});
    await poll(async () => (await this.serviceWorkerTargets()).length > 0, { message: 'the service worker to start' });
    return true;
  }

  /**
   * A Playwright Worker handle on the running service worker (woken first if
   * needed). In this Playwright the same handle keeps working across worker
   * restarts; it is re-checked by evaluating chrome.runtime.id.
   */
  async worker() {
    await this.wakeWorker();
    return poll(async () => {
      const candidates = this.context.serviceWorkers()
        .filter(w => w.url() === this.serviceWorkerUrl)
        .reverse();
      for (const candidate of candidates) {
        try {
          const id = await withTimeout(candidate.evaluate(() => chrome.runtime.id), 5_000, 'worker evaluate');
          if (id === this.extensionId) return candidate;
        } catch {
          // stale handle; try the next one
        }
      }
      return null;
    }, { message: 'a live service worker handle' });
  }

  /** chrome.tabs.sendMessage(tabId, envelope) from the service worker context. */
  async sendToTab(tabId, envelope) {
    const worker = await this.worker();
    return worker.evaluate(([id, message]) => chrome.tabs.sendMessage(id, message), [tabId, envelope]);
  }

  // ---------------------------------------------------------------- side panel

  /**
   * Opens the real side panel and attaches to it.
   *
   * `chrome.sidePanel.open()` needs a user gesture. In Chromium 156 a gesture given
   * to the service worker (`Runtime.evaluate {userGesture:true}` on its target)
   * is NOT honoured ("may only be called in response to a user gesture"), but the
   * same call on an extension *page* is: the control page evaluates it through
   * its CDP session with `userGesture: true`. The panel document then appears as a
   * `page` target with the panel URL which Playwright does not auto-attach (it is
   * not in context.pages()), so it is driven through a RawTargetSession.
   */
  async openSidePanel({ tabId, windowId } = {}) {
    const options = windowId !== undefined ? { windowId } : { tabId };
    if (options.tabId === undefined && options.windowId === undefined) {
      throw new Error('openSidePanel needs a tabId or windowId');
    }
    const before = new Set((await this.targets()).map(t => t.targetId));
    const { result, exceptionDetails } = await this.controlSession.send('Runtime.evaluate', {
      expression: `chrome.sidePanel.open(${JSON.stringify(options)}).then(() => 'opened', e => 'error: ' + e.message)`,
      userGesture: true,
      awaitPromise: true,
      returnByValue: true,
    });
    if (exceptionDetails || result?.value !== 'opened') {
      throw new Error(`chrome.sidePanel.open failed: ${result?.value ?? exceptionDetails?.text}`);
    }
    return this.attachSidePanel({ before });
  }

  /** The side panel documents open now (their target ids). */
  async sidePanelTargets() {
    return (await this.targets()).filter(t => t.type === 'page' && t.url.startsWith(this.sidePanelUrl))
      .map(t => t.targetId);
  }

  /**
   * Attaches to a side panel that something else opened (the extension itself,
   * say): waits for a panel target, preferring one not in `before` (target ids;
   * with `onlyNew`, only such a one), and returns it as a SidePanel whose errors
   * are collected like the others.
   */
  async attachSidePanel({ before = new Set(), onlyNew = false, timeout = 30_000 } = {}) {
    const target = await poll(async () => (await this.targets()).find(t =>
      t.type === 'page' && t.url.startsWith(this.sidePanelUrl) && !before.has(t.targetId)) ??
      (onlyNew ? null : (await this.targets()).find(t => t.type === 'page' && t.url.startsWith(this.sidePanelUrl))),
    { timeout, message: `a side panel target at ${this.sidePanelUrl}` });
    const session = await RawTargetSession.attach(this.browserSession, target.targetId);
    const label = 'side panel';
    session.on('Runtime.exceptionThrown', ({ exceptionDetails: details }) => {
      this.errors.push({
        source: label, kind: 'uncaught exception',
        text: details.exception?.description || details.text,
        at: details.url ? `${details.url}:${details.lineNumber}` : undefined,
      });
    });
    session.on('Runtime.consoleAPICalled', ({ type, args }) => {
      if (type === 'error' || type === 'assert') {
        this.errors.push({ source: label, kind: `console.${type}`, text: args.map(a => a.value ?? a.description ?? '').join(' ') });
      }
    });
    session.on('Log.entryAdded', ({ entry }) => {
      if (entry.level === 'error') {
        this.errors.push({ source: label, kind: `log.${entry.source}`, text: entry.text, at: entry.url });
      }
    });
    // Runtime.enable / Log.enable replay what was logged before we attached.
    await session.send('Runtime.enable');
    await session.send('Log.enable');
    const panel = new SidePanel(this, session, target);
    await poll(async () => (await panel.evaluate(() => document.readyState)) !== 'loading',
      { message: 'the side panel document to load' });
    return panel;
  }

  // ---------------------------------------------------------------- teardown

  async close() {
    try {
      await this.context?.close();
    } catch {
      // browser already gone
    }
    await rm(this.userDataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  }
}
