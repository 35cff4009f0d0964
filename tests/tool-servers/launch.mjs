// Starts and stops the loopback test servers of this folder for the browser tests and the
// self-test. `start(configId | 'custom' | 'hostile-<wiring>', {port})` spawns the right script (Python from .venv),
// waits for its `LISTENING <url>` line and returns a handle; `stop()` kills that child by PID
// and waits for it to exit; `stopAll()` stops every child still running. The only state is the
// list of children started here, so a test file can always clean up after itself.

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { configById, HOSTILE_WIRINGS } from './configs.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const VENV_PYTHON = path.join(HERE, '.venv', 'bin', 'python');
const START_TIMEOUT_MS = 20_000;
const STOP_GRACE_MS = 3_000;

/** Children started and not yet seen to exit. */
const running = new Set();

// A test process that dies without calling stopAll() must not leave servers behind.
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** The command line for a configuration id, or for the custom-tool server. */
function commandFor(id, port) {
  if (id === 'custom') {
    return { file: process.execPath, args: [path.join(HERE, 'custom-tool.mjs'), '--port', String(port)], config: null };
  }
  if (id.startsWith('hostile-')) {
    const wiring = id.slice('hostile-'.length);
    if (!HOSTILE_WIRINGS.includes(wiring)) {
      throw new Error(`unknown hostile server '${id}'; known: ${HOSTILE_WIRINGS.map((w) => `hostile-${w}`).join(', ')}`);
    }
    return { file: process.execPath, args: [path.join(HERE, 'hostile.mjs'), wiring, '--port', String(port)], config: null };
  }
  const config = configById(id);
  const script = path.join(HERE, config.script);
  if (config.sdk !== 'python') {
    return { file: process.execPath, args: [script, config.wiring, '--port', String(port)], config };
  }
  if (!existsSync(VENV_PYTHON)) {
    throw new Error(`${VENV_PYTHON} is missing: run \`node tests/tool-servers/setup.mjs\` first`);
  }
  return { file: VENV_PYTHON, args: [script, config.wiring, '--port', String(port)], config };
}

/** Complete stderr lines that are request log records (see README "Log format"). */
function parseLogs(text) {
  const records = [];
  for (const line of text.split('\n').slice(0, -1)) {
    if (!line.startsWith('{')) continue;
    try {
      const record = JSON.parse(line);
      if (record.event === 'request') records.push(record);
    } catch {
      // A server's own non-JSON diagnostics share stderr; they are kept in stderr() only.
    }
  }
  return records;
}

/** Resolves once `child` has exited (at once if it already has). */
function exited(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** SIGTERM, then SIGKILL after a grace period; resolves once the process is gone. */
async function terminate(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
  await exited(child);
  clearTimeout(killer);
}

/**
 * Starts a server. `id` is a configuration id from configs.mjs, 'custom' or 'hostile-<wiring>'
 * (HOSTILE_WIRINGS); `port` 0 (default) lets the OS pick. Resolves to `{id, config, url, pid, logs(), stderr(), waitForLog(), stop()}`
 * once the server is listening; rejects with the server's stderr when it exits or stays silent.
 */
export async function start(id, { port = 0, timeoutMs = START_TIMEOUT_MS } = {}) {
  const { file, args, config } = commandFor(id, port);
  const child = spawn(file, args, {
    cwd: HERE,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PYTHONUNBUFFERED: '1' },
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let stderr = '';
  let stdout = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  child.stdout.setEncoding('utf8');

  const url = await new Promise((resolve, reject) => {
    const fail = (why) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`tool server '${id}' (${[file, ...args].join(' ')}) ${why}\n--- stderr ---\n${stderr}`));
    };
    const timer = setTimeout(() => fail(`printed no LISTENING line within ${timeoutMs} ms`), timeoutMs);
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      const match = /^LISTENING (\S+)$/m.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('error', (error) => fail(`could not be spawned: ${error.message}`));
    child.once('exit', (code, signal) => fail(`exited (${signal ?? code}) before listening`));
  });

  const handle = {
    id,
    config,
    url,
    pid: child.pid,
    /** The request log records so far, oldest first. */
    logs: () => parseLogs(stderr),
    /** Everything the server wrote on stderr. */
    stderr: () => stderr,
    /** Polls the logs until `predicate(records)` is true; the log pipe can lag a response. */
    async waitForLog(predicate, { timeoutMs: waitMs = 5_000 } = {}) {
      const deadline = Date.now() + waitMs;
      for (;;) {
        const records = parseLogs(stderr);
        if (predicate(records)) return records;
        if (Date.now() > deadline) throw new Error(`tool server '${id}': log condition not met in ${waitMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    /** Kills the server by PID (SIGTERM, SIGKILL after a grace period) and waits for its exit. */
    stop: () => terminate(child),
  };
  return handle;
}

/** Stops every server started by this module that is still running. */
export async function stopAll() {
  await Promise.all([...running].map((child) => terminate(child)));
}
