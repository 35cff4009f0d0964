// MCP test server on the official TypeScript SDK v1 (`@modelcontextprotocol/sdk` 1.32,
// `StreamableHTTPServerTransport`, 2025 era only), in one of five wirings named on the command line:
//   stateful | stateful-json | single | stateless-sse | stateless-json
// Usage: node mcp-v1.mjs <wiring> [--port N]; prints `LISTENING <url>` when ready.

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import { listen, MCP_PATH, parseArgs, REGION_HEADER, rpcError, sendJson, TOOL_TEXT, TOOLS } from './common.mjs';
import { sessionMapWiring, singleTransportWiring, statelessWiring } from './transport-wirings.mjs';

const Transport = StreamableHTTPServerTransport;
const WIRINGS = {
  stateful: () => sessionMapWiring({ Transport, newServer, isInitializeRequest, json: false }),
  'stateful-json': () => sessionMapWiring({ Transport, newServer, isInitializeRequest, json: true }),
  single: () => singleTransportWiring({ Transport, newServer, json: false }),
  'stateless-sse': () => statelessWiring({ Transport, newServer, json: false }),
  'stateless-json': () => statelessWiring({ Transport, newServer, json: true }),
};

/** One server instance with the three test tools. */
function newServer() {
  const server = new McpServer({ name: 'tsa-test-mcp-v1', version: '1.32.2' });
  server.registerTool('echo', { description: TOOL_TEXT.echo, inputSchema: { text: z.string() } }, async (args) =>
    TOOLS.echo(args),
  );
  server.registerTool(
    'add',
    { description: TOOL_TEXT.add, inputSchema: { a: z.number(), b: z.number() } },
    async (args) => TOOLS.add(args),
  );
  // v1's McpServer takes zod only (no JSON Schema input); zod 4's `.meta()` carries the
  // `x-mcp-header` keyword into the JSON Schema that `tools/list` emits. v1 itself never checks
  // Mcp-Param-* headers (it predates SEP-2243); the tool is here so every server lists it.
  server.registerTool(
    'lookup',
    {
      description: TOOL_TEXT.lookup,
      inputSchema: {
        region: z
          .string()
          .meta({ description: 'Region name, sent as Mcp-Param-Region too', 'x-mcp-header': REGION_HEADER }),
        query: z.string().meta({ description: 'Free text' }),
      },
    },
    async (args) => TOOLS.lookup(args),
  );
  return server;
}

async function main() {
  const { wiring, port } = parseArgs(process.argv, Object.keys(WIRINGS));
  const serve = await WIRINGS[wiring]();
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
