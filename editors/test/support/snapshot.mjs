// Snapshots of tokenized text, one file per input, meant to be read: each
// source line, then its tokens (JSON-quoted text, then scopes outermost
// first, without the root scope and the `.onnxtxt` suffix). Blank tokens
// that only carry structure (`meta.*`) are left out.

import { SCOPE_NAME } from '../../grammar/grammar.mjs';
import { isBlank, isClassified } from './scopes.mjs';

/** The column where scopes start, for tokens shorter than it. */
const SCOPE_COLUMN = 24;

const SUFFIX = `.${SCOPE_NAME.split('.').at(-1)}`;

/** The snapshot text of `lines` (from `tokenize`) of the input `name`. */
export function snapshot(name, lines) {
  const out = [`# ${name} (editors: \`npm test -- --update\` rewrites this file)`];
  lines.forEach((line, i) => {
    out.push(`${i + 1}: ${line.text}`);
    for (const token of line.tokens) {
      if (isBlank(token) && !isClassified(token)) continue;
      const scopes = token.scopes
        .filter((s) => s !== SCOPE_NAME)
        .map((s) => (s.endsWith(SUFFIX) ? s.slice(0, -SUFFIX.length) : s));
      out.push(`  ${JSON.stringify(token.text).padEnd(SCOPE_COLUMN)} ${scopes.join(' ')}`);
    }
  });
  return `${out.join('\n')}\n`;
}

/** Where `actual` and `expected` first differ, as a message with context. */
export function firstDifference(actual, expected) {
  const a = actual.split('\n');
  const e = expected.split('\n');
  const at = a.findIndex((line, i) => line !== e[i]);
  const line = at === -1 ? Math.min(a.length, e.length) : at;
  const context = (lines) => lines.slice(Math.max(0, line - 3), line + 1).join('\n    ');
  return `first difference at snapshot line ${line + 1}:\n  expected:\n    ${context(e)}\n  actual:\n    ${context(a)}`;
}
