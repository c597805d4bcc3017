// Tokenizes text with the committed grammar file, through the real
// vscode-textmate and vscode-oniguruma (the engine VS Code itself runs).

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import oniguruma from 'vscode-oniguruma';
import textmate from 'vscode-textmate';
import { GRAMMAR_FILE } from '../grammar/build.mjs';
import { SCOPE_NAME } from '../grammar/grammar.mjs';

/** How long one line may take before vscode-textmate gives up on it. */
const LINE_TIME_LIMIT_MS = 2000;

const require = createRequire(import.meta.url);
const wasm = readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));

const registry = new textmate.Registry({
  onigLib: Promise.resolve({
    createOnigScanner: (sources) => new oniguruma.OnigScanner(sources),
    createOnigString: (text) => new oniguruma.OnigString(text),
  }),
  loadGrammar: async (scopeName) =>
    scopeName === SCOPE_NAME
      ? textmate.parseRawGrammar(readFileSync(GRAMMAR_FILE, 'utf8'), GRAMMAR_FILE.pathname)
      : null,
});
const onnxtxt = await registry.loadGrammar(SCOPE_NAME);

/**
 * The tokens of `text`, line by line: `[{ text, tokens: [{ text, start, scopes }] }]`,
 * `start` the token's offset in its line, the scopes outermost first (the
 * root scope included). Lines end at `\n`.
 */
export function tokenize(text) {
  let state = textmate.INITIAL;
  return text.split('\n').map((line) => {
    const result = onnxtxt.tokenizeLine(line, state, LINE_TIME_LIMIT_MS);
    if (result.stoppedEarly) {
      throw new Error(`tokenizing took over ${LINE_TIME_LIMIT_MS} ms on the line ${JSON.stringify(line)}`);
    }
    state = result.ruleStack;
    const tokens = result.tokens
      .map((token) => ({
        text: line.slice(token.startIndex, token.endIndex),
        start: token.startIndex,
        scopes: token.scopes,
      }))
      .filter((token) => token.text !== '');
    return { text: line, tokens };
  });
}
