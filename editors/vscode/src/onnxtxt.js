// @ts-check
// Runs the onnxtxt command line for the extension: finds out whether it is
// there and has a language server, and prints binary models as text. No
// VS Code API here, so that test/ can run it with plain Node.

'use strict';

const { execFile } = require('node:child_process');
const { homedir } = require('node:os');
const { dirname, join } = require('node:path');

/**
 * The most text `print` may return: about the longest string Node can hold
 * (a model that prints longer is better read with `--external-data`).
 */
const MAX_TEXT_BYTES = 512 * 1024 * 1024;

/**
 * The `onnxtxt.path` setting as a command to run: `~/` is the home directory.
 * @param {string | undefined} setting
 */
function resolveCommand(setting) {
  const command = (setting || '').trim() || 'onnxtxt';
  return command.startsWith('~/') ? join(homedir(), command.slice(2)) : command;
}

/**
 * What the onnxtxt at `command` can do, as `{ status, detail }`: `missing`
 * (it cannot be run), `no-lsp` (it has no `lsp` command: too old), or `ok`.
 * @param {string} command
 * @returns {Promise<{ status: 'ok' | 'missing' | 'no-lsp', detail: string }>}
 */
function probeServer(command) {
  return new Promise((resolve) => {
    execFile(command, ['lsp', '--help'], { timeout: 10_000 }, (error, _stdout, stderr) => {
      if (!error) {
        resolve({ status: 'ok', detail: '' });
      } else if (typeof error.code === 'string') {
        // A system error (ENOENT, EACCES, ...): nothing ran.
        resolve({ status: 'missing', detail: error.message });
      } else {
        resolve({ status: 'no-lsp', detail: stderr.trim() });
      }
    });
  });
}

/**
 * Where a diagnostic of onnxtxt points, as its human form writes it after
 * the file name: `:LINE:COLUMN` in a text, `: byte N: IR path` in a binary.
 * @param {{ span?: { line?: number, column?: number, start?: number }, path?: string }} diagnostic
 */
function location({ span, path }) {
  if (span?.line !== undefined) return `:${span.line}:${span.column}`;
  return [span?.start !== undefined ? `byte ${span.start}` : null, path]
    .filter(Boolean)
    .map((part) => `: ${part}`)
    .join('');
}

/**
 * The first diagnostic of onnxtxt's `--error-format json` output, as
 * `FILE:LINE:COLUMN: message (help)`; `null` if there is none.
 * @param {string} stderr
 */
function firstDiagnostic(stderr) {
  for (const line of stderr.split('\n')) {
    let diagnostic;
    try {
      diagnostic = JSON.parse(line);
    } catch {
      continue; // Not a diagnostic (a panic message, say): look further.
    }
    const help = diagnostic.help ? ` (${diagnostic.help})` : '';
    return `${diagnostic.file ?? '<stdin>'}${location(diagnostic)}: ${diagnostic.message}${help}`;
  }
  return null;
}

/**
 * The canonical text of a model, from `onnxtxt print`: `source.file` a path
 * (external data is found next to it) or `source.bytes` the model itself.
 * Rejects with onnxtxt's first diagnostic, or with why it could not run.
 * @param {string} command
 * @param {{ file: string } | { bytes: Uint8Array }} source
 * @returns {Promise<string>}
 */
function printModel(command, source) {
  const file = 'file' in source ? source.file : undefined;
  const args = ['print', file ?? '-', '--error-format', 'json'];
  return new Promise((resolve, reject) => {
    const child = execFile(
      command,
      args,
      { encoding: 'utf8', maxBuffer: MAX_TEXT_BYTES, cwd: file ? dirname(file) : undefined },
      (error, stdout, stderr) => {
        if (!error) {
          resolve(stdout);
        } else if (typeof error.code === 'string') {
          reject(new Error(`cannot run onnxtxt (${command}): ${error.message}; set onnxtxt.path`));
        } else {
          reject(new Error(firstDiagnostic(stderr) ?? (stderr.trim() || error.message)));
        }
      },
    );
    // A failed spawn has no stdin worth writing to; the callback reports it.
    child.stdin?.on('error', () => {});
    child.stdin?.end('bytes' in source ? source.bytes : undefined);
  });
}

module.exports = { MAX_TEXT_BYTES, firstDiagnostic, printModel, probeServer, resolveCommand };
