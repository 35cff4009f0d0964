// Chat helpers for the real side panel, shared by the panel chat suite and
// `cargo xtask bench` (tests/bench/bench.mjs): a fixture model, the panel beside
// a fixture tab, sending through the composer, and the render-cost measurement
// of a long streamed answer. Everything goes through the panel's real message
// path; nothing in the shipped extension exists for these helpers.

import { step } from '../fixtures/model-endpoint.mjs';

/** Saves one fixture model as the active model (the worker's settings API). */
export async function useFixtureModel(h, endpoint) {
  const model = {
    id: 'fixture-model',
    name: 'Fixture model',
    apiBaseUrl: endpoint.baseUrl,
    apiKey: 'sk-fixture',
    modelId: 'fixture-chat',
    supportsVision: false,
    reasoningEffort: 'default',
  };
  await h.request('SAVE_SETTINGS', {
    settings: { models: [model], activeModelId: model.id },
    fields: ['models', 'activeModelId'],
  });
}

/**
 * Waits until the composer accepts input: the readiness every build of the
 * panel shares (the bench also drives the JavaScript original, which has no
 * `data-panel-ready` mark).
 */
export function composerReady(panel) {
  return panel.waitFor(() => {
    const input = document.getElementById('user-input');
    return !!input && !input.disabled;
  }, undefined, { message: 'the composer (#user-input) to be enabled' });
}

/**
 * Opens a fixture tab and the real panel beside it; waits for the chat.
 * `ready` says when the panel counts as ready (default: this panel's own
 * `data-panel-ready` mark); the other options go to `openFixtureTab`.
 */
export async function openPanel(h, { ready = panel => panel.waitForReady(), ...options } = {}) {
  const fixture = await h.openFixtureTab({ cm: 'latest', ...options });
  await h.activateTab(fixture.tabId);
  const { windowId } = await h.tabInfo(fixture.tabId);
  const panel = await h.openSidePanel({ windowId });
  await ready(panel);
  await panel.waitFor(() => !!document.getElementById('messages') && !!document.getElementById('jump-latest'),
    undefined, { message: '#messages and #jump-latest in the panel' });
  return { fixture, panel };
}

/** Types `text` into the composer and presses Send, as a user would. */
export async function send(panel, text) {
  await panel.waitFor(() => {
    const input = document.getElementById('user-input');
    const button = document.getElementById('send-btn');
    return !!input && !input.disabled && !!button && !button.disabled;
  }, undefined, { message: 'the composer to accept input' });
  await panel.evaluate(value => {
    const input = document.getElementById('user-input');
    input.value = value;
    input.dispatchEvent(new Event('input', { bubbles: true }));
    document.getElementById('send-btn').click();
  }, text);
}

/** Waits until the answer of the current run is no longer streaming. */
export function waitForAnswer(panel, count, message, timeout = 60_000) {
  return panel.waitFor(expected => {
    const answers = document.querySelectorAll('#messages .msg-assistant');
    return answers.length >= expected && !document.querySelector('#messages .msg-assistant.streaming');
  }, count, { timeout, message });
}

/**
 * Streams an answer of `bytes` bytes of Markdown in `deltas` SSE content deltas
 * through `endpoint` into a fresh panel and measures the panel's own cost:
 * wall time from the bubble's appearance to the end of streaming (test-side
 * MutationObserver), the panel target's CDP Performance metrics deltas, and
 * the main-thread tasks of 50 ms or more from Send to the final render (a
 * PerformanceObserver of `longtask` entries in the panel).
 * `ready` is passed to openPanel; `inspect(panel)` runs after the answer, before
 * the panel closes (the bench reads memory there); `timeout` bounds the wait
 * for the answer to finish.
 * Returns `{wallMs, taskMs, scriptMs, layoutMs, styleMs, longTasks, longestTaskMs,
 * paragraphs, expectedParagraphs, inspected}`.
 */
export async function measurePanelRender(h, endpoint, { bytes = 100 * 1024, deltas = 2000, ready, inspect, timeout } = {}) {
  await useFixtureModel(h, endpoint);
  const unit = 'Typst **markup** with `code`, a [link](https://typst.app/docs/) and plain words to fill the line.\n\n';
  const answer = unit.repeat(Math.ceil(bytes / unit.length)).slice(0, bytes);
  endpoint.setScript(() => [step.content(answer, { chunks: deltas }), step.finish('stop')]);
  const { fixture, panel } = await openPanel(h, ready ? { ready } : {});
  try {
    await panel.session.send('Performance.enable');
    const metrics = async () => Object.fromEntries((await panel.session.send('Performance.getMetrics')).metrics
      .map(({ name, value }) => [name, value]));
    // Test-side observer (not shipped): when the bubble appears and when it stops streaming.
    await panel.evaluate(() => {
      window.__renderTimes = {};
      new MutationObserver(() => {
        const bubble = document.querySelector('#messages .msg-assistant');
        if (bubble && window.__renderTimes.start === undefined) window.__renderTimes.start = performance.now();
        if (bubble && !bubble.classList.contains('streaming') && window.__renderTimes.end === undefined) {
          window.__renderTimes.end = performance.now();
        }
      }).observe(document.getElementById('messages'), { subtree: true, childList: true, attributes: true });
      window.__longTasks = [];
      new PerformanceObserver(list => {
        for (const entry of list.getEntries()) window.__longTasks.push(entry.duration);
      }).observe({ type: 'longtask' });
    });
    const start = await metrics();
    await send(panel, 'Stream the long answer.');
    await waitForAnswer(panel, 1, 'the long answer to finish', timeout);
    const end = await metrics();
    const times = await panel.evaluate(() => window.__renderTimes);
    // Long tasks are delivered after they end; one frame later every task of the render has been reported.
    const longTasks = await panel.evaluate(() => new Promise(done =>
      requestAnimationFrame(() => setTimeout(() => done(window.__longTasks), 0))));
    const paragraphs = await panel.evaluate(() =>
      document.querySelector('#messages .msg-assistant .msg-content').querySelectorAll('p').length);
    const ms = name => (end[name] - start[name]) * 1000;
    return {
      wallMs: times.end - times.start,
      taskMs: ms('TaskDuration'),
      scriptMs: ms('ScriptDuration'),
      layoutMs: ms('LayoutDuration'),
      styleMs: ms('RecalcStyleDuration'),
      longTasks: longTasks.length,
      longestTaskMs: longTasks.length ? Math.max(...longTasks) : 0,
      paragraphs,
      expectedParagraphs: answer.split('\n\n').filter(Boolean).length,
      inspected: inspect ? await inspect(panel) : undefined,
    };
  } finally {
    await panel.close();
    await fixture.page.close();
  }
}
