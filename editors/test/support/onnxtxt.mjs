// Runs the onnxtxt command line, which the tests take as the truth about
// what a text means: the binary named by $ONNXTXT, else the repository's
// own build (target/debug or target/release, from `cargo build`).

import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Room for the output of one command: the biggest smith models print a few MB. */
const MAX_OUTPUT_BYTES = 256 * 1024 * 1024;

function findBinary() {
  if (process.env.ONNXTXT) {
    return process.env.ONNXTXT;
  }
  const builds = ['debug', 'release'].map((profile) =>
    fileURLToPath(new URL(`../../../target/${profile}/onnxtxt`, import.meta.url)),
  );
  const found = builds.find((path) => existsSync(path));
  if (!found) {
    throw new Error(`no onnxtxt binary: run \`cargo build\` or set ONNXTXT (looked for ${builds.join(', ')})`);
  }
  return found;
}

/** The path of the onnxtxt binary the tests run. */
export const ONNXTXT = findBinary();

/** Runs `onnxtxt ARGS` with `input` on standard input; its standard output as bytes. */
export function onnxtxt(args, input) {
  return execFileSync(ONNXTXT, args, { input, maxBuffer: MAX_OUTPUT_BYTES, stdio: ['pipe', 'pipe', 'pipe'] });
}
