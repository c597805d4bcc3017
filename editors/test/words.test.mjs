// The grammar's keyword tables are the parser's: read from the Rust sources.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ATTRIBUTE_TYPES, ELEMENT_TYPES, TYPE_KEYWORDS, VALUE_KEYWORDS } from '../grammar/words.mjs';
import { repositoryFile } from './support/inputs.mjs';

const NAMES = repositoryFile('src/names.rs');

/** The quoted words of the Rust constant `name` in src/names.rs. */
function rustTable(name) {
  const body = NAMES.match(new RegExp(`pub const ${name}: [^=]+= &\\[([\\s\\S]*?)\\];`));
  assert.ok(body, `no ${name} in src/names.rs`);
  return [...body[1].matchAll(/"([^"]+)"/g)].map((m) => m[1]);
}

test('element types are those of src/names.rs', () => {
  assert.deepEqual(ELEMENT_TYPES, rustTable('ELEMENT_TYPES'));
});

test('attribute types are those of src/names.rs', () => {
  assert.deepEqual(ATTRIBUTE_TYPES, rustTable('ATTRIBUTE_TYPES'));
});

test('type keywords are those of src/names.rs', () => {
  assert.deepEqual(TYPE_KEYWORDS, rustTable('TYPE_KEYWORDS'));
});

test('value keywords are the words the annotation parser compares with', () => {
  const source = repositoryFile('src/parser/annotation.rs');
  const words = new Set([...source.matchAll(/word == "([a-z_]+)"/g)].map((m) => m[1]));
  assert.deepEqual([...words].sort(), [...VALUE_KEYWORDS].sort());
});
