// Self-test of the tool servers: every MCP configuration of configs.mjs answers the official
// TypeScript client `@modelcontextprotocol/client` 2.4 (`versionNegotiation: 'auto'`) with the
// era and version of the spec table, lists and calls the tools, frames its answers as
// configs.mjs says, and logs the headers; dual-era servers also serve a plain 2025 client; the
// Python servers refuse a chrome-extension Origin; the hostile server misbehaves as each wiring
// says; the custom-tool routes behave as documented;
// launch.mjs reports failures with the server's stderr and stops servers by PID.
// Run: node --test tests/tool-servers/self-test.mjs   (after node tests/tool-servers/setup.mjs)

import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { CONFIGS, HOSTILE_WIRINGS } from './configs.mjs';
import { start, stopAll } from './launch.mjs';

const EXTENSION_ORIGIN = 'chrome-extension://abcdefghijklmnopabcdefghijklmnop';
const ACCEPT = 'application/json, text/event-stream';
const CONTENT_TYPE_OF = { json: 'application/json', auto: 'application/json', sse: 'text/event-stream' };
const TEST_TIMEOUT = { timeout: 60_000 };

after(() => stopAll());

/**
 * A fetch for the client transport that records, for every exchange, the HTTP method, the
 * JSON-RPC method of the body, the status and the response Content-Type (the client does not
 * expose framing, and the recorded sequence shows how it negotiated).
 */
function recordingFetch(exchanges) {
  return async (input, init = {}) => {
    let rpcMethod = null;
    if (typeof init.body === 'string') {
      try {
        rpcMethod = JSON.parse(init.body).method ?? null;
      } catch {
        rpcMethod = null;
      }
    }
    const response = await fetch(input, init);
    exchanges.push({
      http: init.method ?? 'GET',
      rpcMethod,
      status: response.status,
      contentType: (response.headers.get('content-type') ?? '').split(';')[0],
    });
    return response;
  };
}

/** Connects the official client in `mode` ('auto' | 'legacy'), uses the three tools, disconnects. */
async function runOfficialClient(url, mode) {
  const exchanges = [];
  const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: recordingFetch(exchanges) });
  const client = new Client({ name: 'tool-servers-self-test', version: '1.0.0' }, { versionNegotiation: { mode } });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    const echo = await client.callTool({ name: 'echo', arguments: { text: 'héllo' } });
    const add = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    const lookup = await client.callTool({ name: 'lookup', arguments: { region: 'eu-west', query: 'q' } });
    const sessionId = transport.sessionId;
    if (sessionId !== undefined) await transport.terminateSession();
    return {
      version: client.getNegotiatedProtocolVersion(),
      era: client.getProtocolEra(),
      sessionId,
      toolNames: tools.map((t) => t.name).sort(),
      lookupSchema: tools.find((t) => t.name === 'lookup')?.inputSchema,
      texts: { echo: echo.content[0]?.text, add: add.content[0]?.text, lookup: lookup.content[0]?.text },
      exchanges,
    };
  } finally {
    await client.close();
  }
}

function assertToolResults(result) {
  assert.deepEqual(result.toolNames, ['add', 'echo', 'lookup']);
  assert.equal(result.lookupSchema?.properties?.region?.['x-mcp-header'], 'Region');
  assert.equal(result.texts.echo, 'héllo');
  // Node answers "5", Python "5.0" (its `add` takes floats): both are the number 5.
  assert.equal(Number(result.texts.add), 5);
  assert.equal(result.texts.lookup, 'eu-west:q');
}

/** The Content-Type of the answer to the first POST of `rpcMethod`. */
function framingOf(exchanges, rpcMethod) {
  return exchanges.find((e) => e.http === 'POST' && e.rpcMethod === rpcMethod && e.status === 200)?.contentType;
}

/** One raw POST; returns status, Content-Type and body text. */
async function rawPost(url, body, headers = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', text };
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

describe('MCP configurations with the official client', { concurrency: 2 }, () => {
  for (const config of CONFIGS) {
    test(`${config.id}: ${config.mode}`, TEST_TIMEOUT, async (t) => {
      const server = await start(config.id);
      try {
        const auto = await runOfficialClient(server.url, 'auto');
        t.diagnostic(`${config.id}: auto negotiated ${auto.version} (${auto.era}); add -> "${auto.texts.add}"`);
        assert.equal(auto.version, config.expected.version, 'negotiated version as in the spec table');
        assert.equal(auto.era, config.expected.era);
        assertToolResults(auto);
        assert.equal(auto.sessionId !== undefined, config.sessions && auto.era === 'legacy', 'Mcp-Session-Id issued');
        const usedFraming = auto.era === 'modern' ? config.framing.modern : config.framing.legacy;
        const framedMethod = auto.era === 'modern' ? 'tools/list' : 'initialize';
        assert.equal(framingOf(auto.exchanges, framedMethod), CONTENT_TYPE_OF[usedFraming], `${framedMethod} framing`);
        if (auto.era === 'legacy') {
          // The client's modern probe was refused with a 4xx before it fell back.
          const probe = auto.exchanges[0];
          assert.equal(probe.rpcMethod, 'server/discover');
          assert.ok(probe.status >= 400 && probe.status < 500, `probe status ${probe.status}`);
        }
        await assertLogged(server, config, auto.era);
      } finally {
        await server.stop();
      }
    });
  }
});

/** The server's request log shows the headers the client sent in the era it negotiated. */
async function assertLogged(server, config, era) {
  const isLookupCall = (r) => r.headers['mcp-method'] === 'tools/call' && r.headers['mcp-name'] === 'lookup';
  const legacyVersioned = (rs) => rs.filter((r) => r.headers['mcp-protocol-version'] === '2025-11-25');
  // The log pipe can lag the responses: wait for the records this check is about.
  const records = await server.waitForLog((rs) =>
    era === 'modern' ? rs.some(isLookupCall) : legacyVersioned(rs).length >= 5,
  );
  for (const record of records) {
    assert.equal(record.path, '/mcp');
    assert.deepEqual(Object.keys(record.headers).slice(0, 5), [
      'mcp-protocol-version',
      'mcp-session-id',
      'mcp-method',
      'mcp-name',
      'origin',
    ]);
  }
  if (era === 'modern') {
    const call = records.find(isLookupCall);
    assert.equal(call.headers['mcp-protocol-version'], '2026-07-28');
    assert.equal(call.headers['mcp-param-region'], 'eu-west', 'the client mirrored x-mcp-header');
  } else if (config.sessions) {
    // notifications/initialized, the GET stream, tools/list, three calls and DELETE
    assert.ok(legacyVersioned(records).every((r) => r.headers['mcp-session-id'] !== null));
  }
}

describe('dual-era servers also serve a plain 2025 client', { concurrency: 2 }, () => {
  for (const config of CONFIGS.filter((c) => c.expected.era === 'modern')) {
    test(`${config.id}: versionNegotiation 'legacy'`, TEST_TIMEOUT, async (t) => {
      const server = await start(config.id);
      try {
        if (config.framing.legacy === null) {
          await assert.rejects(runOfficialClient(server.url, 'legacy'), 'a modern-only server refuses initialize');
          const answer = await rawPost(server.url, INITIALIZE);
          assert.equal(answer.status, 400);
          assert.equal(JSON.parse(answer.text).error.code, -32022);
          t.diagnostic(`${config.id}: initialize -> 400 ${answer.text}`);
          return;
        }
        const legacy = await runOfficialClient(server.url, 'legacy');
        t.diagnostic(`${config.id}: legacy client got ${legacy.version}, session ${legacy.sessionId ? 'yes' : 'no'}`);
        assert.equal(legacy.version, '2025-11-25');
        assert.equal(legacy.era, 'legacy');
        assertToolResults(legacy);
        assert.equal(legacy.sessionId !== undefined, config.sessions);
        assert.equal(framingOf(legacy.exchanges, 'initialize'), CONTENT_TYPE_OF[config.framing.legacy]);
      } finally {
        await server.stop();
      }
    });
  }
});

describe('raw requests: Origin and x-mcp-header', { concurrency: 2 }, () => {
  for (const config of CONFIGS.filter((c) => c.expected.era === 'modern')) {
    test(`${config.id}: Origin ${EXTENSION_ORIGIN}`, TEST_TIMEOUT, async (t) => {
      const server = await start(config.id);
      try {
        await assertOriginCheck(t, server, config);
        await assertParamHeaderRequired(t, server, config);
      } finally {
        await server.stop();
      }
    });
  }
});

/** Python refuses a chrome-extension Origin with 403; the Node handler has no Origin check. */
async function assertOriginCheck(t, server, config) {
  const body = config.framing.legacy === null ? modernRequest('tools/list') : INITIALIZE;
  const headers = config.framing.legacy === null ? modernHeaders('tools/list') : {};
  const foreign = await rawPost(server.url, body, { ...headers, origin: EXTENSION_ORIGIN });
  const plain = await rawPost(server.url, body, headers);
  t.diagnostic(`${config.id}: with Origin ${foreign.status} "${foreign.text.slice(0, 40)}", without ${plain.status}`);
  assert.equal(plain.status, 200);
  if (config.originCheck) {
    assert.equal(foreign.status, 403);
    assert.equal(foreign.text, 'Invalid Origin header');
  } else {
    assert.equal(foreign.status, 200, 'the Node SDK handler applies no Origin check of its own');
  }
  await server.waitForLog(
    (rs) => rs.some((r) => r.headers.origin === EXTENSION_ORIGIN) && rs.some((r) => r.headers.origin === null),
  );
}

/** On the modern path a `tools/call` of `lookup` must mirror `region` into Mcp-Param-Region. */
async function assertParamHeaderRequired(t, server, config) {
  const body = modernRequest('tools/call', { name: 'lookup', arguments: { region: 'eu-west', query: 'q' } });
  const headers = modernHeaders('tools/call', 'lookup');
  const without = await rawPost(server.url, body, headers);
  t.diagnostic(`${config.id}: lookup without Mcp-Param-Region -> ${without.status} ${without.text.slice(0, 120)}`);
  assert.equal(without.status, 400);
  assert.equal(JSON.parse(without.text).error.code, -32020);
  const withHeader = await rawPost(server.url, body, { ...headers, 'mcp-param-region': 'eu-west' });
  assert.equal(withHeader.status, 200);
  assert.equal(rpcMessage(withHeader).result.content[0].text, 'eu-west:q');
}

function modernHeaders(method, name) {
  return { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...(name ? { 'mcp-name': name } : {}) };
}

function modernRequest(method, params = {}) {
  return {
    jsonrpc: '2.0',
    id: 7,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  };
}

/** The JSON-RPC message of a raw answer, framed as JSON or as one SSE `data:` event. */
function rpcMessage(answer) {
  if (!answer.contentType.startsWith('text/event-stream')) return JSON.parse(answer.text);
  const data = answer.text
    .split(/\r?\n/)
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).trim())
    .find((line) => line.startsWith('{'));
  return JSON.parse(data);
}

describe('session-map wirings: the answers a client re-initializes on', { concurrency: 2 }, () => {
  for (const id of ['v2-transport-stateful', 'v1-stateful']) {
    test(`${id}: no id 400, unknown id 404, DELETE then 404`, TEST_TIMEOUT, async () => {
      const server = await start(id);
      try {
        const list = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };
        const noId = await rawPost(server.url, list, { 'mcp-protocol-version': '2025-11-25' });
        assert.equal(noId.status, 400);
        assert.equal(JSON.parse(noId.text).error.code, -32000);
        const unknown = await rawPost(server.url, list, {
          'mcp-session-id': 'nope',
          'mcp-protocol-version': '2025-11-25',
        });
        assert.equal(unknown.status, 404);
        assert.equal(JSON.parse(unknown.text).error.code, -32001);
        const init = await fetch(server.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: ACCEPT },
          body: JSON.stringify(INITIALIZE),
        });
        const session = init.headers.get('mcp-session-id');
        assert.ok(session);
        await init.text();
        const headers = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
        const modern = await rawPost(server.url, list, { ...headers, 'mcp-protocol-version': '2026-07-28' });
        assert.equal(modern.status, 400, 'a 2026-07-28 header inside a legacy session is refused');
        const deleted = await fetch(server.url, { method: 'DELETE', headers });
        assert.equal(deleted.status, 200);
        assert.equal((await rawPost(server.url, list, headers)).status, 404);
      } finally {
        await server.stop();
      }
    });
  }
});

describe('custom-tool server', () => {
  let server;
  const call = (route, body = { tool: 'demo', arguments: { text: 'héllo', n: 2 } }, init = {}) =>
    fetch(`${server.url}${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-test': 'yes' },
      body: JSON.stringify(body),
      ...init,
    });
  const requests = async () => (await fetch(`${server.url}/requests`)).json();

  test('starts', async () => {
    server = await start('custom');
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  });

  test('/ok echoes tool and arguments as JSON', async () => {
    const response = await call('/ok');
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type'), /^application\/json/);
    assert.deepEqual(await response.json(), {
      ok: true,
      tool: 'demo',
      arguments: { text: 'héllo', n: 2 },
      method: 'POST',
      contentType: 'application/json',
    });
  });

  test('/error answers 500 (or ?status) with a JSON body', async () => {
    const response = await call('/error');
    assert.equal(response.status, 500);
    assert.equal((await response.json()).error.code, 'TOOL_FAILED');
    assert.equal((await call('/error?status=404')).status, 404);
  });

  test('/oversized answers valid JSON over 256 KiB', async () => {
    const response = await call('/oversized');
    const text = await response.text();
    assert.equal(response.status, 200);
    assert.ok(Buffer.byteLength(text) > 256 * 1024, `${Buffer.byteLength(text)} bytes`);
    assert.equal(Number(response.headers.get('content-length')), Buffer.byteLength(text));
    assert.equal(JSON.parse(text).ok, true);
  });

  test('/text answers a body that is not JSON', async () => {
    const response = await call('/text');
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type'), /^text\/plain/);
    const text = await response.text();
    assert.throws(() => JSON.parse(text));
  });

  test('/delay answers after the delay', async () => {
    const began = Date.now();
    const response = await call('/delay?ms=200');
    assert.equal(response.status, 200);
    assert.ok(Date.now() - began >= 150);
  });

  test('/timeout never answers; the client abort is recorded', async () => {
    const controller = new AbortController();
    const pending = call('/timeout', undefined, { signal: controller.signal });
    setTimeout(() => controller.abort(), 300);
    await assert.rejects(pending, { name: 'AbortError' });
    const deadline = Date.now() + 5_000;
    let record;
    while (Date.now() < deadline) {
      record = (await requests()).find((r) => r.path === '/timeout');
      if (record?.aborted) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    assert.equal(record?.aborted, true, 'the server saw the client go away');
    assert.equal(record.status, null, 'and never answered');
  });

  test('/requests lists what arrived; DELETE clears it', async () => {
    const list = await requests();
    const ok = list.find((r) => r.path === '/ok');
    assert.equal(ok.method, 'POST');
    assert.equal(ok.headers['x-test'], 'yes');
    assert.deepEqual(ok.body, { tool: 'demo', arguments: { text: 'héllo', n: 2 } });
    assert.equal(ok.status, 200);
    assert.equal(ok.aborted, false);
    assert.deepEqual(
      list.map((r) => r.path),
      ['/ok', '/error', '/error', '/oversized', '/text', '/delay', '/timeout'],
    );
    assert.equal((await call('/nowhere')).status, 404);
    await fetch(`${server.url}/requests`, { method: 'DELETE' });
    assert.deepEqual(await requests(), []);
  });

  test('stop() kills it by PID', async () => {
    const { pid } = server;
    await server.stop();
    assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' });
  });
});

describe('hostile server', () => {
  const list = (url) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT, 'mcp-protocol-version': '2026-07-28' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} }),
    });
  const expectations = {
    'many-tools': (body) => assert.equal(body.result.tools.length, 10_000),
    'huge-body': (body, text) => assert.ok(text.length > 3 * 1024 * 1024),
    'wrong-id': (body) => assert.equal(body.id, 1007),
    'invalid-schemas': (body) =>
      assert.deepEqual(
        body.result.tools.map((tool) => tool.name ?? null),
        ['echo', 'root_not_object', 'unknown_type', 'echo', null],
      ),
  };

  for (const wiring of HOSTILE_WIRINGS) {
    test(`hostile-${wiring} answers tools/list as documented`, TEST_TIMEOUT, async () => {
      const server = await start(`hostile-${wiring}`);
      try {
        const response = await list(server.url);
        assert.equal(response.status, 200);
        if (wiring === 'endless-sse') {
          assert.match(response.headers.get('content-type'), /^text\/event-stream/);
          const reader = response.body.getReader();
          let text = '';
          while (!/tick 2/.test(text)) text += new TextDecoder().decode((await reader.read()).value);
          assert.doesNotMatch(text, /"id"/, 'no response ever, only notifications and comments');
          await reader.cancel();
          return;
        }
        const text = await response.text();
        expectations[wiring](JSON.parse(text), text);
      } finally {
        await server.stop();
      }
    });
  }
});

describe('launcher errors', () => {
  test('an unknown id names the known ones', async () => {
    await assert.rejects(start('v3-nothing'), /unknown MCP server configuration 'v3-nothing'; known: v2-handler-/);
    await assert.rejects(start('hostile-polite'), /unknown hostile server 'hostile-polite'; known: hostile-many-tools/);
  });

  test('a server that exits before listening is reported with its stderr', async () => {
    const first = await start('custom');
    try {
      const port = Number(new URL(first.url).port);
      await assert.rejects(start('custom', { port }), (error) => {
        assert.match(error.message, /exited \(1\) before listening/);
        assert.match(error.message, /EADDRINUSE/);
        return true;
      });
    } finally {
      await first.stop();
    }
  });
});
