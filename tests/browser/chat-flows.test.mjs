// Whole chats through the real side panel: a run that reads the document, its
// diagnostics and the file tree, whose results reach the model's next request,
// on the plain and the strict-CSP fixture; and a run after the worker was
// stopped between two runs.

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { poll } from './harness.mjs';
import { forEachBuild } from './suite.mjs';
import { openPanel, send, useFixtureModel, waitForAnswer } from './panel-render.mjs';
import { ModelEndpoint, step } from '../fixtures/model-endpoint.mjs';

const VARIANTS = [
  { cm: 'latest', csp: false, label: 'CodeMirror latest, no CSP' },
  { cm: '6.38', csp: true, label: "CodeMirror 6.38, CSP script-src 'self'" },
];

/** The reading run: tools first, then an answer that quotes what the tools found. */
function readingScript(body) {
  const tools = body.messages.filter(message => message.role === 'tool');
  if (tools.length === 0) {
    return [
      step.reasoning('First the document, its diagnostics and the files.', { chunks: 4 }),
      step.content('Reading your project. ', { chunks: 2 }),
      step.toolCall({ index: 0, id: 'flow-doc', name: 'read_document', arguments: '{"start_line":1}' }),
      step.toolCall({ index: 1, id: 'flow-diag', name: 'read_diagnostics', arguments: '{}' }),
      step.toolCall({ index: 2, id: 'flow-tree', name: 'read_file_structure', arguments: '{}' }),
      step.finish('tool_calls'),
    ];
  }
  return [step.content('Line **3** uses an undefined variable.', { chunks: 3 }), step.finish('stop')];
}

function lastAnswerText(panel) {
  return panel.evaluate(() => {
    const answers = document.querySelectorAll('#messages .msg-assistant');
    return answers[answers.length - 1]?.querySelector('.msg-body')?.textContent ?? null;
  });
}

async function savedMessages(h, projectId, count) {
  return poll(async () => {
    const [session] = await h.request('SESSION_LIST', { projectId });
    if (!session) return null;
    const full = await h.request('SESSION_GET', { sessionId: session.id });
    const last = full?.messages.at(-1);
    return full?.messages.length === count && last?.responseStatus === 'complete' ? full.messages : null;
  }, { message: `${count} saved messages with a complete answer` });
}

forEachBuild('chat flows', get => {
  const endpoint = new ModelEndpoint();
  let routed = false;
  const harness = () => {
    const h = get();
    if (!routed) {
      h.useModelEndpoint(endpoint);
      routed = true;
    }
    return h;
  };

  for (const variant of VARIANTS) {
    it(`a run from the panel reads the document, diagnostics and file tree; the next request carries the results (${variant.label})`, async () => {
      const h = harness();
      await useFixtureModel(h, endpoint);
      endpoint.setScript(readingScript);
      const { fixture, panel } = await openPanel(h, { cm: variant.cm, csp: variant.csp });
      const projectId = new URL(fixture.url).pathname.split('/').pop();
      const before = endpoint.requests.length;
      await send(panel, 'What is wrong with my document?');
      await endpoint.waitForRequests(before + 2, { timeout: 60_000 });
      await waitForAnswer(panel, 1, 'the answer after the tool round');

      const [first, second] = endpoint.requests.slice(before).map(request => request.body);
      assert.equal(first.stream, true);
      assert.ok(first.tools.some(tool => tool.function?.name === 'read_document'), 'built-in tools are offered');
      const users = first.messages.filter(message => message.role === 'user').map(message => message.content);
      assert.equal(users.at(-1), 'What is wrong with my document?');
      assert.ok(users.some(text => typeof text === 'string' && text.includes('"relativePath":"main.typ"')),
        'the message is preceded by its captured file identity');

      const tools = second.messages.filter(message => message.role === 'tool');
      assert.deepEqual(tools.map(message => message.tool_call_id), ['flow-doc', 'flow-diag', 'flow-tree']);
      const [doc, diagnostics, tree] = tools.map(message => JSON.parse(message.content));
      assert.equal(doc.ok, true, JSON.stringify(doc));
      assert.match(doc.numbered_document, /^1\|= Harness Thesis\n/);
      assert.equal(diagnostics.ok, true, JSON.stringify(diagnostics));
      assert.equal(diagnostics.error_count, 1);
      assert.equal(diagnostics.diagnostics[0].message, 'unknown variable: undefined-thing');
      assert.equal(tree.ok, true, JSON.stringify(tree));
      assert.ok(tree.entries.some(entry => entry.path === 'main.typ' && entry.kind === 'file'));
      const turn = second.messages.find(message => message.role === 'assistant' && message.tool_calls);
      assert.deepEqual(turn.tool_calls.map(call => call.id), ['flow-doc', 'flow-diag', 'flow-tree']);

      const text = await lastAnswerText(panel);
      assert.match(text, /Reading your project\./);
      assert.match(text, /Line 3 uses an undefined variable\./);
      const saved = await savedMessages(h, projectId, 2);
      assert.equal(saved[1].content, 'Reading your project. Line **3** uses an undefined variable.');
      await panel.close();
      await fixture.page.close();
    });
  }

  it('a run works after the worker was stopped between two runs', async () => {
    const h = harness();
    await useFixtureModel(h, endpoint);
    endpoint.setScript(body => {
      const turns = body.messages.filter(message => message.role === 'user' && !message.content.startsWith('UNTRUSTED'));
      return [step.content(`Answer number ${turns.length}.`, { chunks: 3 }), step.finish('stop')];
    });
    const { fixture, panel } = await openPanel(h);
    const projectId = new URL(fixture.url).pathname.split('/').pop();
    await send(panel, 'First question');
    await waitForAnswer(panel, 1, 'the first answer');
    assert.match(await lastAnswerText(panel), /Answer number 1\./);
    await savedMessages(h, projectId, 2);

    const stop = await h.stopWorker();
    assert.ok(stop.stoppedTargets.length >= 1, 'the worker was running and is stopped');
    assert.equal((await h.serviceWorkerTargets()).length, 0);

    await send(panel, 'Second question');
    await waitForAnswer(panel, 2, 'the answer from the woken worker');
    assert.match(await lastAnswerText(panel), /Answer number 2\./);
    const saved = await savedMessages(h, projectId, 4);
    assert.deepEqual(saved.map(message => message.role), ['user', 'assistant', 'user', 'assistant']);
    await panel.close();
    await fixture.page.close();
  });
});
