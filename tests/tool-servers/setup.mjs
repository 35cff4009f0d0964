// Installs what the test servers need, only when it is missing or stale, and says what it does:
//   - node_modules via `npm ci` when it is missing or older than package-lock.json;
//   - .venv via `python3 -m venv` (when missing or broken) and `pip install -r requirements.txt`
//     when the requirements changed since the last successful install (a copy is kept in
//     .venv/requirements.installed.txt).
// Usage: node tests/tool-servers/setup.mjs   (from anywhere; exit code 0 = ready, 1 = failed).
// `cargo xtask verify` calls it; when everything is up to date it only stats a few files.

import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const LOCK = path.join(HERE, 'package-lock.json');
const INSTALLED_LOCK = path.join(HERE, 'node_modules', '.package-lock.json');
const REQUIREMENTS = path.join(HERE, 'requirements.txt');
const VENV = path.join(HERE, '.venv');
const VENV_PYTHON = path.join(VENV, 'bin', 'python');
const INSTALLED_REQUIREMENTS = path.join(VENV, 'requirements.installed.txt');

function say(message) {
  process.stdout.write(`tool-servers setup: ${message}\n`);
}

/** Runs a command in this folder with inherited output; throws with its exit status. */
function run(file, args) {
  say(`$ ${[file, ...args].join(' ')}`);
  const result = spawnSync(file, args, { cwd: HERE, stdio: 'inherit' });
  if (result.error) throw new Error(`${file}: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`${file} ${args.join(' ')} exited with ${result.signal ?? result.status}`);
}

/** npm keeps node_modules/.package-lock.json; it is older than the lock when the lock changed. */
function nodeModulesStale() {
  if (!existsSync(INSTALLED_LOCK)) return 'node_modules is missing';
  if (statSync(LOCK).mtimeMs > statSync(INSTALLED_LOCK).mtimeMs) return 'package-lock.json is newer than node_modules';
  return null;
}

function venvWorks() {
  if (!existsSync(VENV_PYTHON)) return false;
  return spawnSync(VENV_PYTHON, ['-c', 'import sys'], { stdio: 'ignore' }).status === 0;
}

function requirementsStale() {
  if (!existsSync(INSTALLED_REQUIREMENTS)) return 'no requirements installed yet';
  if (readFileSync(INSTALLED_REQUIREMENTS, 'utf8') !== readFileSync(REQUIREMENTS, 'utf8')) {
    return 'requirements.txt changed since the last install';
  }
  return null;
}

function setupNode() {
  const why = nodeModulesStale();
  if (why === null) {
    say('node_modules up to date');
    return;
  }
  say(`${why}: installing`);
  run('npm', ['ci', '--no-audit', '--no-fund']);
}

function setupPython() {
  if (!venvWorks()) {
    say(`${path.relative(process.cwd(), VENV) || VENV} missing or broken: creating it`);
    run('python3', ['-m', 'venv', '--clear', VENV]);
  }
  const why = requirementsStale();
  if (why === null) {
    say('.venv requirements up to date');
    return;
  }
  say(`${why}: installing`);
  run(VENV_PYTHON, ['-m', 'pip', 'install', '--disable-pip-version-check', '--quiet', '-r', REQUIREMENTS]);
  // Written only after pip succeeded, so a failed install is retried next time.
  copyFileSync(REQUIREMENTS, INSTALLED_REQUIREMENTS);
}

try {
  setupNode();
  setupPython();
  say('ready');
} catch (error) {
  process.stderr.write(`tool-servers setup failed: ${error.message}\n`);
  process.exit(1);
}
