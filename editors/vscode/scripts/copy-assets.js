// Copies the grammar and the language configuration from editors/ (their
// one home) into the extension, before it is packaged or tested.

'use strict';

const { copyFileSync, mkdirSync } = require('node:fs');
const { join } = require('node:path');

const EDITORS = join(__dirname, '..', '..');
const EXTENSION = join(__dirname, '..');

mkdirSync(join(EXTENSION, 'syntaxes'), { recursive: true });
copyFileSync(join(EDITORS, 'onnxtxt.tmLanguage.json'), join(EXTENSION, 'syntaxes', 'onnxtxt.tmLanguage.json'));
copyFileSync(join(EDITORS, 'language-configuration.json'), join(EXTENSION, 'language-configuration.json'));
