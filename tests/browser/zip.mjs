// Minimal ZIP reader for the packaged-extension run.
//
// The package is written with two methods only, STORED and DEFLATE, so this
// reader accepts nothing else: it walks the central directory, checks each
// local header against it, inflates a deflated entry to exactly its declared
// size (never more), verifies CRC-32 and sizes, refuses encrypted, other
// methods, ZIP64 and multi-disk archives, and refuses any name that could
// escape the target folder.

import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { crc32, deflateRawSync, inflateRawSync } from 'node:zlib';

const EOCD_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;
const MAX_COMMENT = 0xffff;
const MAX_ENTRIES = 10_000;
const MAX_TOTAL_BYTES = 512 * 1024 * 1024;
const STORED = 0;
const DEFLATE = 8;

export class ZipError extends Error {}

function fail(message) {
  throw new ZipError(message);
}

function findEndOfCentralDirectory(buffer) {
  const lowest = Math.max(0, buffer.length - 22 - MAX_COMMENT);
  for (let offset = buffer.length - 22; offset >= lowest; offset--) {
    if (buffer.readUInt32LE(offset) === EOCD_SIGNATURE) {
      const commentLength = buffer.readUInt16LE(offset + 20);
      if (offset + 22 + commentLength === buffer.length) return offset;
    }
  }
  return fail('no end-of-central-directory record');
}

/** Rejects names that are absolute, contain traversal, backslashes, drive letters or NULs. */
export function checkEntryName(name) {
  if (!name || name.length > 1024) fail(`bad entry name length: ${JSON.stringify(name)}`);
  if (/[\0\\]/.test(name)) fail(`entry name has NUL or backslash: ${JSON.stringify(name)}`);
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) fail(`absolute entry name: ${JSON.stringify(name)}`);
  const parts = name.replace(/\/$/, '').split('/');
  if (parts.some(part => part === '' || part === '.' || part === '..')) {
    fail(`entry name with empty, '.' or '..' segment: ${JSON.stringify(name)}`);
  }
  return name;
}

/** Lists the entries of a ZIP: [{name, directory, method, offset, compressedSize, size, crc}] */
export function listEntries(buffer) {
  const eocd = findEndOfCentralDirectory(buffer);
  const disk = buffer.readUInt16LE(eocd + 4);
  const cdDisk = buffer.readUInt16LE(eocd + 6);
  const entriesOnDisk = buffer.readUInt16LE(eocd + 8);
  const entryCount = buffer.readUInt16LE(eocd + 10);
  const cdSize = buffer.readUInt32LE(eocd + 12);
  const cdOffset = buffer.readUInt32LE(eocd + 16);
  if (disk !== 0 || cdDisk !== 0 || entriesOnDisk !== entryCount) fail('multi-disk archives are not supported');
  if (entryCount === 0xffff || cdOffset === 0xffffffff || cdSize === 0xffffffff) fail('ZIP64 is not supported');
  if (entryCount > MAX_ENTRIES) fail(`too many entries: ${entryCount}`);
  if (cdOffset + cdSize > eocd) fail('central directory overlaps its end record');

  const entries = [];
  const seen = new Set();
  let total = 0;
  let cursor = cdOffset;
  for (let i = 0; i < entryCount; i++) {
    if (cursor + 46 > eocd || buffer.readUInt32LE(cursor) !== CENTRAL_SIGNATURE) fail(`bad central header #${i}`);
    const flags = buffer.readUInt16LE(cursor + 8);
    const method = buffer.readUInt16LE(cursor + 10);
    const crc = buffer.readUInt32LE(cursor + 16);
    const compressedSize = buffer.readUInt32LE(cursor + 20);
    const size = buffer.readUInt32LE(cursor + 24);
    const nameLength = buffer.readUInt16LE(cursor + 28);
    const extraLength = buffer.readUInt16LE(cursor + 30);
    const commentLength = buffer.readUInt16LE(cursor + 32);
    const localOffset = buffer.readUInt32LE(cursor + 42);
    const name = buffer.subarray(cursor + 46, cursor + 46 + nameLength).toString('utf8');
    cursor += 46 + nameLength + extraLength + commentLength;
    if (cursor > cdOffset + cdSize) fail('central directory runs past its declared size');

    checkEntryName(name);
    if (flags & 0x1) fail(`encrypted entry: ${name}`);
    if (method !== STORED && method !== DEFLATE) fail(`entry is neither STORED nor DEFLATE (method ${method}): ${name}`);
    if (method === STORED && compressedSize !== size) fail(`STORED entry with differing sizes: ${name}`);
    if (seen.has(name)) fail(`duplicate entry: ${name}`);
    seen.add(name);
    total += size;
    if (total > MAX_TOTAL_BYTES) fail('archive expands past the size limit');

    if (localOffset + 30 > cdOffset || buffer.readUInt32LE(localOffset) !== LOCAL_SIGNATURE) {
      fail(`bad local header for ${name}`);
    }
    const localMethod = buffer.readUInt16LE(localOffset + 8);
    const localNameLength = buffer.readUInt16LE(localOffset + 26);
    const localExtraLength = buffer.readUInt16LE(localOffset + 28);
    const localName = buffer.subarray(localOffset + 30, localOffset + 30 + localNameLength).toString('utf8');
    if (localMethod !== method || localName !== name) fail(`local header disagrees with central directory: ${name}`);
    const dataOffset = localOffset + 30 + localNameLength + localExtraLength;
    if (dataOffset + compressedSize > cdOffset) fail(`entry data runs into the central directory: ${name}`);

    entries.push({ name, directory: name.endsWith('/'), method, offset: dataOffset, compressedSize, size, crc });
  }
  return entries;
}

/** An entry's bytes: stored as they are, or inflated to exactly the declared size. */
function entryData(buffer, entry) {
  const raw = buffer.subarray(entry.offset, entry.offset + entry.compressedSize);
  if (entry.method === STORED) return raw;
  let data;
  try {
    // One byte more than declared is allowed out, so a longer stream is caught below, not cut.
    data = inflateRawSync(raw, { maxOutputLength: entry.size + 1 });
  } catch (error) {
    return fail(`entry does not inflate (${error.code || error.message}): ${entry.name}`);
  }
  if (data.length !== entry.size) fail(`entry inflates to ${data.length} bytes, not the declared ${entry.size}: ${entry.name}`);
  return data;
}

/**
 * Extracts a ZIP buffer (STORED and DEFLATE entries) into `target` (created
 * if needed). Returns the list of file names written.
 */
export async function extractZip(buffer, target) {
  const root = resolve(target);
  const entries = listEntries(buffer);
  const written = [];
  await mkdir(root, { recursive: true });
  for (const entry of entries) {
    const destination = resolve(root, ...entry.name.replace(/\/$/, '').split('/'));
    const rel = relative(root, destination);
    if (!rel || rel.startsWith('..') || isAbsolute(rel) || rel.split(sep).includes('..')) {
      fail(`entry escapes the target folder: ${entry.name}`);
    }
    if (entry.directory) {
      if (entry.size !== 0) fail(`directory entry with data: ${entry.name}`);
      await mkdir(destination, { recursive: true });
      continue;
    }
    const data = entryData(buffer, entry);
    if ((crc32(data) >>> 0) !== entry.crc) fail(`CRC mismatch: ${entry.name}`);
    await mkdir(dirname(destination), { recursive: true });
    await writeFile(destination, data, { flag: 'wx' });
    written.push(entry.name);
  }
  return written;
}

/**
 * Writes a ZIP (used by the harness self-test to exercise the reader).
 * `files` is [{name, data: Buffer|string, deflate?: boolean}].
 */
export function createZip(files) {
  const locals = [];
  const centrals = [];
  let offset = 0;
  for (const file of files) {
    const name = Buffer.from(file.name, 'utf8');
    const data = Buffer.isBuffer(file.data) ? file.data : Buffer.from(file.data ?? '', 'utf8');
    const crc = crc32(data) >>> 0;
    const method = file.deflate ? DEFLATE : STORED;
    const stored = file.deflate ? deflateRawSync(data) : data;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(LOCAL_SIGNATURE, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(method, 8);
    local.writeUInt16LE(0, 10);
    local.writeUInt16LE(0x21, 12); // 1980-01-01
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(stored.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(CENTRAL_SIGNATURE, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt16LE(0, 12);
    central.writeUInt16LE(0x21, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(stored.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, stored);
    centrals.push(central, name);
    offset += local.length + name.length + stored.length;
  }
  const cd = Buffer.concat(centrals);
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(EOCD_SIGNATURE, 0);
  eocd.writeUInt16LE(files.length, 8);
  eocd.writeUInt16LE(files.length, 10);
  eocd.writeUInt32LE(cd.length, 12);
  eocd.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, eocd]);
}
