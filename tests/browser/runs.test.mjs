// Agent runs through the worker's run messages, sent from the control page
// (an extension page) the way the side panel sends them, against the typst.app
// stand-in and the scripted model endpoint: a whole run that streams reasoning
// and text and reads the document, the diagnostics and the Files tree (the
// next model request carries their results, the answer is saved to the chat
// the run started from); two chats of one project running at once with Stop
// reaching only one; a document read that waits for the file of the message
// (banner events, Skip) and Stop during that wait.

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { ModelEndpoint, step } from '../fixtures/model-endpoint.mjs';
import { poll } from './harness.mjs';
import { forEachBuild, sharedFixture } from './suite.mjs';
import { TERMINAL, events, listen, saveRunModel } from './run-control.mjs';

const FIXTURE_FILE = {
  projectLabel: 'Harness Thesis',
  relativePath: 'main.typ',
  basename: 'main.typ',
  source: 'header_breadcrumb',
  confidence: 'high'
};

const INTRO_FILE = { ...FIXTURE_FILE, relativePath: 'chapters/intro.typ', basename: 'intro.typ' };

async function chat(h, projectId, text, file = FIXTURE_FILE) {
  const session = await h.request('SESSION_CREATE', { projectId });
  const messages = [{ role: 'user', content: text, activeEditorFile: file }];
  await h.request('SESSION_UPDATE', { sessionId: session.id, messages });
  return { sessionId: session.id, messages };
}

/** Reserves a run and sends AI_STREAM_START; resolves with the start's answer when the run ends. */
async function startRun(h, { runId, tabId, projectId, sessionId, messages, model, activeEditorFile = FIXTURE_FILE }) {
  const identity = { tabId, projectId, sessionId };
  const reserved = await h.request('AI_RUN_RESERVE', identity, { runId });
  assert.equal(reserved.reserved, true);
  const record = await saveRunModel(h, model, 'ask');
  const answer = h.send('AI_STREAM_START', {
    ...identity,
    messages,
    settings: { maxHistoryMessages: 40, editorApprovalMode: 'ask' },
    modelConfig: record,
    attachments: {},
    activeEditorFile
  }, { runId });
  return answer.then(response => {
    assert.equal(response?.type, 'PROTOCOL_RESPONSE');
    assert.equal(response.payload.ok, true, JSON.stringify(response.payload));
    return response.payload.data;
  });
}

/** Opens a fixture tab and waits until its page bridge answers. */
async function openReady(h, options) {
  const tab = await h.openFixtureTab(options);
  await poll(async () => {
    const probe = await h.send('GET_EDITOR_CONTEXT', { tabId: tab.tabId, projection: 'identity' });
    return probe?.payload?.ok === true;
  }, { timeout: 45_000, message: 'the page bridge answers' });
  return tab;
}

forEachBuild('agent runs', get => {
  const endpoint = new ModelEndpoint();

  // Shared by the tests (none of them changes the document): the routed
  // endpoint, the run-event listener and one fixture project.
  const project = sharedFixture(async h => {
    h.useModelEndpoint(endpoint);
    await listen(h);
    const fixture = await openReady(h, { cm: 'latest' });
    return { fixture, projectId: new URL(fixture.url).pathname.split('/').pop() };
  });

  /** The harness with the shared project ready, and the project. */
  async function prepared() {
    const h = get();
    return { h, ...(await project(h)) };
  }

  for (const variant of [{ cm: '6.38', csp: true }, { cm: 'latest', csp: false }]) {
    const label = `CodeMirror ${variant.cm}${variant.csp ? ", CSP script-src 'self'" : ''}`;
    it(`a run streams, reads the document, diagnostics and file tree, and answers with their results (${label})`, async () => {
      const { h, fixture } = await prepared();
      const tab = variant.csp ? await openReady(h, variant) : fixture;
      const project = new URL(tab.url).pathname.split('/').pop();
      endpoint.setScript(body => {
        if (body.model !== 'full-run') return [step.content('unexpected'), step.finish('stop')];
        if (!body.messages.some(message => message.role === 'tool')) {
          return [
            step.reasoning('I should look at the document first.', { chunks: 3 }),
            step.content('Let me check. ', { chunks: 2 }),
            step.toolCall({ index: 0, id: 'call-doc', name: 'read_document', arguments: '{}', chunks: 2 }),
            step.toolCall({ index: 1, id: 'call-diag', name: 'read_diagnostics', arguments: '{}' }),
            step.toolCall({ index: 2, id: 'call-tree', name: 'read_file_structure', arguments: '{}' }),
            step.finish('tool_calls'),
          ];
        }
        return [step.content('Line 3 uses an undefined variable.', { chunks: 4 }), step.finish('stop')];
      });
      const { sessionId, messages } = await chat(h, project, 'What is wrong with my document?');
      const before = endpoint.requests.length;
      const runId = `run-full-${variant.cm}`;
      const result = await startRun(h, { runId, tabId: tab.tabId, projectId: project, sessionId, messages, model: 'full-run' });
      assert.deepEqual(result, { ok: true, runId });

      const runEvents = await events(h, runId);
      const types = runEvents.map(event => event.type);
      assert.equal(types.filter(type => TERMINAL.includes(type)).length, 1);
      assert.equal(types.at(-1), 'AI_STREAM_DONE');
      const toolEvents = types.filter(type => type === 'AI_TOOL_CALLS' || type === 'AI_TOOL_RESULT');
      assert.deepEqual(toolEvents, ['AI_TOOL_CALLS', 'AI_TOOL_RESULT', 'AI_TOOL_RESULT', 'AI_TOOL_RESULT']);
      const streamed = runEvents.filter(event => event.type === 'AI_STREAM_BATCH').flatMap(event => event.payload.items);
      const text = channel => streamed.filter(item => item.channel === channel).map(item => item.text).join('');
      assert.equal(text('reasoning'), 'I should look at the document first.');
      assert.equal(text('content'), 'Let me check. Line 3 uses an undefined variable.');
      assert.ok(types.indexOf('AI_STREAM_BATCH') < types.indexOf('AI_TOOL_CALLS'), 'text before the tool calls');

      const results = Object.fromEntries(runEvents.filter(event => event.type === 'AI_TOOL_RESULT')
        .map(event => [event.payload.callId, event.payload.result]));
      assert.equal(results['call-doc'].ok, true, JSON.stringify(results['call-doc']));
      assert.equal(results['call-doc'].start_line, 1);
      assert.match(results['call-doc'].numbered_document, /^1\|= Harness Thesis\n/);
      assert.equal(results['call-diag'].ok, true, JSON.stringify(results['call-diag']));
      assert.equal(results['call-diag'].error_count, 1);
      assert.equal(results['call-diag'].diagnostics[0].message, 'unknown variable: undefined-thing');
      assert.equal(results['call-tree'].ok, true);
      assert.equal(results['call-tree'].complete, false, 'the drafts folder is collapsed');
      assert.deepEqual(results['call-tree'].collapsed_folders, ['drafts']);

      const requests = endpoint.requests.slice(before);
      assert.equal(requests.length, 2);
      const second = requests[1].body.messages;
      const tools = second.filter(message => message.role === 'tool');
      assert.deepEqual(tools.map(message => message.tool_call_id), ['call-doc', 'call-diag', 'call-tree']);
      assert.match(tools[0].content, /Harness Thesis/);
      assert.match(tools[1].content, /undefined-thing/);
      assert.match(tools[2].content, /chapters\/methods\.typ/);
      const turn = second.find(message => message.role === 'assistant' && message.tool_calls);
      assert.equal(turn.reasoning_content, 'I should look at the document first.');

      const saved = await h.request('SESSION_GET', { sessionId });
      const answer = saved.messages.at(-1);
      assert.equal(answer.role, 'assistant');
      assert.equal(answer.responseStatus, 'complete');
      assert.equal(answer.content, 'Let me check. Line 3 uses an undefined variable.');
      assert.deepEqual(answer.segments.map(segment => segment.type), ['reasoning', 'text', 'tools', 'text']);
      if (tab !== fixture) await tab.page.close();
    });
  }

  it('two chats of one project run at once, and Stop reaches only its own run', async () => {
    const { h, fixture, projectId } = await prepared();
    endpoint.setScript(body => body.model === 'held' ? new Promise(() => {}) : [step.content('Quick answer.'), step.finish('stop')]);
    const a = await chat(h, projectId, 'First chat');
    const b = await chat(h, projectId, 'Second chat');
    const held = startRun(h, { runId: 'run-held', tabId: fixture.tabId, projectId, ...a, model: 'held' });
    await poll(() => endpoint.requests.some(request => request.body?.model === 'held'), { message: 'the held run asks the model' });
    const status = await h.request('AI_RUN_STATUS', { projectId, sessionId: a.sessionId });
    assert.deepEqual(status.map(run => run.runId), ['run-held']);
    const refused = await h.send('AI_RUN_RESERVE', { tabId: fixture.tabId, projectId, sessionId: a.sessionId }, { runId: 'run-second-a' });
    assert.equal(refused.payload.error.code, 'SESSION_RUN_ACTIVE');

    const quick = await startRun(h, { runId: 'run-quick', tabId: fixture.tabId, projectId, ...b, model: 'quick' });
    assert.deepEqual(quick, { ok: true, runId: 'run-quick' });
    assert.deepEqual((await events(h, 'run-held')).filter(event => TERMINAL.includes(event.type)), []);

    const stop = await h.request('AI_STREAM_CANCEL', {}, { runId: 'run-held' });
    assert.deepEqual(stop, { ok: true, found: true, terminal: false });
    assert.deepEqual(await held, { ok: true, cancelled: true, runId: 'run-held' });
    const terminal = (await events(h, 'run-held')).filter(event => TERMINAL.includes(event.type));
    assert.deepEqual(terminal.map(event => event.payload), [{ code: 'CANCELLED', message: 'Run cancelled.' }]);
    assert.deepEqual(await h.request('AI_RUN_STATUS', { projectId, sessionId: a.sessionId }), []);
  });

  it('a document read waits for the file of the message; Skip ends the call and Stop ends a wait', async () => {
    const { h, fixture, projectId } = await prepared();
    endpoint.setScript(body => {
      if (!body.messages.some(message => message.role === 'tool')) {
        return [step.toolCall({ id: `read-${body.model}`, name: 'read_document', arguments: '{}' }), step.finish('tool_calls')];
      }
      return [step.content('Could not read it.'), step.finish('stop')];
    });
    // The message was about chapters/intro.typ while the editor shows main.typ.
    const first = await chat(h, projectId, 'Read the introduction', INTRO_FILE);
    const skipped = startRun(h, {
      runId: 'run-skip', tabId: fixture.tabId, projectId, ...first, model: 'skip', activeEditorFile: INTRO_FILE
    });
    const waiting = await poll(async () => (await events(h, 'run-skip')).find(event => event.type === 'AI_TOOL_PREFLIGHT_WAITING'),
      { message: 'the file banner' });
    assert.deepEqual(waiting.payload.missing, ['open file: chapters/intro.typ']);
    assert.match(waiting.payload.hint, /chapters\/intro\.typ/);
    assert.match(waiting.payload.hint, /main\.typ/);
    const wrong = await h.request('AI_TOOL_PREFLIGHT_RESOLVE', { callId: 'read-skip', action: 'cancel' }, { runId: 'run-other' });
    assert.deepEqual(wrong, { ok: false });
    const skip = await h.request('AI_TOOL_PREFLIGHT_RESOLVE', { callId: 'read-skip', action: 'cancel' }, { runId: 'run-skip' });
    assert.deepEqual(skip, { ok: true });
    assert.deepEqual(await skipped, { ok: true, runId: 'run-skip' });
    const result = (await events(h, 'run-skip')).find(event => event.type === 'AI_TOOL_RESULT').payload.result;
    assert.equal(result.code, 'PREFLIGHT_DENIED');

    const second = await chat(h, projectId, 'Read the introduction again', INTRO_FILE);
    const stopped = startRun(h, {
      runId: 'run-stop-wait', tabId: fixture.tabId, projectId, ...second, model: 'stop-wait', activeEditorFile: INTRO_FILE
    });
    await poll(async () => (await events(h, 'run-stop-wait')).some(event => event.type === 'AI_TOOL_PREFLIGHT_WAITING'),
      { message: 'the second file banner' });
    await h.request('AI_STREAM_CANCEL', {}, { runId: 'run-stop-wait' });
    assert.deepEqual(await stopped, { ok: true, cancelled: true, runId: 'run-stop-wait' });
    const types = (await events(h, 'run-stop-wait')).map(event => event.type);
    assert.equal(types.at(-1), 'AI_STREAM_CANCELLED');
    assert.ok(!types.includes('AI_TOOL_RESULT'), 'no result after Stop');
  });
});
