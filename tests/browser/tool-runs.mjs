// Helpers of the suites that run the user's own tools against real loopback
// servers (mcp-servers.test.mjs, custom-tools.test.mjs): records for the
// registries, saving them through the worker's routes, a model script that
// calls tools by their visible names, the real panel's approval banner, tool
// blocks and toasts. Servers come from tests/tool-servers/launch.mjs; the
// harness lets requests reach exactly their origins (`h.passThrough`).

import assert from 'node:assert/strict';
import { step } from '../fixtures/model-endpoint.mjs';
import { poll } from './harness.mjs';

const STORAGE_KEYS = ['typstAgent.customTools', 'typstAgent.mcpServers'];

/** Empties both registries (what each test starts from). */
export async function clearRegistries(h) {
  await h.control.evaluate(keys => chrome.storage.local.remove(keys), STORAGE_KEYS);
}

/** An MCP server record as the MCP form stores it. */
export function mcpRecord(id, name, url, extra = {}) {
  return { id, name, url, headers: {}, enabled: true, protocolMode: 'auto', trustedAutoRun: false, ...extra };
}

/** A custom tool record as the Tools form stores it. */
export function customRecord(id, name, endpoint, extra = {}) {
  return {
    id, name, description: `Fixture tool ${name}.`, endpoint, headers: {},
    parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    enabled: true, trustedAutoRun: false, ...extra,
  };
}

/** Replaces the stored MCP servers (the worker's save route); returns them as stored. */
export async function saveServers(h, records) {
  return (await h.request('SAVE_MCP_SERVERS', { servers: records, mutation: { type: 'replace', records } })).records;
}

/** Replaces the stored custom tools; returns them as stored. */
export async function saveTools(h, records) {
  return (await h.request('SAVE_CUSTOM_TOOLS', { tools: records, mutation: { type: 'replace', records } })).records;
}

/** PROBE_MCP_SERVER for `record`: the answer's payload (`{ok, data}` or `{ok:false, error}`). */
export async function probe(h, record) {
  const response = await h.send('PROBE_MCP_SERVER', { server: record });
  assert.equal(response?.type, 'PROTOCOL_RESPONSE', JSON.stringify(response));
  return response.payload;
}

/** The visible name (what the model calls) of the offered tool whose name ends in `__<tool>_<hash>`. */
export function offeredName(body, tool) {
  const pattern = new RegExp(`__${tool}_[0-9a-z]{6}$`);
  return (body.tools ?? []).map(t => t.function?.name).find(name => pattern.test(name ?? '')) ?? null;
}

/** The `role: tool` messages of a model request. */
export function toolMessages(body) {
  return body.messages.filter(message => message.role === 'tool');
}

/**
 * A model that calls tools on its first round and answers on the next:
 * `plan(body)` gives `[{id, name, args}]` (names may be found with
 * offeredName); after the tool results it says `answer`.
 */
export function callingScript(plan, answer = 'Done with the tools.') {
  return async body => {
    // A request that offers no tools (a chat title) or follows the tool round gets text.
    if (!body.tools?.length || toolMessages(body).length > 0) return [step.content(answer), step.finish('stop')];
    const calls = await plan(body);
    if (calls.some(call => !call.name)) return [step.content('The expected tool was not offered.'), step.finish('stop')];
    return [
      ...calls.map((call, index) => step.toolCall({ index, id: call.id, name: call.name, arguments: JSON.stringify(call.args) })),
      step.finish('tool_calls'),
    ];
  };
}

/** Waits for the approval banner of `callId` in the panel and presses one of its buttons. */
export async function answerBanner(panel, callId, action) {
  const selector = `.tool-block[data-call-id="${callId}"] .tool-approval [data-approval-action="${action}"]`;
  await panel.waitFor(wanted => {
    const button = document.querySelector(wanted);
    return !!button && !button.disabled;
  }, selector, { timeout: 60_000, message: `the approval banner of ${callId}` });
  await panel.evaluate(wanted => document.querySelector(wanted).click(), selector);
}

/** What the panel shows of the tool block of `callId` (null while it does not exist). */
export function toolBlock(panel, callId) {
  return panel.evaluate(id => {
    const block = document.querySelector(`#messages .tool-block[data-call-id="${id}"]`);
    if (!block) return null;
    return {
      tool: block.dataset.toolName,
      label: block.querySelector('.tool-block-name')?.textContent ?? null,
      status: block.querySelector('.tool-status')?.textContent ?? null,
      statusClass: block.querySelector('.tool-status')?.className ?? null,
      detail: block.querySelector('.tool-block-detail')?.textContent ?? null,
      banner: !!block.querySelector('.tool-approval'),
    };
  }, callId);
}

/** Whether any approval banner is in the panel. */
export function anyBanner(panel) {
  return panel.evaluate(() => !!document.querySelector('#messages .tool-approval'));
}

/** The panel's error toast text once shown (for waitFor), else null. */
export function errorToast() {
  const status = document.getElementById('status');
  return status && !status.hidden && status.classList.contains('is-error')
    ? document.getElementById('status-message').textContent
    : null;
}

/** The tool results (parsed content) of the model's request after the tool round, by call id. */
export function resultsById(body) {
  return Object.fromEntries(toolMessages(body).map(message => {
    let content;
    try { content = JSON.parse(message.content); } catch { content = message.content; }
    return [message.tool_call_id, content];
  }));
}

/** Polls the saved chat of `projectId` until its last answer is complete; returns its messages. */
export function savedChat(h, projectId) {
  return poll(async () => {
    const [session] = await h.request('SESSION_LIST', { projectId });
    if (!session) return null;
    const full = await h.request('SESSION_GET', { sessionId: session.id });
    const last = full?.messages.at(-1);
    return last?.role === 'assistant' && last.responseStatus ? full.messages : null;
  }, { message: `the saved chat of ${projectId}` });
}
