// Every example and tricky case, tokenized, against its committed snapshot
// in test/snapshots/ (rewritten by `npm test -- --update`).

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { EXAMPLES, INVALID_CASES, VALID_CASES } from './support/inputs.mjs';
import { firstDifference, snapshot } from './support/snapshot.mjs';
import { tokenize } from './tokenize.mjs';

const UPDATE = process.env.UPDATE_SNAPSHOTS === '1';
const SNAPSHOTS = fileURLToPath(new URL('./snapshots/', import.meta.url));
const INPUTS = [...EXAMPLES, ...VALID_CASES, ...INVALID_CASES];
const snapshotFile = (key) => `${SNAPSHOTS}${key}.snap`;

for (const input of INPUTS) {
  test(`the scopes of ${input.name} match its snapshot`, () => {
    const file = snapshotFile(input.key);
    const actual = snapshot(input.name, tokenize(input.text));
    if (UPDATE) {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, actual);
      return;
    }
    assert.ok(existsSync(file), `no snapshot ${file}: run \`npm test -- --update\` and review it`);
    const expected = readFileSync(file, 'utf8');
    if (actual !== expected) {
      assert.fail(`${input.name} is tokenized differently from ${file}\n${firstDifference(actual, expected)}`);
    }
  });
}

test('every snapshot belongs to an input', () => {
  const wanted = new Set(INPUTS.map((input) => snapshotFile(input.key)));
  const stale = readdirSync(SNAPSHOTS, { recursive: true })
    .map((path) => `${SNAPSHOTS}${path}`)
    .filter((path) => path.endsWith('.snap') && !wanted.has(path));
  if (UPDATE) {
    stale.forEach((path) => rmSync(path));
  } else {
    assert.deepEqual(stale, [], 'snapshots of inputs that are gone: `npm test -- --update` removes them');
  }
});
