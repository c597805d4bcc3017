// End-to-end tests of the page in headless Chromium (Debian's `chromium`,
// driven by playwright-core): web/dist/ (made by build.sh) served on
// 127.0.0.1, each result held against what the `onnxtxt` command gives for
// the same input. ONNXTXT names the command (target/debug/onnxtxt by
// default).
//
//     bash web/build.sh && (cd web && npm ci && npm test)
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { test, after, before } from 'node:test';
import { chromium } from 'playwright-core';

const web = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const root = resolve(web, '..');
const dist = join(web, 'dist');
const onnxtxt = process.env.ONNXTXT ?? join(root, 'target/debug/onnxtxt');
const scratch = mkdtempSync(join(tmpdir(), 'onnxtxt-web-'));

const CHROMIUM_FLAGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm' };

// Runs the command; its standard output as bytes.
function command(...args) {
  return execFileSync(onnxtxt, args, { maxBuffer: 1 << 30 });
}

// What the command writes for `text` on its standard input.
function piped(text, ...args) {
  return execFileSync(onnxtxt, args, { input: text, encoding: 'utf8', maxBuffer: 1 << 30 });
}

// The diagnostics `onnxtxt check` gives the text `text`, as JSON objects.
function checked(text) {
  const file = join(scratch, 'checked.onnxtxt');
  writeFileSync(file, text);
  const run = spawnSync(onnxtxt, ['check', '--error-format', 'json', file], { encoding: 'utf8' });
  return run.stderr.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line));
}

let server, browser, origin;

before(async () => {
  server = createServer((request, response) => {
    const path = normalize(decodeURIComponent(new URL(request.url, 'http://x').pathname));
    const file = join(dist, path === '/' ? 'index.html' : path);
    try {
      const body = readFileSync(file);
      response.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
      response.end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  origin = `http://127.0.0.1:${server.address().port}`;
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_FLAGS });
});

after(async () => {
  await browser?.close();
  server?.close();
});

async function openPage(url = `${origin}/`) {
  const page = await browser.newPage({ acceptDownloads: true });
  const failures = [];
  page.on('pageerror', (error) => failures.push(error));
  await page.goto(url);
  await page.waitForSelector('body[data-ready="true"]');
  return { page, failures };
}

const diagnosticTexts = (page) => page.getByTestId('diagnostics').locator('li').allTextContents();

const MLP = join(root, 'examples/mlp.onnxtxt');
const mlpText = () => readFileSync(MLP, 'utf8');
// examples/mlp.onnxtxt with characters of 2, 3 and 4 bytes (the last of 2
// UTF-16 units) in its first comment.
const unicodeMlp = () => mlpText().replace('# A', '# é, ∑, 🙂: a');

// Opens `file` through the page's file input, once its text is shown.
async function openFile(page, file) {
  await page.getByTestId('open-file').setInputFiles(file);
  await page.waitForFunction(() => document.querySelector('[data-testid="editor"]').value !== '');
}

// Clicks the button `testid` and saves what it downloads as `name`.
async function downloaded(page, testid, name) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId(testid).click()]);
  const saved = join(scratch, name);
  await download.saveAs(saved);
  return readFileSync(saved);
}

test('a binary model opened shows its text as `onnxtxt print` writes it', async () => {
  const model = join(scratch, 'mlp.onnx');
  command('parse', MLP, '-o', model);
  const { page, failures } = await openPage();
  await openFile(page, model);
  const expected = command('print', model).toString('utf8');
  assert.equal(await page.getByTestId('editor').inputValue(), expected);
  assert.deepEqual(await diagnosticTexts(page), []);
  assert.deepEqual(failures, []);
});

test('an error typed shows at the LINE:COL of `onnxtxt check`, and goes when fixed', async () => {
  const { page, failures } = await openPage();
  const editor = page.getByTestId('editor');
  const items = page.getByTestId('diagnostics').locator('li');
  await openFile(page, MLP);
  assert.equal(await items.count(), 0);

  await editor.click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type('\n  oops = Relu (');
  // The page reads on past an error (as the language server does), so it
  // may find more than the command: it finds each the command finds.
  const found = checked(await editor.inputValue());
  assert.ok(found.length > 0, 'the command finds the error');
  const shown = (d) => `${d.span.line}:${d.span.column} ${d.level}: ${d.message} [${d.code}]`;
  // The diagnostics of the whole typed text, not of a keystroke before.
  await page
    .waitForFunction(
      (wanted) => {
        const texts = [...document.querySelectorAll('[data-testid="diagnostics"] li')].map((li) => li.textContent);
        return wanted.every((w) => texts.includes(w));
      },
      found.map(shown),
      { timeout: 5000 },
    )
    .catch(() => {});
  const texts = await diagnosticTexts(page);
  for (const d of found) assert.ok(texts.includes(shown(d)), `${shown(d)} not in\n${texts.join('\n')}`);
  const expected = found[0];
  const index = texts.indexOf(shown(expected));

  // A click on it selects the place in the editor.
  await items.nth(index).click();
  const selected = await editor.evaluate((e) => e.selectionStart);
  const text = await editor.inputValue();
  const before = text.slice(0, selected).split('\n');
  assert.deepEqual([before.length, before.at(-1).length + 1], [expected.span.line, expected.span.column]);

  await editor.click();
  await page.keyboard.press('Control+End');
  for (let i = 0; i < '\n  oops = Relu ('.length; i++) await page.keyboard.press('Backspace');
  await items.first().waitFor({ state: 'detached' });
  assert.deepEqual(checked(await editor.inputValue()), []);
  assert.deepEqual(failures, []);
});

test('the downloaded binary is the bytes of `onnxtxt parse` of the text', async () => {
  const { page, failures } = await openPage();
  const editor = page.getByTestId('editor');
  await editor.fill(mlpText());
  await editor.click();
  await page.keyboard.press('Control+Home');
  await page.keyboard.type('# typed in the page\n');
  const bytes = await downloaded(page, 'download-binary', 'downloaded.onnx');
  const source = join(scratch, 'typed.onnxtxt');
  writeFileSync(source, await editor.inputValue());
  assert.ok(bytes.equals(command('parse', source)));
  assert.deepEqual(failures, []);
});

test('the share link brings the same text back in a new page', async () => {
  const { page, failures } = await openPage();
  const text = unicodeMlp();
  await page.getByTestId('editor').fill(text);
  await page.getByTestId('share').click();
  await page.waitForURL(/#text=/);
  const shared = await openPage(page.url());
  assert.equal(await shared.page.getByTestId('editor').inputValue(), text);
  assert.deepEqual([...failures, ...shared.failures], []);
});

// examples/mlp.onnxtxt with its layout undone: one space a run of blanks.
const misshapen = () => mlpText().replace(/[ \n]+/g, ' ').replace('classes. ', 'classes.\n');

test('Format writes what `onnxtxt fmt` writes, comments kept', async () => {
  const { page, failures } = await openPage();
  const text = misshapen();
  await page.getByTestId('editor').fill(text);
  await page.getByTestId('format').click();
  const expected = piped(text, 'fmt', '-');
  assert.notEqual(expected, text);
  assert.ok(expected.startsWith('# A two-layer perceptron'));
  assert.equal(await page.getByTestId('editor').inputValue(), expected);
  assert.deepEqual(failures, []);
});

test('Canonical with --compat writes what `onnxtxt print --compat` writes', async () => {
  const { page, failures } = await openPage();
  const text = misshapen();
  await page.getByTestId('editor').fill(text);
  await page.getByTestId('compat').check();
  await page.getByTestId('canonical').click();
  const source = join(scratch, 'misshapen.onnxtxt');
  writeFileSync(source, text);
  const expected = command('print', '--compat', source).toString('utf8');
  assert.notEqual(expected, piped(text, 'fmt', '-'));
  assert.equal(await page.getByTestId('editor').inputValue(), expected);
  assert.deepEqual(failures, []);
});

test('the cursor on an operator shows its signature, on a value its inferred type', async () => {
  const { page, failures } = await openPage();
  const editor = page.getByTestId('editor');
  const hover = page.getByTestId('hover');
  // Characters of 1, 2 and 4 bytes, and of 2 UTF-16 units, before the
  // cursor: the page counts in UTF-16 units, the library in bytes.
  const source = join(scratch, 'mlp-unicode.onnxtxt');
  const text = unicodeMlp();
  writeFileSync(source, text);
  await openFile(page, source);
  const lines = text.split('\n');
  const line = lines.findIndex((l) => l.includes('= Relu (h)'));

  // Moves the cursor with the keyboard to `column` (from 0) of `line`.
  async function moveTo(column) {
    await editor.click();
    await page.keyboard.press('Control+Home');
    for (let i = 0; i < line; i++) await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Home');
    for (let i = 0; i < column; i++) await page.keyboard.press('ArrowRight');
  }

  await moveTo(lines[line].indexOf('Relu') + 1);
  assert.ok(text.startsWith('# é, ∑, 🙂: a two-layer'));
  const [signature] = command('ops', 'Relu', '--opset', '21').toString('utf8').split('\n');
  await page.waitForFunction((s) => document.querySelector('[data-testid="hover"]').textContent.includes(s), signature);

  // `h`'s type as `onnxtxt infer` writes it into the model: float[N,8].
  await moveTo(lines[line].indexOf('(h)') + 1);
  const inferred = command('infer', source).toString('utf8');
  const [, type] = inferred.match(/(\S+\[[^\]]*\]) h,/);
  await page.waitForFunction((t) => document.querySelector('[data-testid="hover"]').textContent.includes(t), type);
  assert.ok(!(await hover.textContent()).includes(signature));
  assert.deepEqual(failures, []);
});

test('a truncated binary model gives the error of `onnxtxt print`, the text kept', async () => {
  const { page, failures } = await openPage();
  const model = join(scratch, 'truncated.onnx');
  writeFileSync(model, command('parse', MLP).subarray(0, 60));
  const run = spawnSync(onnxtxt, ['print', '--error-format', 'json', model], { encoding: 'utf8' });
  const error = JSON.parse(run.stderr.split('\n').find((line) => line.startsWith('{')));
  await page.getByTestId('editor').fill('kept');
  await page.getByTestId('open-file').setInputFiles(model);
  const status = page.getByTestId('status');
  const expected = `byte ${error.span.start}: ${error.path}: ${error.message}`;
  await page.waitForFunction((e) => document.querySelector('[data-testid="status"]').textContent === e, expected);
  assert.equal(await status.textContent(), expected);
  assert.equal(await page.getByTestId('editor').inputValue(), 'kept');
  assert.deepEqual(failures, []);
});

test('the downloaded text is the editor\'s', async () => {
  const { page, failures } = await openPage();
  const text = unicodeMlp();
  await page.getByTestId('editor').fill(text);
  const bytes = await downloaded(page, 'download-text', 'downloaded.onnxtxt');
  assert.equal(bytes.toString('utf8'), text);
  assert.deepEqual(failures, []);
});

test('Infer writes what `onnxtxt infer` writes', async () => {
  const { page, failures } = await openPage();
  const source = MLP;
  await page.getByTestId('editor').fill(readFileSync(source, 'utf8'));
  await page.getByTestId('infer').click();
  const expected = command('infer', source).toString('utf8');
  assert.notEqual(expected, command('print', source).toString('utf8'));
  assert.equal(await page.getByTestId('editor').inputValue(), expected);
  assert.deepEqual(failures, []);
});

test('a binary model dropped on the editor shows its text', async () => {
  const model = join(scratch, 'dropped.onnx');
  command('parse', MLP, '-o', model);
  const { page, failures } = await openPage();
  // A drop as the browser delivers one: a DataTransfer holding the file.
  const transfer = await page.evaluateHandle((bytes) => {
    const transfer = new DataTransfer();
    transfer.items.add(new File([new Uint8Array(bytes)], 'dropped.onnx'));
    return transfer;
  }, [...readFileSync(model)]);
  await page.getByTestId('editor').dispatchEvent('drop', { dataTransfer: transfer });
  await page.waitForFunction(() => document.querySelector('[data-testid="editor"]').value !== '');
  assert.equal(await page.getByTestId('editor').inputValue(), command('print', model).toString('utf8'));
  assert.deepEqual(failures, []);
});
