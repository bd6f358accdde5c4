// Playing online in real browsers, timed (a benchmark, not a test): Debian's Chromium driven by
// playwright-core against a baghchal-server of its own, on a temporary database.
//   1. From a click on "Play online" to the lobby shown with its picture (the first event of
//      the lobby's stream painted), in a fresh browser context each time.
//   2. A move's round trip between two browsers: from the click that makes it in one page to
//      its arrival in the other page's move list (both read Date.now(), one machine's clock),
//      in a game with no clock, the goats placing and the tigers stepping back and forth.
// Usage: NODE_PATH=<a folder with playwright-core> node tools/obx-server/bench-browser.js
//        <baghchal-server> [runs (5)] [moves (20)]
// (tests/browser/run.sh installs playwright-core into its work folder's node_modules.)
'use strict';

const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { chromium } = require('playwright-core');

const [SERVER_BIN, RUNS = '5', MOVES = '20'] = process.argv.slice(2);
if (!SERVER_BIN) {
  console.error('usage: node bench-browser.js <baghchal-server> [runs] [moves]');
  process.exit(2);
}

function startServer(dir) {
  return new Promise((resolve, reject) => {
    const p = spawn(SERVER_BIN, ['--port', '0', '--workers', '1', '--database', path.join(dir, 'room.sqlite')],
      { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the server did not start: ${out}`)), 15000);
    p.stdout.on('data', (d) => {
      out += d;
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)\//.exec(out);
      if (m) { clearTimeout(timer); resolve({ proc: p, url: `http://127.0.0.1:${m[1]}/` }); }
    });
  });
}

const pct = (a, p) => { const s = [...a].sort((x, y) => x - y); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };
const show = (what, a) => console.log(`${what}: ${a.length} samples, median ${pct(a, 0.5).toFixed(1)} ms, ` +
  `best ${Math.min(...a).toFixed(1)} ms, worst ${Math.max(...a).toFixed(1)} ms`);

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'baghchal-bench-'));
  const server = await startServer(dir);
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'] });
  const until = (page, f, arg) => page.waitForFunction(f, arg, { timeout: 20000, polling: 'raf' })
    .catch((e) => { throw new Error(`${e.message}: waiting for ${String(f).slice(0, 160)}`); });
  try {
    // ---- 1. the lobby's first paint ----
    const paint = [];
    for (let i = 0; i < Number(RUNS); i++) {
      const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await ctx.newPage();
      await page.goto(server.url);
      await until(page, () => document.querySelector('#status')?.getAttribute('data-turn'));
      const t0 = Date.now();
      await page.click('#online-open');
      await until(page, () => document.querySelector('#lobby')?.hidden === false &&
        /\d/.test(document.querySelector('#lobby-count')?.textContent || ''));
      paint.push(Date.now() - t0);
      await ctx.close();
    }
    // ---- 2. a move's round trip between two browsers ----
    const pages = [];
    for (const who of ['A', 'B']) {
      // Reduced motion: the move list is written at once, not after the piece's slide.
      const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, reducedMotion: 'reduce' });
      const page = await ctx.newPage();
      await page.goto(server.url);
      await until(page, () => document.querySelector('#status')?.getAttribute('data-turn'));
      await page.click('#online-open');
      await until(page, () => document.querySelector('#lobby')?.hidden === false && /\S/.test(document.querySelector('#acct-who')?.textContent || ''));
      pages.push(page);
    }
    const [A, B] = pages;
    await A.selectOption('#seek-side', 'goats').catch(() => {});
    await A.selectOption('#seek-tc', 'none').catch(() => {});
    await A.click('#seek-create');
    await until(B, () => document.querySelectorAll('#seeks li button').length > 0);
    await B.click('#seeks li button');
    for (const p of [A, B]) await until(p, () => document.querySelector('#online-card')?.getAttribute('data-status') === 'started');
    const seat = await A.getAttribute('#online-card', 'data-seat');
    const [G, T] = seat === 'goats' ? [A, B] : [B, A];
    if (process.env.BENCH_DEBUG) console.log('A is', seat, await G.getAttribute('#online-card', 'data-seat'), await T.getAttribute('#online-card', 'data-seat'));
    // The other page notes the moment its move list grows.
    for (const p of [A, B]) {
      await p.evaluate(() => {
        window.__arrivals = [];
        const list = document.querySelector('#moves');
        new MutationObserver(() => {
          const n = document.querySelectorAll('#moves .mv[data-ply]').length;
          if (n > window.__arrivals.length) window.__arrivals.push([n, Date.now()]);
        }).observe(list, { childList: true, subtree: true });
      });
    }
    const placements = ['C3', 'D3', 'B3', 'C4', 'D4', 'B4', 'C2', 'D2', 'B2', 'C5', 'D5', 'B5', 'C1', 'D1', 'B1', 'E3'];
    const trips = [];
    let plies = 0;
    // The click is Playwright's (real pointer events); the time is taken just before the last
    // one, in this process (the same machine's clock as the pages').
    const move = async (mover, other, points) => {
      for (const p of points.slice(0, -1)) await mover.click(`[data-point="${p}"]`);
      const sent = Date.now();
      await mover.click(`[data-point="${points[points.length - 1]}"]`);
      plies++;
      if (process.env.BENCH_DEBUG) console.log('ply', plies, await mover.getAttribute('#online-card', 'data-plies'), await mover.textContent('#online-status'), await mover.textContent('#online-error'));
      await until(other, (n) => document.querySelectorAll('#moves .mv[data-ply]').length >= n, plies);
      const arrived = await other.evaluate((n) => (window.__arrivals.find((a) => a[0] >= n) || [])[1], plies);
      if (arrived) trips.push(arrived - sent);
    };
    for (let i = 0; i < Number(MOVES) / 2 && i < placements.length; i++) {
      await move(G, T, [placements[i]]);
      await move(T, G, i % 2 ? ['A2', 'A1'] : ['A1', 'A2']);
    }
    console.log(`Chromium ${browser.version()}, server ${path.basename(SERVER_BIN)} on loopback, 1280x800`);
    show('click on "Play online" to the lobby painted (fresh context)', paint);
    show('a move clicked in one browser to its arrival in the other\'s move list', trips);
  } finally {
    await browser.close();
    server.proc.kill('SIGTERM');
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => { console.error(`bench-browser: ${e.message}`); process.exit(1); });
