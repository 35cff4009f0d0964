// The scripted OpenAI-compatible endpoint, reached by fetch() from the extension's
// own service worker (the path every chat run will take): SSE with content,
// reasoning and split tool-call deltas, JSON when stream is false, and request
// recording; also after the worker was stopped and woken again.

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { ModelEndpoint, parseSse, step } from '../fixtures/model-endpoint.mjs';
import { forEachBuild } from './suite.mjs';

const TOOL_ARGS = { path: 'chapters/intro.typ', note: 'Grüße 𝔸' };

function script(body) {
  if (body.model === 'fixture-tools') {
    return [
      step.reasoning('Looking at the project tree.', { chunks: 2 }),
      step.content('Let me read a file. ', { chunks: 3 }),
      step.toolCall({ index: 0, id: 'call-read-1', name: 'read_file', arguments: TOOL_ARGS, chunks: 4 }),
      step.finish('tool_calls'),
    ];
  }
  return [step.content('Plain fixture reply – ok.', { chunks: 2 }), step.finish('stop')];
}

/** Runs fetch() inside the service worker and returns status, content type and text. */
async function fetchFromWorker(h, url, body, headers = {}) {
  const worker = await h.worker();
  return worker.evaluate(async ([target, payload, extra]) => {
    const response = await fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...extra },
      body: JSON.stringify(payload),
    });
    return { status: response.status, contentType: response.headers.get('content-type'), text: await response.text() };
  }, [url, body, headers]);
}

function fold(events) {
  let content = '';
  let reasoning = '';
  let finish = null;
  const calls = new Map();
  for (const event of events) {
    if (event === '[DONE]') continue;
    for (const choice of event.choices ?? []) {
      const delta = choice.delta ?? {};
      if (delta.content) content += delta.content;
      if (delta.reasoning_content) reasoning += delta.reasoning_content;
      for (const call of delta.tool_calls ?? []) {
        const current = calls.get(call.index) ?? { id: null, name: null, arguments: '' };
        if (call.id) current.id = call.id;
        if (call.function?.name) current.name = call.function.name;
        if (call.function?.arguments) current.arguments += call.function.arguments;
        calls.set(call.index, current);
      }
      if (choice.finish_reason) finish = choice.finish_reason;
    }
  }
  return { content, reasoning, finish, calls: [...calls.values()] };
}

forEachBuild('model endpoint fixture', get => {
  // Each test routes an endpoint of its own (in front of any earlier one) and
  // removes it at the end, so its recorded requests are its own.
  async function withEndpoint(test) {
    const h = get();
    const endpoint = new ModelEndpoint({ script });
    const remove = h.useModelEndpoint(endpoint);
    try {
      await test(h, endpoint);
    } finally {
      remove();
    }
  }

  it("answers a streamed request from the service worker's fetch with the scripted SSE and records it", () => withEndpoint(async (h, endpoint) => {
    const body = {
      model: 'fixture-tools',
      stream: true,
      messages: [{ role: 'system', content: 'You edit Typst.' }, { role: 'user', content: 'Read intro' }],
    };
    const result = await fetchFromWorker(h, endpoint.url, body, { authorization: 'Bearer fixture-key' });
    assert.equal(result.status, 200);
    assert.match(result.contentType, /^text\/event-stream/);

    const events = parseSse(result.text);
    assert.equal(events.at(-1), '[DONE]');
    const toolDeltas = events.filter(e => e !== '[DONE]' && e.choices?.[0]?.delta?.tool_calls);
    assert.equal(toolDeltas.length, 5, 'tool call split over a header delta and 4 argument deltas');
    assert.equal(toolDeltas[0].choices[0].delta.tool_calls[0].id, 'call-read-1');
    assert.ok(toolDeltas.slice(1).every(e => e.choices[0].delta.tool_calls[0].id === undefined));
    assert.deepEqual(fold(events), {
      content: 'Let me read a file. ',
      reasoning: 'Looking at the project tree.',
      finish: 'tool_calls',
      calls: [{ id: 'call-read-1', name: 'read_file', arguments: JSON.stringify(TOOL_ARGS) }],
    });

    assert.equal(endpoint.requests.length, 1);
    const [recorded] = endpoint.requests;
    assert.deepEqual(recorded.body, body);
    assert.equal(recorded.method, 'POST');
    assert.equal(recorded.headers.authorization, 'Bearer fixture-key');
    assert.match(recorded.headers['content-type'], /application\/json/);
  }));

  it('answers stream:false with one JSON completion', () => withEndpoint(async (h, endpoint) => {
    const result = await fetchFromWorker(h, endpoint.url, { model: 'fixture-tools', stream: false, messages: [] });
    assert.equal(result.status, 200);
    assert.match(result.contentType, /^application\/json/);
    const completion = JSON.parse(result.text);
    assert.equal(completion.object, 'chat.completion');
    assert.deepEqual(completion.choices[0].message, {
      role: 'assistant',
      content: 'Let me read a file. ',
      reasoning_content: 'Looking at the project tree.',
      tool_calls: [{ id: 'call-read-1', type: 'function', function: { name: 'read_file', arguments: JSON.stringify(TOOL_ARGS) } }],
    });
    assert.equal(completion.choices[0].finish_reason, 'tool_calls');
    assert.equal(endpoint.requests.length, 1);
    assert.equal(endpoint.requests[0].body.stream, false);
  }));

  it('still routes the fetch of a worker that was stopped and woken again', () => withEndpoint(async (h, endpoint) => {
    await h.stopWorker();
    await h.request('LOAD_THEME');
    const result = await fetchFromWorker(h, endpoint.url, { model: 'plain', stream: true, messages: [] });
    assert.equal(result.status, 200);
    assert.deepEqual(fold(parseSse(result.text)), { content: 'Plain fixture reply – ok.', reasoning: '', finish: 'stop', calls: [] });
    assert.equal(endpoint.requests.length, 1);
    assert.deepEqual(endpoint.errors, []);
    assert.deepEqual(endpoint.unmatched, []);
  }));
});
