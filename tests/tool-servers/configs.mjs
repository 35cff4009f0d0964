// The 18 MCP server configurations of /work/shared/spec/mcp-interop.md ("Result table"), as data:
// which script and wiring serve each one, and what the official TypeScript client 2.4 in `auto`
// mode negotiates there (`expected`). launch.mjs starts them by `id`; self-test.mjs checks each.
//
// Fields: id; sdk ('v2' | 'v1' | 'python'); script (file in this folder); wiring (its argv word);
// mode (the spec table's wording); sessions (whether the server issues Mcp-Session-Id to a 2025
// client); framing.modern / framing.legacy (how a POST of that era is answered: 'json' =
// application/json, 'sse' = text/event-stream, 'auto' = JSON unless the handler streams, null =
// that era is not served); originCheck (a foreign Origin is refused with 403); expected.era
// ('modern' = 2026-07-28 per-request, 'legacy' = 2025 initialize handshake) and expected.version,
// as the official client in `auto` mode negotiates them.

const MODERN = { era: 'modern', version: '2026-07-28' };
const LEGACY = { era: 'legacy', version: '2025-11-25' };
const SCRIPTS = { v2: 'mcp-v2.mjs', v1: 'mcp-v1.mjs', python: 'mcp_python.py' };
const PREFIX = { v2: 'v2', v1: 'v1', python: 'py' };

/** One configuration; `modern`/`legacy` are the framings of the two eras (null: not served). */
function row(sdk, wiring, mode, { sessions, modern, legacy, expected }) {
  return Object.freeze({
    id: `${PREFIX[sdk]}-${wiring}`,
    sdk,
    script: SCRIPTS[sdk],
    wiring,
    mode,
    sessions,
    framing: Object.freeze({ modern, legacy }),
    originCheck: sdk === 'python',
    expected,
  });
}

const TRANSPORT = 'NodeStreamableHTTPServerTransport';
const V1_TRANSPORT = 'StreamableHTTPServerTransport';

/** Every configuration, in the order of the spec's table. */
export const CONFIGS = Object.freeze([
  row('v2', 'handler-default', "createMcpHandler default (legacy:'stateless', responseMode:'auto')", {
    sessions: false,
    modern: 'auto',
    legacy: 'sse',
    expected: MODERN,
  }),
  row('v2', 'handler-sse', "createMcpHandler responseMode:'sse'", {
    sessions: false,
    modern: 'sse',
    legacy: 'sse',
    expected: MODERN,
  }),
  row('v2', 'handler-json', "createMcpHandler responseMode:'json'", {
    sessions: false,
    modern: 'json',
    legacy: 'sse',
    expected: MODERN,
  }),
  row('v2', 'handler-reject', "createMcpHandler legacy:'reject' (modern only)", {
    sessions: false,
    modern: 'auto',
    legacy: null,
    expected: MODERN,
  }),
  row('v2', 'transport-stateful', `${TRANSPORT}, stateful (session map, SSE)`, {
    sessions: true,
    modern: null,
    legacy: 'sse',
    expected: LEGACY,
  }),
  row('v2', 'transport-stateful-json', `${TRANSPORT}, stateful, enableJsonResponse`, {
    sessions: true,
    modern: null,
    legacy: 'json',
    expected: LEGACY,
  }),
  row('v2', 'transport-single', `${TRANSPORT}, stateful, one transport instance`, {
    sessions: true,
    modern: null,
    legacy: 'sse',
    expected: LEGACY,
  }),
  row('v2', 'transport-stateless-sse', `${TRANSPORT}, stateless (sessionIdGenerator: undefined), SSE`, {
    sessions: false,
    modern: null,
    legacy: 'sse',
    expected: LEGACY,
  }),
  row('v2', 'transport-stateless-json', `${TRANSPORT}, stateless, JSON`, {
    sessions: false,
    modern: null,
    legacy: 'json',
    expected: LEGACY,
  }),
  row('v1', 'stateful', `${V1_TRANSPORT}, stateful (session map, SSE)`, {
    sessions: true,
    modern: null,
    legacy: 'sse',
    expected: LEGACY,
  }),
  row('v1', 'stateful-json', `${V1_TRANSPORT}, stateful, enableJsonResponse`, {
    sessions: true,
    modern: null,
    legacy: 'json',
    expected: LEGACY,
  }),
  row('v1', 'single', `${V1_TRANSPORT}, stateful, one transport instance`, {
    sessions: true,
    modern: null,
    legacy: 'sse',
    expected: LEGACY,
  }),
  row('v1', 'stateless-sse', `${V1_TRANSPORT}, stateless, SSE`, {
    sessions: false,
    modern: null,
    legacy: 'sse',
    expected: LEGACY,
  }),
  row('v1', 'stateless-json', `${V1_TRANSPORT}, stateless, JSON`, {
    sessions: false,
    modern: null,
    legacy: 'json',
    expected: LEGACY,
  }),
  row('python', 'stateful-sse', 'MCPServer.streamable_http_app() stateful (default), SSE', {
    sessions: true,
    modern: 'json',
    legacy: 'sse',
    expected: MODERN,
  }),
  row('python', 'stateful-json', 'MCPServer stateful, json_response', {
    sessions: true,
    modern: 'json',
    legacy: 'json',
    expected: MODERN,
  }),
  row('python', 'stateless-sse', 'MCPServer stateless_http, SSE', {
    sessions: false,
    modern: 'json',
    legacy: 'sse',
    expected: MODERN,
  }),
  row('python', 'stateless-json', 'MCPServer stateless_http + json_response', {
    sessions: false,
    modern: 'json',
    legacy: 'json',
    expected: MODERN,
  }),
]);

/** The configuration with this id, or an error naming the known ids. */
export function configById(id) {
  const config = CONFIGS.find((c) => c.id === id);
  if (config === undefined) {
    throw new Error(`unknown MCP server configuration '${id}'; known: ${CONFIGS.map((c) => c.id).join(', ')}`);
  }
  return config;
}

/** The misbehaviours of hostile.mjs, started as `hostile-<wiring>` (not an SDK configuration). */
export const HOSTILE_WIRINGS = Object.freeze(['many-tools', 'endless-sse', 'huge-body', 'wrong-id', 'invalid-schemas']);
