// The worker's wasm loader (src/background/wasm-loader.js): the worker
// compiles its wasm from a copy in Cache Storage keyed with the file's
// SHA-256, which answers a woken worker faster than its package. A copy is
// only a faster path to the packaged bytes: it is stored byte for byte, a
// copy that does not compile is replaced and the worker still answers, and
// copies of other builds are dropped.

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { poll } from './harness.mjs';
import { expectOk, forEachBuild } from './suite.mjs';

const CACHE_NAME = 'typst-side-agent-wasm';
const WORKER_WASM = 'worker_core_bg.wasm';

/**
 * Read in the control page (the worker's origin): the
 * packaged file's SHA-256, computed here rather than read from the build's
 * digests, and what the cache holds for `file` (every key, and whether the
 * copy under the digest's key equals the packaged bytes).
 */
function cacheState(h, file) {
  return h.control.evaluate(async ([cacheName, name]) => {
    const packaged = new Uint8Array(await (await fetch(chrome.runtime.getURL(`src/wasm/${name}`))).arrayBuffer());
    const digest = [...new Uint8Array(await crypto.subtle.digest('SHA-256', packaged))]
      .map(b => b.toString(16).padStart(2, '0')).join('');
    const key = `https://typst-side-agent.invalid/wasm/${name}?sha256=${digest}`;
    const cache = await caches.open(cacheName);
    const keys = (await cache.keys()).map(request => request.url).filter(url => url.includes(`/${name}?`));
    const copy = await cache.match(key);
    const bytes = copy ? new Uint8Array(await copy.arrayBuffer()) : null;
    const same = bytes !== null && bytes.length === packaged.length && bytes.every((b, i) => b === packaged[i]);
    return { key, keys, same, contentType: copy?.headers.get('content-type') ?? null };
  }, [CACHE_NAME, file]);
}

/** Stores `body` under `key` in the loader's cache, from the control page. */
function storeCopy(h, key, body) {
  return h.control.evaluate(async ([cacheName, url, text]) => {
    const cache = await caches.open(cacheName);
    await cache.put(url, new Response(text, { headers: { 'content-type': 'application/wasm' } }));
  }, [CACHE_NAME, key, body]);
}

/** Stops the worker and wakes a fresh one with a request it must answer. */
async function restartWorker(h, requestId) {
  await h.stopWorker();
  const theme = expectOk(await h.send('LOAD_THEME', {}, { requestId }), requestId);
  assert.ok(['dark', 'light'].includes(theme), `a theme: ${theme}`);
}

forEachBuild('wasm loader', get => {
  it('a started worker has a byte-for-byte copy of its wasm under the file\'s SHA-256', async () => {
    const h = get();
    const { key } = await cacheState(h, WORKER_WASM);
    await h.control.evaluate(async ([cacheName, url]) => (await caches.open(cacheName)).delete(url), [CACHE_NAME, key]);
    await restartWorker(h, 'wasm-cache-fresh');
    const state = await poll(async () => {
      const now = await cacheState(h, WORKER_WASM);
      return now.same ? now : null;
    }, { message: 'the worker\'s copy of its wasm in Cache Storage' });
    assert.deepEqual(state.keys, [key]);
    assert.equal(state.contentType, 'application/wasm');
  });

  it('a copy that does not compile is replaced by the packaged file, and the worker still answers', async () => {
    const h = get();
    const { key } = await cacheState(h, WORKER_WASM);
    await storeCopy(h, key, 'not a wasm module');
    assert.equal((await cacheState(h, WORKER_WASM)).same, false);
    await restartWorker(h, 'wasm-cache-broken');
    await poll(async () => (await cacheState(h, WORKER_WASM)).same,
      { message: 'the broken copy to be replaced by the packaged bytes' });
    // The next start compiles from the repaired copy.
    await restartWorker(h, 'wasm-cache-repaired');
  });

  it('copies left by another build are dropped once the worker has loaded', async () => {
    const h = get();
    const { key } = await cacheState(h, WORKER_WASM);
    const stale = `https://typst-side-agent.invalid/wasm/${WORKER_WASM}?sha256=${'0'.repeat(64)}`;
    await storeCopy(h, stale, 'an older build');
    await restartWorker(h, 'wasm-cache-stale');
    const state = await poll(async () => {
      const now = await cacheState(h, WORKER_WASM);
      return now.keys.includes(stale) ? null : now;
    }, { message: 'the other build\'s copy to be dropped' });
    assert.deepEqual(state.keys, [key]);
    assert.equal(state.same, true);
  });
});
