// A hostile MCP server for the browser tests: plain Node, no SDK, speaking just enough of the
// 2026-07-28 per-request era (a JSON-RPC POST answered at once) to be probed, and then
// misbehaving in one way named on the command line:
//   many-tools       tools/list lists 10,000 valid tools in one page
//   endless-sse      answers as text/event-stream and never sends the response: a comment and a
//                    notification every 250 ms, for as long as the client listens
//   huge-body        a valid tools/list answer of 3 MiB (one tool with a huge description)
//   wrong-id         a valid tools/list answer carrying another request's id
//   invalid-schemas  echo (valid, callable) beside tools that must be refused: schemas outside
//                    JSON Schema's object subset, a duplicate name and a tool without a name
// Usage: node hostile.mjs <wiring> [--port N]; prints `LISTENING <url>` when ready. The request
// log on stderr is the same as the other servers' (common.mjs).

import { listen, MCP_PATH, parseArgs, readJsonBody, rpcError, sendJson, textResult, TOOL_TEXT } from './common.mjs';

const ECHO = {
  name: 'echo',
  description: TOOL_TEXT.echo,
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
};

/** `count` distinct valid tools. */
function manyTools(count) {
  return Array.from({ length: count }, (_, i) => ({
    name: `tool_${i}`,
    description: `Hostile tool number ${i}.`,
    inputSchema: { type: 'object', properties: {} },
  }));
}

const REFUSED = [
  { name: 'root_not_object', description: 'Schema root is a string.', inputSchema: { type: 'string' } },
  {
    name: 'unknown_type',
    description: 'A property of an unknown type.',
    inputSchema: { type: 'object', properties: { a: { type: 'frobnicate' } } },
  },
  { name: 'echo', description: 'A second tool named echo.', inputSchema: { type: 'object', properties: {} } },
  { description: 'A tool without a name.', inputSchema: { type: 'object', properties: {} } },
];

function result(id, value) {
  return { jsonrpc: '2.0', id, result: value };
}

/** What each wiring answers to `tools/list` (request `id`). */
const LISTINGS = {
  'many-tools': (res, id) => sendJson(res, 200, result(id, { tools: manyTools(10_000) })),
  'huge-body': (res, id) =>
    sendJson(res, 200, result(id, { tools: [{ ...ECHO, description: 'x'.repeat(3 * 1024 * 1024) }] })),
  'wrong-id': (res, id) => sendJson(res, 200, result(typeof id === 'number' ? id + 1000 : 'not-yours', { tools: [ECHO] })),
  'invalid-schemas': (res, id) => sendJson(res, 200, result(id, { tools: [ECHO, ...REFUSED] })),
  'endless-sse': (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
    let n = 0;
    const timer = setInterval(() => {
      n += 1;
      const note = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: `tick ${n}` } };
      res.write(`: still here ${n}\n\ndata: ${JSON.stringify(note)}\n\n`);
    }, 250);
    res.on('close', () => clearInterval(timer));
  },
};

async function main() {
  const { wiring, port } = parseArgs(process.argv, Object.keys(LISTINGS));
  listen(
    async (req, res) => {
      if ((req.url ?? '/').split('?')[0] !== MCP_PATH) return sendJson(res, 404, rpcError(-32000, 'Not found'));
      if (req.method !== 'POST') return sendJson(res, 405, rpcError(-32000, 'Method not allowed.'));
      const message = await readJsonBody(req, res);
      if (message === undefined) return undefined;
      if (message.method === 'tools/list') return LISTINGS[wiring](res, message.id);
      if (message.method === 'tools/call' && message.params?.name === 'echo') {
        return sendJson(res, 200, result(message.id, textResult(String(message.params?.arguments?.text ?? ''))));
      }
      return sendJson(res, 200, { jsonrpc: '2.0', id: message.id ?? null, error: { code: -32601, message: 'Method not found' } });
    },
    port,
    MCP_PATH,
  );
}

await main();
