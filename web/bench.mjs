// The page's budgets (issue 41), measured in headless Chromium: the
// compressed .wasm, the first paint, opening a 10 MB binary against the
// command's `print` of it, and the diagnostics of a 5,000-line text as one
// types. Each is a benchmark, not a test: it prints figures, for
// bench/results.md ("In the browser"). ONNXTXT names the command to hold
// the page against (a release build: target/release/onnxtxt by default).
//
//     bash web/build.sh && (cd web && npm ci && node bench.mjs)
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';

process.env.ONNXTXT ??= join(import.meta.dirname, '../target/release/onnxtxt');
const { bigModel, dist, onnxtxt, openPage, start } = await import('./tests/harness.mjs');

const RUNS = 5;
const median = (values) => values.toSorted((a, b) => a - b)[values.length >> 1];
const ms = (values) => `median ${median(values).toFixed(0)} ms (${values.map((v) => v.toFixed(0)).join(', ')})`;

// The .wasm as served, and compressed as a server would.
const wasm = readFileSync(join(dist, 'onnxtxt_web_bg.wasm'));
const mb = (bytes) => `${(bytes / 1e6).toFixed(2)} MB`;
console.log(`wasm: ${mb(wasm.length)}, gzip -9 ${mb(gzipSync(wasm, { level: 9 }).length)}, brotli ${mb(brotliCompressSync(wasm).length)}`);

const served = await start();
const url = `${served.origin}/`;

// First paint, and the page ready (its worker's module compiled), each
// load in a new page.
const paints = [];
const readies = [];
for (let run = 0; run < RUNS; run++) {
  const { page } = await openPage(served.browser, url);
  const [paint, ready] = await page.evaluate(() => [
    performance.getEntriesByName('first-contentful-paint')[0].startTime,
    performance.now(),
  ]);
  paints.push(paint);
  readies.push(ready);
  await page.close();
}
console.log(`first contentful paint: ${ms(paints)}`);
console.log(`ready (at most): ${ms(readies)}`);

// A 10 MB binary opened in the page, until its first lines show, against
// the command printing it.
const model = bigModel(10);
const commandTimes = [];
for (let run = 0; run < RUNS; run++) {
  const started = performance.now();
  execFileSync(onnxtxt, ['print', model, '-o', '/dev/null']);
  commandTimes.push(performance.now() - started);
}
const pageTimes = [];
for (let run = 0; run < RUNS; run++) {
  const { page } = await openPage(served.browser, url);
  await page.evaluate(() => {
    const input = document.querySelector('[data-testid="open-file"]');
    input.addEventListener('change', () => { window.opened = performance.now(); });
    new MutationObserver(() => { window.shown ??= performance.now(); })
      .observe(document.querySelector('[data-testid="viewer-text"]'), { childList: true });
  });
  await page.getByTestId('open-file').setInputFiles(model);
  await page.waitForFunction(() => window.shown, null, { timeout: 120_000 });
  pageTimes.push(await page.evaluate(() => window.shown - window.opened));
  await page.close();
}
console.log(`10 MB binary, the command's print: ${ms(commandTimes)}`);
console.log(`10 MB binary opened in the page: ${ms(pageTimes)}; ratio ${(median(pageTimes) / median(commandTimes)).toFixed(2)}`);

// A 5,000-line text: a chain of nodes. One character typed (an error, then
// its fix) and the time until the diagnostics list changes; and the
// analysis alone.
const lines = ['<ir_version: 10, opset_import: ["": 21]>', 'g (float[N] x) => (float[N] y) {'];
for (let i = 1; i < 4997; i++) lines.push(`  h${i} = Relu (${i > 1 ? `h${i - 1}` : 'x'})`);
lines.push('  y = Neg (h4996)', '}');
const { page } = await openPage(served.browser, url);
// Pasted (Playwright's fill types it through insertText, which takes
// Chromium a minute on 5,000 lines).
await page.getByTestId('editor').evaluate((editor, text) => {
  editor.value = text;
  editor.dispatchEvent(new Event('input'));
}, lines.join('\n'));
await page.waitForFunction(() => document.querySelector('[data-testid="status"]').textContent === 'valid');
await page.evaluate(() => {
  window.changes = [];
  new MutationObserver(() => window.changes.push(performance.now()))
    .observe(document.querySelector('[data-testid="diagnostics"]'), { childList: true });
  document.querySelector('[data-testid="editor"]')
    .addEventListener('keydown', () => { window.typed = performance.now(); });
});
const typing = [];
await page.getByTestId('editor').click();
await page.keyboard.press('Control+End');
for (let run = 0; run < RUNS; run++) {
  for (const key of ['(', 'Backspace']) {
    const before = await page.evaluate(() => window.changes.length);
    await page.keyboard.press(key);
    await page.waitForFunction((n) => window.changes.length > n, before);
    typing.push(await page.evaluate(() => window.changes.at(-1) - window.typed));
  }
}
const analyses = await page.evaluate(() => performance.getEntriesByName('analysis').map((e) => e.duration));
console.log(`5,000 lines, keystroke to diagnostics: ${ms(typing)}`);
console.log(`5,000 lines, the analysis (worker round trip): ${ms(analyses.slice(-typing.length))}`);
await served.close();
