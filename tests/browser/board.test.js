// The web board in headless Chromium: loads it, plays goats and tigers against the engine,
// checks what the page shows against the server's answers, and exercises what players
// expect: the one-screen layout (1280x800, a 390x844 phone upright and sideways, checked by
// element boxes), analysis of every move, the engine's lines with their arrows, undo, the
// move list and the arrow keys, side lines (made, promoted, deleted), a flipped board,
// keyboard play, a failed request retried by itself, a reload, /?obx= and the address
// following the game, a 1,500-ply game going on with short requests, PGN export and import (the graph rebuilt), pause, a game on the clock
// to its flag fall, the position editor, Elo strength, sound and the light theme, recovery
// after the server restarts, and a whole game played by clicking to its result. Every
// request must stay on the loopback servers.
'use strict';

const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { chromium } = require('playwright-core');

const URL_ = process.env.BOARD_URL;
const SERVER_BIN = process.env.BOARD_SERVER;
const SHOTS = process.env.SHOT_DIR || '.';
const START = 'TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0 - #';
const STEP_MS = 20000;

let checks = 0;
function check(cond, msg) {
  assert.ok(cond, msg);
  checks++;
}

function fields(obx) {
  const f = obx.trim().split(/\s+/);
  return { board: f[0], turn: f[1], hand: Number(f[2].slice(1)), captured: Number(f[3].slice(1)), rows: f[0].split('/') };
}

function at(obx, point) {
  const { rows } = fields(obx);
  return rows[Number(point[1]) - 1]['ABCDE'.indexOf(point[0])];
}

function overlap(a, b) {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

function inside(box, vp) {
  return box && box.x >= 0 && box.y >= 0 && box.x + box.width <= vp.width + 0.5 && box.y + box.height <= vp.height + 0.5;
}

// A server of the test's own (for the restart): started on a port, its port read from its
// first line.
function startServer(port) {
  return new Promise((resolve, reject) => {
    const p = spawn(SERVER_BIN, ['--port', String(port), '--workers', '2', '--hash', '8', '--movetime', '100',
      '--max-movetime', '3000'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), 10000);
    p.stdout.on('data', (d) => {
      out += d;
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)\//.exec(out);
      if (m) { clearTimeout(timer); resolve({ proc: p, port: Number(m[1]) }); }
    });
    p.on('exit', (code) => { clearTimeout(timer); reject(new Error(`server exited with ${code}: ${out}`)); });
  });
}

function stopServer(s) {
  return new Promise((resolve) => {
    s.proc.removeAllListeners('exit');
    s.proc.on('exit', (code) => resolve(code));
    s.proc.kill('SIGTERM');
  });
}

async function main() {
  assert.ok(URL_, 'BOARD_URL is not set');
  const origin = new URL(URL_);
  const allowed = new Set([origin.host]);
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'baghchal-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      '--autoplay-policy=no-user-gesture-required'],
  });
  const problems = [];
  const answers = [];
  let expectRefusal = false; // the browser logs an answered 400 as a console error
  let failLegal = 0;         // /legal requests to fail, as a restarting server would
  let expectFailure = false;
  let own = null;            // the restart test's own server
  try {
    // Only the servers themselves may be reached: no CDN, no fonts, nothing else.
    await context.route('**/*', (route) => {
      const u = new URL(route.request().url());
      if (!allowed.has(u.host)) {
        problems.push(`request outside the server: ${u.href}`);
        return route.abort();
      }
      if (u.pathname === '/legal' && failLegal > 0) {
        failLegal--;
        return route.abort('connectionrefused');
      }
      return route.continue();
    });
    const page = context.pages()[0] || await context.newPage();
    page.on('console', (m) => {
      if (m.type() !== 'error') return;
      if (expectRefusal && m.text().includes('status of 4')) return;
      if (expectFailure && (m.text().includes('ERR_') || m.text().includes('status of 503'))) return;
      problems.push(`console: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    const obxBodies = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/obx' && r.method() === 'POST') obxBodies.push(JSON.parse(r.postData() || '{}'));
    });
    page.on('response', async (r) => {
      if (r.status() >= 400 && !expectRefusal && !expectFailure) {
        problems.push(`answer ${r.status()} to ${r.request().method()} ${r.url()} ${r.request().postData() || ''}: ${await r.text().catch(() => '')}`);
      }
      if (new URL(r.url()).pathname === '/obx' && r.status() === 200) {
        try { answers.push(await r.json()); } catch (e) { /* a page navigating away */ }
      }
    });
    // The server's view of a record, asked from the page's origin.
    const legalOf = (obx, moves, rule) => page.evaluate(async ([o, m, r]) => {
      const res = await fetch('/legal', { method: 'POST', body: JSON.stringify({ obx: o, moves: m, repetition: r || 'forbid' }) });
      return res.json();
    }, [obx, moves, rule]);
    // The main line kept in the page's storage.
    const mainMoves = () => page.evaluate(() => {
      const s = JSON.parse(localStorage.getItem('baghchal.board.v2'));
      const out = [];
      for (let n = s.tree[0]; n; n = n.c[0]) out.push(n.m);
      return out;
    });
    const box = (sel) => page.locator(sel).boundingBox();
    const vp = () => page.viewportSize();

    await page.goto(URL_);
    await page.waitForFunction(() => document.querySelector('#status')?.textContent.includes('Goats to move'));
    check(await page.locator('[data-point]').count() === 25, '25 points on the board');
    check(await page.locator('[data-piece="tiger"]').count() === 4, 'four tigers at the start');
    check(await page.inputValue('#obx') === START, 'the start OBX is shown');
    check(await page.locator('#mode-goats.active').count() === 1, 'playing goats by default');
    check((await page.textContent('#hand-count')).trim() === '20', '20 goats in hand');
    check(await page.locator('#board line.board-line').count() === 10, 'orthogonal lines');
    check(await page.locator('#board line.board-diag').count() === 6, 'diagonals');

    // Fast engine for the test.
    const setMovetime = (ms) => page.$eval('#movetime', (el, v) => { el.value = String(v); el.dispatchEvent(new Event('input')); }, ms);
    await setMovetime(100);

    const movesShown = () => page.locator('#moves .mv[data-ply]').count();
    const settled = async (n) => {
      await page.waitForFunction((want) => document.querySelectorAll('#moves .mv[data-ply]').length === want &&
        document.querySelector('#thinking').hidden, n, { timeout: STEP_MS });
      await page.waitForFunction(() => [...document.querySelectorAll('#board .hit.clickable')].length > 0 ||
        !document.querySelector('#result-banner').hidden, null, { timeout: STEP_MS });
    };

    // ---- play goats: four placements against the engine, with sound ----
    const prefer = ['C3', 'B3', 'D3', 'C2', 'C4', 'B2', 'D4', 'B4', 'D2', 'A3'];
    let played = 0;
    const before = [];
    const sounds = () => page.evaluate(() => Number(document.body.dataset.sounds || 0));
    for (let i = 0; i < 4; i++) {
      const targets = await page.locator('[data-target]').evaluateAll((ts) => ts.map((t) => t.getAttribute('data-target')));
      check(targets.length > 0, 'placement targets are highlighted');
      const point = prefer.find((p) => targets.includes(p)) || targets[0];
      before.push(await page.inputValue('#obx'));
      const s0 = await sounds();
      await page.click(`[data-point="${point}"]`);
      played += 2;
      await settled(played);
      check(await sounds() >= s0 + 2, 'a sound for my move and one for the reply');
      const obx = await page.inputValue('#obx');
      const last = answers[answers.length - 1];
      check(last && last.obx === obx, `the OBX shown (${obx}) is the server's answer (${last && last.obx})`);
      const f = fields(obx);
      check(f.turn === 'g', 'goats to move after the engine replied');
      check(f.hand === 20 - (i + 1), `${20 - (i + 1)} goats in hand`);
      check((await page.textContent('#hand-count')).trim() === String(f.hand), 'the hand count matches the OBX');
      const goats = (f.board.match(/G/g) || []).length;
      check(goats + f.hand + f.captured === 20, 'goats add up to 20');
      check(await page.locator('[data-piece="goat"]').count() === goats, 'every goat of the OBX is drawn');
      check((await page.textContent('#score')).trim() !== '—', 'the engine score is shown');
      check(await page.locator('#pv span').count() >= 1, 'the principal variation is shown');
    }
    check(await movesShown() === 8, 'eight moves in the list');
    check(Number(await page.getAttribute('#evalgraph', 'data-points')) === 4, 'the graph has a point per engine move');
    check(obxBodies.every((b) => b.repetition === 'forbid'), 'every engine request names the game\'s rule');

    // ---- sound off: a move makes none ----
    await page.click('#sound');
    check(await page.getAttribute('#sound', 'aria-pressed') === 'false', 'the sound switch is off');

    // ---- analysis: every legal move with a value ----
    await page.click('#analyse');
    await page.waitForFunction(() => document.querySelectorAll('#analysis-list li').length > 0, null, { timeout: STEP_MS });
    const live = await legalOf(START, await mainMoves());
    const listed = await page.locator('#analysis-list li').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-move')));
    check(listed.length === live.legal.length, `${listed.length} moves analysed, ${live.legal.length} legal`);
    check(live.legal.every((m) => listed.includes(m.move)), 'every legal move is in the analysis');
    // From the search, or from the placement database when the server has one: either way no
    // distances, so the header does not speak of plies.
    const source = await page.textContent('#analysis-source');
    const placementSource = (await page.evaluate(async (m) => (await (await fetch('/analysis', { method: 'POST',
      body: JSON.stringify({ obx: 'TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0 - #', moves: m }) })).json()).source, await mainMoves()));
    check(source.includes(placementSource === 'database' ? 'from the database' : 'engine search') && !source.includes('plies'),
      `placement moves come from the ${placementSource} and the header says no plies (${source})`);
    check(await page.locator('#analysis-list .val.win, #analysis-list .val.draw, #analysis-list .val.loss, #analysis-list .val.open').count() === listed.length,
      'every move has a coloured value');

    // A win proven under the no-repetition rule ("proven": true, which the server may add) is
    // shown as a win, with its mark.
    await page.route('**/analysis', async (route) => {
      const res = await route.fetch();
      const body = await res.json();
      body.source = 'database';
      body.moves = body.moves.map((m, i) => ({ ...m, wdl: i ? 'open' : 'win', distance: i ? 0 : 3, score: null,
        ...(i ? {} : { proven: true }) }));
      await route.fulfill({ response: res, json: body });
    }, { times: 1 });
    await page.click('#analyse');
    await page.waitForSelector('#analysis-list .val[data-proven="true"]', { timeout: STEP_MS });
    const provenText = await page.textContent('#analysis-list .val[data-proven="true"]');
    check(provenText.startsWith('Win in 3') && provenText.includes('✓'), `a proven win shows as a win with a mark (${provenText})`);
    check((await page.getAttribute('#analysis-list .proven', 'title')).includes('no-repetition'), 'the mark explains itself');
    check(await page.locator('#analysis-list li.win').count() === 1 && await page.locator('#analysis-list .val.open').count() === listed.length - 1,
      'the other moves are open');
    await page.click('#analyse'); // the real values again, for the screenshot below
    await page.waitForFunction(() => document.querySelectorAll('#analysis-list li').length > 0 &&
      !document.querySelector('#analysis-list .val[data-proven]'), null, { timeout: STEP_MS });

    // ---- the engine's lines: MultiPV 2, scores, arrows, a line played by a click ----
    // The lines search on for the chosen time, deepening: the shortest, and its end awaited,
    // so that the lines clicked below are the last ones answered.
    await page.selectOption('#multipv', '2');
    await page.selectOption('#ceval-time', '2000');
    await page.check('#lines-on');
    await page.waitForFunction(() => document.querySelectorAll('#lines li').length === 2 &&
      document.querySelector('#lines-info').getAttribute('data-running') === 'false', null, { timeout: STEP_MS });
    const linesShown = await page.locator('#lines li').evaluateAll((lis) => lis.map((li) => ({
      score: li.querySelector('.sc').textContent, moves: [...li.querySelectorAll('.mv')].map((m) => m.textContent) })));
    const lineReq = obxBodies[obxBodies.length - 1];
    check(lineReq.multipv === 2, `the lines were asked with multipv 2 (${JSON.stringify(lineReq)})`);
    // The answer the lines show (the lines deepen through several answers).
    const plainMove = (t) => t.replace(/[^A-Za-z0-9]/g, '').toUpperCase();
    const lineAns = [...answers].reverse().find((a) => a.lines && a.lines.length === 2 && a.lines.every((l, i) =>
      linesShown[i] && l.pv.slice(0, linesShown[i].moves.length).map((m) => m.replace(/^m/, '').replace(/\(.*\)$/, '')).join(' ') ===
        linesShown[i].moves.map(plainMove).join(' '))) || {};
    check(lineAns.lines && lineAns.lines.length === 2 && linesShown.every((l) => /\d\.\d\d|#\d/.test(l.score) && l.moves.length >= 1),
      `two lines with scores and moves (${JSON.stringify(linesShown)}; answers: ${JSON.stringify(answers.slice(-4).map((a) => (a.lines || []).map((l) => l.pv.slice(0, 3).join(' '))))})`);
    const best = await page.locator('[data-arrow="best"]').getAttribute('data-move');
    check(best === lineAns.lines[0].pv[0], `the best-move arrow shows ${lineAns.lines[0].pv[0]} (${best})`);
    check(await page.locator('[data-arrow="line2"]').count() === 1, 'the second line has an arrow too');
    await page.waitForTimeout(600); // the last move's animation
    // Everything needed at once on a 1280x800 screen, and the screenshot of it.
    for (const sel of ['#board', '#moves-card', '#analysis-card', '#controls', '#lines', '#player-top', '#player-bottom', '.status-slot']) {
      const b = await box(sel);
      check(inside(b, vp()), `${sel} is inside the 1280x800 window (${JSON.stringify(b)})`);
    }
    check((await box('#analysis-list li:last-child')).y < 800 || await page.$eval('#analysis-list', (e) => e.scrollHeight > e.clientHeight),
      'the analysis list scrolls within its card');
    await page.screenshot({ path: path.join(SHOTS, 'board.png') });
    // A click on the second line's second move plays the line up to it (two players for a
    // moment, so the engine does not answer it).
    await page.click('#mode-human');
    const second = lineAns.lines[1].pv;
    const main8 = await mainMoves();
    const s1 = await sounds();
    // Its second move, or its only one (a line from the database may hold a single move).
    const take = Math.min(2, second.length);
    await page.click(`#lines li[data-line="2"] .mv[data-idx="${take - 1}"]`);
    const lineObx = (await legalOf(START, [...main8, ...second.slice(0, take)])).obx;
    await page.waitForFunction((want) => document.querySelector('#obx').value === want, lineObx, { timeout: STEP_MS });
    check(await movesShown() === 8 + take, `the line's ${take} moves are played`);
    check(await page.locator(`#moves .mv.current[data-ply="${8 + take}"]`).count() === 1, 'and the last one is shown');
    check(await sounds() === s1, 'no sound with the sound off');
    await page.uncheck('#lines-on');
    await page.click('#sound');
    // The moves are in the address.
    const addr = new URL(page.url());
    check(addr.searchParams.get('moves').split(',').length === 8 + take, `the address names the line shown (${addr.search})`);
    for (let i = 0; i < take; i++) await page.click('#delete-line');
    await page.waitForFunction(() => document.querySelectorAll('#moves .mv[data-ply]').length === 8, null, { timeout: STEP_MS });
    check((await mainMoves()).join() === main8.join(), 'deleting them leaves the game as it was');
    await page.click('#mode-goats');
    await settled(8);

    // ---- undo takes back two moves and clears the analysis ----
    await page.click('#undo');
    await page.waitForFunction((want) => document.querySelector('#obx').value === want, before[3], { timeout: STEP_MS });
    check(await movesShown() === 6, 'undo took back two moves');
    check((await page.textContent('#score')).trim() === '—', 'undo cleared the engine card');
    check(await page.locator('#analysis-list li').count() === 0, 'undo cleared the analysis');
    await settled(6);

    // ---- the move list and the arrow keys; the page itself never scrolls ----
    await page.click('#moves .mv[data-ply="1"]');
    await page.waitForFunction(() => document.querySelector('#status').getAttribute('data-view') === '1');
    check(await page.evaluate(() => window.scrollY) === 0, 'clicking a move keeps the board in view');
    check(await page.locator('[data-piece="goat"]').count() === 1, 'move 1 shows one goat');
    check(await page.inputValue('#obx') === (await legalOf(START, (await mainMoves()).slice(0, 1))).obx,
      'the OBX shown is the position after move 1');
    await page.locator('body').press('ArrowRight');
    await page.waitForFunction(() => document.querySelector('#status').getAttribute('data-view') === '2');
    check(await page.locator('#moves .mv.current[data-ply="2"]').count() === 1, 'the arrow key moved to move 2');
    await page.locator('body').press('Home');
    await page.waitForFunction(() => document.querySelector('#status').getAttribute('data-view') === '0');
    check(await page.locator('[data-piece="goat"]').count() === 0, 'Home shows the start');
    await page.locator('body').press('End');
    await page.waitForFunction(() => document.querySelector('#status').getAttribute('data-view') === 'game');
    const endObx = await page.inputValue('#obx');
    const endGoats = await page.locator('[data-piece="goat"]').count();
    check(endObx === before[3] && endGoats === (fields(endObx).board.match(/G/g) || []).length,
      `End returns to the game (${endObx}, ${endGoats} goats drawn)`);

    // ---- a move at a past position starts a side line; promote it, then delete it ----
    await page.click('#moves .mv[data-ply="2"]');
    await page.waitForFunction(() => document.querySelector('#status').getAttribute('data-ply') === '2' &&
      document.querySelectorAll('#board .hit.clickable').length > 0, null, { timeout: STEP_MS });
    const main6 = await mainMoves();
    const free = (await page.locator('[data-target]').evaluateAll((ts) => ts.map((t) => t.getAttribute('data-target'))))
      .find((p) => `m${p}` !== main6[2]);
    await page.click(`[data-point="${free}"]`);
    // The engine answers in the side line (it is the tigers' turn at its end).
    await page.waitForFunction(() => document.querySelectorAll('#moves .var .vmv').length === 2 &&
      document.querySelector('#thinking').hidden, null, { timeout: STEP_MS });
    check(await movesShown() === 6, 'the main line keeps its six moves');
    check((await page.textContent('#moves .var')).includes(free), `the side line starts with ${free}`);
    const sideLine = [...main6.slice(0, 2), `m${free}`];
    check(at(await page.inputValue('#obx'), free) === 'G', 'the side line is on the board');
    await page.click('#promote');
    await page.waitForFunction((f) => document.querySelector('#moves .mv[data-ply="3"]').textContent === f, free);
    const promoted = await mainMoves();
    check(promoted.length === 4 && promoted.slice(0, 3).join() === sideLine.join(), `promoted: the side line is the main line (${promoted})`);
    check((await page.locator('#moves .var .vmv').count()) === 4, 'the old main line is now the side line');
    await page.click('#moves .vmv[data-node]');
    await page.click('#promote');
    await page.waitForFunction(() => document.querySelectorAll('#moves .mv[data-ply]').length === 6);
    check((await mainMoves()).join() === main6.join(), 'promoting it back restores the game');
    await page.click('#moves .var .vmv');
    await page.click('#delete-line');
    await page.waitForFunction(() => document.querySelectorAll('#moves .var').length === 0);
    check((await mainMoves()).join() === main6.join(), 'the side line is deleted, the game kept');
    await page.locator('body').press('End');
    await settled(6);

    // ---- flip ----
    const tp = await page.locator('[data-piece="tiger"]').first().getAttribute('data-at');
    const tigerAt = () => page.$eval(`[data-piece="tiger"][data-at="${tp}"]`, (g) => g.style.transform);
    const px = (c, r) => `${80 + c * 115}px, ${80 + r * 115}px`;
    const tc = 'ABCDE'.indexOf(tp[0]);
    const tr = Number(tp[1]) - 1;
    check((await tigerAt()).includes(px(tc, tr)), `${tp} is drawn in its place`);
    await page.click('#flip');
    check((await tigerAt()).includes(px(4 - tc, 4 - tr)), `flipped: ${tp} is turned half round`);
    check((await page.locator('#board .board-label').first().textContent()) === 'E', 'flipped labels');
    await page.locator('body').press('f');
    check((await tigerAt()).includes(px(tc, tr)), 'f flips back');

    // ---- keyboard play: focusable points, arrow keys between them, visible focus ----
    const empty = (obx) => ['B2', 'C2', 'D2', 'B4', 'C4', 'D4', 'A2', 'A4'].find((p) => at(obx, p) === 'X' &&
      at(obx, String.fromCharCode(p.charCodeAt(0) + 1) + p[1]) === 'X');
    const obxK = await page.inputValue('#obx');
    const from = empty(obxK);
    const to = String.fromCharCode(from.charCodeAt(0) + 1) + from[1];
    await page.focus(`[data-point="${from}"]`);
    await page.keyboard.press('ArrowRight');
    check(await page.evaluate(() => document.activeElement.getAttribute('data-point')) === to, `ArrowRight moved focus ${from} -> ${to}`);
    const ring = await page.$eval(`[data-point="${to}"]`, (e) => getComputedStyle(e).stroke);
    check(ring === 'rgb(127, 212, 255)', `the focused point shows a ring (${ring})`);
    await page.keyboard.press('Enter');
    await settled(8);
    check((await page.textContent('#moves .mv[data-ply="7"]')).trim() === to, `Enter placed a goat on ${to}`);

    // ---- a failed request: the move is taken back, the reason shown, and it is played again by itself ----
    const obxF = await page.inputValue('#obx');
    const goatsF = await page.locator('[data-piece="goat"]').count();
    const targetsF = await page.locator('[data-target]').evaluateAll((ts) => ts.map((t) => t.getAttribute('data-target')));
    expectFailure = true;
    failLegal = 1;
    await page.click(`[data-point="${targetsF[0]}"]`);
    await page.waitForFunction(() => !document.querySelector('#failure').hidden, null, { timeout: STEP_MS });
    check(await movesShown() === 8, 'the failed move is not in the list');
    check(await page.locator('[data-piece="goat"]').count() === goatsF, 'nor on the board');
    check(await page.inputValue('#obx') === obxF, 'the position is the one before the move');
    check((await page.textContent('#failure')).includes('not played'), 'the failure is said beside the board');
    check(inside(await box('#failure'), vp()), 'in view');
    await settled(10); // no click: the retry comes by itself
    expectFailure = false;
    check(at(await page.inputValue('#obx'), targetsF[0]) === 'G', `the retry placed the goat on ${targetsF[0]}`);
    check(await page.locator('#failure').isHidden(), 'the failure is gone');

    // ---- the game and its graph survive a reload ----
    const kept = await page.inputValue('#obx');
    const pointsKept = await page.getAttribute('#evalgraph', 'data-points');
    await page.reload();
    await page.waitForFunction((want) => document.querySelector('#obx').value === want, kept, { timeout: STEP_MS });
    check(await movesShown() === 10, 'the move list survived the reload');
    check(await page.getAttribute('#evalgraph', 'data-points') === pointsKept, `the graph survived it (${pointsKept} points)`);
    // The graph is clickable: its left edge is the start.
    const g = await box('#evalgraph');
    await page.mouse.click(g.x + 2, g.y + g.height / 2);
    await page.waitForFunction(() => document.querySelector('#status').getAttribute('data-ply') === '0');
    check(await page.locator('[data-piece="goat"]').count() === 0, 'a click at the graph\'s start shows the start');
    await page.mouse.click(g.x + g.width - 2, g.y + g.height / 2);
    await page.waitForFunction(() => document.querySelector('#status').getAttribute('data-ply') === '10');
    await setMovetime(100);

    // ---- PGN export ----
    await page.click('#export-pgn');
    const exported = await page.inputValue('#game-text');
    check(exported.includes('[Variant "Bagh-Chal"]'), 'PGN has the Variant tag');
    check(exported.includes(`[FEN "${START}"]`), 'PGN has the start OBX as FEN');
    check(exported.includes('[White "Player"]') && exported.includes('[Black "baghchal"]'), 'White = goats, Black = tigers');
    check(exported.includes('[Result "*"]') && /\n1\. [A-E][1-5] [A-E][1-5][A-E][1-5]/.test(exported), 'movetext in the project notation');

    // ---- import: a PGN from another position, with a side line; the graph is rebuilt ----
    const fen = 'TGXXT/XXXXX/XXXXX/XXXXX/TXXXT t @19 c0';
    await page.fill('#game-text', `[Variant "Bagh-Chal"]\n[FEN "${fen}"]\n\n1... A1C1 2. C3 (2. D3) C1B1 *\n`);
    await page.click('#import-game');
    await page.waitForFunction(() => document.querySelectorAll('#moves .mv[data-ply]').length === 3, null, { timeout: STEP_MS });
    const imported = await legalOf(fen, ['A1C1', 'C3', 'C1B1']);
    check(await page.inputValue('#obx') === imported.obx, `the imported game's position (${imported.obx})`);
    check((await page.textContent('#moves .mv[data-ply="1"]')).trim() === 'A1×C1', 'an imported capture is shown as one');
    check((await page.textContent('#moves .var')).includes('D3'), 'the imported side line is shown');
    await page.waitForFunction(() => Number(document.querySelector('#evalgraph').getAttribute('data-points')) === 3, null, { timeout: STEP_MS });
    checks++;
    expectRefusal = true;
    await page.fill('#game-text', `${START}\nC3 C3`);
    await page.click('#import-game');
    await page.waitForFunction(() => document.querySelector('#record-error').textContent.startsWith('Import:'), null, { timeout: STEP_MS });
    expectRefusal = false;
    check(await movesShown() === 3, 'a refused import leaves the game alone');

    // ---- /?obx= opens a position; the address follows the moves; a reload keeps them ----
    const opened = 'TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0';
    await page.click('#mode-human');
    await page.goto(`${URL_}?obx=${encodeURIComponent(opened)}`);
    await page.waitForFunction(() => document.querySelector('#obx-error').textContent === 'Position loaded.', null, { timeout: STEP_MS });
    check(await page.locator('[data-piece="goat"]').count() === 1 && at(await page.inputValue('#obx'), 'C3') === 'G',
      'the position from the address is on the board');
    await page.click('[data-point="A1"]');
    await page.click('[data-point="B1"]');
    await settled(1);
    check(new URL(page.url()).searchParams.get('moves') === 'A1B1', `the address has the move (${page.url()})`);
    await page.reload();
    await page.waitForFunction(() => document.querySelectorAll('#moves .mv[data-ply]').length === 1, null, { timeout: STEP_MS });
    check(at(await page.inputValue('#obx'), 'B1') === 'T', 'after the reload the move is still played');
    // The address alone (a shared link, no storage) opens the same game.
    const link = page.url();
    const other = await context.newPage();
    await other.goto(link);
    await other.evaluate(() => localStorage.clear());
    await other.reload();
    await other.waitForFunction(() => document.querySelectorAll('#moves .mv[data-ply]').length === 1, null, { timeout: STEP_MS });
    check(at(await other.inputValue('#obx'), 'B1') === 'T', 'a shared link opens the game');
    await other.close();

    // ---- a game of 1,500 plies goes on: requests start at the last placement or capture ----
    const long = process.env.BOARD_LONGGAME.trim().split(/\s+/);
    await page.evaluate(([moves, start]) => {
      const s = JSON.parse(localStorage.getItem('baghchal.board.v2'));
      let tree = [];
      for (let i = moves.length - 1; i >= 0; i--) tree = [{ m: moves[i], c: tree }];
      Object.assign(s, { startObx: start, rule: 'forbid', tree, path: moves.map(() => 0), rootEval: null, clock: null,
        mode: 'human', tc: 'move' });
      localStorage.setItem('baghchal.board.v2', JSON.stringify(s));
    }, [long, START]);
    const legalBodies = [];
    const onLegal = (r) => {
      if (new URL(r.url()).pathname === '/legal' && r.method() === 'POST') legalBodies.push(JSON.parse(r.postData() || '{}'));
    };
    page.on('request', onLegal);
    await page.goto(URL_);
    const wholeLong = await legalOf(START, long);
    await page.waitForFunction((want) => document.querySelector('#obx').value === want &&
      document.querySelectorAll('#board .hit.clickable').length > 0, wholeLong.obx, { timeout: STEP_MS });
    check(await movesShown() === long.length, `the ${long.length}-ply game is restored`);
    const step = wholeLong.legal.find((m) => m.kind === 'step');
    legalBodies.length = 0;
    await page.click(`[data-point="${step.from}"]`);
    await page.click(`[data-point="${step.to}"]`);
    await settled(long.length + 1);
    const lastBody = legalBodies[legalBodies.length - 1]; // before the test's own requests below
    const afterLong = await legalOf(START, [...long, step.move]);
    check(await page.inputValue('#obx') === afterLong.obx, `a move is played at ply ${long.length + 1} (${afterLong.obx})`);
    check(lastBody && lastBody.obx !== START && lastBody.moves.length < 200 &&
      lastBody.moves.every((m) => /^m?[A-E][1-5][A-E][1-5]$/i.test(m)),
      `the board sent the position after the last placement or capture and the steps since (${JSON.stringify(lastBody)})`);
    check(new URL(page.url()).search === '', `no address too long to reload (${page.url().length} characters)`);
    legalBodies.length = 0;
    await page.reload();
    await page.waitForFunction((want) => document.querySelector('#obx').value === want &&
      document.querySelectorAll('#board .hit.clickable').length > 0, afterLong.obx, { timeout: STEP_MS });
    check(legalBodies.length > 0 && legalBodies.every((b) => b.obx !== START && b.moves.length < 200),
      'after a reload the requests start at the last placement or capture too');
    page.off('request', onLegal);

    // ---- with the database: every move's value; "Open" under forbid, "Draw" under draw ----
    if (process.env.BOARD_TB && process.env.BOARD_TB !== '0') {
      const movement = 'GTGGG/TGXGT/GXGXG/GGTGG/GGXGG g @0 c3';
      await page.goto(`${URL_}?obx=${encodeURIComponent(movement)}`);
      await page.waitForFunction(() => document.querySelector('#obx-error').textContent === 'Position loaded.', null, { timeout: STEP_MS });
      for (const rule of ['forbid', 'draw']) {
        if (rule === 'draw') {
          await page.selectOption('#rule', 'draw');
          await page.waitForFunction(() => new URL(location.href).searchParams.get('rule') === 'draw', null, { timeout: STEP_MS });
        }
        const want = await page.evaluate(async ([o, r]) => {
          const res = await fetch('/analysis', { method: 'POST', body: JSON.stringify({ obx: o, repetition: r }) });
          return res.json();
        }, [movement, rule]);
        check(want.source === 'database', 'the server answers this position from the database');
        await page.click('#analyse');
        await page.waitForFunction(() => document.querySelectorAll('#analysis-list li').length > 0, null, { timeout: STEP_MS });
        check((await page.textContent('#analysis-source')).includes('from the database, plies to the end'), 'the view names the database');
        const rows = await page.locator('#analysis-list li').evaluateAll((lis) => lis.map((li) => ({
          move: li.getAttribute('data-move'), cls: li.className, text: li.querySelector('.val').textContent, title: li.title })));
        check(rows.length === want.moves.length, 'every move is listed');
        want.moves.forEach((m, i) => {
          // A value the prover settled has no distance: "Win ✓" / "Loss ✓".
          const wl = m.wdl === 'win' ? 'Win' : 'Loss';
          const text = m.wdl === 'draw' ? 'Draw' : m.wdl === 'open' ? 'Open'
            : m.distance === null ? wl + (m.proven ? ' ✓' : '') : `${wl} in ${m.distance}${m.proven ? ' ✓' : ''}`;
          check(rows[i].move === m.move && rows[i].text === text && rows[i].cls === m.wdl,
            `${rule} row ${i + 1}: ${JSON.stringify(rows[i])} shows ${m.move} ${text}`);
        });
        const neutral = rule === 'forbid' ? 'open' : 'draw';
        check(rows.some((r) => r.cls === 'loss') && rows.some((r) => r.cls === neutral), `${neutral} and losses are both coloured`);
        if (rule === 'forbid') {
          check(rows.every((r) => r.text !== 'Draw'), 'no "Draw" under forbid');
          check(rows.find((r) => r.cls === 'open').title.includes('draw-by-repetition'), 'an open value explains itself');
          check(await page.locator('#analysis-legend').isVisible(), 'with a legend line');
          await page.screenshot({ path: path.join(SHOTS, 'analysis.png') });
        } else {
          check(await page.locator('#analysis-legend').isHidden(), 'no legend under the draw rule');
        }
      }
      await page.selectOption('#rule', 'forbid');
    }

    // ---- a pasted position where the tigers capture the fifth goat ----
    await page.click('#mode-goats');
    await page.fill('#obx', 'TGXXT/XXXXX/XXXXX/XXXXX/TXXXT t @15 c4');
    await page.click('#load-obx');
    await page.waitForFunction(() => !document.querySelector('#result-banner').hidden, null, { timeout: STEP_MS });
    const won = await page.inputValue('#obx');
    check(at(won, 'B1') === 'X' && at(won, 'C1') === 'T', `the tiger jumped B1 (${won})`);
    check(await page.locator('[data-captured="B1"]').count() === 1, 'the captured goat is marked');
    check((await page.textContent('#result-title')).includes('Tigers win'), 'the result is shown');
    check((await page.textContent('#result-reason')).toLowerCase().includes('five goats captured'), 'with its reason');
    check(await page.locator('#status').isHidden(), 'the status line does not repeat the banner');
    check((await page.textContent('#score')).trim() === 'Tigers won', `the engine card says the game is over (${await page.textContent('#score')})`);

    // A malformed position is refused with the server's reason.
    expectRefusal = true;
    await page.fill('#obx', 'TTTTT/XXXXX/XXXXX/XXXXX/XXXXX g @20 c0');
    await page.click('#load-obx');
    await page.waitForFunction(() => document.querySelector('#obx-error').textContent.includes('tiger'), null, { timeout: STEP_MS });
    expectRefusal = false;
    checks++;

    // ---- the position editor: drag and click pieces, refused with the server's reason, then played ----
    await page.click('#edit');
    await page.click('#ed-clear');
    const pointXY = async (p) => {
      const b = await box(`[data-point="${p}"]`);
      return [b.x + b.width / 2, b.y + b.height / 2];
    };
    const drag = async (fromSel, toPoint) => {
      const f = await box(fromSel);
      const [x, y] = await pointXY(toPoint);
      await page.mouse.move(f.x + f.width / 2, f.y + f.height / 2);
      await page.mouse.down();
      await page.mouse.move((f.x + x) / 2, (f.y + y) / 2, { steps: 4 });
      await page.mouse.move(x, y, { steps: 4 });
      await page.mouse.up();
    };
    for (const p of ['A1', 'E1', 'A5', 'E5', 'C3']) await drag('#tool-tiger', p);
    check(await page.locator('[data-piece="tiger"]').count() === 5, 'five tigers dragged onto the board');
    await page.click('#tool-goat');
    await page.click('[data-point="B1"]');
    await page.click('[data-point="D1"]');
    await drag('[data-point="D1"]', 'D2'); // a piece dragged from point to point
    check(await page.inputValue('#ed-hand') === '18', 'goats in hand follow the goats placed');
    check(await page.locator('[data-piece="goat"][data-at="D2"]').count() === 1 &&
      await page.locator('[data-piece="goat"][data-at="D1"]').count() === 0, 'the goat moved from D1 to D2');
    await page.fill('#ed-captured', '2');
    await page.dispatchEvent('#ed-captured', 'input');
    await page.selectOption('#ed-turn', 't');
    expectRefusal = true;
    await page.click('#ed-done');
    await page.waitForFunction(() => document.querySelector('#ed-error').textContent.startsWith('Refused'), null, { timeout: STEP_MS });
    const refusal = await page.textContent('#ed-error');
    const serverSays = await page.evaluate(async () => (await (await fetch('/legal', { method: 'POST',
      body: JSON.stringify({ obx: 'TGXXT/XXXGX/XXTXX/XXXXX/TXXXT t @16 c2' }) })).json()).detail);
    expectRefusal = false;
    check(refusal.includes(serverSays), `the editor shows the server's reason (${refusal} / ${serverSays})`);
    check(await page.locator('#editor').isVisible(), 'the editor stays open');
    await drag('[data-point="C3"]', 'E3'); // off the tiger... onto an empty point: still five
    await page.click('#tool-empty');
    await page.click('[data-point="E3"]');
    check(await page.locator('[data-piece="tiger"]').count() === 4, 'four tigers left');
    await page.selectOption('#ed-rule', 'draw');
    await page.click('#ed-done');
    await page.waitForFunction(() => document.querySelector('#editor').hidden, null, { timeout: STEP_MS });
    const edited = 'TGXXT/XXXGX/XXXXX/XXXXX/TXXXT t @16 c2';
    check(fields(await page.inputValue('#obx')).board === fields(edited).board, `the edited position is played (${await page.inputValue('#obx')})`);
    check(new URL(page.url()).searchParams.get('rule') === 'draw', 'the game is under the rule chosen in the editor');
    check(await page.inputValue('#rule') === 'draw', 'and the rule is shown');
    await page.selectOption('#rule', 'forbid');

    // ---- Elo strength: the engine is asked at UCI_Elo, which the strip shows ----
    await page.click('#new-game');
    await page.selectOption('#skill', 'elo');
    await page.$eval('#elo', (el) => { el.value = '800'; el.dispatchEvent(new Event('input')); });
    check((await page.textContent('#player-top')).includes('Elo 800'), `the engine's Elo is shown (${await page.textContent('#player-top')})`);
    const askedElo = obxBodies.length;
    await page.click('[data-point="C3"]');
    await settled(2);
    check(obxBodies.slice(askedElo).some((b) => b.elo === 800 && b.skill === undefined), 'the engine was asked at Elo 800');
    await page.selectOption('#skill', '20');

    // ---- hint: an arrow ----
    await page.click('#hint');
    await page.waitForSelector('[data-arrow="hint"]', { timeout: STEP_MS });
    checks++;

    // ---- a game on the clock: 3 s each; the engine plays on its clock; the goats' flag falls ----
    await page.selectOption('#tc', 'custom');
    await page.fill('#tc-min', '0.05');
    await page.fill('#tc-inc', '0');
    await page.dispatchEvent('#tc-inc', 'change');
    await page.waitForFunction(() => document.querySelectorAll('#moves .mv[data-ply]').length === 0 &&
      document.querySelectorAll('#board .hit.clickable').length > 0, null, { timeout: STEP_MS });
    check((await page.textContent('#clock-goats')).trim() === '0:03.0', `3 s on the goats' clock (${await page.textContent('#clock-goats')})`);
    const askedClock = obxBodies.length;
    await page.click('[data-point="C3"]');
    await settled(2);
    const clockReq = obxBodies.slice(askedClock).find((b) => b.gtime !== undefined);
    check(clockReq && clockReq.ttime > 0 && clockReq.ttime <= 3000 && clockReq.movetime === undefined,
      `the engine searched on its clock (${JSON.stringify(clockReq)})`);
    check(await page.locator('#clock-goats.running').count() === 1, 'the goats\' clock runs');
    await page.waitForFunction(() => !document.querySelector('#result-banner').hidden, null, { timeout: 6000 });
    check((await page.textContent('#result-title')).trim() === 'Tigers win', 'the tigers win on time');
    check((await page.textContent('#result-reason')).includes('time ran out'), 'the flag is the reason');
    check(await page.locator('#clock-goats.flagged').count() === 1 && (await page.textContent('#clock-goats')).trim() === '0:00.0',
      'the goats\' clock is at zero');
    check(await page.locator('#board .hit.clickable').count() === 0, 'no move after the flag');
    await page.click('#export-pgn');
    const flagPgn = await page.inputValue('#game-text');
    check(flagPgn.includes('[Result "0-1"]') && flagPgn.includes('[TimeControl "3+0"]'), 'the PGN has the result on time');
    await page.selectOption('#tc', 'move');

    // ---- play tigers: the engine places a goat first, then I move a tiger ----
    await page.click('#new-game');
    await page.click('#mode-tigers');
    await settled(1);
    const t0 = await page.inputValue('#obx');
    check(fields(t0).turn === 't', 'tigers to move after the engine placed a goat');
    const tiger = await page.locator('[data-piece="tiger"].movable').first().getAttribute('data-at');
    await page.click(`[data-point="${tiger}"]`);
    const dest = await page.locator('[data-target]').first().getAttribute('data-target');
    await page.click(`[data-point="${dest}"]`);
    await settled(3);
    const t1 = await page.inputValue('#obx');
    check(at(t1, dest) === 'T' && at(t1, tiger) !== 'T', `the tiger moved ${tiger} to ${dest} (${t1})`);

    // ---- engine against engine; Pause drops the move being searched ----
    await setMovetime(1500);
    await page.click('#mode-watch');
    await page.waitForFunction(() => !document.querySelector('#thinking').hidden, null, { timeout: STEP_MS });
    const paused = await movesShown();
    await page.click('#pause');
    await page.waitForTimeout(2500);
    check(await movesShown() === paused, 'no move was played after Pause');
    check((await page.textContent('#status')).includes('paused'), 'the status says paused');

    // ---- Undo while the engine thinks: the server stops that search ----
    const health = () => page.evaluate(async () => (await fetch('/health')).json());
    await page.click('#new-game');
    await page.click('#mode-goats');
    await setMovetime(3000);
    await settled(0);
    const cancelledBefore = (await health()).cancelled;
    await page.click('[data-point="C3"]');
    await page.waitForFunction(() => !document.querySelector('#thinking').hidden, null, { timeout: STEP_MS });
    await page.waitForTimeout(300);
    await page.click('#undo');
    // The cancelled count rises within 2.5 s of the undo, well before the search's 3 s; a worker
    // may be busy again by then with the analysis of the position the undo went back to.
    const deadline = Date.now() + 2500;
    let after = await health();
    while (after.cancelled <= cancelledBefore && Date.now() < deadline) {
      await page.waitForTimeout(100);
      after = await health();
    }
    check(after.cancelled > cancelledBefore,
      `the search of an undone move was stopped well before its 3 s (${JSON.stringify(after)})`);
    check(await movesShown() === 0 && await page.locator('#thinking').isHidden(), 'undo left no move and no thinking');

    // ---- the server restarts: New game while it is down, then recovery without a click ----
    if (SERVER_BIN) {
      own = await startServer(0);
      const ownHost = `127.0.0.1:${own.port}`;
      const ownUrl = `http://${ownHost}/`;
      allowed.add(ownHost);
      await page.goto(ownUrl);
      await page.waitForFunction(() => document.querySelectorAll('#board .hit.clickable').length > 0, null, { timeout: STEP_MS });
      await setMovetime(100);
      await page.click('[data-point="C3"]');
      await settled(2);
      expectFailure = true;
      check(await stopServer(own) === 0, 'the test\'s server stopped cleanly');
      await page.click('#new-game');
      await page.waitForFunction(() => !document.querySelector('#failure').hidden, null, { timeout: STEP_MS });
      check(await page.locator('[data-piece="goat"]').count() === 0 && await page.locator('[data-piece="tiger"]').count() === 4,
        'New game while the server is down shows the start');
      check(await movesShown() === 0 && await page.locator('#undo').isDisabled(), 'with no moves and nothing to undo');
      check(inside(await box('#failure'), vp()) && (await page.textContent('#failure')).includes('did not answer'),
        `the reason stays in view (${await page.textContent('#failure')})`);
      await page.waitForTimeout(1500); // a retry or two fail meanwhile
      own = await startServer(own.port);
      // No click: the board asks again by itself and becomes playable.
      await page.waitForFunction(() => document.querySelector('#failure').hidden &&
        document.querySelectorAll('#board .hit.clickable').length > 0, null, { timeout: 12000 });
      expectFailure = false;
      check(await page.inputValue('#obx') === START, 'the new game is on the board once the server is back');
      await page.click('[data-point="C3"]');
      await settled(2);
      check(at(await page.inputValue('#obx'), 'C3') === 'G', 'and it plays on');
      check(await stopServer(own) === 0, 'the restarted server stopped cleanly');
      own = null;
      allowed.delete(ownHost);
      await page.goto(URL_);
      await page.waitForFunction(() => document.querySelector('#status')?.textContent.includes('to move'), null, { timeout: STEP_MS });
    }

    // ---- a whole game played by clicking, as goats, to its result, against level 0 ----
    await page.click('#new-game');
    await page.click('#mode-goats');
    await setMovetime(100);
    await page.selectOption('#skill', '0');
    await settled(0);
    const boardBefore = await box('#board');
    const asked = obxBodies.length;
    for (let n = 0; n < 200; n++) {
      if (!(await page.locator('#result-banner').isHidden())) break;
      const count = await movesShown();
      const placing = await page.locator('[data-target].place').count();
      if (placing) {
        const ts = await page.locator('[data-target]').evaluateAll((x) => x.map((t) => t.getAttribute('data-target')));
        await page.click(`[data-point="${ts[n % ts.length]}"]`);
      } else {
        const goats = await page.locator('[data-piece="goat"].movable').evaluateAll((x) => x.map((gt) => gt.getAttribute('data-at')));
        check(goats.length > 0, 'a goat can move');
        await page.click(`[data-point="${goats[n % goats.length]}"]`);
        const ts = await page.locator('[data-target]').evaluateAll((x) => x.map((t) => t.getAttribute('data-target')));
        await page.click(`[data-point="${ts[0]}"]`);
      }
      await page.waitForFunction((c) => {
        const cells = document.querySelectorAll('#moves .mv[data-ply]').length;
        return (cells >= c + 2 && document.querySelector('#thinking').hidden && document.querySelectorAll('#board .hit.clickable').length > 0) ||
          !document.querySelector('#result-banner').hidden;
      }, count, { timeout: STEP_MS });
    }
    check(!(await page.locator('#result-banner').isHidden()), 'the game ended with a result');
    const boardAfter = await box('#board');
    check(boardAfter.y === boardBefore.y && boardAfter.height === boardBefore.height,
      `the banner did not move the board (${JSON.stringify(boardBefore)} / ${JSON.stringify(boardAfter)})`);
    check(obxBodies.length > asked && obxBodies.slice(asked).every((b) => b.skill === 0),
      'every engine move of the game was asked at level 0');
    const title = (await page.textContent('#result-title')).trim();
    const final = await legalOf(START, await mainMoves());
    check(final.result && title === `${final.result.winner === 'goats' ? 'Goats' : 'Tigers'} win`,
      `the banner (${title}) says the server's result (${JSON.stringify(final.result)})`);
    check(!(await page.textContent('#score')).includes(' in '), 'the engine card no longer counts moves to a result');
    await page.click('#export-pgn');
    const pgn = await page.inputValue('#game-text');
    check(pgn.includes(`[Result "${final.result.winner === 'goats' ? '1-0' : '0-1'}"]`), 'the PGN has the result');
    check(pgn.includes(`[Termination "${final.result.description}"]`), 'and its termination');
    const plies = await movesShown();
    const points = Number(await page.getAttribute('#evalgraph', 'data-points'));
    check(points === Math.floor(plies / 2), `the graph has a point for each of the engine's moves (${points} of ${plies} plies)`);
    await page.click('#analyse');
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.waitForTimeout(800);
    await page.screenshot({ path: path.join(SHOTS, 'result.png') });
    // The page's background reaches its end, in a full-page screenshot too.
    const bg = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    check(bg !== 'rgba(0, 0, 0, 0)' && bg !== 'transparent', `the page has a background to its end (${bg})`);
    await page.screenshot({ path: path.join(SHOTS, 'full.png'), fullPage: true });

    // ---- a light theme ----
    await page.click('#theme');
    check(await page.getAttribute('html', 'data-theme') === 'light', 'the light theme is on');
    const light = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    check(light !== bg, `the page is light (${light})`);
    await page.screenshot({ path: path.join(SHOTS, 'light.png') });
    await page.click('#theme');

    // ---- a 390x844 phone: board, moves and analysis in the first screen; nothing wraps or overflows ----
    await page.setViewportSize({ width: 390, height: 844 });
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.waitForTimeout(300);
    const banner = await box('#result-banner');
    const board = await box('#board');
    check(banner && board && !overlap(banner, board), `the banner (${JSON.stringify(banner)}) is off the board (${JSON.stringify(board)})`);
    for (const sel of ['#board', '#moves-card', '#analysis-card', '#controls', '#result-banner', '#player-top', '#player-bottom']) {
      const b = await box(sel);
      check(inside(b, vp()), `${sel} is inside the phone's screen (${JSON.stringify(b)})`);
    }
    check(board.width >= 360, `the board uses the phone's width (${board.width})`);
    const docWidth = await page.evaluate(() => document.documentElement.scrollWidth);
    check(docWidth <= 390, `nothing overflows sideways (${docWidth} px)`);
    const oneLine = async (sel) => page.$eval(sel, (e) => {
      const lh = parseFloat(getComputedStyle(e).lineHeight) || parseFloat(getComputedStyle(e).fontSize) * 1.3;
      return e.getBoundingClientRect().height < lh * 1.6;
    });
    check(await oneLine('.brand h1'), '"Bagh-Chal" on one line');
    check(await oneLine('#tray-tigers .tray-count'), '"0 / 5" on one line');
    // The rank and file labels stay clear of the pieces, column A included.
    const clash = await page.evaluate(() => {
      const labels = [...document.querySelectorAll('#board .board-label')].map((l) => l.getBoundingClientRect());
      const pieces = [...document.querySelectorAll('#board .piece use')].map((p) => p.getBoundingClientRect());
      return labels.some((l) => pieces.some((p) => {
        const cx = p.x + p.width / 2;
        const cy = p.y + p.height / 2;
        const r = p.width * 0.42;
        const nx = Math.max(l.x, Math.min(cx, l.x + l.width));
        const ny = Math.max(l.y, Math.min(cy, l.y + l.height));
        return Math.hypot(nx - cx, ny - cy) < r;
      }));
    });
    check(!clash, 'no piece covers a label');
    await page.screenshot({ path: path.join(SHOTS, 'phone.png') });

    // ---- the phone sideways: the board fits the height ----
    await page.setViewportSize({ width: 844, height: 390 });
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.waitForTimeout(300);
    const side = await box('#board');
    check(inside(side, vp()), `the whole board is visible sideways (${JSON.stringify(side)})`);
    for (const sel of ['#moves-card', '#controls']) check(inside(await box(sel), vp()), `${sel} is visible sideways`);
    await page.screenshot({ path: path.join(SHOTS, 'landscape.png') });

    check(problems.length === 0, `no console errors or outside requests:\n${problems.join('\n')}`);
  } finally {
    if (own) await stopServer(own);
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
  console.log(`browser board: ${checks} checks passed; screenshots in ${SHOTS}: board.png, result.png, full.png, light.png, phone.png, landscape.png`);
}

main().catch((e) => {
  console.error(`FAIL: ${e.stack || e.message}`);
  process.exit(1);
});
