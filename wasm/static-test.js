// The static board in headless Chromium, served by a plain static file server (no
// baghchal-server): the page says it plays in the browser, plays goats against the worker's
// engine (moves, the engine's score and line), shows the engine's lines, refuses /analysis
// with its reason, and after a reload offline (the service worker) plays on.
// Usage: BOARD_URL=http://127.0.0.1:PORT/ node wasm/static-test.js  (playwright-core on NODE_PATH)
'use strict';
const assert = require('node:assert/strict');
const { chromium } = require('playwright-core');

const URL_ = process.env.BOARD_URL;
const STEP_MS = 30000;
let checks = 0;
function check(cond, msg) { assert.ok(cond, msg); checks++; }

async function main() {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium' });
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(URL_);
  await page.waitForFunction(() => document.documentElement.dataset.mode === 'local', null, { timeout: STEP_MS });
  await page.waitForFunction(() => document.querySelector('#status')?.textContent.includes('Goats to move'), null, { timeout: STEP_MS });
  await page.waitForFunction(() => document.querySelector('#server-info')?.textContent.includes('in this browser'), null, { timeout: STEP_MS });
  check(true, 'the page says it plays in the browser');
  await page.$eval('#movetime', (el) => { el.value = '100'; el.dispatchEvent(new Event('input')); });
  const settled = async (n) => {
    await page.waitForFunction((want) => document.querySelectorAll('#moves .mv[data-ply]').length === want &&
      document.querySelector('#thinking').hidden, n, { timeout: STEP_MS });
    await page.waitForFunction(() => [...document.querySelectorAll('#board .hit.clickable')].length > 0 ||
      !document.querySelector('#result-banner').hidden, null, { timeout: STEP_MS });
  };
  const play = async (n) => {
    for (let i = 0; i < n; i++) {
      const before = await page.locator('#moves .mv[data-ply]').count();
      const targets = await page.locator('[data-target]').evaluateAll((ts) => ts.map((t) => t.getAttribute('data-target')));
      check(targets.length > 0, 'placement targets are highlighted');
      await page.click(`[data-point="${targets[0]}"]`);
      await settled(before + 2);
      const obx = await page.inputValue('#obx');
      check(/ g @\d+ /.test(obx), `goats to move again after the engine's reply: ${obx}`);
      check((await page.textContent('#score')).trim() !== '—', 'the engine score is shown');
      check(await page.locator('#pv span').count() >= 1, 'the engine line is shown');
    }
  };
  await play(3);
  const res = await page.evaluate(async () => {
    const r = await fetch('/analysis', { method: 'POST', body: JSON.stringify({ obx: 'TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0 - #' }) });
    return { status: r.status, body: await r.json() };
  });
  check(res.status === 503 && /baghchal-server/.test(res.body.detail), 'exact analysis says it needs the server');
  const lines = await page.evaluate(async () => {
    const r = await fetch('/obx', { method: 'POST', body: JSON.stringify({ obx: 'TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0 mC3 #g1', depth: 4, multipv: 3 }) });
    return r.json();
  });
  check(lines.lines && lines.lines.length === 3 && /^m[A-E][1-5]/.test(lines.move), `three engine lines: ${JSON.stringify(lines)}`);
  const bad = await page.evaluate(async () => {
    const r = await fetch('/legal', { method: 'POST', body: JSON.stringify({ obx: 'TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0 - #', move: 'A1B2' }) });
    return { status: r.status, body: await r.json() };
  });
  check(bad.status === 422 && bad.body.detail.length > 0, `an illegal move is refused with the engine's reason: ${JSON.stringify(bad)}`);

  // Offline: the service worker serves the site; the engine is the page's own.
  await page.waitForFunction(() => navigator.serviceWorker && navigator.serviceWorker.controller, null, { timeout: STEP_MS })
    .catch(async () => { await page.reload(); await page.waitForFunction(() => navigator.serviceWorker.controller, null, { timeout: STEP_MS }); });
  await context.setOffline(true);
  await page.reload();
  await page.waitForFunction(() => document.documentElement.dataset.mode === 'local', null, { timeout: STEP_MS });
  await page.waitForFunction(() => document.querySelector('#status')?.textContent.length > 0 &&
    [...document.querySelectorAll('#board .hit.clickable')].length > 0, null, { timeout: STEP_MS });
  await page.click('#new').catch(() => {});
  await page.waitForFunction(() => document.querySelector('#status')?.textContent.includes('Goats to move'), null, { timeout: STEP_MS });
  await play(1);
  check(errors.length === 0, `no page errors: ${errors.join('; ')}`);
  await browser.close();
  console.log(`static board: ${checks} checks passed`);
}

main().catch((e) => { console.error(e); process.exit(1); });
