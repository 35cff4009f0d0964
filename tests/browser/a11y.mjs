// Accessibility checks shared by the panel suites: axe-core 4 injected into
// the real side panel page and run on the whole document (both themes, so
// contrast is checked in each), and real keyboard input through CDP (trusted
// key events with their default actions, never element.click()), with the
// focus reads that tell where a key press left the user.
//
// A failure names what to fix: each violation with its rule, impact, help
// text, and for each offending node its selector and a short HTML excerpt.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

let source = null;

/** axe-core's browser build (read once per process). */
async function axeSource() {
  if (source) return source;
  let path;
  try {
    path = require.resolve('axe-core/axe.min.js');
  } catch {
    throw new Error('axe-core 4 is not installed: run `npm ci` in tests/ (it is a devDependency)');
  }
  source = await readFile(path, 'utf8');
  return source;
}

// ------------------------------------------------------------ axe

/**
 * Runs in the panel: ends short transitions and animations where they would
 * end anyway (a toast fading in would otherwise be measured half transparent;
 * a panel that is not painting never advances them), then runs axe on the
 * whole document in each theme and puts the theme back.
 */
async function scanDocument(themes) {
  const settle = () => {
    for (const animation of document.getAnimations()) {
      const timing = animation.effect?.getComputedTiming?.();
      if (timing && Number.isFinite(timing.endTime) && timing.endTime <= 1000) {
        try { animation.finish(); } catch { /* already finished or not finishable */ }
      }
    }
  };
  const root = document.documentElement;
  const original = root.dataset.theme;
  const found = [];
  try {
    for (const theme of themes) {
      if (theme) root.dataset.theme = theme;
      settle();
      // eslint-disable-next-line no-undef
      const results = await axe.run(document, { resultTypes: ['violations'] });
      for (const violation of results.violations) {
        found.push({
          theme: theme ?? original ?? null,
          id: violation.id,
          impact: violation.impact,
          help: violation.help,
          nodes: violation.nodes.slice(0, 6).map(node => ({
            target: node.target.join(' '),
            html: node.html.length > 160 ? `${node.html.slice(0, 157)}...` : node.html,
            summary: (node.failureSummary ?? '').split('\n').slice(0, 3).join(' ').slice(0, 240),
          })),
          more: Math.max(0, violation.nodes.length - 6),
        });
      }
    }
  } finally {
    if (original === undefined) delete root.dataset.theme;
    else root.dataset.theme = original;
  }
  return found;
}

/** Injects axe into the panel unless this document already has it (a reload drops it). */
export async function injectAxe(panel) {
  if (await panel.evaluate(() => typeof window.axe === 'object')) return;
  await panel.evaluate(await axeSource());
}

/**
 * The axe violations of the panel's whole document, in both themes (or the
 * current one with `themes: [null]`).
 */
export async function axeViolations(panel, { themes = ['dark', 'light'] } = {}) {
  await injectAxe(panel);
  return panel.evaluate(scanDocument, themes);
}

function describe(violations) {
  return violations.map(v => [
    `- ${v.id} (${v.impact}, ${v.theme} theme): ${v.help}`,
    ...v.nodes.map(n => `    ${n.target}\n      ${n.html}\n      ${n.summary}`),
    ...(v.more ? [`    … and ${v.more} more`] : []),
  ].join('\n')).join('\n');
}

/** Fails with every violation spelled out unless the whole panel passes axe. */
export async function assertAccessible(panel, where, options) {
  const violations = await axeViolations(panel, options);
  assert.ok(violations.length === 0, `axe-core violations in ${where}:\n${describe(violations)}`);
}

// ------------------------------------------------------------ keyboard

const KEYS = {
  Tab: { code: 'Tab', windowsVirtualKeyCode: 9 },
  Enter: { code: 'Enter', windowsVirtualKeyCode: 13, text: '\r' },
  ' ': { code: 'Space', windowsVirtualKeyCode: 32, text: ' ' },
  Escape: { code: 'Escape', windowsVirtualKeyCode: 27 },
  ArrowDown: { code: 'ArrowDown', windowsVirtualKeyCode: 40 },
  ArrowUp: { code: 'ArrowUp', windowsVirtualKeyCode: 38 },
  ArrowLeft: { code: 'ArrowLeft', windowsVirtualKeyCode: 37 },
  ArrowRight: { code: 'ArrowRight', windowsVirtualKeyCode: 39 },
  Home: { code: 'Home', windowsVirtualKeyCode: 36 },
  End: { code: 'End', windowsVirtualKeyCode: 35 },
  F2: { code: 'F2', windowsVirtualKeyCode: 113 },
};

/**
 * Lets the panel take focus while its window is not the focused one (the
 * control page and the fixture tab are), so key events reach it.
 */
export async function enableKeyboard(panel) {
  await panel.session.send('Emulation.setFocusEmulationEnabled', { enabled: true });
}

/** A real key press in the panel (trusted events, default actions included). */
export async function press(panel, key, { shift = false, commands } = {}) {
  const info = KEYS[key];
  if (!info) throw new Error(`no key ${key} in a11y.mjs KEYS`);
  const base = { key, modifiers: shift ? 8 : 0, ...info };
  await panel.session.send('Input.dispatchKeyEvent', { type: info.text ? 'keyDown' : 'rawKeyDown', ...base, ...(commands ? { commands } : {}) });
  await panel.session.send('Input.dispatchKeyEvent', { type: 'keyUp', ...base, text: undefined });
}

/** Types text into the focused control, as an IME commit (input events). */
export async function type(panel, text) {
  await panel.session.send('Input.insertText', { text });
}

/** Selects everything in the focused field and types `text` over it. */
export async function retype(panel, text) {
  await panel.session.send('Input.dispatchKeyEvent', {
    type: 'rawKeyDown', key: 'a', code: 'KeyA', windowsVirtualKeyCode: 65, modifiers: 2, commands: ['selectAll'],
  });
  await panel.session.send('Input.dispatchKeyEvent', { type: 'keyUp', key: 'a', code: 'KeyA', windowsVirtualKeyCode: 65, modifiers: 2 });
  await type(panel, text);
}

/** Runs in the panel: the focused element, described for messages and checks. */
export function focused() {
  const element = document.activeElement;
  if (!element || element === document.body) return null;
  const row = element.closest('[data-record-id]');
  return {
    id: element.id || null,
    action: element.dataset.action ?? null,
    row: row?.dataset.recordId ?? null,
    role: element.getAttribute('role'),
    text: (element.getAttribute('aria-label') || element.textContent || '').trim().slice(0, 60),
    tag: element.tagName.toLowerCase(),
  };
}

/** Whether the focused element matches `selector`. */
export function isFocused(panel, selector) {
  return panel.evaluate(s => !!document.activeElement?.matches(s), selector);
}

/** Presses Tab (or Shift+Tab) until the focused element matches `selector`. */
export async function tabTo(panel, selector, { shift = false, max = 80 } = {}) {
  for (let i = 0; i < max; i += 1) {
    if (await isFocused(panel, selector)) return;
    await press(panel, 'Tab', { shift });
  }
  throw new Error(`Tab never reached ${selector} (focus is on ${JSON.stringify(await panel.evaluate(focused))})`);
}

/** Waits until focus is on an element matching `selector`; fails saying where it is. */
export async function expectFocusOn(panel, selector, message) {
  try {
    await panel.waitFor(s => !!document.activeElement?.matches(s), selector,
      { message: `${message}: focus on ${selector}`, timeout: 10_000 });
  } catch (error) {
    throw new Error(`${error.message}; focus is on ${JSON.stringify(await panel.evaluate(focused))}`);
  }
}
