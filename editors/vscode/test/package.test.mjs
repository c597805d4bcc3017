// What `vsce package` would put in the .vsix (`vsce ls`): the extension and
// every file its runtime dependencies run, nothing of the tests, scripts or
// development tools.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const EXTENSION = fileURLToPath(new URL('..', import.meta.url));
const run = (command, args) => execFileSync(command, args, { cwd: EXTENSION, encoding: 'utf8' });
const npm = (args) => run(process.platform === 'win32' ? 'npm.cmd' : 'npm', args);
const npx = (args) => run(process.platform === 'win32' ? 'npx.cmd' : 'npx', args);

const PACKAGED = new Set(npx(['vsce', 'ls']).split('\n').filter(Boolean));

/** Files that Node may load from a package: code, JSON, and licences that must travel with it. */
const NEEDED = /\.(c|m)?js$|\.json$|^licen[cs]e|^thirdpartynotices/i;
/** What .vscodeignore leaves out on purpose: a schema and lint settings that no code loads. */
const LEFT_OUT = /(^|\/)(metaModel\.schema\.json|eslint\.config\.js)$/;

test('the extension, its grammar and its configuration are packaged', () => {
  const sources = readdirSync(new URL('../src/', import.meta.url)).map((name) => `src/${name}`);
  for (const file of [...sources, 'package.json', 'README.md', 'language-configuration.json', 'syntaxes/onnxtxt.tmLanguage.json']) {
    assert.ok(PACKAGED.has(file), file);
  }
});

test('every file the runtime dependencies may load is packaged', () => {
  const dependencies = npm(['ls', '--omit=dev', '--parseable', '--all'])
    .split('\n')
    .filter((dir) => dir.includes('node_modules'));
  assert.ok(dependencies.some((dir) => dir.endsWith('vscode-languageclient')));
  const missing = dependencies.flatMap((dir) =>
    readdirSync(dir, { recursive: true })
      .filter((file) => NEEDED.test(file.split('/').at(-1)) && !LEFT_OUT.test(file))
      .map((file) => relative(EXTENSION, `${dir}/${file}`))
      .filter((file) => !PACKAGED.has(file)),
  );
  assert.deepEqual(missing, []);
});

test('tests, scripts and development tools are not packaged', () => {
  const unwanted = [...PACKAGED].filter((file) =>
    /^(test|scripts)\/|^tsconfig\.json$|\.vsix$|^node_modules\/(typescript|@vscode\/vsce|@types)\//.test(file),
  );
  assert.deepEqual(unwanted, []);
});
