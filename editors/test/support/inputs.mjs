// The texts the tests tokenize: the repository's examples and the tricky
// cases of test/cases/ (valid/ must parse, invalid/ must not).

import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const REPOSITORY = new URL('../../../', import.meta.url);

/** The inputs in `folder` of the repository; `key` names their snapshots. */
function inputs(folder, key) {
  const url = new URL(folder, REPOSITORY);
  return readdirSync(url)
    .filter((name) => name.endsWith('.onnxtxt'))
    .sort()
    .map((name) => ({
      name: `${folder}${name}`,
      key: `${key}${name.replace(/\.onnxtxt$/, '')}`,
      path: fileURLToPath(new URL(name, url)),
      text: readFileSync(new URL(name, url), 'utf8'),
    }));
}

/**
 * The models of examples/: `[{ name, key, path, text }]`, `name` the path
 * from the repository's root, `key` the snapshot's path in test/snapshots/.
 */
export const EXAMPLES = inputs('examples/', 'examples/');
/** The tricky cases that the parser accepts. */
export const VALID_CASES = inputs('editors/test/cases/valid/', 'cases/valid/');
/** The tricky cases that the parser rejects (mistakes, text being typed). */
export const INVALID_CASES = inputs('editors/test/cases/invalid/', 'cases/invalid/');

/** The repository file at `path` (relative to its root), as text. */
export const repositoryFile = (path) => readFileSync(new URL(path, REPOSITORY), 'utf8');
