// Questions about tokenized text (from ../tokenize.mjs) that the tests ask.

import { SCOPE_NAME } from '../../grammar/grammar.mjs';

/** The scope of operator names in node position. */
export const OPERATOR = 'entity.name.function.operator';
/** The scope of attribute names, in nodes and in function declarations. */
export const ATTRIBUTE_NAME = 'entity.other.attribute-name';
const NAMESPACE = 'entity.name.namespace';
const ACCESSOR = 'punctuation.accessor';

/** Whether `token` has `scope` or a scope below it (`a.b` covers `a.b.c.onnxtxt`). */
export const has = (token, scope) => token.scopes.some((s) => s === scope || s.startsWith(`${scope}.`));

/** Whether a token's text is only blanks, as the lexer counts them. */
export const isBlank = (token) => /^[ \t\r\x0B\x0C]*$/.test(token.text);

/** Whether `token` has a scope that says what it is: not the root, not only `meta.*`. */
export const isClassified = (token) => token.scopes.some((s) => s !== SCOPE_NAME && !s.startsWith('meta.'));

/** Every token of `lines`, with its line number (from 1). */
export const allTokens = (lines) => lines.flatMap((line, i) => line.tokens.map((token) => ({ ...token, line: i + 1 })));

/** The text a quoted name stands for (`"a\"b"` is `a"b`; `b"\x41"` is `A`). */
function unquote(text) {
  const bytes = text.startsWith('b"');
  const body = text.slice(bytes ? 2 : 1, -1);
  const out = [];
  for (let i = 0; i < body.length; i++) {
    if (body[i] !== '\\') {
      out.push(...Buffer.from(body[i]));
    } else if (bytes && /^x[0-9A-Fa-f]{2}$/.test(body.slice(i + 1, i + 4))) {
      out.push(parseInt(body.slice(i + 2, i + 4), 16));
      i += 3;
    } else {
      out.push(...Buffer.from(body[++i]));
    }
  }
  return Buffer.from(out).toString('utf8');
}

/** The text a bare or quoted name stands for. */
const nameText = (text) => (/^b?"/.test(text) ? unquote(text) : text);

/** The text a domain stands for: `com . example .` is `com.example`. */
function domainText(text) {
  const domain = text.replace(/\s*\.\s*$/, '');
  return /^b?"/.test(domain) ? unquote(domain) : domain.replace(/\s+/g, '');
}

/** The source text of consecutive `tokens` (from `allTokens`), line breaks included. */
const source = (tokens) =>
  tokens.map((token, i) => (i > 0 && token.line !== tokens[i - 1].line ? '\n' : '') + token.text).join('');

/** The runs of consecutive tokens with `scope`: `{ start, run }`, `start` the index of its first. */
function runs(tokens, scope) {
  const found = [];
  tokens.forEach((token, i) => {
    if (!has(token, scope)) return;
    if (i > 0 && has(tokens[i - 1], scope)) found.at(-1).run.push(token);
    else found.push({ start: i, run: [token] });
  });
  return found;
}

/** The names the grammar gave `scope`, each run of tokens with it one name. */
export const namesWith = (lines, scope) => runs(allTokens(lines), scope).map(({ run }) => nameText(source(run)));

/**
 * The operators the grammar found in `lines`, as `{ opType, domain }`: each
 * run of tokens with the operator scope is one, its domain the namespace and
 * accessor tokens just before it.
 */
export function operators(lines) {
  const tokens = allTokens(lines);
  const inDomain = (token) => has(token, NAMESPACE) || has(token, ACCESSOR) || isBlank(token);
  return runs(tokens, OPERATOR).map(({ start, run }) => {
    let first = start;
    while (first > 0 && inDomain(tokens[first - 1])) first--;
    const domain = tokens.slice(first, start).filter((token) => !isBlank(token) || has(token, NAMESPACE));
    return {
      opType: nameText(source(run)),
      domain: domain.some((token) => has(token, NAMESPACE)) ? domainText(source(domain)) : '',
    };
  });
}
