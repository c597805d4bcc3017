// What the end-to-end tests (e2e.mjs) and the budgets' benchmark
// (bench.mjs) share: web/dist/ served on 127.0.0.1, Debian's headless
// Chromium, the `onnxtxt` command (ONNXTXT, target/debug/onnxtxt by
// default), big models made by the command.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const web = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const root = resolve(web, '..');
export const dist = join(web, 'dist');
export const onnxtxt = process.env.ONNXTXT ?? join(root, 'target/debug/onnxtxt');
export const scratch = mkdtempSync(join(tmpdir(), 'onnxtxt-web-'));

const CHROMIUM_FLAGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm' };

// Runs the command; its standard output as bytes.
export function command(...args) {
  return execFileSync(onnxtxt, args, { maxBuffer: 1 << 30 });
}

// The page served and a browser: `{ origin, browser, close }`.
export async function start() {
  const server = createServer((request, response) => {
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
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_FLAGS });
  return {
    origin: `http://127.0.0.1:${server.address().port}`,
    browser,
    async close() {
      await browser.close();
      server.close();
    },
  };
}

// A page of `browser` at `url`, once ready, and the errors it throws.
export async function openPage(browser, url) {
  const page = await browser.newPage({ acceptDownloads: true });
  const failures = [];
  page.on('pageerror', (error) => failures.push(error));
  await page.goto(url);
  await page.waitForSelector('body[data-ready="true"]');
  return { page, failures };
}

// A text of a model of about `megabytes` MB as a binary: a chain of
// MatMuls, each with a 512x512 float initializer (the same values in each).
function bigText(megabytes) {
  const layers = Math.max(1, Math.round((megabytes * 1e6) / (512 * 512 * 4)));
  let seed = 1;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 30 - 1).toFixed(6);
  const values = Array.from({ length: 512 * 512 }, random).join(', ');
  const parts = ['<ir_version: 10, opset_import: ["": 21]>\n'];
  parts.push(`big (float[N,512] x) => (float[N,512] h${layers - 1}) <\n`);
  for (let i = 0; i < layers; i++) parts.push(`  float[512,512] w${i} = {${values}}${i + 1 < layers ? ',' : ''}\n`);
  parts.push('> {\n');
  for (let i = 0; i < layers; i++) parts.push(`  h${i} = MatMul (${i ? `h${i - 1}` : 'x'}, w${i})\n`);
  parts.push('}\n');
  return parts.join('');
}

// The binary model of about `megabytes` MB (see bigText), parsed by the
// command into the scratch folder; its path.
export function bigModel(megabytes) {
  const model = join(scratch, `big-${megabytes}.onnx`);
  execFileSync(onnxtxt, ['parse', '-', '-o', model], { input: bigText(megabytes) });
  return model;
}
