// The page's web worker: every call into the library (onnxtxt_web.js, made
// by build.sh from src/lib.rs) runs here, so that a big model is read,
// printed, parsed and checked while the page goes on answering. The page
// posts `{ id, call, args }`; the worker answers `{ id, result }` or
// `{ id, error }`, and `{ id, progress }` (bytes written so far) during a
// long call.
//
// It keeps the analysis of the editor's latest text (for hover, completion,
// the signature at the cursor) and a text too big for the editor, whose
// lines the page asks for as it scrolls.
import init, * as onnxtxt from './onnxtxt_web.js';
import { lineStarts } from './lines.js';

// Texts longer than this (in UTF-16 units) are shown read-only, a screen
// of lines at a time: a <textarea> holding a text takes Chromium about
// 0.2 s a megabyte to lay out, the page frozen meanwhile.
const EDITOR_LIMIT = 1_000_000;

const ready = init();
// The analysis of the editor's text (an onnxtxt.Document).
let analysed;
// A text too big for the editor: { text, starts } (where each line starts),
// and the binary it was printed from.
let big;

// A wasm-bindgen object as a plain one (which can be posted), freed.
function plain(object, keys) {
  const copy = Object.fromEntries(keys.map((key) => [key, object[key]]));
  object.free();
  return copy;
}

const DIAGNOSTIC = ['severity', 'code', 'message', 'line', 'column', 'end_line', 'end_column'];
const SUGGESTION = ['label', 'kind', 'detail', 'insert', 'snippet', 'start', 'end'];
const OUTLINE = ['name', 'detail', 'kind', 'depth', 'start', 'end'];

const calls = {
  classes: () => onnxtxt.token_classes(),

  // A file opened or dropped: its text (a binary printed as `onnxtxt
  // print` prints it), or, when too big for the editor, its size in lines,
  // the text kept here.
  async open(file, compat, progress) {
    const bytes = new Uint8Array(await file.arrayBuffer());
    const text = onnxtxt.is_text(bytes)
      ? new TextDecoder().decode(bytes)
      : plain(onnxtxt.print(bytes, compat, progress), ['text']).text;
    if (text.length <= EDITOR_LIMIT) {
      big = undefined;
      return { text };
    }
    big = { text, starts: lineStarts(text), bytes };
    return { lines: big.starts.length, length: text.length };
  },

  // `count` lines of the big text from line `from` (0-based).
  lines(from, count) {
    const { text, starts } = big;
    const end = Math.min(from + count, starts.length);
    return starts.slice(from, end).map((start, i) =>
      text.slice(start, i + from + 1 < starts.length ? starts[i + from + 1] - 1 : text.length));
  },

  // What `onnxtxt check` finds in the big model, by IR path.
  checkBig: () => onnxtxt.check(big.bytes),

  // The big text as a file to download, and its binary.
  bigText: () => new Blob([big.text], { type: 'text/plain' }),
  bigBinary: (progress) => onnxtxt.parse(big.text, progress),

  analyse(text) {
    analysed?.free();
    analysed = new onnxtxt.Document(text);
    return {
      diagnostics: analysed.diagnostics().map((d) => plain(d, DIAGNOSTIC)),
      tokens: analysed.tokens(),
      outline: analysed.outline().map((o) => plain(o, OUTLINE)),
    };
  },
  hover: (at) => analysed?.hover(at),
  signature: (at) => analysed?.signature(at),
  completions: (at) => analysed?.completions(at).map((c) => plain(c, SUGGESTION)) ?? [],

  parse: (text, progress) => onnxtxt.parse(text, progress),
  fmt: (text) => onnxtxt.fmt(text),
  infer: (text) => onnxtxt.infer(text),
  print: (text, compat) =>
    plain(onnxtxt.print(new TextEncoder().encode(text), compat), ['text', 'dropped']),
  async diff(old, now) {
    const bytes = async (model) =>
      typeof model === 'string' ? new TextEncoder().encode(model) : new Uint8Array(await model.arrayBuffer());
    return onnxtxt.diff(await bytes(old), await bytes(now)).map((c) => plain(c, ['scope', 'what']));
  },
};

self.onmessage = async ({ data: { id, call, args } }) => {
  try {
    await ready;
    const progress = { report: (bytes) => postMessage({ id, progress: bytes }) };
    const result = await calls[call](...args, progress);
    // Arrays of numbers are handed over, not copied.
    const arrays = [result, result?.tokens].filter((a) => a instanceof Uint8Array || a instanceof Uint32Array);
    postMessage({ id, result }, arrays.map((a) => a.buffer));
  } catch (error) {
    postMessage({ id, error: error?.message ?? String(error) });
  }
};
ready.then(
  () => postMessage({ ready: true }),
  (error) => postMessage({ failed: error?.message ?? String(error) }),
);
