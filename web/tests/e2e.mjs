// End-to-end tests of the page in headless Chromium (Debian's `chromium`,
// driven by playwright-core): web/dist/ (made by build.sh) served on
// 127.0.0.1, each result held against what the `onnxtxt` command gives for
// the same input. ONNXTXT names the command (target/debug/onnxtxt by
// default).
//
//     bash web/build.sh && (cd web && npm ci && npm test)
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { test, after, before } from 'node:test';
import { bigModel, command, onnxtxt, openPage as openPageOf, root, scratch, start } from './harness.mjs';

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

let served;
before(async () => {
  served = await start();
});
after(() => served?.close());

const openPage = (url = `${served.origin}/`) => openPageOf(served.browser, url);

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

// Waits until the editor holds `text` (the page answers from its
// worker), then says whether it does.
async function editorHolds(page, text) {
  await page
    .waitForFunction((t) => document.querySelector('[data-testid="editor"]').value === t, text, { timeout: 10_000 })
    .catch(() => {});
  return page.getByTestId('editor').inputValue();
}

// Waits until the element `testid` has text holding `part`, then gives
// its text.
async function shownIn(page, testid, part) {
  await page
    .waitForFunction(
      ([id, p]) => document.querySelector(`[data-testid="${id}"]`).textContent.includes(p),
      [testid, part],
      { timeout: 10_000 },
    )
    .catch(() => {});
  return page.getByTestId(testid).textContent();
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
  assert.equal(await editorHolds(page, expected), expected);
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
  assert.equal(await editorHolds(page, expected), expected);
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
  // ... while the node's operator signature stays shown.
  assert.ok((await shownIn(page, 'signature', signature)).includes(signature));
  assert.deepEqual(failures, []);
});

test('a truncated binary model gives the error of `onnxtxt print`, the text kept', async () => {
  const { page, failures } = await openPage();
  const model = join(scratch, 'truncated.onnx');
  writeFileSync(model, command('parse', MLP).subarray(0, 60));
  const run = spawnSync(onnxtxt, ['print', '--error-format', 'json', model], { encoding: 'utf8' });
  const error = JSON.parse(run.stderr.split('\n').find((line) => line.startsWith('{')));
  await page.getByTestId('editor').fill('kept');
  // The analysis of `kept` done, which would show its own status.
  await page.getByTestId('diagnostics').locator('li').first().waitFor();
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
  assert.equal(await editorHolds(page, expected), expected);
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

test('the editor colours operators, values, numbers and comments as the analysis classes them', async () => {
  const { page, failures } = await openPage();
  // Characters of 2 UTF-16 units before the tokens: the page counts in
  // UTF-16 units, the library in bytes.
  const source = join(scratch, 'mlp-coloured.onnxtxt');
  const text = unicodeMlp();
  writeFileSync(source, text);
  await openFile(page, source);
  await shownIn(page, 'highlight', 'Softmax');
  const coloured = (kind) =>
    page.getByTestId('highlight').locator(`span.t-${kind}`).allTextContents();
  // The operators of the model's nodes, as the command prints them.
  const operators = [...command('print', MLP).toString('utf8').matchAll(/= (\w+) /g)].map((m) => m[1]);
  assert.deepEqual(operators, ['Gemm', 'Relu', 'Gemm', 'Softmax']);
  await page.waitForFunction(() => document.querySelector('#highlight .t-operator'));
  assert.deepEqual(await coloured('operator'), operators);
  assert.deepEqual(await coloured('comment'), [text.split('\n')[0]]);
  // ir_version's.
  assert.ok((await coloured('number')).includes('10'));
  assert.ok((await coloured('parameter')).includes('x'));
  // Under the editor, character for character.
  assert.ok(text.startsWith(await page.getByTestId('highlight').textContent()));
  assert.deepEqual(failures, []);
});

test('Ctrl+Space offers the operators of the imported opset, and writes the one chosen', async () => {
  const { page, failures } = await openPage();
  const editor = page.getByTestId('editor');
  await openFile(page, MLP);
  await editor.click();
  // At the end of the last node's line.
  await page.keyboard.press('Control+End');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('End');
  await page.keyboard.type('\n  z = Sof');
  await page.keyboard.press('Control+Space');
  const items = page.getByTestId('completions').locator('li');
  await items.first().waitFor();
  // What `onnxtxt ops --opset 21` lists that starts so.
  const listed = command('ops', '--opset', '21').toString('utf8').split('\n').map((line) => line.split(/\s+/)[0]);
  const offered = (await items.allTextContents()).map((item) => item.split(' ')[0]);
  const softmax = listed.filter((name) => name.startsWith('Sof'));
  for (const name of softmax) assert.ok(offered.includes(name), `${name} not in ${offered}`);
  await page.keyboard.press('Enter');
  const expected = mlpText().replace('(logits)\n', `(logits)\n  z = ${offered[0]}\n`);
  assert.equal(await editorHolds(page, expected), expected);
  assert.deepEqual(failures, []);
});

test('the outline lists the graph and its nodes, a click going to one', async () => {
  const { page, failures } = await openPage();
  await openFile(page, MLP);
  const items = page.getByTestId('outline').locator('li');
  await items.nth(4).waitFor();
  // The nodes as the command prints them: label (or first output) and
  // operator.
  const nodes = [...command('print', MLP).toString('utf8').matchAll(/^ {2}(?:\[(\w+)\] )?(\w+) = (\w+)/gm)]
    .map(([, label, output, op]) => `${label ?? output}: ${op}`);
  assert.deepEqual(await items.allTextContents(), ['mlp', ...nodes]);
  // A node is named by its operator.
  await items.nth(2).click();
  const editor = page.getByTestId('editor');
  const [start, end] = await editor.evaluate((e) => [e.selectionStart, e.selectionEnd]);
  assert.equal(mlpText().slice(start, end), 'Relu');
  assert.equal(mlpText().slice(0, start).split('\n').at(-1), '  [relu] a = ');
  assert.deepEqual(failures, []);
});

test('the --compat view shows what `onnxtxt print --compat` writes, and what it drops', async () => {
  // A binary with doc strings, which only annotations carry.
  const model = join(scratch, 'documented.onnx');
  const text = mlpText().replace('[relu] a', '@<doc_string: "the activation"> [relu] a');
  writeFileSync(join(scratch, 'documented.onnxtxt'), text);
  command('parse', join(scratch, 'documented.onnxtxt'), '-o', model);
  const run = spawnSync(onnxtxt, ['print', '--compat', model], { encoding: 'utf8' });
  const dropped = run.stderr.split('\n').filter((l) => l.startsWith('warning: dropped ')).map((l) => l.slice(17));
  assert.ok(dropped.length > 0);
  const { page, failures } = await openPage();
  await openFile(page, model);
  await page.getByTestId('show-compat').check();
  const view = page.getByTestId('compat-view');
  await shownIn(page, 'compat-view', 'Softmax');
  assert.equal(await view.textContent(), run.stdout);
  assert.deepEqual(await page.getByTestId('compat-dropped').locator('li').allTextContents(), dropped);
  assert.deepEqual(failures, []);
});

test('the diff view lists what `onnxtxt diff --structural` finds', async () => {
  const old = join(scratch, 'old.onnx');
  const now = join(scratch, 'new.onnxtxt');
  command('parse', MLP, '-o', old);
  writeFileSync(now, mlpText().replace('Relu (h)', 'Sigmoid (h)').replace('axis: int = 1', 'axis: int = -1'));
  const run = spawnSync(onnxtxt, ['diff', '--structural', old, now], { encoding: 'utf8' });
  assert.equal(run.status, 1);
  // Its lines: a scope, then the changes in it, indented.
  const expected = [];
  let scope;
  for (const line of run.stdout.trimEnd().split('\n')) {
    if (line.startsWith('  ')) expected.push(`${scope}: ${line.trim()}`);
    else scope = line;
  }
  assert.equal(expected.length, 2);
  const { page, failures } = await openPage();
  await page.getByTestId('diff-old').setInputFiles(old);
  await page.getByTestId('diff-new').setInputFiles(now);
  const items = page.getByTestId('diff').locator('li');
  await items.first().waitFor();
  assert.deepEqual(await items.allTextContents(), expected);
  assert.deepEqual(failures, []);
});

test('a 50 MB model opens without freezing the page, its text shown', async () => {
  const model = bigModel(50);
  assert.ok(readFileSync(model).length > 50e6);
  const printed = join(scratch, 'big.onnxtxt');
  command('print', model, '-o', printed);
  const lines = readFileSync(printed, 'utf8').split('\n');
  const { page, failures } = await openPage();
  // A heartbeat: the longest time between two frames while the model loads.
  await page.evaluate(() => {
    // And every status shown meanwhile.
    window.statuses = [];
    const status = document.querySelector('[data-testid="status"]');
    new MutationObserver(() => window.statuses.push(status.textContent)).observe(status, { childList: true });
    window.heartbeat = { last: performance.now(), longest: 0, beating: true };
    const beat = (now) => {
      const h = window.heartbeat;
      h.longest = Math.max(h.longest, now - h.last);
      h.last = now;
      if (h.beating) requestAnimationFrame(beat);
    };
    requestAnimationFrame(beat);
  });
  await page.getByTestId('open-file').setInputFiles(model);
  const status = page.getByTestId('status');
  await page.waitForFunction(() => document.querySelector('[data-testid="status"]').textContent.includes('read-only; valid'), null, { timeout: 120_000 });
  const longest = await page.evaluate(() => {
    window.heartbeat.beating = false;
    return window.heartbeat.longest;
  });
  assert.ok(longest < 500, `the page froze for ${longest} ms`);
  // The progress of the printing, in megabytes of text.
  const statuses = await page.evaluate(() => window.statuses);
  assert.ok(statuses.some((s) => /^reading big-50\.onnx: \d+ MB written/.test(s)), statuses.join('\n'));
  assert.match(await status.textContent(), new RegExp(`^${(lines.length).toLocaleString('en')} lines`));
  const shown = page.getByTestId('viewer-text');
  const firstLines = (await shown.textContent()).split('\n');
  assert.deepEqual(firstLines, lines.slice(0, firstLines.length));
  // Scrolled to the end, the last lines.
  await page.getByTestId('viewer').evaluate((v) => { v.scrollTop = v.scrollHeight; });
  await shownIn(page, 'viewer-text', lines.at(-3));
  const lastLines = (await shown.textContent()).split('\n');
  assert.deepEqual(lastLines, lines.slice(-lastLines.length));
  // Parsed back in the worker: the bytes opened.
  const bytes = await downloaded(page, 'download-binary', 'big-downloaded.onnx');
  assert.ok(bytes.equals(readFileSync(model)));
  assert.deepEqual(failures, []);
});

test('Ctrl+Space in a node\'s <> offers its operator\'s attributes, written with their default', async () => {
  const { page, failures } = await openPage();
  const editor = page.getByTestId('editor');
  const text = mlpText().replace('Gemm (x,', 'Gemm <> (x,');
  await editor.fill(text);
  await editor.evaluate((e, at) => e.setSelectionRange(at, at), text.indexOf('<> (x,') + 1);
  await page.keyboard.press('Control+Space');
  const items = page.getByTestId('completions').locator('li');
  await items.first().waitFor();
  // The attributes and defaults `onnxtxt ops` gives.
  const attributes = [...command('ops', 'Gemm', '--opset', '21').toString('utf8').matchAll(/^ {2}(\w+): \w+ = (\S+)$/gm)];
  const offered = (await items.allTextContents()).map((item) => item.split(' ')[0]);
  assert.deepEqual(offered.toSorted(), attributes.map(([, name]) => name).toSorted());
  await page.keyboard.press('Enter');
  const [, name, value] = attributes.find(([, name]) => name === offered[0]);
  const expected = text.replace('Gemm <> (x,', `Gemm <${name} = ${value}> (x,`);
  assert.equal(await editorHolds(page, expected), expected);
  assert.deepEqual(checked(expected), []);
  assert.deepEqual(failures, []);
});

test('a library that cannot load is said so, not left loading', async () => {
  const context = await served.browser.newContext();
  await context.route('**/onnxtxt_web_bg.wasm', (route) => route.fulfill({ status: 404 }));
  const page = await context.newPage();
  await page.goto(`${served.origin}/`);
  const status = page.getByTestId('status');
  await page.waitForFunction(() => document.querySelector('[data-testid="status"]').textContent !== 'loading…', null, { timeout: 10_000 }).catch(() => {});
  assert.match(await status.textContent(), /^the library did not load: /);
  await context.close();
});
