// MCP test server on the official TypeScript SDK v2 (`@modelcontextprotocol/server` +
// `@modelcontextprotocol/node`), in one of nine wirings named on the command line:
//   handler-default | handler-sse | handler-json | handler-reject    — createMcpHandler (2026-07-28
//       per-request era; the first three also serve 2025 traffic statelessly, `reject` does not)
//   transport-stateful | transport-stateful-json | transport-single
//   transport-stateless-sse | transport-stateless-json              — the classic
//       NodeStreamableHTTPServerTransport (2025 era only)
// Usage: node mcp-v2.mjs <wiring> [--port N]; prints `LISTENING <url>` when ready.

import { NodeStreamableHTTPServerTransport, toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, fromJsonSchema, isInitializeRequest, McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { listen, LOOKUP_SCHEMA, MCP_PATH, parseArgs, rpcError, sendJson, TOOL_TEXT, TOOLS } from './common.mjs';
import { sessionMapWiring, singleTransportWiring, statelessWiring } from './transport-wirings.mjs';

const Transport = NodeStreamableHTTPServerTransport;
const HANDLER_OPTIONS = {
  'handler-default': {},
  'handler-sse': { responseMode: 'sse' },
  'handler-json': { responseMode: 'json' },
  'handler-reject': { legacy: 'reject' },
};
const TRANSPORT_WIRINGS = {
  'transport-stateful': () => sessionMapWiring({ Transport, newServer, isInitializeRequest, json: false }),
  'transport-stateful-json': () => sessionMapWiring({ Transport, newServer, isInitializeRequest, json: true }),
  'transport-single': () => singleTransportWiring({ Transport, newServer, json: false }),
  'transport-stateless-sse': () => statelessWiring({ Transport, newServer, json: false }),
  'transport-stateless-json': () => statelessWiring({ Transport, newServer, json: true }),
};
/** One server instance with the three test tools (the handler asks for one per request). */
function newServer() {
  const server = new McpServer({ name: 'tsa-test-mcp-v2', version: '2.4.0' });
  server.registerTool(
    'echo',
    { description: TOOL_TEXT.echo, inputSchema: z.object({ text: z.string() }) },
    async (args) => TOOLS.echo(args),
  );
  server.registerTool(
    'add',
    { description: TOOL_TEXT.add, inputSchema: z.object({ a: z.number(), b: z.number() }) },
    async (args) => TOOLS.add(args),
  );
  // Declared by JSON Schema so the `x-mcp-header` keyword reaches `tools/list` untouched; the v2
  // modern path then requires a matching `Mcp-Param-Region` header on `tools/call`.
  server.registerTool(
    'lookup',
    { description: TOOL_TEXT.lookup, inputSchema: fromJsonSchema(LOOKUP_SCHEMA) },
    async (args) => TOOLS.lookup(args),
  );
  return server;
}

async function main() {
  const wirings = [...Object.keys(HANDLER_OPTIONS), ...Object.keys(TRANSPORT_WIRINGS)];
  const { wiring, port } = parseArgs(process.argv, wirings);
  const serve =
    wiring in HANDLER_OPTIONS
      ? toNodeHandler(createMcpHandler(() => newServer(), HANDLER_OPTIONS[wiring]))
      : await TRANSPORT_WIRINGS[wiring]();
  listen(
    (req, res) => {
      if ((req.url ?? '/').split('?')[0] !== MCP_PATH) return sendJson(res, 404, rpcError(-32000, 'Not found'));
      return serve(req, res);
    },
    port,
    MCP_PATH,
  );
}

await main();
