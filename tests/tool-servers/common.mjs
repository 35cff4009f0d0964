// Shared plumbing of the Node test servers (mcp-v2.mjs, mcp-v1.mjs, custom-tool.mjs): argv, the
// one-JSON-line request log on stderr, body reading, loopback listening with the `LISTENING <url>`
// announcement, and the behaviour of the three MCP tools. The SDK-specific registration lives in
// each server script; only the tools' meaning is defined here, so every server answers alike.

import http from 'node:http';

/** Headers every request log line carries (lower case; `null` when absent). */
export const LOGGED_HEADERS = ['mcp-protocol-version', 'mcp-session-id', 'mcp-method', 'mcp-name', 'origin'];

/** The MCP endpoint path of every MCP server here (the Python SDK's default, used by Node too). */
export const MCP_PATH = '/mcp';

/**
 * Reads `<wiring> [--port N]` from argv. The wiring is mandatory because a server started in the
 * wrong configuration would make a test pass or fail for the wrong reason.
 */
export function parseArgs(argv, wirings) {
  const args = argv.slice(2);
  let port = 0;
  const positional = [];
  for (let i = 0; i < args.length; i += 1) {
    if (args[i] === '--port') {
      port = Number(args[i + 1]);
      i += 1;
    } else if (args[i].startsWith('--port=')) {
      port = Number(args[i].slice('--port='.length));
    } else {
      positional.push(args[i]);
    }
  }
  const [wiring] = positional;
  if (!wirings.includes(wiring) || !Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`usage: node ${argv[1]} <${wirings.join('|')}> [--port N]\n`);
    process.exit(2);
  }
  return { wiring, port };
}

/**
 * Writes the request log line: tests read these from stderr to assert what reached the server.
 * Shape: `{"event":"request","method","path","headers":{<LOGGED_HEADERS>, mcp-param-*}}`.
 */
export function logRequest(req) {
  const headers = {};
  for (const name of LOGGED_HEADERS) {
    const value = req.headers[name];
    headers[name] = value === undefined ? null : String(value);
  }
  // SEP-2243 parameter headers (Mcp-Param-<token>) are logged too, so a test can see whether a
  // client mirrored an `x-mcp-header` argument.
  for (const [name, value] of Object.entries(req.headers)) {
    if (name.startsWith('mcp-param-')) headers[name] = String(value);
  }
  const path = (req.url ?? '/').split('?')[0];
  process.stderr.write(`${JSON.stringify({ event: 'request', method: req.method, path, headers })}\n`);
}

/** Reads a request body as a Buffer, refusing (rejecting) past `limit` bytes. */
export function readBody(req, limit = 4 * 1024 * 1024) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size > limit) {
        reject(new Error('request body too large'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Sends one JSON value with a status (used for the app-level answers of the wirings). */
export function sendJson(res, status, value, extraHeaders = {}) {
  const body = JSON.stringify(value);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    ...extraHeaders,
  });
  res.end(body);
}

/** A JSON-RPC error body with `id: null`, the shape the SDK examples answer HTTP-level errors with. */
export function rpcError(code, message) {
  return { jsonrpc: '2.0', error: { code, message }, id: null };
}

/**
 * Parses a POST body as JSON for the wirings that must look at it before the transport does
 * (to spot `initialize`). Answers 400 -32700 itself on bad JSON, as express.json() in the SDK
 * examples would, and returns `undefined` then.
 */
export async function readJsonBody(req, res) {
  let raw;
  try {
    raw = await readBody(req);
  } catch {
    sendJson(res, 413, rpcError(-32000, 'Request body too large'));
    return undefined;
  }
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    sendJson(res, 400, rpcError(-32700, 'Parse error'));
    return undefined;
  }
}

/**
 * Serves `handler` on 127.0.0.1 only, logging every request first, then prints
 * `LISTENING <url>` on stdout once the socket is bound. SIGTERM/SIGINT end the process at once:
 * the harness stops servers by PID and open SSE streams must not hold it up.
 */
export function listen(handler, port, path) {
  const server = http.createServer((req, res) => {
    logRequest(req);
    Promise.resolve(handler(req, res)).catch((error) => {
      process.stderr.write(`${JSON.stringify({ event: 'error', message: String(error?.stack ?? error) })}\n`);
      if (!res.headersSent) sendJson(res, 500, rpcError(-32603, 'Internal server error'));
      else res.end();
    });
  });
  const stop = () => {
    server.closeAllConnections();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  server.listen(port, '127.0.0.1', () => {
    const { port: bound } = server.address();
    process.stdout.write(`LISTENING http://127.0.0.1:${bound}${path}\n`);
  });
  return server;
}

/** Tool descriptions, shared so `tools/list` reads the same on every server. */
export const TOOL_TEXT = {
  echo: 'Returns the given text unchanged.',
  add: 'Adds two numbers and returns the sum as text.',
  lookup: 'Echoes a region and a query; the region is mirrored into the Mcp-Param-Region header (x-mcp-header).',
};

/** The `x-mcp-header` token of the lookup tool's `region` argument (SEP-2243). */
export const REGION_HEADER = 'Region';

/** The JSON Schema of the lookup tool, for SDKs that accept a JSON Schema directly. */
export const LOOKUP_SCHEMA = {
  type: 'object',
  properties: {
    region: { type: 'string', description: 'Region name, sent as Mcp-Param-Region too', 'x-mcp-header': REGION_HEADER },
    query: { type: 'string', description: 'Free text' },
  },
  required: ['region', 'query'],
  additionalProperties: false,
};

/** A text-only tool result. */
export function textResult(text) {
  return { content: [{ type: 'text', text }] };
}

/** The tools' behaviour: plain functions from arguments to a result. */
export const TOOLS = {
  echo: ({ text }) => textResult(text),
  add: ({ a, b }) => textResult(String(a + b)),
  lookup: ({ region, query }) => textResult(`${region}:${query}`),
};
