// The page: a <textarea> editor, highlighted from under it, over the
// library in WebAssembly, which runs in a web worker (worker.js) so that
// the page never waits on it. Everything runs in the browser; nothing is
// sent anywhere.
import { lineStarts } from './lines.js';

const $ = (testid) => document.querySelector(`[data-testid="${testid}"]`);
const editor = $('editor');
const colours = $('highlight');
const viewer = $('viewer');
const list = $('diagnostics');
const status = $('status');
const compat = $('compat');
// The name downloads take, from the file opened last.
let stem = 'model';

// ---- The worker ----

const worker = new Worker('worker.js', { type: 'module' });
const waiting = new Map();
let lastId = 0;
const workerReady = new Promise((ready) => {
  worker.addEventListener('message', ({ data }) => {
    if (data.ready) return ready();
    if (data.failed) return show(`the library did not load: ${data.failed}`);
    const call = waiting.get(data.id);
    if (!call) return;
    if ('progress' in data) return call.progress?.(data.progress);
    waiting.delete(data.id);
    if ('error' in data) call.reject(new Error(data.error));
    else call.resolve(data.result);
  });
});

// A worker that cannot start (its module not found, the browser without
// module workers) says so instead of leaving the page loading.
worker.addEventListener('error', (event) => show(`the worker failed: ${event.message ?? 'it did not start'}`));

// Calls `call` in the worker; `progress` hears of the bytes written.
function ask(call, args = [], progress) {
  const id = ++lastId;
  worker.postMessage({ id, call, args });
  return new Promise((resolve, reject) => waiting.set(id, { resolve, reject, progress }));
}

function show(message) {
  status.textContent = message;
}

// A long call, its progress in the status line.
async function withProgress(stage, call, args) {
  const started = performance.now();
  const seconds = () => ((performance.now() - started) / 1000).toFixed(1);
  show(`${stage}…`);
  return ask(call, args, (bytes) => show(`${stage}: ${(bytes / 1e6).toFixed(0)} MB written (${seconds()} s)`));
}

// ---- Highlighting: the tokens of the last analysis, drawn under the
// editor's transparent text, a screen of lines at a time ----

let classes = [];
// The last analysis: the text it is of, its tokens (start, end, class)
// and where the text's lines start.
let analysed = { text: '', tokens: new Uint32Array(), starts: [0] };
const LINE_HEIGHT = 20;

// The first index of `sorted` whose value is at least `value`.
function firstAtLeast(sorted, value, stride = 1) {
  let low = 0;
  let high = sorted.length / stride;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (sorted[middle * stride] < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

// The tokens of the last analysis that still stand in `text`: those
// before the first character edited since (all, if none was).
function tokensStanding(text) {
  const { text: before, tokens } = analysed;
  if (before === text) return tokens;
  let same = 0;
  while (same < before.length && before.charCodeAt(same) === text.charCodeAt(same)) same++;
  return tokens.subarray(0, firstAtLeast(tokens, same, 3) * 3);
}

function paint() {
  const text = editor.value;
  const starts = analysed.text === text ? analysed.starts : lineStarts(text);
  const first = Math.floor(editor.scrollTop / LINE_HEIGHT);
  const last = Math.min(starts.length, first + Math.ceil(editor.clientHeight / LINE_HEIGHT) + 1);
  const from = starts[first] ?? text.length;
  const to = last < starts.length ? starts[last] : text.length;
  const tokens = tokensStanding(text);
  const pieces = [];
  let at = from;
  for (let t = firstAtLeast(tokens, from, 3) * 3; t < tokens.length && tokens[t] < to; t += 3) {
    const [start, end, kind] = [tokens[t], Math.min(tokens[t + 1], to), tokens[t + 2]];
    if (start < at) continue;
    pieces.push(document.createTextNode(text.slice(at, start)));
    const span = document.createElement('span');
    span.className = `t-${classes[kind] ?? 'other'}`;
    span.textContent = text.slice(start, end);
    pieces.push(span);
    at = end;
  }
  pieces.push(document.createTextNode(text.slice(at, to)));
  colours.replaceChildren(...pieces);
  colours.style.transform = `translate(${-editor.scrollLeft}px, ${first * LINE_HEIGHT - editor.scrollTop}px)`;
}

// ---- Live analysis ----

// One analysis at a time: a text edited meanwhile is analysed as soon as
// the one running ends (the versions typed in between are skipped).
// `running` is the analyses under way, until the editor's text is
// analysed.
let running;
let stale = false;

// The UTF-16 offset in `text` of a 1-based LINE:COL counted in characters.
function offsetOf(text, line, column) {
  const lines = text.split('\n');
  let offset = 0;
  for (let i = 0; i < line - 1 && i < lines.length; i++) offset += lines[i].length + 1;
  const rest = Array.from(lines[line - 1] ?? '').slice(0, column - 1).join('');
  return offset + rest.length;
}

function select(start, end = start) {
  editor.focus();
  editor.setSelectionRange(start, end);
  guarded(showCursor)();
}

// Analyses the editor's text; done once the text as it is then is.
function refresh() {
  stale = true;
  running ??= (async () => {
    try {
      while (stale) {
        stale = false;
        await analyse(editor.value);
      }
    } finally {
      running = undefined;
    }
  })();
  return running;
}

async function analyse(text) {
  const started = performance.now();
  const { diagnostics, tokens, outline } = await ask('analyse', [text]);
  analysed = { text, tokens, starts: lineStarts(text) };
  paint();
  // An empty editor waits for a model; it is not an error yet.
  const found = text.trim() === '' ? [] : diagnostics;
  list.replaceChildren(
    ...found.map((d) => {
      const item = document.createElement('li');
      item.className = d.severity;
      item.textContent = `${d.line}:${d.column} ${d.severity}: ${d.message} [${d.code}]`;
      item.title = 'Go there';
      item.addEventListener('click', () =>
        select(offsetOf(text, d.line, d.column), offsetOf(text, d.end_line, d.end_column)));
      return item;
    }),
  );
  // For the benchmark (bench.mjs): from the request to the list shown.
  performance.measure('analysis', { start: started });
  showOutline(outline);
  guarded(showCursor)();
  refreshCompat();
  const errors = found.filter((d) => d.severity === 'error').length;
  if (text.trim() === '') return show('paste a model, or open or drop one');
  show(errors ? `${errors} error(s)` : found.length ? `valid, ${found.length} warning(s)` : 'valid');
}

function edited() {
  paint();
  guarded(refresh)();
}

// The outline: the graphs, functions and nodes, a click going there.
function showOutline(outline) {
  $('outline').replaceChildren(
    ...outline.map((entry) => {
      const item = document.createElement('li');
      item.style.paddingLeft = `${entry.depth}em`;
      item.className = entry.kind.toLowerCase();
      item.textContent = entry.detail ? `${entry.name}: ${entry.detail}` : entry.name;
      item.addEventListener('click', () => select(entry.start, entry.end));
      return item;
    }),
  );
}

// Markdown shown as plain text: the code fences' lines dropped.
const plainText = (markdown) => (markdown ?? '').replace(/^```\w*\n?/gm, '').trimEnd();

// What is at the cursor (a value's type, an operator's signature), and
// the signature of the node it is in, once the text there is analysed.
async function showCursor() {
  if (analysed.text !== editor.value) return;
  const at = editor.selectionStart;
  const [hover, signature] = await Promise.all([ask('hover', [at]), ask('signature', [at])]);
  if (analysed.text !== editor.value || at !== editor.selectionStart) return;
  $('hover').textContent = plainText(hover);
  $('signature').textContent = plainText(signature);
}

// ---- Completion (Ctrl+Space) ----

const suggestions = $('completions');
let offered = [];
let chosen = 0;

// A snippet as plain text: `${1:x}` is `x`, `$1` nothing, `\}` a `}`.
const unsnippet = (insert) =>
  insert.replace(/\$\{\d+:((?:\\.|[^\\}])*)\}|\$\d+|\\(.)/g, (_, placeholder, escaped) =>
    placeholder !== undefined ? placeholder.replace(/\\(.)/g, '$1') : escaped ?? '');

async function complete() {
  if (analysed.text !== editor.value) await refresh();
  offered = await ask('completions', [editor.selectionStart]);
  chosen = 0;
  showSuggestions();
}

function showSuggestions() {
  suggestions.replaceChildren(
    ...offered.map((suggestion, i) => {
      const item = document.createElement('li');
      item.textContent = suggestion.detail ? `${suggestion.label} — ${suggestion.detail}` : suggestion.label;
      item.className = i === chosen ? 'chosen' : '';
      item.addEventListener('mousedown', (event) => {
        event.preventDefault();
        accept(i);
      });
      return item;
    }),
  );
}

function accept(i) {
  const suggestion = offered[i];
  offered = [];
  showSuggestions();
  editor.setRangeText(suggestion.snippet ? unsnippet(suggestion.insert) : suggestion.insert,
    suggestion.start, suggestion.end, 'end');
  edited();
}

editor.addEventListener('keydown', (event) => {
  if (event.ctrlKey && event.key === ' ') {
    event.preventDefault();
    guarded(complete)();
    return;
  }
  if (offered.length === 0) return;
  const moves = { ArrowDown: 1, ArrowUp: -1 };
  if (event.key in moves) {
    chosen = (chosen + moves[event.key] + offered.length) % offered.length;
    showSuggestions();
  } else if (event.key === 'Enter' || event.key === 'Tab') {
    accept(chosen);
  } else if (event.key === 'Escape') {
    offered = [];
    showSuggestions();
  } else {
    return;
  }
  event.preventDefault();
});

// ---- The --compat view ----

const compatPane = document.getElementById('compat-pane');

async function refreshCompat() {
  const view = $('compat-view');
  if (compatPane.hidden) return;
  const text = editor.value;
  try {
    const printed = await ask('print', [text, true]);
    if (text !== editor.value) return;
    view.textContent = printed.text;
    $('compat-dropped').replaceChildren(...printed.dropped.map((d) => Object.assign(document.createElement('li'), { textContent: d })));
  } catch (error) {
    view.textContent = error.message;
  }
}

// ---- A text too big for the editor: read-only, a screen at a time ----

// The view's height in pixels at most: past it, the scroll bar moves
// through the lines in proportion.
const VIEW_MAX_PX = 1_000_000;
let bigLines = 0;

async function paintViewer() {
  const visible = Math.ceil(viewer.clientHeight / LINE_HEIGHT) + 1;
  const room = viewer.scrollHeight - viewer.clientHeight;
  const first = room > 0 ? Math.round((viewer.scrollTop / room) * Math.max(0, bigLines - visible + 1)) : 0;
  const lines = await ask('lines', [first, visible]);
  const text = $('viewer-text');
  text.textContent = lines.join('\n');
  text.style.top = `${viewer.scrollTop}px`;
  text.dataset.first = first + 1;
}
viewer.addEventListener('scroll', guarded(paintViewer));

function showBig(lines, length) {
  bigLines = lines;
  editor.value = '';
  analysed = { text: '', tokens: new Uint32Array(), starts: [0] };
  document.getElementById('viewer-space').style.height = `${Math.min(lines * LINE_HEIGHT, VIEW_MAX_PX)}px`;
  document.body.classList.add('big');
  viewer.scrollTop = 0;
  show(`${lines.toLocaleString('en')} lines, ${(length / 1e6).toFixed(0)} MB of text: read-only; checking…`);
}

function showEditor(text) {
  document.body.classList.remove('big');
  editor.value = text;
  paint();
  return refresh();
}

// ---- Files, downloads, share links ----

// Runs `action`, showing what it throws instead of losing it.
function guarded(action) {
  return async (...args) => {
    try {
      await action(...args);
    } catch (error) {
      show(error.message ?? String(error));
    }
  };
}

async function open(file) {
  stem = file.name.replace(/\.(onnx|onnxtxt|txt)$/, '') || 'model';
  // Text is shown as written (comments kept); a binary model as its text.
  const opened = await withProgress(`reading ${file.name}`, 'open', [file, compat.checked]);
  if (opened.text !== undefined) return showEditor(opened.text);
  showBig(opened.lines, opened.length);
  await paintViewer();
  const findings = await ask('checkBig');
  list.replaceChildren(...findings.map((f) => Object.assign(document.createElement('li'), { textContent: f })));
  show(`${opened.lines.toLocaleString('en')} lines, ${(opened.length / 1e6).toFixed(0)} MB of text: read-only; ${findings.length ? `${findings.length} finding(s)` : 'valid'}`);
}

function download(data, name, type) {
  const url = URL.createObjectURL(data instanceof Blob ? data : new Blob([data], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

const isBig = () => document.body.classList.contains('big');

// The share link: the text deflated, base64url, in the fragment (which
// browsers never send to a server).
async function squeeze(text, stream) {
  const piped = new Blob([text]).stream().pipeThrough(stream);
  return new Uint8Array(await new Response(piped).arrayBuffer());
}

async function shareLink() {
  const bytes = await squeeze(new TextEncoder().encode(editor.value), new CompressionStream('deflate-raw'));
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  const encoded = btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
  history.replaceState(null, '', `#text=${encoded}`);
  show('the address bar holds the link');
}

async function fromShareLink() {
  const match = location.hash.match(/^#text=([A-Za-z0-9_-]*)$/);
  if (!match) return false;
  const binary = atob(match[1].replaceAll('-', '+').replaceAll('_', '/'));
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  await showEditor(new TextDecoder().decode(await squeeze(bytes, new DecompressionStream('deflate-raw'))));
  return true;
}

// ---- The two-model diff ----

async function showDiff() {
  const [old] = $('diff-old').files;
  const [now] = $('diff-new').files;
  if (!now) return;
  // No first model chosen: the editor's text.
  const changes = await ask('diff', [old ?? editor.value, now]);
  $('diff').replaceChildren(
    ...(changes.length ? changes : [{ scope: '', what: 'the models are the same' }]).map((change) => {
      const item = document.createElement('li');
      item.textContent = change.scope ? `${change.scope}: ${change.what}` : change.what;
      return item;
    }),
  );
}

// ---- Wiring ----

editor.addEventListener('input', edited);
editor.addEventListener('scroll', paint);
new ResizeObserver(paint).observe(editor);
for (const moved of ['click', 'keyup', 'select']) editor.addEventListener(moved, guarded(showCursor));
$('open-file').addEventListener('change', guarded(async (event) => {
  const [file] = event.target.files;
  if (file) await open(file);
}));
for (const target of [editor, viewer]) {
  target.addEventListener('dragover', (event) => {
    event.preventDefault();
    target.classList.add('dropping');
  });
  target.addEventListener('dragleave', () => target.classList.remove('dropping'));
  target.addEventListener('drop', guarded(async (event) => {
    event.preventDefault();
    target.classList.remove('dropping');
    const [file] = event.dataTransfer.files;
    if (file) await open(file);
  }));
}
$('format').addEventListener('click', guarded(async () => showEditor(await ask('fmt', [editor.value]))));
$('canonical').addEventListener('click', guarded(async () =>
  showEditor((await ask('print', [editor.value, compat.checked])).text)));
$('infer').addEventListener('click', guarded(async () => showEditor(await ask('infer', [editor.value]))));
$('download-binary').addEventListener('click', guarded(async () => {
  const bytes = isBig()
    ? await withProgress('parsing', 'bigBinary')
    : await withProgress('parsing', 'parse', [editor.value]);
  download(bytes, `${stem}.onnx`, 'application/octet-stream');
  show(`${stem}.onnx: ${bytes.length.toLocaleString('en')} bytes`);
}));
$('download-text').addEventListener('click', guarded(async () =>
  download(isBig() ? await ask('bigText') : editor.value, `${stem}.onnxtxt`, 'text/plain')));
$('share').addEventListener('click', guarded(shareLink));
$('show-compat').addEventListener('change', guarded(async (event) => {
  compatPane.hidden = !event.target.checked;
  await refreshCompat();
}));
for (const input of ['diff-old', 'diff-new']) $(input).addEventListener('change', guarded(showDiff));

await workerReady;
classes = await ask('classes');
await guarded(async () => {
  if (!(await fromShareLink())) await refresh();
})();
document.body.dataset.ready = 'true';
