// Quick attach on the typst.app stand-in (real CodeMirror 6): the page's
// "Add to agent" button beside the editor selection and beside the opened
// image, placed as the original places it, without moving the editor or
// taking its focus or selection; a real click (a user gesture) opens the
// side panel, which shows the chip read from the originating tab; the same
// for the image with the panel already open (the broadcast); the buttons go
// away on scroll, typing and blur; and a click that wakes a stopped worker
// still opens the panel, which drains the event.

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { poll, sleep } from './harness.mjs';
import { forEachBuild } from './suite.mjs';
import { useFixtureModel } from './panel-render.mjs';
import { assertAccessible } from './a11y.mjs';

const SELECTION_BUTTON = '#typst-side-agent-selection-float';
const IMAGE_BUTTON = '#typst-side-agent-image-float';
const SELECTION_CHIP = '#context-attachments .context-chip-label';
const IMAGE_CHIP = '#context-attachments .preview-chip img';

// ------------------------------------------------------------ page helpers
// (serialised into the fixture page with Function.prototype.toString)

/** What a float button is and where it is. */
function floatButton(selector) {
  const button = document.querySelector(selector);
  if (!button) return null;
  const rect = button.getBoundingClientRect();
  return {
    shown: getComputedStyle(button).display !== 'none',
    tag: button.tagName,
    type: button.type,
    name: button.textContent,
    position: getComputedStyle(button).position,
    parentIsBody: button.parentElement === document.body,
    inEditor: !!button.closest('.cm-editor'),
    left: rect.left,
    top: rect.top,
    right: rect.right,
    bottom: rect.bottom,
  };
}

/** The editor's geometry and DOM, to compare before and after. */
function editorLayout() {
  const box = element => {
    const r = element.getBoundingClientRect();
    return [r.left, r.top, r.width, r.height];
  };
  const content = document.querySelector('.cm-content');
  return {
    editor: box(document.querySelector('.cm-editor')),
    scroller: box(document.querySelector('.cm-scroller')),
    content: box(content),
    lines: [...document.querySelectorAll('.cm-line')].map(line => line.getBoundingClientRect().height),
    children: content.children.length,
    page: [document.documentElement.scrollWidth, document.documentElement.scrollHeight],
  };
}

/** The end of the DOM selection as the browser lays it out. */
function selectionEnd() {
  const selection = document.getSelection();
  if (!selection.rangeCount) return null;
  const rects = [...selection.getRangeAt(0).getClientRects()].filter(r => r.width > 0 || r.height > 0);
  const last = rects.at(-1);
  return last ? { right: last.right, top: last.top, bottom: last.bottom } : null;
}

/** An opened PNG in the preview column, as typst.app shows an image asset. */
async function openImage() {
  const source = document.createElement('canvas');
  source.width = 64;
  source.height = 48;
  const context = source.getContext('2d');
  context.fillStyle = '#3366cc';
  context.fillRect(0, 0, 64, 48);
  const image = document.createElement('img');
  image.alt = 'Image preview';
  image.style.cssText = 'position:fixed;left:62%;top:30%;width:240px;height:180px;z-index:5';
  image.src = source.toDataURL('image/png');
  await image.decode();
  document.querySelector('.preview-pane').appendChild(image);
  const r = image.getBoundingClientRect();
  return { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
}

function editorFocused() {
  return !!document.activeElement?.closest('.cm-editor');
}

// ------------------------------------------------------------ node helpers

async function closePanels(h) {
  for (const targetId of await h.sidePanelTargets()) {
    await h.browserSession.send('Target.closeTarget', { targetId }).catch(() => {});
  }
  await poll(async () => (await h.sidePanelTargets()).length === 0, { message: 'no side panel open' });
}

/** A fresh fixture project in front, a model saved, no side panel open. */
async function fixtureInFront(h) {
  await useFixtureModel(h, { baseUrl: 'https://model.fixture/v1' });
  await closePanels(h);
  const fixture = await h.openFixtureTab({ cm: 'latest' });
  await h.activateTab(fixture.tabId);
  await fixture.page.bringToFront();
  const { windowId } = await h.tabInfo(fixture.tabId);
  return { ...fixture, windowId };
}

function waitShown(page, selector, shown = true) {
  return poll(async () => {
    const state = await page.evaluate(floatButton, selector);
    return state && state.shown === shown ? state : null;
  }, { timeout: 10_000, message: `${selector} ${shown ? 'shown' : 'hidden'}` });
}

/** Stays hidden for a while (several animation frames and the burst delay). */
async function staysHidden(page, selector, why) {
  await sleep(300);
  const state = await page.evaluate(floatButton, selector);
  assert.equal(state.shown, false, `${selector} stays hidden ${why}`);
}

function near(actual, expected, tolerance, what) {
  assert.ok(Math.abs(actual - expected) <= tolerance, `${what}: ${actual} is not within ${tolerance} of ${expected}`);
}

forEachBuild('quick attach', get => {
  it('selection: the button sits beside the selection end, moves nothing, and a click opens the panel with the chip', async () => {
    const h = get();
    const { page, tabId, windowId } = await fixtureInFront(h);
    const layout = await page.evaluate(editorLayout);
    const selected = await page.evaluate(() => window.__typstFixture.selectLine(1));
    assert.ok(selected.text.trim(), 'line 1 has text');

    const button = await waitShown(page, SELECTION_BUTTON);
    assert.deepEqual(
      [button.tag, button.type, button.name, button.position, button.parentIsBody, button.inEditor],
      ['BUTTON', 'button', 'Add to agent', 'fixed', true, false],
      'a real button named "Add to agent", fixed on <body>, outside the editor');
    const end = await page.evaluate(selectionEnd);
    assert.ok(end, 'the editor selection is the DOM selection');
    near(button.left, end.right + 6, 2, 'left edge 6 px after the selection end');
    near(button.top, end.top, 3, 'top at the selection end line');
    assert.deepEqual(await page.evaluate(editorLayout), layout, 'the editor did not move or change');
    assert.equal((await page.evaluate(floatButton, IMAGE_BUTTON)).shown, false, 'no image button with a selection');

    // A real click: a user gesture, which lets the worker open the panel.
    const before = new Set(await h.sidePanelTargets());
    await page.click(SELECTION_BUTTON);
    assert.equal(await page.evaluate(editorFocused), true, 'the editor keeps the focus');
    assert.deepEqual(await page.evaluate(() => window.__typstFixture.selection()), selected, 'and its selection');
    const panel = await h.attachSidePanel({ before, onlyNew: true, timeout: 15_000 });
    await panel.waitForReady();
    const label = await panel.waitFor(selector => document.querySelector(selector)?.textContent, SELECTION_CHIP,
      { message: 'the selection chip' });
    assert.match(label, /^Selection 1 · main\.typ: /);
    assert.equal(await panel.evaluate(selector => document.querySelector(selector).title, SELECTION_CHIP),
      selected.text.trim(), 'the chip holds the selected text');
    // The panel that the click opened started after the event: it drained it.
    assert.deepEqual(await h.request('QUICK_ATTACH_DRAIN', { windowId }), [], 'nothing left in the queue');
    assert.equal((await h.tabInfo(tabId)).active, true);
    await assertAccessible(panel, 'the composer with a quick-attached selection');
    await panel.close();
  });

  it('opened image: the button sits beside the image, and with the panel open a click adds the image chip', async () => {
    const h = get();
    const { page, windowId } = await fixtureInFront(h);
    const panel = await h.openSidePanel({ windowId });
    await panel.waitForReady();
    await page.bringToFront();
    await page.evaluate(() => window.__typstFixture.placeCursor(0));
    const image = await page.evaluate(openImage);

    const button = await waitShown(page, IMAGE_BUTTON);
    assert.deepEqual([button.tag, button.type, button.name, button.position, button.parentIsBody],
      ['BUTTON', 'button', 'Add image to agent', 'fixed', true]);
    near(button.left, image.right + 8, 2, 'left edge 8 px right of the image');
    near(button.top, image.top + 8, 2, 'top 8 px below the image top');
    assert.equal((await page.evaluate(floatButton, SELECTION_BUTTON)).shown, false, 'no selection, no selection button');

    await page.click(IMAGE_BUTTON);
    const src = await panel.waitFor(selector => document.querySelector(selector)?.src, IMAGE_CHIP,
      { message: 'the image chip' });
    assert.match(src, /^data:image\/webp;base64,[A-Za-z0-9+/=]+$/, 'captured from the page as WebP');
    await sleep(500);
    assert.equal(await panel.evaluate(() => document.querySelectorAll('#context-attachments .preview-chip').length), 1,
      'one chip for one click');
    assert.deepEqual(await h.request('QUICK_ATTACH_DRAIN', { windowId }), [],
      'the open panel also emptied its window\'s queue');
    await assertAccessible(panel, 'the composer with a quick-attached image');
    await panel.close();
  });

  it('the buttons go away on scroll, typing and blur, and come back for a new selection', async () => {
    const h = get();
    const { page } = await fixtureInFront(h);
    await page.evaluate(() => window.__typstFixture.setText(
      Array.from({ length: 200 }, (_, i) => `Line ${i + 1} of a long document`).join('\n')));

    // Scroll.
    await page.evaluate(() => window.__typstFixture.selectLine(2));
    await waitShown(page, SELECTION_BUTTON);
    await page.evaluate(() => { document.querySelector('.cm-scroller').scrollTop = 120; });
    await waitShown(page, SELECTION_BUTTON, false);
    await staysHidden(page, SELECTION_BUTTON, 'after the scroll while the selection is unchanged');
    assert.ok((await page.evaluate(() => window.__typstFixture.selection())).text, 'the selection is still there');
    await page.evaluate(() => window.__typstFixture.selectLine(12));
    await waitShown(page, SELECTION_BUTTON);

    // Typing (real keys into the editor).
    await page.keyboard.type('typed');
    await waitShown(page, SELECTION_BUTTON, false);
    await page.keyboard.down('Shift');
    for (let i = 0; i < 5; i += 1) await page.keyboard.press('ArrowLeft');
    await page.keyboard.up('Shift');
    assert.equal((await page.evaluate(() => window.__typstFixture.selection())).text, 'typed');
    await waitShown(page, SELECTION_BUTTON);

    // Blur: focus leaves the editor for the Files tree.
    await page.focus('.files .row');
    await waitShown(page, SELECTION_BUTTON, false);
    await staysHidden(page, SELECTION_BUTTON, 'while the editor is blurred');

    // The image button: scrolling puts it away too.
    await page.evaluate(() => window.__typstFixture.placeCursor(0));
    await page.evaluate(openImage);
    await waitShown(page, IMAGE_BUTTON);
    await page.evaluate(() => { document.querySelector('.cm-scroller').scrollTop = 400; });
    await waitShown(page, IMAGE_BUTTON, false);
    await staysHidden(page, IMAGE_BUTTON, 'after the scroll');
  });

  it('typing in the editor scans nothing of the page; a change of the preview column does', async () => {
    const h = get();
    const { page } = await fixtureInFront(h);
    // Count the main world's layout reads (the image button's only page scan).
    // An accessor, not a plain wrapper: the worker may run the main-world
    // files into the tab again (its start-up repair), and workspace.js then
    // assigns a fresh extract, which must be counted too.
    await page.evaluate(() => {
      let extract = window.__typstAgentWorkspaceExtract;
      window.__quickAttachScans = 0;
      const counted = (...args) => {
        window.__quickAttachScans += 1;
        return extract(...args);
      };
      Object.defineProperty(window, '__typstAgentWorkspaceExtract', {
        configurable: true,
        get: () => counted,
        set: value => { extract = value; }
      });
    });
    await page.evaluate(() => window.__typstFixture.placeCursor(0));
    await page.click('.cm-content');
    await sleep(300);
    await page.evaluate(() => { window.__quickAttachScans = 0; });
    await page.keyboard.type('typing without scans ');
    await sleep(300);
    assert.equal(await page.evaluate(() => window.__quickAttachScans), 0, 'no page scan while typing');
    await page.evaluate(openImage);
    await waitShown(page, IMAGE_BUTTON);
    // The scan runs after the mutation burst settles, which may be after the
    // button (already placed for the image the last test opened) shows.
    const scanned = await page.waitForFunction(() => window.__quickAttachScans > 0, undefined, { timeout: 5000 })
      .then(() => true, () => false);
    assert.ok(scanned, 'the new image was looked for');
  });

  it('a click that wakes a stopped worker still opens the panel, which drains the event', async () => {
    const h = get();
    const { page } = await fixtureInFront(h);
    const selected = await page.evaluate(() => window.__typstFixture.selectLine(3));
    await waitShown(page, SELECTION_BUTTON);
    await h.stopWorker();
    const before = new Set(await h.sidePanelTargets());
    // The message starts the worker; the module is still loading when it
    // arrives, so the shim opens the panel within the click's gesture.
    await page.click(SELECTION_BUTTON);
    const panel = await h.attachSidePanel({ before, onlyNew: true, timeout: 15_000 });
    await panel.waitForReady();
    const title = await panel.waitFor(selector => document.querySelector(selector)?.title, SELECTION_CHIP,
      { message: 'the selection chip from the drained event' });
    assert.equal(title, selected.text.trim());
    await panel.close();
  });
});
