// `cargo xtask bench [--against DIR]`: performance figures of the built
// extension in the real browser, and with `--against` the same figures of a
// second unpacked extension (the JavaScript original) measured in the same
// run, printed side by side with their ratio (this ÷ against: below 1 is
// better). Reported, never asserted: the numbers depend on the machine.
//
// Figures (figures.mjs, footprint.mjs):
// - worker cold start: worker stopped through CDP, then LOAD_SETTINGS to its answer;
// - panel ready: side panel reload until #user-input is enabled for good;
// - streaming render: 100 KB of Markdown in 2,000 SSE deltas sent from the real
//   panel; its main-thread task time, its longest task, and the heaps after it;
// - diff preview: replace_lines on a 20,000-line document in Ask mode, from the
//   model's answer to "Apply changes" shown;
// - footprint: shipped bytes, a deflate ZIP of them, the wasm files.
//
// TSA_BENCH_ROUNDS_SCALE scales every figure's round count (default 1: the counts below).
// TSA_BENCH_ONLY=cold,ready,stream,diff (any of them, comma-separated) measures
// only those browser figures, for quick work on one of them; the rest print n/a.

import { resolve } from 'node:path';
import { Harness, unpackedExtensionDir } from '../browser/harness.mjs';
import { ModelEndpoint } from '../fixtures/model-endpoint.mjs';
import { coldStart, diffPreview, panelReady, streamRender } from './figures.mjs';
import { fileSize, footprint } from './footprint.mjs';

const SCALE = Number(process.env.TSA_BENCH_ROUNDS_SCALE || 1);
const rounds = count => Math.max(1, Math.round(count * SCALE));
const FIGURES = ['cold', 'ready', 'stream', 'diff'];
const ONLY = (process.env.TSA_BENCH_ONLY || FIGURES.join(',')).split(',').map(name => name.trim()).filter(Boolean);
for (const name of ONLY) {
  if (!FIGURES.includes(name)) throw new Error(`TSA_BENCH_ONLY: unknown figure "${name}" (known: ${FIGURES.join(', ')})`);
}
const wanted = name => ONLY.includes(name);

function median(samples) {
  if (!samples) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/**
 * Runs one figure; a figure that fails (the original sometimes never shows
 * its answer's end) is reported with its error and printed as n/a, so one
 * stuck figure does not lose the others of the run.
 */
async function figure(figures, name, run, done) {
  try {
    figures[name] = await run();
    console.log(`  ${done(figures[name])}`);
  } catch (error) {
    figures.failed.push(`${name}: ${error.message}`);
    console.log(`  ${name} failed: ${error.message}`);
  }
}

async function measure(label, dir) {
  console.log(`\nMeasuring ${label}: ${dir}`);
  const figures = { footprint: await footprint(dir), failed: [] };
  const h = await Harness.launch(dir, { label: `bench ${label}` });
  try {
    if (wanted('cold')) {
      await figure(figures, 'coldStart', () => coldStart(h, rounds(15)), f => `cold start done (${f.length} rounds)`);
    }
    const endpoint = new ModelEndpoint();
    h.useModelEndpoint(endpoint);
    if (wanted('ready')) {
      await figure(figures, 'panelReady', () => panelReady(h, rounds(10)), f => `panel ready done (${f.length} rounds)`);
    }
    if (wanted('stream')) {
      await figure(figures, 'stream', () => streamRender(h, endpoint, rounds(5)),
        f => `streaming render done (${f.taskMs.length} rounds)`);
    }
    if (wanted('diff')) {
      await figure(figures, 'diff', () => diffPreview(h, endpoint, rounds(5)), f => `diff preview done (${f.ms.length} rounds)`);
    }
  } finally {
    await h.close();
  }
  return figures;
}

const ms = value => `${value.toFixed(1)} ms`;
const bytes = value => `${Math.round(value).toLocaleString('en')} B`;

/** The table's rows: label, how to read each figure set, how to print it. */
const ROWS = [
  ['Worker cold start (median)', f => median(f.coldStart), ms],
  ['Panel ready (median)', f => median(f.panelReady), ms],
  ['Streaming render: panel main-thread time (median)', f => median(f.stream?.taskMs), ms],
  ['Streaming render: longest task (max of runs; 0 = none ≥ 50 ms)', f => (f.stream ? Math.max(...f.stream.longestTaskMs) : NaN), ms],
  ['Streaming render: tasks ≥ 50 ms (median per run)', f => median(f.stream?.longTasks), String],
  ['Streaming render: wall, first delta to final render (median)', f => median(f.stream?.wallMs), ms],
  ['Streaming render: rounds retried (answer stuck streaming)', f => f.stream?.stuck ?? NaN, String],
  ['Diff preview, 20,000 lines: answer to "Apply changes" (median)', f => median(f.diff?.ms), ms],
  ['Diff preview: rounds retried (stuck before the review)', f => f.diff?.stuck ?? NaN, String],
  ['Panel JS heap after the 100 KB answer', f => f.stream?.memory?.panel?.used ?? NaN, bytes],
  ['Worker JS heap after the 100 KB answer', f => f.stream?.memory?.worker?.used ?? NaN, bytes],
  ['Worker ArrayBuffer backing stores (wasm memory)', f => f.stream?.memory?.worker?.backing ?? NaN, bytes],
  ['Shipped files: total', f => f.footprint.totalBytes, bytes],
  ['Shipped files: as a deflate ZIP', f => f.footprint.deflateZipBytes, bytes],
];

function printTable(results) {
  const labels = Object.keys(results);
  const header = ['Figure', ...labels, ...(labels.length === 2 ? ['Ratio'] : [])];
  const lines = ROWS.map(([label, read, format]) => {
    const values = labels.map(name => read(results[name]));
    const cells = values.map(value => (Number.isFinite(value) ? format(value) : 'n/a'));
    if (labels.length === 2) {
      const [against, ours] = values;
      cells.push(against > 0 && Number.isFinite(ours) ? `${(ours / against).toFixed(2)}×` : 'n/a');
    }
    return [label, ...cells];
  });
  const widths = header.map((_, column) => Math.max(...[header, ...lines].map(row => row[column].length)));
  const row = cells => `| ${cells.map((cell, column) => cell.padEnd(widths[column])).join(' | ')} |`;
  console.log(`\n${row(header)}\n|${widths.map(width => '-'.repeat(width + 2)).join('|')}|`);
  for (const line of lines) console.log(row(line));
}

function printRuns(results) {
  for (const [label, f] of Object.entries(results)) {
    const list = samples => (samples ? samples.map(value => value.toFixed(1)).join(', ') : 'not measured');
    console.log(`\n${label} samples (ms):`);
    console.log(`  cold start: ${list(f.coldStart)}`);
    console.log(`  panel ready: ${list(f.panelReady)}`);
    console.log(`  streaming main-thread: ${list(f.stream?.taskMs)}; longest tasks: ${list(f.stream?.longestTaskMs)}`);
    console.log(`  diff preview: ${list(f.diff?.ms)}`);
    for (const file of f.footprint.wasm) console.log(`  ${file.name}: ${bytes(file.bytes)}`);
  }
}

async function main() {
  const subjects = [];
  if (process.env.TSA_BENCH_AGAINST) subjects.push(['against', resolve(process.env.TSA_BENCH_AGAINST)]);
  subjects.push(['this', unpackedExtensionDir()]);
  const results = {};
  for (const [label, dir] of subjects) results[label] = await measure(label, dir);
  printRuns(results);
  printTable(results);
  for (const [label, f] of Object.entries(results)) {
    for (const failure of f.failed) console.log(`\n${label}: figure not measured (${failure})`);
  }
  const zip = process.env.TSA_BENCH_ZIP ? await fileSize(resolve(process.env.TSA_BENCH_ZIP)) : null;
  if (zip !== null) console.log(`\nThis project's release ZIP as built: ${bytes(zip)}`);
}

main().catch(error => {
  console.error(error);
  process.exitCode = 1;
});
