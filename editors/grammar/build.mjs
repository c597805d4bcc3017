// Writes onnxtxt.tmLanguage.json from grammar.mjs (`npm run grammar`).
// test/grammar-file.test.mjs fails when the committed file is out of date.

import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { grammar } from './grammar.mjs';

/** Where the grammar goes, for editors and tests to read. */
export const GRAMMAR_FILE = new URL('../onnxtxt.tmLanguage.json', import.meta.url);

/** The grammar file's text. */
export const grammarText = () => `${JSON.stringify(grammar(), null, 2)}\n`;

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(GRAMMAR_FILE, grammarText());
}
