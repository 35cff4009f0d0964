/*
 * Compiles the worker's wasm from a copy in Cache Storage.
 *
 * A service worker that has just started waits about 7 ms for the browser to
 * answer a fetch of a file of its own package (traced on a cold start: request
 * sent to response received), where Cache Storage answers in about 2 ms, and
 * the worker is woken again and again (bench: cold start 38 → 31 ms). So the
 * wasm is compiled from a copy of the packaged file, kept under a key that
 * holds the file's SHA-256 as the build wrote it (../wasm/digests.js,
 * generated with the wasm): a copy of another build is never used, and copies
 * of other builds are dropped once this one loads.
 *
 * The copy is only ever a faster path to the same bytes: a copy that does
 * not compile is dropped and stored again from the package, and without Cache
 * Storage (or with it failing) the packaged file is compiled as it always was.
 * The panel fetches its wasm directly: a page's own fetch is not slower, and
 * a copy measured no gain there.
 */
import { WASM_SHA256 } from '../wasm/digests.js';

const CACHE_NAME = 'typst-side-agent-wasm';
// Cache Storage takes only http(s) keys. The host is reserved (RFC 2606) and
// nothing ever fetches it: the key names an entry, not a place.
const KEY_ORIGIN = 'https://typst-side-agent.invalid/wasm/';

const warn = (what, error) => console.warn(`Typst Side Agent: ${what}.`, error);

/** The Cache Storage key of this build's copy of `file`. */
function wasmCacheKey(file) {
  return `${KEY_ORIGIN}${file}?sha256=${WASM_SHA256[file]}`;
}

/** Drops the copies of `file` that other builds left. */
async function dropOtherBuilds(cache, file, key) {
  for (const request of await cache.keys()) {
    const url = new URL(request.url);
    if (url.pathname.endsWith(`/${file}`) && request.url !== key) await cache.delete(request);
  }
}

/** The copy of `file` in `cache`, stored first from the package when missing. */
async function cachedCopy(cache, file, key, packaged) {
  const copy = await cache.match(key);
  if (copy) return copy;
  const response = await fetch(packaged);
  if (!response.ok) throw new Error(`${file} answered ${response.status}`);
  await cache.put(key, response);
  return cache.match(key);
}

/**
 * Resolves with the compiled `WebAssembly.Module` of the packaged wasm file at
 * the URL `packaged` (one of src/wasm/). A stored copy that fails is dropped
 * and stored again from the package once; if that one fails too, the packaged
 * file is compiled without a copy.
 */
export async function compileWasm(packaged) {
  const file = packaged.pathname.slice(packaged.pathname.lastIndexOf('/') + 1);
  const compilePackaged = () => WebAssembly.compileStreaming(fetch(packaged));
  if (!WASM_SHA256[file] || typeof caches === 'undefined') return compilePackaged();
  const key = wasmCacheKey(file);
  let cache;
  try {
    cache = await caches.open(CACHE_NAME);
  } catch (error) {
    warn('Cache Storage did not open', error);
    return compilePackaged();
  }
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const module = await WebAssembly.compileStreaming(await cachedCopy(cache, file, key, packaged));
      dropOtherBuilds(cache, file, key).catch(error => warn(`old copies of ${file} stay in Cache Storage`, error));
      return module;
    } catch (error) {
      warn(`the stored copy of ${file} did not compile and is dropped`, error);
      await cache.delete(key).catch(() => {});
    }
  }
  return compilePackaged();
}
