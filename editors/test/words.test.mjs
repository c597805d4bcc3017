// The grammar's keyword tables are the parser's: read from the Rust sources.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ATTRIBUTE_TYPES, ELEMENT_TYPES, TYPE_KEYWORDS, VALUE_KEYWORDS } from '../grammar/words.mjs';
import { repositoryFile } from './support/inputs.mjs';

const WORDS_FILE = 'src/vocabulary/words.rs';
const WORDS = repositoryFile(WORDS_FILE);

/** The string constant `name` of the Rust source. */
function rustString(name) {
  const value = WORDS.match(new RegExp(`const ${name}: &str = "([^"]+)";`));
  assert.ok(value, `no string constant ${name} in ${WORDS_FILE}`);
  return value[1];
}

/**
 * The words of the Rust table `name`, in order: each entry's quoted word, or the
 * value of the string constant it names (`SEQ` for "seq").
 */
function rustTable(name) {
  const body = WORDS.match(new RegExp(`const ${name}: [^=]+= &\\[([\\s\\S]*?)\\];`));
  assert.ok(body, `no ${name} in ${WORDS_FILE}`);
  return [...body[1].matchAll(/"([^"]+)"|\b([A-Z][A-Z_]*)\b(?!::)/g)]
    .map((m) => m[1] ?? rustString(m[2]));
}

test('element types are those of src/vocabulary/words.rs', () => {
  assert.deepEqual(ELEMENT_TYPES, rustTable('ELEMENT_TYPES'));
});

test('attribute types are those of src/vocabulary/words.rs', () => {
  assert.deepEqual(ATTRIBUTE_TYPES, rustTable('ATTRIBUTE_TYPES'));
});

test('type keywords are those of src/vocabulary/words.rs', () => {
  assert.deepEqual(TYPE_KEYWORDS, rustTable('TYPE_KEYWORDS'));
});

test('value keywords are the words the annotation parser compares with', () => {
  const source = repositoryFile('src/parser/annotation.rs');
  const words = new Set([...source.matchAll(/word == "([a-z_]+)"/g)].map((m) => m[1]));
  assert.deepEqual([...words].sort(), [...VALUE_KEYWORDS].sort());
});
