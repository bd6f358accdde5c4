// The web board in headless Chromium: loads it, plays goats and tigers against the engine,
// checks what the page shows against the server's answers, and exercises what players
// expect: analysis of every move, undo, the move list and the arrow keys, a flipped board,
// keyboard play, a failed request and its retry, a reload, /?obx=, PGN export and import,
// pause, and a whole game played by clicking to its result, on a desktop and a phone
// viewport (screenshots of both). Every request must stay on the loopback server.
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { chromium } = require('playwright-core');

const URL_ = process.env.BOARD_URL;
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

async function main() {
  assert.ok(URL_, 'BOARD_URL is not set');
  const origin = new URL(URL_);
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'baghchal-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const problems = [];
  const answers = [];
  let expectRefusal = false; // the browser logs an answered 400 as a console error
  let failLegal = 0;         // /legal requests to fail, as a restarting server would
  let expectFailure = false;
  try {
    // Only the server itself may be reached: no CDN, no fonts, nothing else.
    await context.route('**/*', (route) => {
      const u = new URL(route.request().url());
      if (u.host !== origin.host) {
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
      if (expectFailure && m.text().includes('ERR_')) return;
      problems.push(`console: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    const obxBodies = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/obx' && r.method() === 'POST') obxBodies.push(JSON.parse(r.postData() || '{}'));
    });
    page.on('response', async (r) => {
      if (new URL(r.url()).pathname === '/obx' && r.status() === 200) {
        try { answers.push(await r.json()); } catch (e) { /* a page navigating away */ }
      }
    });
    // The server's view of a record, asked from the page's origin.
    const legalOf = (obx, moves) => page.evaluate(async ([o, m]) => {
      const r = await fetch('/legal', { method: 'POST', body: JSON.stringify({ obx: o, moves: m }) });
      return r.json();
    }, [obx, moves]);

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

    const movesShown = () => page.locator('#moves td[data-ply]').count();
    const settled = async (n) => {
      await page.waitForFunction((want) => document.querySelectorAll('#moves td[data-ply]').length === want &&
        document.querySelector('#thinking').hidden, n, { timeout: STEP_MS });
      await page.waitForFunction(() => [...document.querySelectorAll('#board .hit.clickable')].length > 0 ||
        !document.querySelector('#result-banner').hidden, null, { timeout: STEP_MS });
    };

    // ---- play goats: four placements against the engine ----
    const prefer = ['C3', 'B3', 'D3', 'C2', 'C4', 'B2', 'D4', 'B4', 'D2', 'A3'];
    let played = 0;
    const before = [];
    for (let i = 0; i < 4; i++) {
      const targets = await page.locator('[data-target]').evaluateAll((ts) => ts.map((t) => t.getAttribute('data-target')));
      check(targets.length > 0, 'placement targets are highlighted');
      const point = prefer.find((p) => targets.includes(p)) || targets[0];
      before.push(await page.inputValue('#obx'));
      await page.click(`[data-point="${point}"]`);
      played += 2;
      await settled(played);
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

    // ---- analysis: every legal move with a value ----
    await page.click('#analyse');
    await page.waitForFunction(() => document.querySelectorAll('#analysis-list li').length > 0, null, { timeout: STEP_MS });
    const live = await legalOf(START, await page.evaluate(() => JSON.parse(localStorage.getItem('baghchal.board.v1')).moves));
    const listed = await page.locator('#analysis-list li').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-move')));
    check(listed.length === live.legal.length, `${listed.length} moves analysed, ${live.legal.length} legal`);
    check(live.legal.every((m) => listed.includes(m.move)), 'every legal move is in the analysis');
    check((await page.textContent('#analysis-source')).includes('engine search'), 'placement moves come from the search');
    check(await page.locator('#analysis-list .val.win, #analysis-list .val.draw, #analysis-list .val.loss').count() === listed.length,
      'every move has a coloured value');
    await page.waitForTimeout(1200); // let the last move's animation end
    await page.screenshot({ path: path.join(SHOTS, 'board.png') });

    // ---- undo takes back two moves and clears the analysis ----
    await page.click('#undo');
    await page.waitForFunction((want) => document.querySelector('#obx').value === want, before[3], { timeout: STEP_MS });
    check(await movesShown() === 6, 'undo took back two moves');
    check((await page.textContent('#score')).trim() === '—', 'undo cleared the engine card');
    check(await page.locator('#analysis-list li').count() === 0, 'undo cleared the analysis');
    await settled(6);

    // ---- the move list and the arrow keys ----
    await page.click('#moves td[data-ply="1"]');
    await page.waitForFunction(() => document.querySelector('#status').getAttribute('data-view') === '1');
    check(await page.locator('[data-piece="goat"]').count() === 1, 'move 1 shows one goat');
    const gameMoves = async () => JSON.parse(await page.evaluate(() => localStorage.getItem('baghchal.board.v1'))).moves;
    check(await page.inputValue('#obx') === (await legalOf(START, (await gameMoves()).slice(0, 1))).obx,
      'the OBX shown is the position after move 1');
    check(await page.locator('#board .hit.clickable').count() === 0, 'a past position cannot be played on');
    await page.locator('body').press('ArrowRight');
    await page.waitForFunction(() => document.querySelector('#status').getAttribute('data-view') === '2');
    check(await page.locator('#moves td.latest[data-ply="2"]').count() === 1, 'the arrow key moved to move 2');
    await page.locator('body').press('Home');
    await page.waitForFunction(() => document.querySelector('#status').getAttribute('data-view') === '0');
    check(await page.locator('[data-piece="goat"]').count() === 0, 'Home shows the start');
    await page.locator('body').press('End');
    await page.waitForFunction(() => document.querySelector('#status').getAttribute('data-view') === 'game');
    const endObx = await page.inputValue('#obx');
    const endGoats = await page.locator('[data-piece="goat"]').count();
    check(endObx === before[3] && endGoats === (fields(endObx).board.match(/G/g) || []).length,
      `End returns to the game (${endObx}, ${endGoats} goats drawn)`);

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
    check((await page.textContent('#moves td[data-ply="7"]')).trim() === to, `Enter placed a goat on ${to}`);

    // ---- a failed request leaves the game as it was, with a retry ----
    const obxF = await page.inputValue('#obx');
    const goatsF = await page.locator('[data-piece="goat"]').count();
    const targetsF = await page.locator('[data-target]').evaluateAll((ts) => ts.map((t) => t.getAttribute('data-target')));
    expectFailure = true;
    failLegal = 1;
    await page.click(`[data-point="${targetsF[0]}"]`);
    await page.waitForFunction(() => !document.querySelector('#retry').hidden, null, { timeout: STEP_MS });
    check(await movesShown() === 8, 'the failed move is not in the list');
    check(await page.locator('[data-piece="goat"]').count() === goatsF, 'nor on the board');
    check(await page.inputValue('#obx') === obxF, 'the position is the one before the move');
    check((await page.textContent('#obx-error')).includes('not played'), 'the failure is said');
    await page.click('#retry');
    await settled(10);
    expectFailure = false;
    check(at(await page.inputValue('#obx'), targetsF[0]) === 'G', `the retry placed the goat on ${targetsF[0]}`);
    check(await page.locator('#retry').isHidden(), 'the retry button is gone');

    // ---- the game survives a reload ----
    const kept = await page.inputValue('#obx');
    await page.reload();
    await page.waitForFunction((want) => document.querySelector('#obx').value === want, kept, { timeout: STEP_MS });
    check(await movesShown() === 10, 'the move list survived the reload');
    await setMovetime(100);

    // ---- PGN export ----
    await page.click('#export-pgn');
    const exported = await page.inputValue('#game-text');
    check(exported.includes('[Variant "Bagh-Chal"]'), 'PGN has the Variant tag');
    check(exported.includes(`[FEN "${START}"]`), 'PGN has the start OBX as FEN');
    check(exported.includes('[White "Player"]') && exported.includes('[Black "baghchal"]'), 'White = goats, Black = tigers');
    check(exported.includes('[Result "*"]') && /\n1\. [A-E][1-5] [A-E][1-5][A-E][1-5]/.test(exported), 'movetext in the project notation');

    // ---- import: a PGN from another position ----
    const fen = 'TGXXT/XXXXX/XXXXX/XXXXX/TXXXT t @19 c0';
    await page.fill('#game-text', `[Variant "Bagh-Chal"]\n[FEN "${fen}"]\n\n1... A1C1 2. C3 C1B1 *\n`);
    await page.click('#import-game');
    await page.waitForFunction(() => document.querySelectorAll('#moves td[data-ply]').length === 3, null, { timeout: STEP_MS });
    const imported = await legalOf(fen, ['A1C1', 'C3', 'C1B1']);
    check(await page.inputValue('#obx') === imported.obx, `the imported game's position (${imported.obx})`);
    check((await page.textContent('#moves td[data-ply="1"]')).trim() === 'A1×C1', 'an imported capture is shown as one');
    expectRefusal = true;
    await page.fill('#game-text', `${START}\nC3 C3`);
    await page.click('#import-game');
    await page.waitForFunction(() => document.querySelector('#obx-error').textContent.startsWith('Import:'), null, { timeout: STEP_MS });
    expectRefusal = false;
    check(await movesShown() === 3, 'a refused import leaves the game alone');

    // ---- /?obx= opens a position ----
    const opened = 'TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0';
    await page.goto(`${URL_}?obx=${encodeURIComponent(opened)}`);
    await page.waitForFunction(() => document.querySelector('#obx-error').textContent === 'Position loaded.', null, { timeout: STEP_MS });
    check(await page.locator('[data-piece="goat"]').count() === 1 && at(await page.inputValue('#obx'), 'C3') === 'G',
      'the position from the address is on the board');

    // ---- with the database: every move's win / draw / loss and distance ----
    if (process.env.BOARD_TB && process.env.BOARD_TB !== '0') {
      const movement = 'GTGGG/TGXGT/GXGXG/GGTGG/GGXGG g @0 c3';
      await page.click('#mode-human');
      await page.goto(`${URL_}?obx=${encodeURIComponent(movement)}`);
      await page.waitForFunction(() => document.querySelector('#obx-error').textContent === 'Position loaded.', null, { timeout: STEP_MS });
      const want = await page.evaluate(async (o) => {
        const r = await fetch('/analysis', { method: 'POST', body: JSON.stringify({ obx: o }) });
        return r.json();
      }, movement);
      check(want.source === 'database', 'the server answers this position from the database');
      await page.click('#analyse');
      await page.waitForFunction(() => document.querySelectorAll('#analysis-list li').length > 0, null, { timeout: STEP_MS });
      check((await page.textContent('#analysis-source')).includes('from the database'), 'the view names the database');
      const rows = await page.locator('#analysis-list li').evaluateAll((lis) => lis.map((li) => ({
        move: li.getAttribute('data-move'), cls: li.className, text: li.querySelector('.val').textContent })));
      check(rows.length === want.moves.length, 'every move is listed');
      want.moves.forEach((m, i) => {
        const text = m.wdl === 'draw' ? 'Draw' : `${m.wdl === 'win' ? 'Win' : 'Loss'} in ${m.distance}`;
        check(rows[i].move === m.move && rows[i].text === text && rows[i].cls === m.wdl,
          `row ${i + 1}: ${JSON.stringify(rows[i])} shows ${m.move} ${text}`);
      });
      check(rows.some((r) => r.cls === 'loss') && rows.some((r) => r.cls === 'draw'), 'draws and losses are both coloured');
      await page.screenshot({ path: path.join(SHOTS, 'analysis.png') });
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

    // A malformed position is refused with the server's reason.
    expectRefusal = true;
    await page.fill('#obx', 'TTTTT/XXXXX/XXXXX/XXXXX/XXXXX g @20 c0');
    await page.click('#load-obx');
    await page.waitForFunction(() => document.querySelector('#obx-error').textContent.includes('tiger'), null, { timeout: STEP_MS });
    expectRefusal = false;
    checks++;

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

    // ---- a whole game played by clicking, as goats, to its result, against level 0 ----
    await page.click('#new-game');
    await page.click('#mode-goats');
    await setMovetime(100);
    await page.selectOption('#skill', '0');
    await settled(0);
    const asked = obxBodies.length;
    for (let n = 0; n < 200; n++) {
      if (!(await page.locator('#result-banner').isHidden())) break;
      const count = await movesShown();
      const placing = await page.locator('[data-target].place').count();
      if (placing) {
        const ts = await page.locator('[data-target]').evaluateAll((x) => x.map((t) => t.getAttribute('data-target')));
        await page.click(`[data-point="${ts[n % ts.length]}"]`);
      } else {
        const goats = await page.locator('[data-piece="goat"].movable').evaluateAll((x) => x.map((g) => g.getAttribute('data-at')));
        check(goats.length > 0, 'a goat can move');
        await page.click(`[data-point="${goats[n % goats.length]}"]`);
        const ts = await page.locator('[data-target]').evaluateAll((x) => x.map((t) => t.getAttribute('data-target')));
        await page.click(`[data-point="${ts[0]}"]`);
      }
      await page.waitForFunction((c) => {
        const cells = document.querySelectorAll('#moves td[data-ply]').length;
        return (cells >= c + 2 && document.querySelector('#thinking').hidden && document.querySelectorAll('#board .hit.clickable').length > 0) ||
          !document.querySelector('#result-banner').hidden;
      }, count, { timeout: STEP_MS });
    }
    check(!(await page.locator('#result-banner').isHidden()), 'the game ended with a result');
    check(obxBodies.length > asked && obxBodies.slice(asked).every((b) => b.skill === 0),
      'every engine move of the game was asked at level 0');
    const title = (await page.textContent('#result-title')).trim();
    const final = await legalOf(START, JSON.parse(await page.evaluate(() => localStorage.getItem('baghchal.board.v1'))).moves);
    check(final.result && title === `${final.result.winner === 'goats' ? 'Goats' : 'Tigers'} win`,
      `the banner (${title}) says the server's result (${JSON.stringify(final.result)})`);
    await page.click('#export-pgn');
    const pgn = await page.inputValue('#game-text');
    check(pgn.includes(`[Result "${final.result.winner === 'goats' ? '1-0' : '0-1'}"]`), 'the PGN has the result');
    check(pgn.includes(`[Termination "${final.result.description}"]`), 'and its termination');
    const plies = await movesShown();
    const points = Number(await page.getAttribute('#evalgraph', 'data-points'));
    check(points === Math.floor(plies / 2), `the graph has a point for each of the engine's moves (${points} of ${plies} plies)`);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.waitForTimeout(1000);
    await page.screenshot({ path: path.join(SHOTS, 'result.png') });

    // ---- the same page on a 390 px phone: the banner does not hide the board ----
    await page.setViewportSize({ width: 390, height: 844 });
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.waitForTimeout(300);
    const banner = await page.locator('#result-banner').boundingBox();
    const board = await page.locator('#board').boundingBox();
    check(banner && board && !overlap(banner, board), `the banner (${JSON.stringify(banner)}) is off the board (${JSON.stringify(board)})`);
    check(board.width <= 390 && board.x >= 0, `the board fits the phone (${JSON.stringify(board)})`);
    const docWidth = await page.evaluate(() => document.documentElement.scrollWidth);
    check(docWidth <= 390, `nothing overflows sideways (${docWidth} px)`);
    await page.screenshot({ path: path.join(SHOTS, 'phone.png') });

    check(problems.length === 0, `no console errors or outside requests:\n${problems.join('\n')}`);
  } finally {
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
  console.log(`browser board: ${checks} checks passed; screenshots in ${SHOTS}: board.png, result.png, phone.png`);
}

main().catch((e) => {
  console.error(`FAIL: ${e.stack || e.message}`);
  process.exit(1);
});
