// What must hold of the scopes of any text the parser accepts, checked on
// the examples, the valid tricky cases and random models from
// `onnxtxt smith`, against what `onnxtxt parse` makes of the same text:
//
// - every token that is not blank has a scope saying what it is (not just
//   the root or `meta.*`), and none is marked invalid;
// - the tokens with the operator scope are exactly the nodes' operators,
//   in order, with their domains;
// - the tokens with the attribute-name scope are exactly the attributes'
//   names (of nodes, and declared by functions).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EXAMPLES, INVALID_CASES, VALID_CASES } from './support/inputs.mjs';
import { textFacts } from './support/model.mjs';
import { onnxtxt } from './support/onnxtxt.mjs';
import { ATTRIBUTE_NAME, allTokens, has, isBlank, isClassified, namesWith, operators } from './support/scopes.mjs';
import { tokenize } from './tokenize.mjs';

/**
 * How many `onnxtxt smith` models to check (seeds 0, 1, ...): about 20 ms
 * each; 2,000 passed when the grammar was written.
 */
const SMITH_MODELS = 200;

/** What is wrong with the scopes of `text`, which the parser accepts; empty if nothing. */
function problems(text) {
  const lines = tokenize(text);
  const found = [];
  lines.forEach((line, i) => {
    if (line.tokens.map((token) => token.text).join('') !== line.text) {
      found.push(`line ${i + 1}: the tokens do not cover the line`);
    }
  });
  for (const token of allTokens(lines)) {
    const where = `line ${token.line}: ${JSON.stringify(token.text)} (${token.scopes.join(' ')})`;
    if (!isBlank(token) && !isClassified(token)) found.push(`${where} has no scope but structure`);
    if (has(token, 'invalid')) found.push(`${where} is marked invalid`);
  }
  const facts = textFacts(text);
  const show = (list) => list.map((item) => JSON.stringify(item)).join('\n    ');
  const scoped = operators(lines);
  if (show(scoped) !== show(facts.operators)) {
    found.push(`operators:\n  parsed:\n    ${show(facts.operators)}\n  scoped:\n    ${show(scoped)}`);
  }
  const attributes = namesWith(lines, ATTRIBUTE_NAME).sort();
  if (show(attributes) !== show([...facts.attributes].sort())) {
    found.push(`attribute names:\n  parsed:\n    ${show(facts.attributes.sort())}\n  scoped:\n    ${show(attributes)}`);
  }
  return found;
}

for (const input of [...EXAMPLES, ...VALID_CASES]) {
  test(`the scopes of ${input.name} agree with the parser`, () => {
    assert.deepEqual(problems(input.text), []);
  });
}

for (const input of INVALID_CASES) {
  test(`${input.name} does not parse`, () => {
    assert.throws(() => onnxtxt(['parse', '-', '-o', '/dev/null'], input.text), /Command failed/);
  });
}

test(`the scopes of ${SMITH_MODELS} models from onnxtxt smith agree with the parser`, () => {
  const failures = [];
  for (let seed = 0; seed < SMITH_MODELS && failures.length < 3; seed++) {
    const found = problems(onnxtxt(['smith', '--seed', String(seed)]).toString('utf8'));
    if (found.length > 0) failures.push(`onnxtxt smith --seed ${seed}:\n${found.slice(0, 5).join('\n')}`);
  }
  assert.deepEqual(failures, []);
});

test('the examples use operators and attributes, so that the checks above check something', () => {
  const all = EXAMPLES.map((input) => textFacts(input.text));
  assert.ok(all.every((facts) => facts.operators.length > 0));
  assert.ok(all.some((facts) => facts.attributes.length > 0));
  assert.ok(all.some((facts) => facts.operators.some((op) => op.domain !== '')));
});
