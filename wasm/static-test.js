// The static board (build/board-static) in headless Chromium. First from a plain static file
// server, no baghchal-server: the page says it plays in the browser, plays goats against the
// worker's engine (moves, the engine's score and line, a hint, level 0), gives the engine's
// lines, stops a search the page gives up, refuses an illegal move with the engine's reason,
// and after a reload offline (the service worker) plays on, also
// a game on the clock. /analysis is the worker's search of every move, and the game review says
// it is an engine estimate. Then the
// same files with baghchal-server behind the same origin (as a host proxying the API to it):
// the page uses the server, never loads the worker, and /analysis answers (from the database
// when BOARD_TB names one). Between the two, the static board with a baghchal-server on
// another origin (--cors) named in its settings: the analysis, a hint and the review answered
// by it, then, once it is gone, by the worker, each saying which. Then from a host that makes
// the page cross-origin isolated: the worker with threads, their number a setting.
// Usage: BOARD_DIR=build/board-static BOARD_SERVER=build/bin/baghchal-server [BOARD_TB=dir]
//        node wasm/static-test.js   (playwright-core on NODE_PATH; CHROMIUM, default /usr/bin/chromium)
'use strict';
const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { chromium } = require('playwright-core');

const DIR = process.env.BOARD_DIR;
const SERVER_BIN = process.env.BOARD_SERVER;
const TB = process.env.BOARD_TB || '';
const STEP_MS = 30000;
const API = ['/health', '/legal', '/obx', '/analysis'];
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml',
  '.wasm': 'application/wasm', '.webmanifest': 'application/manifest+json' };

// The site's files as any static host serves them; with api, the API passed on to that port;
// isolated: with the headers that make the page cross-origin isolated (its engine's threads).
function staticServer(api, isolated) {
  const srv = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    if (API.includes(url.pathname)) {
      if (!api) { res.writeHead(404, { 'Content-Type': 'text/plain' }); res.end('not found'); return; }
      const up = http.request({ host: '127.0.0.1', port: api, path: req.url, method: req.method, headers: req.headers }, (r) => {
        res.writeHead(r.statusCode, r.headers);
        r.pipe(res);
      });
      up.on('error', () => { res.writeHead(502); res.end(); });
      req.pipe(up);
      return;
    }
    const name = url.pathname === '/' ? 'index.html' : path.basename(url.pathname);
    const file = path.join(DIR, name);
    if (!fs.existsSync(file)) { res.writeHead(404, { 'Content-Type': 'text/plain' }); res.end('not found'); return; }
    const isolation = isolated ? { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' } : {};
    res.writeHead(200, { 'Content-Type': TYPES[path.extname(name)] || 'application/octet-stream', ...isolation });
    res.end(fs.readFileSync(file));
  });
  return new Promise((resolve) => srv.listen(0, '127.0.0.1', () => resolve(srv)));
}

function startServer(extra) {
  return new Promise((resolve, reject) => {
    const args = ['--port', '0', '--workers', '2', '--hash', '8', '--movetime', '100', '--max-movetime', '3000', ...(extra || [])];
    if (TB) args.push('--tablebase', TB);
    const p = spawn(SERVER_BIN, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), 20000);
    p.stdout.on('data', (d) => {
      out += d;
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)\//.exec(out);
      if (m) { clearTimeout(timer); resolve({ proc: p, port: Number(m[1]) }); }
    });
    p.on('error', (e) => { clearTimeout(timer); reject(new Error(`${SERVER_BIN} could not start: ${e.message}`)); });
    p.on('exit', (code) => { clearTimeout(timer); reject(new Error(`server exited with ${code}: ${out}`)); });
  });
}

let checks = 0;
function check(cond, msg) { assert.ok(cond, msg); checks++; }

async function main() {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium' });
  const site = await staticServer(0);
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`http://127.0.0.1:${site.address().port}/`);
  await page.waitForFunction(() => document.documentElement.dataset.engine === 'local', null, { timeout: STEP_MS });
  await page.waitForFunction(() => document.querySelector('#status')?.textContent.includes('Goats to move'), null, { timeout: STEP_MS });
  // The header once the page has the engine's /health answer (its version).
  await page.waitForFunction(() => /engine \d+\.\d+\.\d+ in this browser/.test(document.querySelector('#server-info')?.textContent),
    null, { timeout: STEP_MS });
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
      // Once the page has every answer it asked for (a click before the first position's answer
      // is taken back by it).
      await page.waitForFunction(() => document.querySelectorAll('[data-target]').length > 0 &&
        document.documentElement.dataset.pending === '0', null, { timeout: STEP_MS });
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
  // ---- the engine lines searching on until stopped, in a worker of their own ----------------
  // Every line the page sends its workers, with the worker's number (in the order of their
  // first line since now).
  await page.evaluate(() => {
    const post = Worker.prototype.postMessage, ids = new WeakMap();
    let n = 0;
    window.toWorkers = [];
    Worker.prototype.postMessage = function (m) {
      if (!ids.has(this)) ids.set(this, n++);
      window.toWorkers.push({ w: ids.get(this), line: String(m) });
      return post.call(this, m);
    };
  });
  const local = await page.evaluate(() => ({ shown: getComputedStyle(document.querySelector('#engine-local')).display !== 'none',
    threads: document.querySelector('#engine-threads').value, choice: document.querySelector('#engine-threads').disabled,
    why: document.querySelector('#engine-threads-note').textContent }));
  check(local.shown && local.threads === '1' && local.choice && local.why === '1: this page is not cross-origin isolated',
    `the browser engine's settings are shown, one thread and why: ${JSON.stringify(local)}`);
  await page.selectOption('#engine-hash', '32');
  await page.selectOption('#ceval-time', '0');
  await page.evaluate(() => document.activeElement.blur());
  await page.keyboard.press('l');
  const linesAt = () => page.evaluate(() => ({ depth: Number(document.querySelector('#lines-info').dataset.depth || 0),
    running: document.querySelector('#lines-info').dataset.running === 'true', n: document.querySelectorAll('#lines li').length,
    text: document.querySelector('#lines-info').textContent }));
  await page.waitForFunction(() => document.querySelectorAll('#lines li').length === 3 &&
    Number(document.querySelector('#lines-info').dataset.depth) > 0, null, { timeout: STEP_MS });
  const l1 = await linesAt();
  await page.waitForFunction((d) => Number(document.querySelector('#lines-info').dataset.depth) > d, l1.depth, { timeout: STEP_MS });
  const l2 = await linesAt();
  check(l1.running && l2.running && l2.depth > l1.depth && /kn\/s|Mn\/s/.test(l2.text) && /searching…/.test(l2.text),
    `the browser's lines deepen live while they search on: ${JSON.stringify([l1, l2])}`);
  const sentTo = await page.evaluate(() => window.toWorkers);
  const ceval = sentTo.find((x) => x.line === 'go infinite');
  check(ceval && sentTo.some((x) => x.w === ceval.w && x.line === 'setoption name Hash value 32'),
    `the lines search until stopped, with the memory chosen: ${JSON.stringify(sentTo.filter((x) => x.w === (ceval || {}).w).slice(0, 12))}`);
  // The game's reply does not wait for them (one worker would queue it behind "go infinite"
  // for ever): a move, the engine's reply, and the lines of the new position searching on.
  await play(1);
  const sent2 = await page.evaluate(() => window.toWorkers);
  const gameGo = sent2.filter((x) => x.w !== ceval.w && /^go /.test(x.line));
  check(gameGo.length > 0 && sent2.some((x) => x.w !== ceval.w && x.line === 'setoption name Hash value 32'),
    `the engine's reply came from the game's own worker, with the memory chosen: ${JSON.stringify(gameGo)}`);
  await page.waitForFunction(() => document.querySelectorAll('#lines li').length === 3 &&
    document.querySelector('#lines-info').dataset.running === 'true', null, { timeout: STEP_MS });
  check(page.workers().length === 2, `two workers: the game's and the lines' (${page.workers().length})`);
  // The analysis of every move deepens too, in a worker of its own, until its Stop.
  await page.click('#analyse');
  await page.waitForFunction(() => Number(document.querySelector('#analysis-source').dataset.depth) > 0 &&
    document.querySelector('#analysis-source').dataset.running === 'true', null, { timeout: STEP_MS });
  const a1 = Number(await page.getAttribute('#analysis-source', 'data-depth'));
  await page.waitForFunction((d) => Number(document.querySelector('#analysis-source').dataset.depth) > d, a1, { timeout: STEP_MS });
  check(page.workers().length === 3 && (await linesAt()).running,
    `a third worker for the analysis, the lines searching on meanwhile (${page.workers().length})`);
  await page.click('#analysis-stop');
  check((await page.getAttribute('#analysis-source', 'data-running')) === 'false' &&
    (await page.locator('#analysis-list li').count()) > 0, 'the analysis deepened live and stopped at the click');
  await page.evaluate(() => document.activeElement && document.activeElement.blur());
  await page.keyboard.press('l');
  await page.waitForFunction((w) => window.toWorkers.some((x) => x.w === w && x.line === 'stop'), ceval.w, { timeout: STEP_MS });
  check((await page.locator('#lines li').count()) === 0, 'l stopped the lines: stop sent to their worker');
  await page.selectOption('#ceval-time', '10000');

  // ---- a baghchal-server on another origin for exact values ---------------------------------
  // Started with --cors, named in the settings: the analysis, a hint and the review ask it and
  // say so; once it is gone the worker answers, and the page says that too.
  const far = await startServer(['--cors', '*']);
  await page.fill('#engine-server', `http://127.0.0.1:${far.port}`);
  await page.dispatchEvent('#engine-server', 'change');
  await page.click('#analyse');
  await page.waitForFunction(() => document.querySelector('#analysis-source').dataset.via === 'server', null, { timeout: STEP_MS });
  const farText = await page.textContent('#analysis-source');
  check(farText.endsWith(`server 127.0.0.1:${far.port}`) && (await page.textContent('#engine-server-state')) === 'it answers',
    `the analysis says the server answered: ${farText}`);
  const exact = await page.evaluate(async () => (await fetch('/analysis', { method: 'POST',
    body: JSON.stringify({ obx: 'GTGGG/TGXGT/GXGXG/GGTGG/GGXGG g @0 c3 - -', repetition: 'draw' }) })).json());
  check(exact.via === 'server' && exact.source === (TB ? 'database' : 'search') && exact.moves.length > 0,
    `a movement position's values come from the server (${TB ? 'its database' : 'its search'}): ${JSON.stringify(exact).slice(0, 200)}`);
  await page.click('#hint');
  await page.waitForFunction(() => document.querySelector('#engine-meta').dataset.via === 'server', null, { timeout: STEP_MS });
  check(/^hint: .* · server 127\.0\.0\.1:\d+$/.test(await page.textContent('#engine-meta')), `the hint says the server gave it: ${await page.textContent('#engine-meta')}`);
  await page.click('#review-open');
  await page.waitForFunction(() => document.querySelector('#review-progress').hidden && document.querySelector('#review-note .review-via'),
    null, { timeout: 60000 });
  const via = await page.evaluate(() => ({ n: document.querySelectorAll('#moves .mv[data-ply]').length,
    server: Number(document.querySelector('#review-note .review-via').dataset.server), text: document.querySelector('#review-note .review-via').textContent }));
  check(via.server === via.n && via.text === `Every ply answered by the server 127.0.0.1:${far.port}.`, `the review was the server's: ${JSON.stringify(via)}`);
  await page.click('#review-close');
  // The review is kept with the game: the one below (the worker's) starts again.
  await page.evaluate(() => { for (const n of window.Board.lineOf(window.Board.state.cur)) delete n.review; window.Board.save(); });
  far.proc.kill('SIGTERM');
  await new Promise((r) => far.proc.once('exit', r));
  await page.click('#analyse');
  await page.waitForFunction(() => document.querySelector('#analysis-source').dataset.via === 'browser', null, { timeout: STEP_MS });
  check((await page.textContent('#analysis-source')).endsWith('this browser') &&
    (await page.textContent('#engine-server-state')) === 'it did not answer: the engine in this browser searches',
  `without the server the worker answers, and the page says so: ${await page.textContent('#analysis-source')}`);
  await page.fill('#engine-server', '');
  await page.dispatchEvent('#engine-server', 'change');

  // What the page asks of its engine (app.js calls the fetch of the moment: this one, then local.js's).
  await page.evaluate(() => {
    const f = window.fetch;
    window.asked = [];
    window.fetch = (u, i) => { window.asked.push({ path: String(u), body: i && i.body ? JSON.parse(i.body) : null }); return f(u, i); };
  });
  const asked = () => page.evaluate(() => window.asked.filter((a) => a.path === '/obx').map((a) => a.body));
  // A hint: an arrow from the engine's move.
  await page.click('#hint');
  await page.waitForSelector('[data-arrow="hint"]', { timeout: STEP_MS });
  check(true, 'a hint is shown');
  // A level: the engine answers at Skill Level 0.
  await page.selectOption('#skill', '0');
  await play(1);
  check((await asked()).some((b) => b.skill === 0), 'the engine was asked at level 0');
  await page.selectOption('#skill', '20');
  const res = await page.evaluate(async () => {
    const r = await fetch('/analysis', { method: 'POST', body: JSON.stringify({ obx: 'TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0 - #' }) });
    return { status: r.status, body: await r.json() };
  });
  // /analysis: the worker's MultiPV search over every move, in the server's shape, best first.
  const keys = res.body.moves ? res.body.moves.map((m) => (m.score.mate !== undefined ? (m.score.mate > 0 ? 1e5 - m.score.mate : -1e5 - m.score.mate) : m.score.cp)) : [];
  check(res.status === 200 && res.body.source === 'search' && res.body.turn === 'goats' && res.body.depth > 0 &&
    res.body.moves.length === 21 && new Set(res.body.moves.map((m) => m.move)).size === 21 &&
    keys.every((k, i) => i === 0 || keys[i - 1] >= k), `/analysis is a search of every move, best first: ${JSON.stringify(res).slice(0, 300)}`);
  // The game review: every ply an engine estimate, and the panel says so.
  await page.click('#review-open');
  await page.waitForFunction(() => document.querySelector('#review-progress').hidden &&
    document.querySelectorAll('#review-acc .acc-row').length === 2, null, { timeout: 60000 });
  const rv = await page.evaluate(() => ({ source: document.querySelector('#review-source').textContent,
    plies: document.querySelector('#review-note .review-estimate')?.getAttribute('data-plies'),
    n: document.querySelectorAll('#moves .mv[data-ply]').length,
    time: document.querySelector('#review-note .review-time')?.textContent }));
  console.log(`static board: the review of ${rv.n} plies in the worker: ${rv.time}`);
  check(rv.source === 'engine estimate' && rv.plies === Array.from({ length: rv.n }, (_, i) => i + 1).join(','),
    `the review of the static board is an engine estimate of every ply: ${JSON.stringify(rv)}`);
  await page.click('#review-close');
  const lines = await page.evaluate(async () => {
    const r = await fetch('/obx', { method: 'POST', body: JSON.stringify({ obx: 'TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0 mC3 #g1', depth: 4, multipv: 3 }) });
    return r.json();
  });
  check(lines.lines && lines.lines.length === 3 && /^m[A-E][1-5]/.test(lines.move), `three engine lines: ${JSON.stringify(lines)}`);
  // A request the page gives up: the search stops and the next request is answered at once.
  const abort = await page.evaluate(async () => {
    const ctrl = new AbortController();
    const t0 = performance.now();
    const long = fetch('/obx', { method: 'POST', signal: ctrl.signal,
      body: JSON.stringify({ obx: 'TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0 - #', movetime: 5000 }) });
    setTimeout(() => ctrl.abort(), 200);
    let name = 'none';
    try { await long; } catch (e) { name = e.name; }
    const r = await fetch('/legal', { method: 'POST', body: JSON.stringify({ obx: 'TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0 - #' }) });
    return { name, ms: performance.now() - t0, status: r.status };
  });
  check(abort.name === 'AbortError' && abort.status === 200 && abort.ms < 2000,
    `an aborted search ends at once: ${JSON.stringify(abort)}`);
  const bad = await page.evaluate(async () => {
    const r = await fetch('/legal', { method: 'POST', body: JSON.stringify({ obx: 'TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0 - #', move: 'A1B2' }) });
    return { status: r.status, body: await r.json() };
  });
  check(bad.status === 422 && bad.body.detail.length > 0, `an illegal move is refused with the engine's reason: ${JSON.stringify(bad)}`);

  // Offline: the service worker serves the site; the engine is the page's own.
  await page.waitForFunction(() => navigator.serviceWorker && navigator.serviceWorker.controller, null, { timeout: STEP_MS })
    .catch(async () => { await page.reload(); await page.waitForFunction(() => navigator.serviceWorker.controller, null, { timeout: STEP_MS }); });
  // Installable: Chromium's own installability check (manifest, icons, service worker) finds
  // nothing but the test's browser context being a private one, which no player's is.
  const cdp = await context.newCDPSession(page);
  const installable = (await cdp.send('Page.getInstallabilityErrors')).installabilityErrors
    .filter((e) => e.errorId !== 'in-incognito');
  check(installable.length === 0, `the page can be installed: ${JSON.stringify(installable)}`);
  const manifest = await cdp.send('Page.getAppManifest');
  check(manifest.errors.length === 0 && manifest.url.endsWith('/manifest.webmanifest'),
    `the manifest is read without errors: ${JSON.stringify(manifest.errors)}`);
  // Every text the status shows after the reload, kept as it comes: none names a server.
  await context.addInitScript(() => {
    window.statusSeen = [];
    new MutationObserver(() => {
      const s = document.querySelector('#status');
      if (s && window.statusSeen[window.statusSeen.length - 1] !== s.textContent) window.statusSeen.push(s.textContent);
    }).observe(document, { subtree: true, childList: true, characterData: true });
  });
  await context.setOffline(true);
  await page.reload();
  await page.waitForFunction(() => document.documentElement.dataset.engine === 'local', null, { timeout: STEP_MS });
  await page.waitForFunction(() => /engine \d+\.\d+\.\d+ in this browser/.test(document.querySelector('#server-info')?.textContent),
    null, { timeout: STEP_MS });
  check(await page.locator('#moves .mv[data-ply]').count() === 10, 'the game is back after the reload');
  await settled(10);
  const seen = await page.evaluate(() => window.statusSeen);
  check(seen.length > 0 && !seen.some((t) => /server/.test(t)), `offline, the status never asks a server: ${JSON.stringify(seen)}`);
  // The line saying the engine runs in this browser is shown whole, in the window.
  for (const size of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
    await page.setViewportSize(size);
    const info = await page.$eval('#server-info', (e) => {
      const r = e.getBoundingClientRect();
      return { text: e.textContent, shown: getComputedStyle(e).display !== 'none' && r.width > 0,
        whole: e.scrollWidth <= e.clientWidth + 1, x: r.x, y: r.y, right: r.right, bottom: r.bottom };
    });
    check(info.shown && info.whole && /in this browser/.test(info.text) && info.x >= 0 && info.y >= 0 &&
      info.right <= size.width + 0.5 && info.bottom <= size.height,
    `${size.width}x${size.height}: the header says the engine is in this browser: ${JSON.stringify(info)}`);
  }
  // Import: a plain list of moves; a refused one named by its number, as with the server.
  await page.fill('#game-text', '1. C3 A1B1 2. C4 B1C1 3. C3');
  await page.click('#import-game');
  await page.waitForFunction(() => document.querySelector('#record-error').textContent.startsWith('Import:'), null, { timeout: STEP_MS });
  const refusedImport = await page.textContent('#record-error');
  check(refusedImport === 'Import: move 3: C3 is not a legal move for the goats in this position',
    `the worker's refusal names the move by its number: ${refusedImport}`);
  await play(1);
  // A game on the clock (3 s each): the engine plays on its clock.
  await page.evaluate(() => {
    const f = window.fetch;
    window.asked = [];
    window.fetch = (u, i) => { window.asked.push({ path: String(u), body: i && i.body ? JSON.parse(i.body) : null }); return f(u, i); };
  });
  await page.selectOption('#tc', 'custom');
  await page.fill('#tc-min', '0.05');
  await page.fill('#tc-inc', '0');
  await page.dispatchEvent('#tc-inc', 'change');
  await page.waitForFunction(() => document.querySelectorAll('#moves .mv[data-ply]').length === 0, null, { timeout: STEP_MS });
  await play(1);
  const clocked = (await asked()).find((b) => b.gtime !== undefined);
  check(clocked && clocked.ttime > 0 && clocked.ttime <= 3000 && clocked.movetime === undefined,
    `the engine was asked on its clock: ${JSON.stringify(clocked)}`);
  // A puzzle (puzzles.js, the solutions shipped in puzzles.json): solved with the worker's legal
  // moves, the board answering with the line's replies; the streak is 1.
  await page.selectOption('#tc', 'move');
  await page.click('#puzzles-open');
  const solvedPuzzle = async () => {
    await page.waitForFunction(() => document.querySelector('#puzzles').dataset.phase === 'try' &&
      document.querySelectorAll('#board .hit.clickable').length > 0, null, { timeout: STEP_MS });
    const id = Number(await page.getAttribute('#puzzles', 'data-puzzle-id'));
    const puzzle = await page.evaluate(async (n) => (await (await fetch('puzzles.json')).json()).puzzles.find((q) => q.id === n), id);
    for (let k = 0; k < puzzle.line.length; k += 2) {
      await page.waitForFunction((st) => document.querySelector('#puzzles').dataset.phase === 'try' &&
        document.querySelector('#puzzles').dataset.step === String(st), k, { timeout: STEP_MS });
      const mv = puzzle.line[k];
      await page.click(`[data-point="${mv.slice(0, 2)}"]`);
      if (mv.length === 4) await page.click(`[data-point="${mv.slice(2, 4)}"]`);
    }
    await page.waitForFunction(() => document.querySelector('#puzzles').dataset.phase === 'solved', null, { timeout: STEP_MS });
    return puzzle;
  };
  const solvedOne = await solvedPuzzle();
  check(await page.textContent('#puzzle-streak') === 'Streak: 1 · best: 1' &&
    await page.locator('#moves .mv[data-ply]').count() === solvedOne.line.length,
  `puzzle ${solvedOne.id} solved in the static board: ${await page.textContent('#puzzle-streak')}`);
  check(errors.length === 0, `no page errors: ${errors.join('; ')}`);
  await context.close();
  site.close();

  // ---- a host that makes the page cross-origin isolated: the engine's threads ----------------
  // The worker built with threads (baghchal-worker-mt.js), the number of threads a setting from
  // 1 to the machine's cores, sent to every worker; the game and the lines play as before.
  const isolatedSite = await staticServer(0, true);
  const isoCtx = await browser.newContext();
  const isoPage = await isoCtx.newPage();
  const isoErrors = [];
  isoPage.on('pageerror', (e) => isoErrors.push(String(e)));
  const isoFetched = [];
  isoPage.on('request', (r) => isoFetched.push(new URL(r.url()).pathname));
  await isoPage.addInitScript(() => {
    const post = Worker.prototype.postMessage;
    window.toWorkers = [];
    Worker.prototype.postMessage = function (m) { window.toWorkers.push(String(m)); return post.call(this, m); };
  });
  await isoPage.goto(`http://127.0.0.1:${isolatedSite.address().port}/`);
  await isoPage.waitForFunction(() => /engine \d+\.\d+\.\d+ in this browser/.test(document.querySelector('#server-info')?.textContent),
    null, { timeout: STEP_MS });
  const iso = await isoPage.evaluate(() => ({ isolated: window.crossOriginIsolated, threaded: document.documentElement.dataset.engineThreaded,
    options: [...document.querySelector('#engine-threads').options].map((o) => o.value), disabled: document.querySelector('#engine-threads').disabled,
    why: document.querySelector('#engine-threads-note').textContent, cores: navigator.hardwareConcurrency }));
  const want = Math.min(iso.cores, 16);
  check(iso.isolated && iso.threaded === 'true' && !iso.disabled && iso.why === '' && iso.options.length === want &&
    iso.options[0] === '1' && iso.options[want - 1] === String(want),
    `isolated, the engine's threads are a choice from 1 to the cores: ${JSON.stringify(iso)}`);
  check(isoFetched.includes('/baghchal-worker-mt.js') && !isoFetched.includes('/baghchal-worker.js'),
    `the worker with threads is the one loaded: ${isoFetched.filter((p) => p.includes('worker')).join(', ')}`);
  const threadsNow = String(Math.min(2, want));
  await isoPage.selectOption('#engine-threads', threadsNow);
  await isoPage.$eval('#movetime', (el) => { el.value = '300'; el.dispatchEvent(new Event('input')); });
  await isoPage.waitForFunction(() => document.querySelectorAll('[data-target]').length > 0 &&
    document.documentElement.dataset.pending === '0', null, { timeout: STEP_MS });
  await isoPage.click('[data-point="C3"]');
  await isoPage.waitForFunction(() => document.querySelectorAll('#moves .mv[data-ply]').length === 2 &&
    document.querySelector('#thinking').hidden, null, { timeout: STEP_MS });
  const reply = await isoPage.evaluate(() => ({ obx: document.querySelector('#obx').value, meta: document.querySelector('#engine-meta').textContent,
    sent: window.toWorkers }));
  check(/ g @\d+ /.test(reply.obx) && /nodes/.test(reply.meta) && reply.sent.includes(`setoption name Threads value ${threadsNow}`),
    `the engine with ${threadsNow} threads replied: ${JSON.stringify({ obx: reply.obx, meta: reply.meta, sent: reply.sent.filter((l) => l.startsWith('setoption')) })}`);
  // The lines in a worker of their own, with the same threads, deepening live.
  await isoPage.evaluate(() => document.activeElement && document.activeElement.blur());
  await isoPage.keyboard.press('l');
  await isoPage.waitForFunction(() => document.querySelectorAll('#lines li').length === 3 &&
    Number(document.querySelector('#lines-info').dataset.depth) > 1, null, { timeout: STEP_MS });
  const threadLines = (await isoPage.evaluate(() => window.toWorkers)).filter((l) => l === `setoption name Threads value ${threadsNow}`);
  check(threadLines.length === 2, `the lines' worker has the threads too: ${threadLines.length} workers told`);
  check(await isoPage.evaluate(() => JSON.parse(localStorage.getItem('baghchal.board.v2') || '{}').engineThreads) === Number(threadsNow),
    'the threads chosen are kept with the settings');
  check(isoErrors.length === 0, `no page errors with threads: ${isoErrors.join('; ')}`);
  await isoCtx.close();
  isolatedSite.close();

  // ---- the same files with baghchal-server behind the same origin ----
  const server = await startServer();
  const proxied = await staticServer(server.port);
  const ctx2 = await browser.newContext();
  const page2 = await ctx2.newPage();
  const fetched = [];
  page2.on('request', (r) => fetched.push(new URL(r.url()).pathname));
  page2.on('pageerror', (e) => errors.push(String(e)));
  await page2.goto(`http://127.0.0.1:${proxied.address().port}/`);
  await page2.waitForFunction(() => document.documentElement.dataset.engine === 'server', null, { timeout: STEP_MS });
  await page2.waitForFunction(() => document.querySelector('#status')?.textContent.includes('Goats to move'), null, { timeout: STEP_MS });
  await page2.waitForFunction(() => /workers/.test(document.querySelector('#server-info')?.textContent), null, { timeout: STEP_MS });
  check(!(await page2.textContent('#server-info')).includes('in this browser'), 'the header names the server');
  const an = await page2.evaluate(async () => {
    const r = await fetch('/analysis', { method: 'POST', body: JSON.stringify({ obx: 'GTGGG/TGXGT/GXGXG/GGTGG/GGXGG g @0 c3 - -', repetition: 'draw' }) });
    return { status: r.status, body: await r.json() };
  });
  check(an.status === 200 && an.body.source === (TB ? 'database' : 'search') && an.body.moves.length > 0,
    `/analysis answered by the server (${TB ? 'database' : 'search'}): ${JSON.stringify(an).slice(0, 300)}`);
  check(!fetched.some((p) => p.includes('baghchal-worker')), 'with a server the page never loads the worker');
  check(errors.length === 0, `no page errors: ${errors.join('; ')}`);
  await ctx2.close();
  proxied.close();
  server.proc.kill('SIGTERM');
  await browser.close();
  console.log(`static board: ${checks} checks passed`);
}

main().catch((e) => { console.error(e); process.exit(1); });
