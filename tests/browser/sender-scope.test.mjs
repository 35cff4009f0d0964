// Who may send what, in the real browser. The extension's own content script
// runs in every typst.app tab; anything that runs there (a compromised
// renderer, a relay bug) can call chrome.runtime.sendMessage with any
// envelope. This suite finds that isolated world on the fixture page through
// CDP (Runtime.executionContextCreated with auxData.type 'isolated' and the
// extension's origin), sends each privileged request from it and shows each
// is refused with SENDER_NOT_ALLOWED (no API key in any answer, the stored
// settings unchanged, the refusals counted), then sends the same from the
// side panel page and shows they are served. A broadcast-shaped message from
// the content script reaches the panel and is ignored there; the worker's
// own broadcasts arrive with the sender the policy expects.

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { poll } from './harness.mjs';
import { forEachBuild } from './suite.mjs';
import { useFixtureModel } from './panel-render.mjs';

const API_KEY = 'sk-fixture';

/** The privileged requests a content script must not make, with payloads the panel could send. */
function privileged(tabId) {
  const elsewhere = { id: 'fixture-model', name: 'Fixture model', apiBaseUrl: 'https://evil.example/v1', modelId: 'fixture-chat' };
  return [
    ['LOAD_SETTINGS', {}],
    ['SAVE_SETTINGS', { settings: {}, modelMutation: { type: 'upsert', record: elsewhere } }],
    ['AI_STREAM_START', {
      tabId, projectId: 'p1', sessionId: 's1', messages: [],
      settings: { editorApprovalMode: 'auto' }, modelConfig: elsewhere,
    }, 'run-forged'],
    ['GENERATE_SESSION_TITLE', { modelConfig: elsewhere, messages: [{ role: 'user', content: 'hi' }] }],
    ['SESSION_EXPORT', {}],
    ['SESSION_LIST_ALL_GROUPED', {}],
    ['SESSION_DELETE', { sessionId: 's1' }],
    ['SESSION_DELETE_BY_PROJECT', { projectId: 'p1' }],
    ['AI_TOOL_APPROVAL_RESOLVE', { callId: 'call-1', action: 'approve_once' }, 'run-forged'],
    ['LOAD_CUSTOM_TOOLS', {}],
    ['SAVE_CUSTOM_TOOLS', { tools: [] }],
    ['LOAD_MCP_SERVERS', {}],
    ['SAVE_MCP_SERVERS', { servers: [] }],
    ['DOCUMENT_SNAPSHOT_DELETE', { tabId, snapshotId: 'snap-1' }],
    ['OPEN_PROJECT_TAB', { projectId: 'forged' }],
  ];
}

/** The extension's isolated world on `page`: a CDP session and its context id. */
async function isolatedWorld(h, page) {
  const session = await h.context.newCDPSession(page);
  const contexts = [];
  session.on('Runtime.executionContextCreated', ({ context }) => contexts.push(context));
  await session.send('Runtime.enable');
  const context = await poll(() => contexts.find(c =>
    c.auxData?.type === 'isolated' && c.auxData?.isDefault === false &&
    (c.origin === h.extensionOrigin || c.name === h.manifest.name)) ?? null,
  { message: "the extension's isolated world on the fixture page" });
  return {
    async send(envelope) {
      const { result, exceptionDetails } = await session.send('Runtime.evaluate', {
        expression: `chrome.runtime.sendMessage(${JSON.stringify(envelope)})`,
        contextId: context.id,
        awaitPromise: true,
        returnByValue: true,
      });
      if (exceptionDetails) throw new Error(exceptionDetails.exception?.description || exceptionDetails.text);
      return result.value;
    },
    detach: () => session.detach(),
  };
}

function envelope(type, payload, runId, requestId) {
  const message = { type, requestId, payload };
  if (runId) message.runId = runId;
  return message;
}

forEachBuild('sender-scoped protocol', get => {
  it('refuses every privileged request from the content script and serves the panel', async () => {
    const h = get();
    await useFixtureModel(h, { baseUrl: 'https://model.fixture/v1' });
    const fixture = await h.openFixtureTab({ cm: 'latest' });
    await h.activateTab(fixture.tabId);
    const before = await h.request('LOAD_SETTINGS');
    const statusBefore = await h.request('SESSION_STORAGE_STATUS');
    const world = await isolatedWorld(h, fixture.page);
    let count = 0;
    for (const [type, payload, runId] of privileged(fixture.tabId)) {
      const answer = await world.send(envelope(type, payload, runId, `page-${++count}`));
      assert.equal(answer?.type, 'PROTOCOL_RESPONSE', `${type}: ${JSON.stringify(answer)}`);
      assert.equal(answer.payload?.ok, false, `${type} was served to a content script: ${JSON.stringify(answer)}`);
      assert.equal(answer.payload.error.code, 'SENDER_NOT_ALLOWED', `${type}: ${JSON.stringify(answer)}`);
      assert.match(answer.payload.error.message, new RegExp(`^${type} `));
      assert.ok(!JSON.stringify(answer).includes(API_KEY), `${type} leaked the API key`);
    }
    await world.detach();
    assert.deepEqual(await h.request('LOAD_SETTINGS'), before, 'the stored settings are unchanged');
    const status = await h.request('SESSION_STORAGE_STATUS');
    const refused = status.senderRefusals.notExtensionPage - (statusBefore.senderRefusals?.notExtensionPage ?? 0);
    assert.equal(refused, count, 'each refusal is counted');
    const tabs = await h.control.evaluate(() => chrome.tabs.query({}));
    assert.ok(!tabs.some(tab => tab.url?.includes('/project/forged')), 'no project tab was opened');

    const panel = await h.openSidePanel({ windowId: (await h.tabInfo(fixture.tabId)).windowId });
    await panel.waitForReady();
    for (const [type, payload, runId] of privileged(fixture.tabId)) {
      if (type === 'SAVE_SETTINGS' || type === 'OPEN_PROJECT_TAB' || type.startsWith('SESSION_DELETE')) continue;
      const answer = await panel.evaluate(message => chrome.runtime.sendMessage(message),
        envelope(type, payload, runId, `panel-${++count}`));
      assert.equal(answer?.type, 'PROTOCOL_RESPONSE', `${type}: ${JSON.stringify(answer)}`);
      assert.notEqual(answer.payload?.error?.code, 'SENDER_NOT_ALLOWED', `${type} refused to the panel`);
    }
    const loaded = await panel.evaluate(message => chrome.runtime.sendMessage(message),
      envelope('LOAD_SETTINGS', {}, undefined, 'panel-load'));
    assert.equal(loaded.payload.ok, true);
    assert.equal(loaded.payload.data.models[0].apiKey, API_KEY, 'the panel reads its settings');
    await panel.close();
  });

  it("ignores a broadcast-shaped message from the content script; the worker's broadcasts carry its sender", async () => {
    const h = get();
    const fixture = await h.openFixtureTab({ cm: 'latest' });
    await h.activateTab(fixture.tabId);
    const panel = await h.openSidePanel({ windowId: (await h.tabInfo(fixture.tabId)).windowId });
    await panel.waitForReady();
    const warnings = [];
    panel.session.on('Runtime.consoleAPICalled', ({ type, args }) => {
      if (type === 'warning') warnings.push(args.map(a => a.value ?? a.description ?? '').join(' '));
    });
    await panel.evaluate(() => {
      window.__senders = [];
      chrome.runtime.onMessage.addListener((message, sender) => {
        window.__senders.push({ type: message?.type, sender: JSON.parse(JSON.stringify(sender)) });
        return false;
      });
    });
    const world = await isolatedWorld(h, fixture.page);
    // No requestId: the worker ignores it; every extension page receives it.
    await world.send({ type: 'AI_STREAM_ERROR', runId: 'run-forged', payload: { error: 'forged' } }).catch(() => {});
    await world.detach();
    await poll(() => warnings.find(w => w.includes('ignored AI_STREAM_ERROR')) ?? null,
      { message: 'the panel to ignore the forged broadcast (and warn once)' });
    const forged = await panel.evaluate(() => window.__senders.find(s => s.type === 'AI_STREAM_ERROR'));
    assert.equal(forged.sender.id, h.extensionId);
    assert.ok(forged.sender.tab, 'a content script has a tab');
    assert.equal(forged.sender.origin, 'https://typst.app');

    // A broadcast of the worker: the tab change it announces.
    const other = await h.openFixtureTab({ cm: 'latest' });
    await h.activateTab(other.tabId);
    const broadcast = await poll(() => panel.evaluate(() => window.__senders.find(s => s.type === 'ACTIVE_TAB_CHANGED')) ?? null,
      { message: 'an ACTIVE_TAB_CHANGED broadcast' });
    assert.equal(broadcast.sender.id, h.extensionId);
    assert.equal(broadcast.sender.url, h.serviceWorkerUrl);
    assert.equal(broadcast.sender.tab, undefined, 'the worker has no tab');
    assert.equal(warnings.filter(w => w.includes('Typst Side Agent: ignored')).length, 1, 'one warning only');
    await panel.close();
  });

  it('answers or closes every response channel', async () => {
    const h = get();
    // A broken request is answered; a message that is not the worker's (no
    // requestId) is not kept waiting for an answer that never comes.
    const answer = await h.send('NOT_A_TYPE', {});
    assert.equal(answer?.payload?.error?.code, 'UNKNOWN_MESSAGE_TYPE');
    const settled = await h.control.evaluate(() => chrome.runtime.sendMessage({ type: 'LOAD_THEME', payload: {} })
      .then(value => ({ answered: value ?? null }), error => ({ closed: String(error?.message) })));
    assert.ok(!('answered' in settled) || settled.answered === null, `no answer: ${JSON.stringify(settled)}`);
  });
});
