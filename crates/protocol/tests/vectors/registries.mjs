// Computes crates/protocol/tests/vectors/registries.json by running the
// original extension's storage code (v1.1.0, src/background/storage.js)
// under Node with its own FakeStorage: what it loads from stored custom-tool
// and MCP-server records, and what it answers and stores for each save.
//
// Usage: node registries.mjs <checkout of dbccccccc/Typst-Side-Agent> > registries.json
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const root = process.argv[2];
if (!root) throw new Error('usage: node registries.mjs <original checkout>');
const load = file => import(pathToFileURL(path.join(root, file)).href);
const storage = await load('src/background/storage.js');
const { FakeStorage } = await load('test/helpers/fakes.mjs');
const { STORAGE_KEYS } = await load('src/shared/constants.js');
const trust = await load('src/shared/trust-policy.js');

const schema = { type: 'object', properties: {} };
const withFingerprint = (record, fingerprint) => ({ ...record, trustedAutoRun: true, trustedAutoRunFingerprint: fingerprint(record) });
const tool = (extra = {}) => ({ id: 'tool-1', name: 'lookup', description: 'Look things up', endpoint: 'https://tools.example/call', headers: { Authorization: 'Bearer t' }, parameters: schema, enabled: true, ...extra });
const trustedTool = (extra = {}) => withFingerprint(tool(extra), trust.customToolTrustFingerprint);
const server = (extra = {}) => ({ id: 'server-1', name: 'docs', url: 'https://mcp.example/rpc', headers: {}, enabled: true, protocolMode: 'auto', ...extra });
const trustedServer = (extra = {}) => withFingerprint(server(extra), trust.mcpServerTrustFingerprint);

async function run(kind, c) {
  const key = kind === 'customTools' ? STORAGE_KEYS.CUSTOM_TOOLS : STORAGE_KEYS.MCP_SERVERS;
  const fake = new FakeStorage('stored' in c ? { [key]: c.stored } : {});
  storage.configureStorageAdapter(fake);
  const out = { name: c.name };
  if ('stored' in c) out.stored = c.stored;
  try {
    if (c.save) {
      out.save = c.save;
      const list = kind === 'customTools' ? c.save.tools : c.save.servers;
      const save = kind === 'customTools' ? storage.saveCustomTools : storage.saveMcpServers;
      out.answer = { ok: true, data: await save(list, c.save.mutation ?? null) };
    } else {
      const loadList = kind === 'customTools' ? storage.loadCustomTools : storage.loadMcpServers;
      out.answer = { ok: true, data: await loadList() };
    }
  } catch (error) {
    const e = { code: error.code, message: error.message };
    if (error.details != null) e.details = error.details;
    out.answer = { ok: false, error: e };
  }
  out.storedAfter = Object.hasOwn(fake.data, key) ? fake.data[key] : null;
  return out;
}

const customCases = [
  { name: 'load_absent' },
  { name: 'load_not_a_list', stored: { id: 'x' } },
  { name: 'load_null', stored: null },
  { name: 'load_panel_record_trusted', stored: [trustedTool({ insecureTransportAcknowledged: false, insecureTransportAcknowledgedOrigin: null })] },
  { name: 'load_acknowledged_http', stored: [trustedTool({ endpoint: 'http://192.168.1.5/call', insecureTransportAcknowledged: true, insecureTransportAcknowledgedOrigin: 'http://192.168.1.5' })] },
  { name: 'load_legacy_boolean_acknowledgement', stored: [{ id: 'legacy-tool', name: 'legacy_tool', endpoint: 'http://192.168.1.5/call', parameters: schema, trustedAutoRun: true, insecureTransportAcknowledged: true }] },
  { name: 'load_acknowledgement_for_other_origin', stored: [tool({ endpoint: 'http://192.168.1.7/call', insecureTransportAcknowledged: true, insecureTransportAcknowledgedOrigin: 'http://192.168.1.5' })] },
  { name: 'load_acknowledgement_on_loopback', stored: [tool({ endpoint: 'http://localhost:8080/call', insecureTransportAcknowledged: true, insecureTransportAcknowledgedOrigin: 'http://localhost:8080' })] },
  { name: 'load_stale_fingerprint', stored: [{ ...trustedTool(), endpoint: 'https://other.example/call' }] },
  { name: 'load_trust_without_fingerprint', stored: [tool({ trustedAutoRun: true })] },
  { name: 'load_fingerprint_without_trust', stored: [{ ...trustedTool(), trustedAutoRun: false }] },
  { name: 'load_partial_record_trusted', stored: [withFingerprint({ id: 'p', name: 'partial', endpoint: 'https://tools.example/p' }, trust.customToolTrustFingerprint)] },
  { name: 'load_unknown_fields', stored: [trustedTool({ note: 'mine', nested: { a: [1, 2] }, createdAt: 1700000000000 })] },
  { name: 'load_odd_values', stored: [{ id: 7, name: null, endpoint: 'not a url', headers: null, parameters: null, enabled: 'no', trustedAutoRun: 'yes', trustedAutoRunFingerprint: 3 }] },
  { name: 'load_not_records', stored: [null, 5, true] },
  { name: 'save_one', save: { tools: [tool()] } },
  { name: 'save_empty', stored: [tool()], save: { tools: [] } },
  { name: 'save_keeps_unknown_fields', save: { tools: [tool({ note: 'mine', createdAt: 1 })] } },
  { name: 'save_trusted_unchanged', save: { tools: [trustedTool()] } },
  { name: 'save_trusted_acknowledged_http', save: { tools: [trustedTool({ endpoint: 'http://192.168.1.5/call', insecureTransportAcknowledgedOrigin: 'http://192.168.1.5' })] } },
  ...Object.entries({ name: 'lookup_v2', description: 'Changed', endpoint: 'https://tools.example/v2', headers: { Authorization: 'Bearer u' }, parameters: { type: 'object', properties: { q: { type: 'string' } } } }).map(([field, value]) => ({
    name: `save_trust_drops_on_${field}_edit`,
    stored: [trustedTool()],
    save: { tools: [], mutation: { type: 'upsert', record: { id: 'tool-1', [field]: value } } }
  })),
  { name: 'save_trust_survives_unknown_field_edit', stored: [trustedTool()], save: { tools: [], mutation: { type: 'upsert', record: { id: 'tool-1', note: 'new' } } } },
  { name: 'save_trust_survives_enabled_edit', stored: [trustedTool()], save: { tools: [], mutation: { type: 'toggle', id: 'tool-1' } } },
  { name: 'save_trust_drops_on_id_change_in_list', save: { tools: [{ ...trustedTool(), id: 'tool-2' }] } },
  { name: 'save_upsert_merges_into_stored', stored: [tool({ note: 'kept' }), tool({ id: 'tool-2', name: 'other' })], save: { tools: [tool({ description: 'from the payload copy' })], mutation: { type: 'upsert', record: { id: 'tool-2', description: 'merged' } } } },
  { name: 'save_upsert_appends', stored: [tool()], save: { tools: [], mutation: { type: 'upsert', record: tool({ id: 'tool-2', name: 'second' }) } } },
  { name: 'save_remove', stored: [tool(), tool({ id: 'tool-2', name: 'second' })], save: { tools: [], mutation: { type: 'remove', id: 'tool-1' } } },
  { name: 'save_remove_unknown_id', stored: [tool()], save: { tools: [], mutation: { type: 'remove', id: 'missing' } } },
  { name: 'save_toggle_off', stored: [tool()], save: { tools: [], mutation: { type: 'toggle', id: 'tool-1' } } },
  { name: 'save_toggle_on', stored: [tool({ enabled: false })], save: { tools: [], mutation: { type: 'toggle', id: 'tool-1' } } },
  { name: 'save_toggle_absent_enabled', stored: [{ id: 'tool-1', name: 'lookup', endpoint: 'https://tools.example/call' }], save: { tools: [], mutation: { type: 'toggle', id: 'tool-1' } } },
  { name: 'save_replace', stored: [tool()], save: { tools: [], mutation: { type: 'replace', records: [tool({ id: 'tool-9', name: 'ninth' })] } } },
  { name: 'save_mutation_on_empty_store', save: { tools: [tool()], mutation: { type: 'toggle', id: 'tool-1' } } },
  { name: 'refuse_missing_id', save: { tools: [{ name: 'lookup', endpoint: 'https://tools.example/call' }] } },
  { name: 'refuse_bad_id', save: { tools: [tool({ id: 'has space' })] } },
  { name: 'refuse_long_id', save: { tools: [tool({ id: 'a'.repeat(129) })] } },
  { name: 'accept_longest_id', save: { tools: [tool({ id: 'a'.repeat(128) })] } },
  { name: 'refuse_duplicate_id', save: { tools: [tool(), tool({ name: 'other' })] } },
  { name: 'refuse_bad_name', save: { tools: [tool({ name: '1lookup' })] } },
  { name: 'refuse_short_name', save: { tools: [tool({ name: 'a' })] } },
  { name: 'refuse_long_name', save: { tools: [tool({ name: 'a'.repeat(42) })] } },
  { name: 'accept_longest_name', save: { tools: [tool({ name: 'a'.repeat(41) })] } },
  { name: 'refuse_name_with_dash', save: { tools: [tool({ name: 'look-up' })] } },
  { name: 'refuse_reserved_name', save: { tools: [tool({ name: 'read_document' })] } },
  { name: 'refuse_reserved_name_any_case', save: { tools: [tool({ name: 'Replace_Selection' })] } },
  { name: 'refuse_duplicate_name', save: { tools: [tool(), tool({ id: 'tool-2', name: 'LookUp' })] } },
  { name: 'refuse_first_error_wins', save: { tools: [tool({ endpoint: 'ftp://x' }), tool({ id: 'tool-2', name: '9' })] } },
  { name: 'refuse_bad_schema', save: { tools: [tool({ parameters: { type: 'string' } })] } },
  { name: 'refuse_false_schema', save: { tools: [tool({ parameters: false })] } },
  { name: 'refuse_mcp_header_in_custom_schema', save: { tools: [tool({ parameters: { type: 'object', properties: { a: { type: 'string', 'x-mcp-header': 'A' } } } })] } },
  { name: 'accept_null_schema', save: { tools: [tool({ parameters: null })] } },
  { name: 'refuse_bad_url', save: { tools: [tool({ endpoint: 'not a url' })] } },
  { name: 'refuse_missing_endpoint', save: { tools: [{ id: 'a', name: 'lookup' }] } },
  { name: 'refuse_credentials', save: { tools: [tool({ endpoint: 'https://u:p@tools.example/call' })] } },
  { name: 'refuse_scheme', save: { tools: [tool({ endpoint: 'file:///etc/passwd' })] } },
  { name: 'refuse_cleartext', save: { tools: [tool({ endpoint: 'http://192.168.1.5/call' })] } },
  { name: 'refuse_legacy_boolean_acknowledgement', save: { tools: [tool({ endpoint: 'http://192.168.1.5/call', insecureTransportAcknowledged: true })] } },
  { name: 'refuse_acknowledgement_of_other_origin', save: { tools: [tool({ endpoint: 'http://192.168.1.5:8080/call', insecureTransportAcknowledgedOrigin: 'http://192.168.1.5' })] } },
  { name: 'accept_loopback_http', save: { tools: [tool({ endpoint: 'http://127.0.0.1:9000/call' })] } },
  { name: 'accept_acknowledged_http', save: { tools: [tool({ endpoint: 'http://192.168.1.5/call', insecureTransportAcknowledged: true, insecureTransportAcknowledgedOrigin: 'http://192.168.1.5' })] } },
  { name: 'refuse_headers_not_object', save: { tools: [tool({ headers: ['a'] })] } },
  { name: 'refuse_header_limit', save: { tools: [tool({ headers: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`X-${i}`, 'v'])) })] } },
  { name: 'refuse_bad_header', save: { tools: [tool({ headers: { 'Bad Name': 'v' } })] } },
  { name: 'refuse_protected_header', save: { tools: [tool({ headers: { 'content-type': 'text/plain' } })] } },
  { name: 'accept_mcp_header_on_custom_tool', save: { tools: [tool({ headers: { 'Mcp-Method': 'x' } })] } },
  { name: 'refuse_leaves_store_unchanged', stored: [tool({ note: 'kept' })], save: { tools: [tool({ name: 'x' })] } },
  { name: 'refuse_mutation_result', stored: [tool()], save: { tools: [], mutation: { type: 'upsert', record: { id: 'tool-1', name: 'read_document' } } } },
  { name: 'refuse_select_mutation', stored: [tool()], save: { tools: [], mutation: { type: 'select', id: 'tool-1' } } }
];

const serverCases = [
  { name: 'load_absent' },
  { name: 'load_not_a_list', stored: 'servers' },
  { name: 'load_panel_record_trusted', stored: [trustedServer({ insecureTransportAcknowledged: false, insecureTransportAcknowledgedOrigin: null })] },
  { name: 'load_protocol_mode_defaults_to_auto', stored: [withFingerprint({ id: 's', name: 'n', url: 'https://mcp.example/rpc' }, trust.mcpServerTrustFingerprint)] },
  { name: 'load_unknown_protocol_mode_is_kept', stored: [server({ protocolMode: '2024-11-05' })] },
  { name: 'load_acknowledged_http', stored: [trustedServer({ url: 'http://10.0.0.2:7000/mcp', insecureTransportAcknowledged: true, insecureTransportAcknowledgedOrigin: 'http://10.0.0.2:7000' })] },
  { name: 'load_legacy_boolean_acknowledgement', stored: [{ id: 'legacy-server', name: 'legacy', url: 'http://192.168.1.6/rpc', trustedAutoRun: true, insecureTransportAcknowledged: true }] },
  { name: 'load_stale_fingerprint', stored: [{ ...trustedServer(), headers: { Authorization: 'changed' } }] },
  { name: 'load_unknown_fields', stored: [trustedServer({ note: 'mine', lastProbe: { ok: true } })] },
  { name: 'load_not_records', stored: [null, 7] },
  { name: 'save_one', save: { servers: [server()] } },
  { name: 'save_trusted_unchanged', save: { servers: [trustedServer()] } },
  { name: 'save_keeps_unknown_fields', save: { servers: [server({ note: 'mine' })] } },
  { name: 'save_defaults_protocol_mode', save: { servers: [{ id: 's', name: 'n', url: 'https://mcp.example/rpc' }] } },
  ...Object.entries({ name: 'docs v2', url: 'https://mcp.example/v2', headers: { Authorization: 'Bearer u' }, protocolMode: '2026-07-28' }).map(([field, value]) => ({
    name: `save_trust_drops_on_${field}_edit`,
    stored: [trustedServer()],
    save: { servers: [], mutation: { type: 'upsert', record: { id: 'server-1', [field]: value } } }
  })),
  { name: 'save_trust_drops_on_id_change_in_list', save: { servers: [{ ...trustedServer(), id: 'server-2' }] } },
  { name: 'save_trust_survives_auto_made_explicit', stored: [withFingerprint({ id: 's', name: 'n', url: 'https://mcp.example/rpc' }, trust.mcpServerTrustFingerprint)], save: { servers: [], mutation: { type: 'upsert', record: { id: 's', protocolMode: 'auto' } } } },
  { name: 'save_trust_survives_enabled_edit', stored: [trustedServer()], save: { servers: [], mutation: { type: 'toggle', id: 'server-1' } } },
  { name: 'save_upsert_merges_into_stored', stored: [server({ note: 'kept' })], save: { servers: [], mutation: { type: 'upsert', record: { id: 'server-1', name: 'renamed' } } } },
  { name: 'save_remove', stored: [server(), server({ id: 'server-2' })], save: { servers: [], mutation: { type: 'remove', id: 'server-2' } } },
  { name: 'save_replace', stored: [server()], save: { servers: [], mutation: { type: 'replace', records: [] } } },
  { name: 'accept_no_name', save: { servers: [{ id: 's', url: 'https://mcp.example/rpc' }] } },
  { name: 'accept_protocol_2026', save: { servers: [server({ protocolMode: '2026-07-28' })] } },
  { name: 'refuse_missing_id', save: { servers: [{ name: 'n', url: 'https://mcp.example/rpc' }] } },
  { name: 'refuse_bad_id', save: { servers: [server({ id: 'a/b' })] } },
  { name: 'refuse_duplicate_id', save: { servers: [server(), server()] } },
  { name: 'refuse_bad_url', save: { servers: [server({ url: '' })] } },
  { name: 'refuse_credentials', save: { servers: [server({ url: 'https://a@mcp.example/rpc' })] } },
  { name: 'refuse_scheme', save: { servers: [server({ url: 'ws://mcp.example/rpc' })] } },
  { name: 'refuse_cleartext', save: { servers: [server({ url: 'http://mcp.example/rpc' })] } },
  { name: 'accept_loopback_http', save: { servers: [server({ url: 'http://localhost:7000/mcp' })] } },
  { name: 'accept_acknowledged_http', save: { servers: [server({ url: 'http://mcp.example/rpc', insecureTransportAcknowledgedOrigin: 'http://mcp.example' })] } },
  { name: 'refuse_headers_not_object', save: { servers: [server({ headers: 'x' })] } },
  { name: 'refuse_protected_mcp_header', save: { servers: [server({ headers: { 'Mcp-Method': 'x' } })] } },
  { name: 'refuse_accept_header', save: { servers: [server({ headers: { Accept: 'x' } })] } },
  { name: 'refuse_mcp_param_header', save: { servers: [server({ headers: { 'Mcp-Param-Q': 'x' } })] } },
  { name: 'refuse_unknown_protocol_mode', save: { servers: [server({ protocolMode: '2024-11-05' })] } },
  { name: 'refuse_in_server_order', save: { servers: [server({ protocolMode: 'x' }), server({ id: 'server-2', url: 'nope' })] } },
  { name: 'refuse_mutation_result', stored: [server()], save: { servers: [], mutation: { type: 'upsert', record: { id: 'server-1', url: 'ftp://x' } } } },
  { name: 'refuse_select_mutation', stored: [server()], save: { servers: [], mutation: { type: 'select', id: 'server-1' } } }
];

const out = {
  about: 'Computed by crates/protocol/tests/vectors/registries.mjs from the original extension (v1.1.0) under Node: for each case the stored value of typstAgent.customTools or typstAgent.mcpServers (absent when missing), the save request if any, the answer of loadCustomTools/saveCustomTools or loadMcpServers/saveMcpServers, and the stored value afterwards.',
  customTools: [],
  mcpServers: []
};
for (const c of customCases) out.customTools.push(await run('customTools', c));
for (const c of serverCases) out.mcpServers.push(await run('mcpServers', c));
process.stdout.write(JSON.stringify(out, null, 1) + '\n');
