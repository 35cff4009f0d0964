// Runs a suite once per extension build (unpacked folder, then the packaged ZIP
// extracted to a temporary folder). Each run gets its own browser and profile.
// The last test of every run fails on any uncaught page error or console error of
// the fixture pages, control page and side panel, and on any request no fake
// answered.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Harness, extensionBuilds } from './harness.mjs';

export const SUITE_TIMEOUT = 300_000;

/**
 * @param {string} title
 * @param {(get: () => Harness, build: {label: string}) => void} define  declares the tests;
 *        `get()` returns the launched harness (available inside tests/hooks).
 */
export function forEachBuild(title, define) {
  for (const build of extensionBuilds()) {
    describe(`${title} [${build.label}]`, { skip: build.skip, timeout: SUITE_TIMEOUT }, () => {
      let harness = null;
      let prepared = null;
      const get = () => {
        if (!harness) throw new Error('the browser did not launch (see the before hook error)');
        return harness;
      };

      before(async () => {
        prepared = await build.prepare();
        harness = await Harness.launch(prepared.dir, { label: build.label });
      }, { timeout: 120_000 });

      after(async () => {
        await harness?.close();
        await prepared?.cleanup();
      }, { timeout: 60_000 });

      define(get, build);

      it('had no uncaught page errors or console errors, and no unexpected requests', t => {
        const h = get();
        for (const entry of h.workerConsoleErrors) t.diagnostic(`service worker console.error: ${entry.text}`);
        assert.equal(h.describeErrors(), '', 'page errors were recorded');
        assert.deepEqual(h.unexpectedRequests, [], 'requests reached no fake and were aborted');
      });
    });
  }
}

/**
 * A fixture the tests of a suite share read-only (a routed model endpoint, a
 * fixture tab whose text each test sets itself). `setup(h)` runs once per
 * launched harness, for whichever test asks first, so every test still does
 * its own setup and passes alone or in any order. Returns `(h) => Promise`.
 */
export function sharedFixture(setup) {
  const made = new WeakMap();
  return h => {
    if (!made.has(h)) made.set(h, setup(h));
    return made.get(h);
  };
}

/** Asserts a PROTOCOL_RESPONSE envelope with ok:true for `requestId`; returns data. */
export function expectOk(response, requestId) {
  assert.equal(response?.type, 'PROTOCOL_RESPONSE', `not a response envelope: ${JSON.stringify(response)}`);
  assert.equal(response.requestId, requestId);
  assert.equal(response.payload?.ok, true, `ok:false: ${JSON.stringify(response.payload)}`);
  return response.payload.data;
}

/** Asserts a PROTOCOL_RESPONSE envelope with ok:false; returns the error. */
export function expectError(response, requestId) {
  assert.equal(response?.type, 'PROTOCOL_RESPONSE', `not a response envelope: ${JSON.stringify(response)}`);
  assert.equal(response.requestId, requestId);
  assert.equal(response.payload?.ok, false, `expected ok:false: ${JSON.stringify(response.payload)}`);
  const error = response.payload.error;
  assert.equal(typeof error?.code, 'string');
  assert.ok(error.code.length > 0, 'error.code is empty');
  assert.equal(typeof error.message, 'string');
  return error;
}
