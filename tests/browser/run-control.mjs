// Helpers of the suites that drive agent runs from the control page (runs,
// edit-runs, hostile-page): the run events the worker
// broadcasts, and the fixture model a run names, saved first because the
// worker runs on the stored settings and the stored model a start names (the
// start's copies must match them).

/** The events that end a run. */
export const TERMINAL = ['AI_STREAM_DONE', 'AI_STREAM_CANCELLED', 'AI_STREAM_ERROR'];

/** Starts collecting run events (broadcasts with a runId) in the control page. */
export async function listen(h) {
  await h.control.evaluate(() => {
    if (globalThis.__runEvents) return;
    globalThis.__runEvents = [];
    chrome.runtime.onMessage.addListener(message => {
      if (message && typeof message.runId === 'string' && !message.requestId) globalThis.__runEvents.push(message);
    });
  });
}

/** The run events of `runId` collected so far. */
export function events(h, runId) {
  return h.control.evaluate(id => globalThis.__runEvents.filter(event => event.runId === id), runId);
}

/**
 * Saves the fixture model `model` (id `m-<model>`) and the approval `mode` as
 * the worker's settings; returns the model record for the start's copy.
 */
export async function saveRunModel(h, model, mode = 'ask') {
  const record = {
    id: `m-${model}`, name: 'Fixture', apiBaseUrl: 'https://model.fixture/v1', apiKey: 'fixture-key', modelId: model,
    supportsVision: false, reasoningEffort: 'default',
  };
  await h.request('SAVE_SETTINGS', {
    settings: { maxHistoryMessages: 40, editorApprovalMode: mode },
    fields: ['maxHistoryMessages', 'editorApprovalMode'],
    modelMutation: { type: 'upsert', record },
  });
  return record;
}
