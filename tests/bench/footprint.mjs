// What an extension weighs on disk, measured the same way for both builds of
// the bench: every file of the unpacked folder, its total, and the size of a
// ZIP that deflates each entry (zlib level 9 plus the ZIP headers), which is
// what a store download of that folder would weigh. The real release ZIP of
// this project (deflated by miniz_oxide) is reported beside it.

import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { deflateRawSync } from 'node:zlib';

// Local file header (30) and central directory entry (46) carry the name once
// each; the end-of-central-directory record is 22 bytes.
const LOCAL_HEADER = 30;
const CENTRAL_HEADER = 46;
const END_RECORD = 22;

async function files(dir, root = dir) {
  const found = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...await files(path, root));
    else if (entry.isFile()) found.push({ path, name: relative(root, path).split(sep).join('/') });
  }
  return found;
}

/**
 * `{files, totalBytes, deflateZipBytes, wasm: [{name, bytes}]}` for the unpacked
 * extension in `dir`. An entry that deflates larger than it is would be STORED
 * by any ZIP writer, so it counts at its own size.
 */
export async function footprint(dir) {
  let totalBytes = 0;
  let deflateZipBytes = END_RECORD;
  const wasm = [];
  const list = await files(dir);
  for (const file of list) {
    const bytes = await readFile(file.path);
    totalBytes += bytes.length;
    const packed = Math.min(deflateRawSync(bytes, { level: 9 }).length, bytes.length);
    const name = Buffer.byteLength(file.name);
    deflateZipBytes += LOCAL_HEADER + CENTRAL_HEADER + 2 * name + packed;
    if (file.name.endsWith('.wasm')) wasm.push({ name: file.name, bytes: bytes.length });
  }
  return { files: list.length, totalBytes, deflateZipBytes, wasm };
}

/** The size of a file, or null when it does not exist. */
export async function fileSize(path) {
  try {
    return (await stat(path)).size;
  } catch {
    return null;
  }
}
