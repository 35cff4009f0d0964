// The three classic Streamable HTTP transport wirings, written once for both SDKs: the v1
// `StreamableHTTPServerTransport` and the v2 `NodeStreamableHTTPServerTransport` share the
// `handleRequest(req, res, parsedBody)` / `sessionId` / `close()` surface, so the SDK script passes
// its own transport class and server factory. The shapes follow the SDKs' example servers; the
// app-level answers (400 without a session id, 404 for an unknown one, 405) are ours, as there.

import { randomUUID } from 'node:crypto';
import { readJsonBody, rpcError, sendJson } from './common.mjs';

const NO_SESSION = 'Bad Request: No valid session ID provided';

/**
 * Stateful, one transport (and one server) per session, kept in a map by session id; a new one
 * is made only for an `initialize` without a session id. `json` selects `enableJsonResponse`.
 */
export function sessionMapWiring({ Transport, newServer, isInitializeRequest, json }) {
  const transports = new Map();
  const existing = (req, res) => {
    const id = req.headers['mcp-session-id'];
    if (id === undefined) {
      sendJson(res, 400, rpcError(-32000, NO_SESSION));
      return undefined;
    }
    const transport = transports.get(id);
    // An unknown id is a session the server forgot (or closed with DELETE): 404 tells a client to
    // re-initialize, which is what the SDK transport itself answers for a wrong id.
    if (transport === undefined) sendJson(res, 404, rpcError(-32001, 'Session not found'));
    return transport;
  };
  return async (req, res) => {
    if (req.method === 'POST') {
      const body = await readJsonBody(req, res);
      if (body === undefined) return;
      if (req.headers['mcp-session-id'] === undefined && isInitializeRequest(body)) {
        const transport = new Transport({
          sessionIdGenerator: () => randomUUID(),
          enableJsonResponse: json,
          onsessioninitialized: (id) => transports.set(id, transport),
          onsessionclosed: (id) => transports.delete(id),
        });
        transport.onclose = () => {
          if (transport.sessionId !== undefined) transports.delete(transport.sessionId);
        };
        await newServer().connect(transport);
        await transport.handleRequest(req, res, body);
        return;
      }
      const transport = existing(req, res);
      if (transport !== undefined) await transport.handleRequest(req, res, body);
      return;
    }
    if (req.method === 'GET' || req.method === 'DELETE') {
      const transport = existing(req, res);
      if (transport !== undefined) await transport.handleRequest(req, res);
      return;
    }
    sendJson(res, 405, rpcError(-32000, 'Method not allowed.'), { allow: 'GET, POST, DELETE' });
  };
}

/**
 * Stateful with ONE transport for the whole process: the SDK's own session handling answers
 * everything (a second `initialize` is refused, requests before `initialize` get "Server not
 * initialized"). It serves one client session; after that session's DELETE every request is 404.
 */
export async function singleTransportWiring({ Transport, newServer, json }) {
  const transport = new Transport({ sessionIdGenerator: () => randomUUID(), enableJsonResponse: json });
  await newServer().connect(transport);
  return async (req, res) => {
    if (req.method === 'POST') {
      const body = await readJsonBody(req, res);
      if (body === undefined) return;
      await transport.handleRequest(req, res, body);
      return;
    }
    await transport.handleRequest(req, res);
  };
}

/**
 * Stateless (`sessionIdGenerator: undefined`): a fresh server and transport for every POST, as in
 * the SDKs' stateless examples; GET and DELETE have nothing to serve and get 405.
 */
export function statelessWiring({ Transport, newServer, json }) {
  return async (req, res) => {
    if (req.method !== 'POST') {
      sendJson(res, 405, rpcError(-32000, 'Method not allowed.'), { allow: 'POST' });
      return;
    }
    const body = await readJsonBody(req, res);
    if (body === undefined) return;
    const server = newServer();
    const transport = new Transport({ sessionIdGenerator: undefined, enableJsonResponse: json });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };
}
