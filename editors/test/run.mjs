// `npm test`: runs every test/*.test.mjs with node's test runner.
// `npm test -- --update` (or UPDATE_SNAPSHOTS=1) rewrites the snapshots in
// test/snapshots/ instead of comparing against them: for when the grammar
// changes on purpose. Review the diff before committing it.

import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const unknown = args.filter((arg) => arg !== '--update');
if (unknown.length > 0) {
  console.error(`unknown arguments: ${unknown.join(' ')} (the only one is --update)`);
  process.exit(2);
}
const dir = fileURLToPath(new URL('.', import.meta.url));
const files = readdirSync(dir)
  .filter((name) => name.endsWith('.test.mjs'))
  .sort()
  .map((name) => `${dir}${name}`);
const env = { ...process.env, ...(args.includes('--update') && { UPDATE_SNAPSHOTS: '1' }) };
const run = spawnSync(process.execPath, ['--test', ...files], { stdio: 'inherit', env });
process.exit(run.status ?? 1);
