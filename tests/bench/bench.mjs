// `cargo xtask bench`: performance figures of the built extension in the real
// browser. Reported, never asserted: the numbers depend on the machine.
//
// Each measurement runs several times and prints min / median / max:
// - worker cold wake: the worker is stopped through CDP, then one request is
//   timed from chrome.runtime.sendMessage to its answer (in an extension page).
// - panel render: a 100 KB answer streamed by the fixture model in 2,000
//   deltas, sent from the real side panel's composer; wall time from Send to
//   the finished answer, and the panel's main-thread task time (CDP metrics).

import { Harness, unpackedExtensionDir } from '../browser/harness.mjs';
import { measurePanelRender } from '../browser/panel-render.mjs';
import { ModelEndpoint } from '../fixtures/model-endpoint.mjs';

const ROUNDS = Number(process.env.TSA_BENCH_ROUNDS || 10);

function summary(label, samples, unit = 'ms') {
  const sorted = [...samples].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)];
  const fmt = value => value.toFixed(1);
  console.log(`${label}: median ${fmt(median)} ${unit}, min ${fmt(sorted[0])}, max ${fmt(sorted[sorted.length - 1])} (${sorted.length} runs)`);
}

async function coldWake(h) {
  const samples = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    await h.request('LOAD_THEME', {});
    await h.stopWorker();
    const { ms, ok } = await h.control.evaluate(async envelope => {
      const started = performance.now();
      const answer = await chrome.runtime.sendMessage(envelope);
      return { ms: performance.now() - started, ok: answer?.payload?.ok === true };
    }, { type: 'LOAD_THEME', requestId: `bench-wake-${round}`, payload: {} });
    if (!ok) throw new Error('the woken worker did not answer LOAD_THEME');
    samples.push(ms);
  }
  summary('worker cold wake', samples);
}

async function panelRender(h) {
  const endpoint = new ModelEndpoint();
  h.useModelEndpoint(endpoint);
  const wall = [];
  const task = [];
  const renderRounds = Math.max(3, Math.floor(ROUNDS / 2));
  for (let round = 0; round < renderRounds; round += 1) {
    const result = await measurePanelRender(h, endpoint, { bytes: 100 * 1024, deltas: 2000 });
    if (result.paragraphs !== result.expectedParagraphs) throw new Error('the streamed answer was not fully rendered');
    wall.push(result.wallMs);
    task.push(result.taskMs);
  }
  summary('panel render, 100 KB in 2,000 deltas, wall', wall);
  summary('panel render, 100 KB in 2,000 deltas, panel main-thread tasks', task);
}

async function main() {
  const h = await Harness.launch(unpackedExtensionDir(), { label: 'bench' });
  try {
    await coldWake(h);
    await panelRender(h);
  } finally {
    await h.close();
  }
}

main().catch(error => {
  console.error(error);
  process.exitCode = 1;
});
