// package.json against the code and the grammar: what the code registers
// and reads is declared, and what is declared exists.

import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';

const read = (path) => readFileSync(new URL(path, import.meta.url), 'utf8');
const MANIFEST = JSON.parse(read('../package.json'));
const SOURCES = readdirSync(new URL('../src/', import.meta.url))
  .map((name) => read(`../src/${name}`))
  .join('\n');
const GRAMMAR = JSON.parse(read('../../onnxtxt.tmLanguage.json'));
const { contributes } = MANIFEST;

test('the commands the code registers are the commands declared', () => {
  const registered = [...SOURCES.matchAll(/registerCommand\('([^']+)'/g)].map((m) => m[1]).sort();
  assert.deepEqual(registered, contributes.commands.map((c) => c.command).sort());
  for (const menu of Object.values(contributes.menus).flat()) {
    assert.ok(registered.includes(menu.command), menu.command);
  }
});

test('the settings the code reads are declared', () => {
  const declared = Object.keys(contributes.configuration.properties);
  const read = [...SOURCES.matchAll(/getConfiguration\('(\w+)'\)\.get\('(\w+)'\)/g)].map((m) => `${m[1]}.${m[2]}`);
  assert.ok(read.length > 0);
  for (const key of read) assert.ok(declared.includes(key), key);
  // vscode-languageclient reads `<client id>.trace.server` itself.
  assert.match(SOURCES, /new LanguageClient\(\s*'onnxtxt'/);
  assert.ok(declared.includes('onnxtxt.trace.server'));
});

test('the language is .onnxtxt and .onnxtext, with the grammar of editors/', () => {
  const [language] = contributes.languages;
  assert.deepEqual(language.extensions, ['.onnxtxt', '.onnxtext']);
  const [grammar] = contributes.grammars;
  assert.equal(grammar.language, language.id);
  assert.equal(grammar.scopeName, GRAMMAR.scopeName);
  assert.ok(existsSync(new URL(`../${grammar.path}`, import.meta.url)), `${grammar.path}: run scripts/copy-assets.js`);
  assert.ok(existsSync(new URL(`../${language.configuration}`, import.meta.url)));
  assert.match(SOURCES, new RegExp(`language: '${language.id}'`));
});

test('the scopes kept out of bracket matching are scopes of the grammar', () => {
  const text = JSON.stringify(GRAMMAR);
  for (const scope of contributes.grammars[0].unbalancedBracketScopes) {
    assert.ok(text.includes(`"${scope}`) || text.includes(` ${scope}`), scope);
  }
});

test('the VS Code version required is one the language client and the API types accept', () => {
  const minimum = (range) => range.replace(/^\^/, '').split('.').map(Number);
  const client = JSON.parse(read('../node_modules/vscode-languageclient/package.json'));
  const types = JSON.parse(read('../node_modules/@types/vscode/package.json'));
  const ours = minimum(MANIFEST.engines.vscode);
  const atLeast = (a, b) => a[0] > b[0] || (a[0] === b[0] && (a[1] > b[1] || (a[1] === b[1] && a[2] >= b[2])));
  assert.ok(atLeast(ours, minimum(client.engines.vscode)), 'vscode-languageclient needs a newer VS Code');
  assert.ok(atLeast(ours, minimum(types.version)), '@types/vscode is newer than the VS Code required');
});
