// The page: a <textarea> editor over the library in WebAssembly
// (onnxtxt_web.js, made by build.sh from src/lib.rs). Everything runs in
// the page; nothing is sent anywhere.
import init, { Document, fmt, infer, is_text, parse, print } from './onnxtxt_web.js';

const $ = (testid) => document.querySelector(`[data-testid="${testid}"]`);
const editor = $('editor');
const list = $('diagnostics');
const hover = $('hover');
const status = $('status');
const compat = $('compat');
// The name downloads take, from the file opened last.
let stem = 'model';

// Live diagnostics, a moment after the last keystroke.
const DEBOUNCE_MS = 60;
let pending;
// The analysis of the editor's text as of the last refresh (once the
// module is loaded).
let analysed;

function show(message) {
  status.textContent = message;
}

// The UTF-16 offset in `text` of a 1-based LINE:COL counted in characters.
function offsetOf(text, line, column) {
  const lines = text.split('\n');
  let offset = 0;
  for (let i = 0; i < line - 1 && i < lines.length; i++) offset += lines[i].length + 1;
  const rest = Array.from(lines[line - 1] ?? '').slice(0, column - 1).join('');
  return offset + rest.length;
}

function refresh() {
  clearTimeout(pending);
  pending = undefined;
  const text = editor.value;
  analysed?.document.free();
  analysed = { text, document: new Document(text) };
  // An empty editor waits for a model; it is not an error yet.
  const found = text.trim() === '' ? [] : analysed.document.diagnostics();
  list.replaceChildren(
    ...found.map((d) => {
      const item = document.createElement('li');
      item.className = d.severity;
      item.textContent = `${d.line}:${d.column} ${d.severity}: ${d.message} [${d.code}]`;
      item.title = 'Go there';
      item.addEventListener('click', () => {
        editor.focus();
        editor.setSelectionRange(
          offsetOf(text, d.line, d.column),
          offsetOf(text, d.end_line, d.end_column),
        );
      });
      return item;
    }),
  );
  showHover();
  const errors = found.filter((d) => d.severity === 'error').length;
  if (text.trim() === '') return show('paste a model, or open or drop one');
  show(errors ? `${errors} error(s)` : found.length ? `valid, ${found.length} warning(s)` : 'valid');
}

// What is at the cursor (a value's type, an operator's signature), once
// the text there has been analysed.
function showHover() {
  if (analysed?.text !== editor.value) return;
  const markdown = analysed.document.hover(editor.selectionStart) ?? '';
  // Shown as plain text: the code fences' lines dropped.
  hover.textContent = markdown.replace(/^```\w*\n?/gm, '').trimEnd();
}

function setText(text) {
  editor.value = text;
  refresh();
}

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
  const bytes = new Uint8Array(await file.arrayBuffer());
  // Text is shown as written (comments kept); a binary model as its text.
  setText(is_text(bytes) ? new TextDecoder().decode(bytes) : print(bytes, compat.checked));
}

function download(data, name, type) {
  const url = URL.createObjectURL(new Blob([data], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

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
  setText(new TextDecoder().decode(await squeeze(bytes, new DecompressionStream('deflate-raw'))));
  return true;
}

await init();
editor.addEventListener('input', () => {
  clearTimeout(pending);
  pending = setTimeout(refresh, DEBOUNCE_MS);
});
for (const moved of ['click', 'keyup', 'select']) editor.addEventListener(moved, showHover);
$('open-file').addEventListener('change', guarded(async (event) => {
  const [file] = event.target.files;
  if (file) await open(file);
}));
editor.addEventListener('dragover', (event) => {
  event.preventDefault();
  editor.classList.add('dropping');
});
editor.addEventListener('dragleave', () => editor.classList.remove('dropping'));
editor.addEventListener('drop', guarded(async (event) => {
  event.preventDefault();
  editor.classList.remove('dropping');
  const [file] = event.dataTransfer.files;
  if (file) await open(file);
}));
$('format').addEventListener('click', guarded(() => setText(fmt(editor.value))));
$('canonical').addEventListener('click', guarded(() =>
  setText(print(new TextEncoder().encode(editor.value), compat.checked))));
$('infer').addEventListener('click', guarded(() => setText(infer(editor.value))));
$('download-binary').addEventListener('click', guarded(() =>
  download(parse(editor.value), `${stem}.onnx`, 'application/octet-stream')));
$('download-text').addEventListener('click', guarded(() =>
  download(editor.value, `${stem}.onnxtxt`, 'text/plain')));
$('share').addEventListener('click', guarded(shareLink));
await guarded(async () => {
  if (!(await fromShareLink())) refresh();
})();
document.body.dataset.ready = 'true';
