// Loopback HTTP server for the extension's custom HTTP tools. The extension POSTs
// `{"tool": <name>, "arguments": {...}}` as JSON; the path picks the behaviour:
//   POST /ok           200 application/json {ok, tool, arguments, method, contentType}
//   POST /error        500 application/json {error: {code, message}}  (?status=NNN for another code)
//   POST /timeout      never answers; when the client goes away the record says `aborted: true`
//   POST /delay?ms=N   answers like /ok after N ms (default 1000)
//   POST /oversized    200 application/json, a valid JSON body of 300 KiB (?bytes=N), over 256 KiB
//   POST /text         200 text/plain, a body that is not JSON
//   GET  /requests     every request received so far (not /requests itself), oldest first
//   DELETE /requests   forgets them
// Usage: node custom-tool.mjs [--port N]; prints `LISTENING <base url>` when ready.

import { listen, readBody, sendJson } from './common.mjs';

const OVERSIZED_DEFAULT = 300 * 1024;
/** What arrived, in order; `/requests` answers with it. */
const received = [];

function parsePort(argv) {
  const i = argv.indexOf('--port');
  const raw = i >= 0 ? argv[i + 1] : argv.find((a) => a.startsWith('--port='))?.slice('--port='.length);
  const port = raw === undefined ? 0 : Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write('usage: node custom-tool.mjs [--port N]\n');
    process.exit(2);
  }
  return port;
}

/** The body as JSON when it parses, else as text (so a test sees exactly what was sent). */
function decodeBody(raw) {
  const text = raw.toString('utf8');
  if (text === '') return { body: null, bodyText: '' };
  try {
    return { body: JSON.parse(text), bodyText: text };
  } catch {
    return { body: null, bodyText: text };
  }
}

/** A JSON body of exactly `bytes` bytes (at least the envelope's size). */
function oversizedBody(bytes) {
  const envelope = JSON.stringify({ ok: true, padding: '' });
  return JSON.stringify({ ok: true, padding: 'x'.repeat(Math.max(0, bytes - envelope.length)) });
}

const ROUTES = {
  '/ok': (record, res) => sendJson(res, 200, okBody(record)),
  '/error': (record, res, query) => {
    const status = Number(query.get('status') ?? 500);
    sendJson(res, status >= 100 && status <= 599 ? status : 500, {
      error: { code: 'TOOL_FAILED', message: `custom tool ${record.body?.tool ?? '?'} failed on purpose` },
    });
  },
  // Keeps the response open until the client gives up; `res` 'close' then records the abort.
  '/timeout': () => undefined,
  '/delay': (record, res, query) => {
    const timer = setTimeout(() => sendJson(res, 200, okBody(record)), Number(query.get('ms') ?? 1000));
    res.on('close', () => clearTimeout(timer));
  },
  '/oversized': (record, res, query) => {
    const body = oversizedBody(Number(query.get('bytes') ?? OVERSIZED_DEFAULT));
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  },
  '/text': (record, res) => {
    const body = 'plain text, not JSON\n';
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  },
};

function okBody(record) {
  return {
    ok: true,
    tool: record.body?.tool ?? null,
    arguments: record.body?.arguments ?? null,
    method: record.method,
    contentType: record.headers['content-type'] ?? null,
  };
}

async function handle(req, res) {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  if (url.pathname === '/requests') {
    if (req.method === 'DELETE') received.length = 0;
    sendJson(res, 200, received);
    return;
  }
  const record = {
    seq: received.length + 1,
    method: req.method,
    path: url.pathname,
    query: url.search,
    headers: { ...req.headers },
    body: null,
    bodyText: '',
    status: null,
    aborted: false,
  };
  received.push(record);
  // `close` before the response finished means the client went away (abort, timeout, reload).
  res.on('close', () => {
    if (!res.writableFinished) record.aborted = true;
  });
  res.on('finish', () => {
    record.status = res.statusCode;
  });
  let raw;
  try {
    raw = await readBody(req, 8 * 1024 * 1024);
  } catch {
    if (!res.destroyed) sendJson(res, 413, { error: { code: 'TOO_LARGE', message: 'request body too large' } });
    return;
  }
  Object.assign(record, decodeBody(raw));
  const route = ROUTES[url.pathname];
  if (route === undefined) {
    sendJson(res, 404, { error: { code: 'NOT_FOUND', message: `no route ${url.pathname}` } });
    return;
  }
  route(record, res, url.searchParams);
}

listen(handle, parsePort(process.argv), '');
