// Custom HTTP tools against the real loopback custom-tool server
// (tests/tool-servers/custom-tool.mjs, started by this suite): a tool saved
// through Settings → Tools in the real panel and called inside a run after
// Approve once (the request the server saw: `POST {"tool","arguments"}`, the
// configured header, the browser's Origin); the failures the model gets as
// results (non-2xx → CUSTOM_HTTP_ERROR with the body, 300 KiB →
// CUSTOM_RESPONSE_TOO_LARGE, text → `{raw}`, no answer in 30 s → TIMEOUT);
// Stop during a call reaching the server as an aborted request; a trusted
// tool running with no banner, Allow for run covering the second call of
// that tool, and Deny giving the model a denial.
//
// The 30-second timeout test runs against the unpacked build only (the
// timeout is production's, with no test knob); everything else runs against
// both builds.

import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { start, stopAll } from '../tool-servers/launch.mjs';
import { ModelEndpoint } from '../fixtures/model-endpoint.mjs';
import { poll } from './harness.mjs';
import { forEachBuild } from './suite.mjs';
import { openPanel, send, useFixtureModel, waitForAnswer } from './panel-render.mjs';
import { enableKeyboard, press, retype, tabTo, type } from './a11y.mjs';
import {
  answerBanner, anyBanner, callingScript, clearRegistries, customRecord, resultsById, savedChat, saveTools, toolBlock,
} from './tool-runs.mjs';

let server = null;
before(async () => {
  server = await start('custom');
});
after(() => stopAll());

/** What the custom-tool server received so far (`GET /requests`; the test runner's fetch, not the browser's). */
async function received(path) {
  const all = await (await fetch(`${server.url}/requests`)).json();
  return path ? all.filter(record => record.path === path) : all;
}

async function forget() {
  await fetch(`${server.url}/requests`, { method: 'DELETE' });
}

function visible(selector) {
  const element = document.querySelector(selector);
  return !!element && !element.hidden && element.checkVisibility();
}

/** Run events (`{type, runId, payload}` broadcasts) seen by the control page since `mark()`. */
async function listen(h) {
  await h.control.evaluate(() => {
    if (globalThis.__runEvents) return;
    globalThis.__runEvents = [];
    chrome.runtime.onMessage.addListener(message => {
      if (message && typeof message.runId === 'string' && !message.requestId) globalThis.__runEvents.push(message);
    });
  });
}

function approvalsAsked(h) {
  return h.control.evaluate(() => globalThis.__runEvents
    .filter(event => event.type === 'AI_TOOL_APPROVAL_REQUIRED').map(event => event.payload.callId));
}

/**
 * Adds a custom tool through Settings → Tools by keyboard, as a user would,
 * and closes Settings; returns the stored record.
 */
async function addThroughForm(h, panel, { name, endpoint, headers, parameters, trusted = false }) {
  await enableKeyboard(panel);
  await tabTo(panel, '#settings-toggle');
  await press(panel, 'Enter');
  await panel.waitFor(visible, '#settings-panel', { message: 'settings to open' });
  await tabTo(panel, '.settings-tab[data-tab="tools"]');
  await press(panel, 'Enter');
  await panel.waitFor(visible, '[data-pane="tools"]', { message: 'the Tools pane' });
  await tabTo(panel, '#add-tool-btn');
  await press(panel, 'Enter');
  await panel.waitFor(visible, '#tool-form', { message: 'the tool form' });
  await tabTo(panel, '#tf-name');
  await type(panel, name);
  await tabTo(panel, '#tf-desc');
  await type(panel, `Fixture tool ${name}.`);
  await tabTo(panel, '#tf-endpoint');
  await type(panel, endpoint);
  await tabTo(panel, '#tf-headers');
  await retype(panel, JSON.stringify(headers));
  await tabTo(panel, '#tf-params');
  await retype(panel, JSON.stringify(parameters));
  if (trusted) {
    await tabTo(panel, '#tf-trusted');
    await press(panel, ' ');
  }
  await tabTo(panel, '#tool-save');
  await press(panel, 'Enter');
  const stored = await poll(async () => (await h.request('LOAD_CUSTOM_TOOLS', {})).find(tool => tool.name === name),
    { message: `${name} stored` });
  await panel.waitFor(() => document.getElementById('tool-form').hidden, undefined, { message: 'the form closes' });
  await press(panel, 'Escape');
  await panel.waitFor(() => document.getElementById('settings-panel').hidden, undefined, { message: 'settings to close' });
  return stored;
}

const TEXT_SCHEMA = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };

forEachBuild('custom tools', (get, build) => {
  const endpoint = new ModelEndpoint();
  let routed = false;
  const harness = async () => {
    const h = get();
    if (!routed) {
      h.useModelEndpoint(endpoint);
      h.passThrough(server.url);
      await listen(h);
      routed = true;
    }
    await clearRegistries(h);
    await forget();
    await useFixtureModel(h, endpoint);
    return h;
  };

  it('a tool saved through Settings → Tools is called in a run after Approve once', async () => {
    const h = await harness();
    const { fixture, panel } = await openPanel(h);
    const tool = await addThroughForm(h, panel, {
      name: 'fx_echo', endpoint: `${server.url}/ok`, headers: { 'X-Fixture': 'yes' }, parameters: TEXT_SCHEMA,
    });
    assert.deepEqual(tool.parameters, TEXT_SCHEMA);
    assert.equal(tool.trustedAutoRun, false);
    endpoint.setScript(callingScript(() => [{ id: 'call-fx', name: 'fx_echo', args: { text: 'héllo' } }], 'Echoed.'));
    const before = endpoint.requests.length;
    await send(panel, 'Call my tool.');
    await answerBanner(panel, 'call-fx', 'approve_once');
    await endpoint.waitForRequests(before + 2, { timeout: 60_000 });
    await waitForAnswer(panel, 1, 'the answer after the custom tool');
    const [first, second] = endpoint.requests.slice(before).map(request => request.body);
    const offered = first.tools.find(t => t.function.name === 'fx_echo');
    assert.equal(offered.function.description, 'Fixture tool fx_echo.');
    assert.deepEqual(resultsById(second)['call-fx'], {
      ok: true,
      result: { ok: true, tool: 'fx_echo', arguments: { text: 'héllo' }, method: 'POST', contentType: 'application/json' },
    });
    const [request] = await received('/ok');
    assert.deepEqual(request.body, { tool: 'fx_echo', arguments: { text: 'héllo' } });
    assert.equal(request.headers['x-fixture'], 'yes');
    // Custom tools get no Origin rule: the browser's Origin reaches the endpoint.
    assert.equal(request.headers.origin, h.extensionOrigin);
    const block = await toolBlock(panel, 'call-fx');
    assert.equal(block.label, 'fx_echo');
    assert.match(block.statusClass, /tool-status-ok/, JSON.stringify(block));
    assert.equal(block.banner, false);
    const saved = (await savedChat(h, new URL(fixture.url).pathname.split('/').pop())).at(-1);
    const tools = saved.segments.find(segment => segment.type === 'tools');
    assert.deepEqual(tools.calls.map(call => [call.id, call.name, call.args]), [['call-fx', 'fx_echo', { text: 'héllo' }]]);
    assert.equal(tools.results['call-fx'].ok, true, 'the transcript keeps the result');
    await panel.close();
    await fixture.page.close();
  });

  it('non-2xx, oversized and non-JSON answers are the model\'s results, and the run completes', async () => {
    const h = await harness();
    await saveTools(h, [
      customRecord('t-error', 'fx_error', `${server.url}/error?status=502`),
      customRecord('t-big', 'fx_big', `${server.url}/oversized`),
      customRecord('t-text', 'fx_text', `${server.url}/text`),
    ]);
    endpoint.setScript(callingScript(() => [
      { id: 'call-error', name: 'fx_error', args: { text: 'a' } },
      { id: 'call-big', name: 'fx_big', args: { text: 'b' } },
      { id: 'call-text', name: 'fx_text', args: { text: 'c' } },
    ], 'Handled the failures.'));
    const { fixture, panel } = await openPanel(h);
    const before = endpoint.requests.length;
    await send(panel, 'Try the broken tools.');
    for (const id of ['call-error', 'call-big', 'call-text']) await answerBanner(panel, id, 'allow_run');
    await endpoint.waitForRequests(before + 2, { timeout: 60_000 });
    await waitForAnswer(panel, 1, 'the answer after the failures');
    const results = resultsById(endpoint.requests[before + 1].body);
    assert.deepEqual(results['call-error'], {
      ok: false, code: 'CUSTOM_HTTP_ERROR', error: 'HTTP 502',
      body: { error: { code: 'TOOL_FAILED', message: 'custom tool fx_error failed on purpose' } },
    });
    assert.equal(results['call-big'].ok, false);
    assert.equal(results['call-big'].code, 'CUSTOM_RESPONSE_TOO_LARGE', JSON.stringify(results['call-big']));
    assert.deepEqual(results['call-text'], { ok: true, result: { raw: 'plain text, not JSON\n' } });
    assert.match((await toolBlock(panel, 'call-error')).statusClass, /tool-status-err/);
    assert.match((await toolBlock(panel, 'call-text')).statusClass, /tool-status-ok/);
    assert.match(await panel.evaluate(() => document.querySelector('#messages .msg-assistant:last-of-type .msg-body').textContent),
      /Handled the failures\./);
    await panel.close();
    await fixture.page.close();
  });

  it('Stop during a call aborts the request at the server', async () => {
    const h = await harness();
    await saveTools(h, [customRecord('t-hang', 'fx_hang', `${server.url}/timeout`)]);
    endpoint.setScript(callingScript(() => [{ id: 'call-hang', name: 'fx_hang', args: { text: 'wait' } }]));
    const { fixture, panel } = await openPanel(h);
    await send(panel, 'Call the slow tool.');
    await answerBanner(panel, 'call-hang', 'approve_once');
    const [pending] = await poll(async () => {
      const records = await received('/timeout');
      return records.length === 1 && records;
    }, { message: 'the call to reach the server' });
    assert.equal(pending.aborted, false);
    assert.equal(pending.status, null);
    await panel.evaluate(() => document.getElementById('send-btn').click());
    await panel.waitFor(() => document.getElementById('status-message').textContent === 'Stopped', undefined,
      { message: 'Stopped' });
    const [aborted] = await poll(async () => {
      const records = await received('/timeout');
      return records[0]?.aborted && records;
    }, { timeout: 10_000, message: 'the server to see the request aborted' });
    assert.equal(aborted.status, null, 'the request was never answered');
    await panel.close();
    await fixture.page.close();
  });

  it('a trusted tool runs with no banner, Allow for run covers the second call, and Deny reaches the model', async () => {
    const h = await harness();
    const { fixture, panel } = await openPanel(h);
    const trusted = await addThroughForm(h, panel, {
      name: 'fx_trusted', endpoint: `${server.url}/ok`, headers: {}, parameters: TEXT_SCHEMA, trusted: true,
    });
    assert.equal(trusted.trustedAutoRun, true);
    assert.match(trusted.trustedAutoRunFingerprint, /^custom-v1:\d+:[0-9a-z]{7}$/);
    await saveTools(h, [
      trusted,
      customRecord('t-run', 'fx_run', `${server.url}/ok`),
      customRecord('t-deny', 'fx_deny', `${server.url}/ok`),
    ]);
    endpoint.setScript(callingScript(() => [
      { id: 'call-trusted', name: 'fx_trusted', args: { text: 'one' } },
      { id: 'call-run-1', name: 'fx_run', args: { text: 'two' } },
      { id: 'call-run-2', name: 'fx_run', args: { text: 'three' } },
      { id: 'call-deny', name: 'fx_deny', args: { text: 'four' } },
    ], 'Three ran, one was denied.'));
    const before = endpoint.requests.length;
    await send(panel, 'Call them all.');
    await answerBanner(panel, 'call-run-1', 'allow_run');
    await answerBanner(panel, 'call-deny', 'deny');
    await endpoint.waitForRequests(before + 2, { timeout: 60_000 });
    await waitForAnswer(panel, 1, 'the answer after the approvals');
    const results = resultsById(endpoint.requests[before + 1].body);
    assert.equal(results['call-trusted'].result?.arguments?.text, 'one', JSON.stringify(results['call-trusted']));
    assert.equal(results['call-run-1'].result?.arguments?.text, 'two');
    assert.equal(results['call-run-2'].result?.arguments?.text, 'three');
    assert.equal(results['call-deny'].ok, false);
    assert.equal(results['call-deny'].code, 'TOOL_DENIED', JSON.stringify(results['call-deny']));
    const asked = await approvalsAsked(h);
    assert.ok(asked.includes('call-run-1') && asked.includes('call-deny'), JSON.stringify(asked));
    assert.ok(!asked.includes('call-trusted'), 'the trusted tool asked no approval');
    assert.ok(!asked.includes('call-run-2'), 'Allow for run covered the second call');
    assert.deepEqual((await received('/ok')).map(record => record.body.arguments.text), ['one', 'two', 'three'],
      'the denied call never reached the server');
    assert.equal(await anyBanner(panel), false);
    await panel.close();
    await fixture.page.close();
  });

  it('an endpoint that never answers gives the model TIMEOUT after 30 s, and the request is aborted',
    { skip: build.label === 'packaged ZIP' ? 'the 30 s wait runs once, against the unpacked build' : false }, async () => {
      const h = await harness();
      await saveTools(h, [customRecord('t-slow', 'fx_slow', `${server.url}/timeout`)]);
      endpoint.setScript(callingScript(() => [{ id: 'call-slow', name: 'fx_slow', args: { text: 'wait' } }], 'Gave up.'));
      const { fixture, panel } = await openPanel(h);
      const before = endpoint.requests.length;
      await send(panel, 'Call the tool that hangs.');
      await answerBanner(panel, 'call-slow', 'approve_once');
      await endpoint.waitForRequests(before + 2, { timeout: 60_000 });
      await waitForAnswer(panel, 1, 'the answer after the timeout');
      const result = resultsById(endpoint.requests[before + 1].body)['call-slow'];
      assert.equal(result.ok, false);
      assert.equal(result.code, 'TIMEOUT', JSON.stringify(result));
      const [record] = await poll(async () => {
        const records = await received('/timeout');
        return records[0]?.aborted && records;
      }, { timeout: 10_000, message: 'the timed-out request aborted at the server' });
      assert.equal(record.status, null);
      await panel.close();
      await fixture.page.close();
    });
});
