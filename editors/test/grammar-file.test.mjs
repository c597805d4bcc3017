// The committed grammar file is what grammar/ builds, and the language
// configuration's patterns do what editors need of them.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { GRAMMAR_FILE, grammarText } from '../grammar/build.mjs';

const CONFIGURATION = JSON.parse(readFileSync(new URL('../language-configuration.json', import.meta.url), 'utf8'));

test('onnxtxt.tmLanguage.json is up to date with grammar/ (`npm run grammar` rewrites it)', () => {
  assert.equal(readFileSync(GRAMMAR_FILE, 'utf8'), grammarText());
});

test('words include dotted names and signed numbers, and stop at punctuation and quotes', () => {
  // As VS Code reads a string wordPattern.
  const words = (text) => text.match(new RegExp(CONFIGURATION.wordPattern, 'g'));
  assert.deepEqual(words('y = com.example.ScaledLeakyRelu <alpha: float = -1e-7> (x_1, "a b", @ai.onnx.ml)'), [
    'y',
    'com.example.ScaledLeakyRelu',
    'alpha',
    'float',
    '-1e-7',
    'x_1',
    'a',
    'b',
    'ai.onnx.ml',
  ]);
  assert.deepEqual(words('local.MyFn:v2 [N,4]'), ['local.MyFn', 'v2', 'N', '4']);
});

test('lines that open a bracket indent the next, lines that close one dedent', () => {
  const { increaseIndentPattern, decreaseIndentPattern } = CONFIGURATION.indentationRules;
  const increases = (line) => new RegExp(increaseIndentPattern).test(line);
  const decreases = (line) => new RegExp(decreaseIndentPattern).test(line);
  for (const line of ['mlp (float[N,4] x) => (float[N,3] y) {', '<', '  y = If (c) <  # branches', '  ints = [']) {
    assert.ok(increases(line), line);
  }
  for (const line of ['  y = Relu (x)', '  y = Relu (x)  # a {', '  s: string = "{"', '}']) {
    assert.ok(!increases(line), line);
  }
  for (const line of ['}', '  >', ')', '  ]']) {
    assert.ok(decreases(line), line);
  }
  assert.ok(!decreases('  y = Relu (x)'));
});

test('every bracket pair auto-closes and surrounds', () => {
  const open = (pairs) => pairs.map((pair) => (Array.isArray(pair) ? pair[0] : pair.open)).sort();
  const brackets = open(CONFIGURATION.brackets);
  assert.deepEqual(brackets, ['(', '<', '[', '{']);
  assert.deepEqual(open(CONFIGURATION.autoClosingPairs), ['"', ...brackets].sort());
  assert.deepEqual(open(CONFIGURATION.surroundingPairs), ['"', ...brackets].sort());
});
