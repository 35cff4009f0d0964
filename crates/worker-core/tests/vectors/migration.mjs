// Computes crates/worker-core/tests/vectors/migration.json: profiles written
// by the original extension's own storage code, and what the original answers
// for them. v1.0.1's storage.js writes the pre-v2 chat aggregate
// (`typstAgent.sessions`) the way its panel saved chats; v1.1.0's storage.js
// writes a full v2 profile (settings, custom tools, MCP servers, theme, chats,
// checkpoints, snapshots), migrates the pre-v2 profile, imports export files
// and exports. Both run under Node with v1.1.0's FakeStorage; time and random
// ids are replaced by counters so every run writes the same file.
//
// Usage: node migration.mjs <checkout of v1.1.0> <checkout of v1.0.1> > migration.json
// (a checkout: `git -C <mirror> archive v1.1.0 | tar -x -C <dir>`).
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [root, legacyRoot] = process.argv.slice(2);
if (!root || !legacyRoot) throw new Error('usage: node migration.mjs <v1.1.0 checkout> <v1.0.1 checkout>');
const load = (base, file) => import(pathToFileURL(path.join(base, file)).href);

// Deterministic time and ids, so the file is reproducible. The port's fake
// clock starts at the same instant.
const START = 1_700_000_000_000;
let now = START;
Date.now = () => now;
const tick = (ms = 1000) => { now += ms; };
let uuidCounter = 0;
const uuid = () => `00000000-0000-4000-8000-${String(++uuidCounter).padStart(12, '0')}`;
Object.defineProperty(globalThis.crypto, 'randomUUID', { value: uuid, configurable: true });

const storage = await load(root, 'src/background/storage.js');
const { FakeStorage } = await load(root, 'test/helpers/fakes.mjs');
const { STORAGE_KEYS } = await load(root, 'src/shared/constants.js');
const { sha256Text } = await load(root, 'src/shared/edit-checkpoint.js');

// v1.0.1 reads chrome.storage.local directly.
const legacyFake = new FakeStorage();
globalThis.chrome = { storage: { local: legacyFake } };
const legacyStorage = await load(legacyRoot, 'src/background/storage.js');

const clone = value => structuredClone(value);
async function answer(promise) {
  try { return { ok: true, data: await promise }; }
  catch (error) {
    const e = { code: error.code, message: error.message };
    if (error.details != null) e.details = error.details;
    return { ok: false, error: e };
  }
}

// ---------- Messages as each version's panel saved them ----------

const emoji = '\u{1F600}';
// A preview of 160 UTF-16 units ends inside the emoji (units 159 and 160).
const straddling = `${'p'.repeat(159)}${emoji} tail`;

const rawReadResult = { ok: true, content: '= Title\nBody', doc_chars: 12, approx_line_count: 2, start_line: 1, end_line: 2, truncated: false };
// Keys in alphabetical order, so the original's summary text is the one a
// sorted JSON writer produces as well (see ARCHITECTURE: key order).
const rawCustomResult = { answer: 42, ok: true };

function v1Chat() {
  return [
    { role: 'user', content: `Summarise ${emoji} please`, sentAttachments: { selections: [{ text: 'selected text' }], previews: [{ dataUrl: 'data:image/png;base64,iVBORw0KGgo=' }] } },
    {
      role: 'assistant', content: 'Done.', reasoning: 'thinking',
      toolCalls: [{ id: 'call_1', name: 'read_document', args: { start_line: 1 } }, { id: 'call_2', name: 'lookup', args: { q: 'x' } }],
      segments: [
        { type: 'reasoning', content: 'thinking' },
        { type: 'tools', calls: [{ id: 'call_1', name: 'read_document', args: { start_line: 1 } }, { id: 'call_2', name: 'lookup', args: { q: 'x' } }], results: { call_1: rawReadResult, call_2: rawCustomResult } },
        { type: 'text', content: 'Done.' }
      ]
    }
  ];
}

// ---------- The pre-v2 profile, written by v1.0.1 ----------

async function preV2Profile() {
  tick();
  await legacyStorage.saveSettings({ systemPrompt: 'Be brief.', models: [{ id: 'm1', name: 'Model', apiBaseUrl: 'https://api.example/v1', apiKey: 'sk-old', modelId: 'gpt' }], activeModelId: 'm1', maxHistoryMessages: 30, autoNameModelId: null });
  await legacyStorage.saveCustomTools([{ id: 'tool-1', name: 'lookup', description: 'Look up', endpoint: 'https://tools.example/call', headers: { Authorization: 'Bearer t' }, parameters: { type: 'object', properties: {} }, enabled: true }]);
  await legacyStorage.saveMcpServers([{ id: 'server-1', name: 'docs', url: 'https://mcp.example/rpc', headers: {}, enabled: true }]);
  await legacyStorage.saveTheme('light');
  const first = await legacyStorage.sessionCreate('proj-a', 'Old chat');
  tick();
  await legacyStorage.sessionUpdate(first.id, { messages: v1Chat() });
  tick();
  const second = await legacyStorage.sessionCreate('proj-a');
  tick();
  await legacyStorage.sessionUpdate(second.id, { messages: [{ role: 'user', content: straddling }, { role: 'assistant', content: 'ok' }] });
  tick();
  // A whole-document patch: its arguments are longer than the v2 schema keeps,
  // so the original's migration rejects this chat and then deletes it.
  const long = await legacyStorage.sessionCreate('proj-b', 'Long patch');
  tick();
  const big = 'x'.repeat(17_000);
  await legacyStorage.sessionUpdate(long.id, { messages: [
    { role: 'user', content: 'Rewrite it' },
    { role: 'assistant', content: 'Rewritten.', toolCalls: [{ id: 'call_9', name: 'patch_document', args: { edits: [{ old: 'a', new: big }] } }], segments: [{ type: 'tools', calls: [{ id: 'call_9', name: 'patch_document', args: { edits: [{ old: 'a', new: big }] } }], results: { call_9: { ok: true, edits_applied: 1 } } }, { type: 'text', content: 'Rewritten.' }] }
  ] });
  tick();
  // Imported by v1.0.1 (ids kept when free): a record without an id gets a
  // fresh one, a record of a tool-role message is kept as is.
  await legacyStorage.sessionImport([
    { id: 'imported-1', projectId: 'proj-b', name: 'From a file', messages: [{ role: 'user', content: 'imported hello' }], createdAt: START - 5000, updatedAt: START - 4000 },
    { id: 'imported-2', projectId: 'proj-b', name: 'Tool message', messages: [{ role: 'user', content: 'q' }, { role: 'tool', content: 'raw tool output' }], createdAt: START - 3000, updatedAt: START - 2000 }
  ]);
  const stored = clone(legacyFake.data);
  // Two records sharing one id cannot come from v1.0.1's own calls (its
  // import renames a taken id), but do come from hand-merged files; the
  // original's migration gives them collision-safe ids.
  stored[STORAGE_KEYS.SESSIONS].push(
    { id: 'twin', projectId: 'proj-c', name: 'Twin one', createdAt: START - 1000, updatedAt: START - 900, messages: [{ role: 'user', content: 'one' }] },
    { id: 'twin', projectId: 'proj-c', name: 'Twin two', createdAt: START - 800, updatedAt: START - 700, messages: [{ role: 'user', content: 'two' }] },
    { projectId: 'proj-c', name: 'No id', createdAt: START - 600, updatedAt: START - 500, messages: [{ role: 'user', content: 'three' }] },
    'not a chat'
  );
  // Twins whose messages use every part the fingerprint writes in the
  // normaliser's member order (attachments, an omitted preview, an editor
  // file, each summary kind, array-index call ids). The raw tool result's
  // keys are sorted: the port reads stored objects without their key order,
  // so a summary of a raw result lists its keys sorted (see ARCHITECTURE).
  const rich = () => [
    { role: 'user', content: 'rich', activeEditorFile: { projectLabel: 'P', relativePath: 'main.typ', basename: 'main.typ', source: 'breadcrumb', confidence: 'high' }, sentAttachments: { selections: [{ text: 'sel', fileLabel: 'main.typ' }], previews: [{ dataUrl: 'data:image/png;base64,AAAA' }], document: true, diagnosticsCount: 2 } },
    { role: 'assistant', content: 'r', reasoning: 'why', toolCalls: [{ id: 'z9', name: 'read_diagnostics', args: {} }, { id: '0', name: 'lookup', args: { a: 1, b: [1, { c: 2 }] } }],
      segments: [{ type: 'tools', calls: [{ id: 'z9', name: 'read_diagnostics', args: {} }, { id: '0', name: 'lookup', args: { a: 1, b: [1, { c: 2 }] } }],
        results: { z9: { ok: true, error_count: 1, warning_count: 0, total_count: 1, truncated: false, diagnostics: [{ severity: 'error', kind: 'compile', line: 3, column: 1, message: 'bad' }] }, 0: { error: 'down', ok: false } } },
      { type: 'text', content: 'r' }] }
  ];
  stored[STORAGE_KEYS.SESSIONS].push(
    { id: 'rich-twin', projectId: 'proj-c', name: 'Rich one', createdAt: START - 400, updatedAt: START - 300, messages: rich() },
    { id: 'rich-twin', projectId: 'proj-c', name: 'Rich two', createdAt: START - 200, updatedAt: START - 100, messages: rich() }
  );
  return stored;
}

async function readAll(fake, projects, ids) {
  storage.configureStorageAdapter(fake);
  const out = {
    LOAD_SETTINGS: await answer(storage.loadSettings()),
    LOAD_CUSTOM_TOOLS: await answer(storage.loadCustomTools()),
    LOAD_MCP_SERVERS: await answer(storage.loadMcpServers()),
    LOAD_THEME: await answer(storage.loadTheme()),
    SESSION_LIST_ALL_GROUPED: await answer(storage.sessionListAllGrouped()),
    SESSION_LIST: {},
    SESSION_GET: {}
  };
  for (const project of projects) out.SESSION_LIST[project] = await answer(storage.sessionList(project));
  const grouped = out.SESSION_LIST_ALL_GROUPED.data || [];
  const allIds = ids ?? grouped.flatMap(group => group.sessions.map(session => session.id));
  for (const id of allIds) out.SESSION_GET[id] = await answer(storage.sessionGet(id));
  const exported = await answer(storage.sessionExport());
  out.SESSION_EXPORT = exported;
  return out;
}

// ---------- The v1.1.0 profile ----------

async function v110Profile() {
  const fake = new FakeStorage();
  storage.configureStorageAdapter(fake);
  tick();
  await storage.saveSettings({ systemPrompt: 'Be brief.', models: [
    { id: 'm1', name: 'Main', apiBaseUrl: 'https://api.example/v1', apiKey: 'sk-main', modelId: 'gpt', reasoningEffort: 'high' },
    { id: 'm2', name: 'Namer', apiBaseUrl: 'http://192.168.1.5/v1', apiKey: 'sk-lan', modelId: 'small', insecureTransportAcknowledgedOrigin: 'http://192.168.1.5' }
  ], activeModelId: 'm1', autoNameModelId: 'm2', maxHistoryMessages: 24, editorApprovalMode: 'auto', sendMessageShortcut: 'mod-enter' });
  await storage.saveCustomTools([{ id: 'tool-1', name: 'lookup', description: 'Look up', endpoint: 'https://tools.example/call', headers: { Authorization: 'Bearer t' }, parameters: { type: 'object', properties: { q: { type: 'string' } } }, enabled: true }]);
  await storage.saveMcpServers([{ id: 'server-1', name: 'docs', url: 'https://mcp.example/rpc', headers: { 'X-Key': 'k' }, enabled: true, protocolMode: 'auto' }]);
  await storage.saveTheme('light');

  const chat = await storage.sessionCreate('proj-a', 'New chat');
  tick();
  // Save the same messages twice, as the panel does after every turn: each
  // save of the original wraps generic tool summaries again.
  const saved = await storage.sessionUpdate(chat.id, { messages: v1Chat() });
  tick();
  await storage.sessionUpdate(chat.id, { messages: saved.messages });
  tick();
  const renamed = await storage.sessionCreate('proj-a', 'Mine');
  tick();
  await storage.sessionUpdate(renamed.id, { name: 'My name', userRenamed: true, messages: [{ role: 'user', content: straddling }] });
  tick();
  // An agent write with its revert receipt, and two snapshots.
  const before = '= Title\nBody';
  const after = '= Title\nNew body';
  await storage.stageEditCheckpoint({ id: 'checkpoint-1', projectId: 'proj-a', sessionId: chat.id, runId: 'run-1', callId: 'call_5', fileLabel: 'main.typ', beforeText: before, beforeHash: await sha256Text(before), pendingAfterHash: await sha256Text(after), pendingAfterLength: after.length });
  tick();
  const receipt = await storage.commitEditCheckpoint('checkpoint-1');
  tick();
  const current = await storage.sessionGet(chat.id);
  await storage.sessionUpdate(chat.id, { messages: [...current.messages,
    { role: 'user', content: 'Fix the body', activeEditorFile: { kind: 'file', label: 'main.typ', path: 'main.typ' } },
    { role: 'assistant', content: 'Fixed.', responseStatus: 'complete', segments: [{ type: 'tools', calls: [{ id: 'call_5', name: 'search_replace', args: { search: 'Body', replace: 'New body' } }], results: { call_5: { ok: true, edits_applied: 1, reviewed_diff: true, editCheckpoint: receipt } } }, { type: 'text', content: 'Fixed.' }] }
  ] });
  tick();
  const manual = await storage.createDocumentSnapshot({ kind: 'manual', projectId: 'proj-a', fileLabel: 'main.typ', text: before, title: 'Before the fix' });
  tick();
  const automatic = await storage.createDocumentSnapshot({ kind: 'automatic', projectId: 'proj-a', fileLabel: 'main.typ', text: after, sessionId: chat.id, runId: 'run-1' });
  tick();
  const stored = clone(fake.data);
  const answers = await readAll(fake, ['proj-a', 'proj-none']);
  answers.snapshots = {
    list: await answer(storage.listDocumentSnapshots({ projectId: 'proj-a', fileLabel: 'main.typ', sessionId: chat.id })),
    manual: await answer(storage.loadDocumentSnapshot(manual.snapshot.id)),
    automatic: await answer(storage.loadDocumentSnapshot(automatic.snapshot.id))
  };
  answers.checkpoints = {
    load: await answer(storage.loadEditCheckpoint('checkpoint-1')),
    cascade: await answer(storage.loadEditCheckpointCascade('checkpoint-1'))
  };
  return { stored, answers, sessionIds: { chat: chat.id, renamed: renamed.id } };
}

// ---------- The pre-v2 profile opened by v1.1.0 ----------

async function migrated(stored) {
  const fake = new FakeStorage(stored);
  const answers = await readAll(fake, ['proj-a', 'proj-b', 'proj-c']);
  return { answers, storedAfter: clone(fake.data) };
}

// ---------- Imports of export files ----------

async function importCase(name, { stored = {}, input, quotaAtWrite = null }) {
  let writes = 0;
  const hooks = quotaAtWrite == null ? {} : {
    beforeSet: async () => {
      writes += 1;
      if (writes === quotaAtWrite) throw new Error('QUOTA_BYTES quota exceeded');
    }
  };
  const fake = new FakeStorage(stored, hooks);
  storage.configureStorageAdapter(fake);
  const before = clone(fake.data);
  const result = await answer(storage.sessionImport(input));
  const storedAfter = clone(fake.data);
  storage.configureStorageAdapter(new FakeStorage(storedAfter));
  return { name, stored: before, input, answer: result, storedAfter, grouped: await answer(storage.sessionListAllGrouped()) };
}

const v110 = await v110Profile();
const legacyStored = await preV2Profile();
const preV2 = { stored: legacyStored, ...(await migrated(clone(legacyStored))) };

// Chats an older version wrote after the move (a downgrade and back): the
// original finds its marker complete and deletes the aggregate unread.
const afterDowngrade = clone(preV2.storedAfter);
afterDowngrade[STORAGE_KEYS.SESSIONS] = [{ id: 'after-downgrade', projectId: 'proj-z', name: 'Later', createdAt: START, updatedAt: START, messages: [{ role: 'user', content: 'new' }] }];
const downgrade = { stored: clone(afterDowngrade), ...(await migrated(afterDowngrade)) };

const exportFile = v110.answers.SESSION_EXPORT.data;
const imports = [
  await importCase('original_export_into_empty', { input: exportFile }),
  await importCase('original_export_into_its_own_profile', { stored: v110.stored, input: exportFile }),
  await importCase('bare_array_v1', { input: [{ id: 'a', projectId: 'p', name: 'A', messages: [{ role: 'user', content: straddling }] }, { projectId: 'p', messages: 'broken' }, null] }),
  await importCase('nested_summary_chain', { input: { version: 2, sessions: [{ id: 'n', projectId: 'p', name: 'N', createdAt: START, updatedAt: START, messages: v110.answers.SESSION_GET[v110.sessionIds.chat].data.messages.slice(0, 2) }] } }),
  await importCase('wrong_version', { input: { version: 3, sessions: [] } }),
  await importCase('quota_midway', { stored: v110.stored, input: exportFile, quotaAtWrite: 2 })
];

// The original cuts previews inside surrogate pairs; a lone surrogate is not
// JSON that Rust reads, so it is written as U+FFFD (the tests expect the
// port's whole-pair cut in its place).
const wellFormed = (_key, value) => typeof value === 'string' ? value.toWellFormed() : value;
process.stdout.write(JSON.stringify({
  about: 'Written by crates/worker-core/tests/vectors/migration.mjs from the original extension (v1.1.0 and v1.0.1) under Node; do not edit by hand. Lone surrogates are written as U+FFFD.',
  start: START,
  v110,
  preV2,
  downgrade,
  imports
}, wellFormed, 1) + '\n');
