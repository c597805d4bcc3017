// src/onnxtxt.js against the real onnxtxt command line: models printed from
// a file and from bytes, its diagnostics passed on, a missing command and
// one without a language server told apart.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import onnxtxt from '../src/onnxtxt.js';
import { ONNXTXT } from '../../test/support/onnxtxt.mjs';

const { printModel, probeServer, resolveCommand } = onnxtxt;

const EXAMPLE = new URL('../../../examples/control_flow.onnxtxt', import.meta.url);
const scratch = mkdtempSync(join(tmpdir(), 'onnxtxt-vscode-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

const model = join(scratch, 'control_flow.onnx');
execFileSync(ONNXTXT, ['parse', EXAMPLE.pathname, '-o', model]);
const printed = execFileSync(ONNXTXT, ['print', model], { encoding: 'utf8' });
const MISSING = join(scratch, 'no-such-onnxtxt');

test('a model file prints as onnxtxt print prints it', async () => {
  assert.equal(await printModel(ONNXTXT, { file: model }), printed);
  assert.match(printed, /^control_flow \(float\[4\] x, int64 trip_count\)/m);
});

test('a model given as bytes prints the same', async () => {
  assert.equal(await printModel(ONNXTXT, { bytes: readFileSync(model) }), printed);
});

test("a broken model is refused with onnxtxt's first diagnostic, located", async () => {
  const broken = join(scratch, 'broken.onnx');
  writeFileSync(broken, readFileSync(model).subarray(0, 40));
  await assert.rejects(printModel(ONNXTXT, { file: broken }), (error) => {
    assert.ok(error.message.startsWith(`${broken}: byte `), error.message);
    assert.match(error.message, /: byte \d+: graph: .*runs past the end/);
    return true;
  });
  const text = Buffer.from('g (x) => (y) {\n  y = Relu (x');
  await assert.rejects(printModel(ONNXTXT, { bytes: text }), { message: /^<stdin>:\d+:\d+: .*never closed/ });
});

test('a missing onnxtxt is refused with a pointer to the setting', async () => {
  await assert.rejects(printModel(MISSING, { file: model }), { message: /^cannot run onnxtxt .*ENOENT.*; set onnxtxt\.path$/ });
});

test('the probe tells a missing onnxtxt from one without a language server', async () => {
  assert.equal((await probeServer(MISSING)).status, 'missing');
  const help = execFileSync(ONNXTXT, ['--help'], { encoding: 'utf8' });
  const hasLsp = /^\s+lsp\s/m.test(help);
  assert.equal((await probeServer(ONNXTXT)).status, hasLsp ? 'ok' : 'no-lsp');
});

test('the setting names a command or a path, ~/ for the home directory', () => {
  assert.equal(resolveCommand(undefined), 'onnxtxt');
  assert.equal(resolveCommand('  '), 'onnxtxt');
  assert.equal(resolveCommand('/opt/bin/onnxtxt'), '/opt/bin/onnxtxt');
  assert.equal(resolveCommand('~/bin/onnxtxt'), join(homedir(), 'bin/onnxtxt'));
});
