// The web board in headless Chromium: loads it, plays goats and tigers against the engine,
// checks the OBX it shows against the server's answers, loads pasted positions, undoes,
// and saves screenshots. Every request must stay on the loopback server.
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
  try {
    // Only the server itself may be reached: no CDN, no fonts, nothing else.
    await context.route('**/*', (route) => {
      const u = new URL(route.request().url());
      if (u.host !== origin.host) {
        problems.push(`request outside the server: ${u.href}`);
        return route.abort();
      }
      return route.continue();
    });
    const page = context.pages()[0] || await context.newPage();
    page.on('console', (m) => {
      if (m.type() !== 'error') return;
      if (expectRefusal && m.text().includes('status of 400')) return;
      problems.push(`console: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('response', async (r) => {
      if (new URL(r.url()).pathname === '/obx' && r.status() === 200) {
        try { answers.push(await r.json()); } catch (e) { /* a page navigating away */ }
      }
    });

    await page.goto(URL_);
    await page.waitForFunction(() => document.querySelector('#status')?.textContent.includes('Goats to move'));
    check(await page.locator('[data-point]').count() === 25, '25 points on the board');
    check(await page.locator('[data-piece="tiger"]').count() === 4, 'four tigers at the start');
    check(await page.inputValue('#obx') === START, 'the start OBX is shown');
    check(await page.locator('#mode-goats.active').count() === 1, 'playing goats by default');
    check((await page.textContent('#hand-count')).trim() === '20', '20 goats in hand');
    // The board's lines: 10 orthogonal and 6 diagonal segments.
    check(await page.locator('#board line.board-line').count() === 10, 'orthogonal lines');
    check(await page.locator('#board line.board-diag').count() === 6, 'diagonals');

    // Fast engine for the test.
    await page.$eval('#movetime', (el) => { el.value = '100'; el.dispatchEvent(new Event('input')); });

    const movesShown = () => page.locator('#moves td').evaluateAll(
      (tds) => tds.filter((td, i) => i % 3 !== 0 && td.textContent && td.textContent !== '…').length);
    const settled = async (n) => {
      await page.waitForFunction((want) => {
        const cells = [...document.querySelectorAll('#moves td')].filter((td, i) => i % 3 !== 0 && td.textContent && td.textContent !== '…');
        return cells.length === want && document.querySelector('#thinking').hidden;
      }, n, { timeout: STEP_MS });
      await page.waitForFunction(() => [...document.querySelectorAll('#board .hit.clickable')].length > 0 ||
        !document.querySelector('#result-banner').hidden, null, { timeout: STEP_MS });
    };

    // Play goats: place on the first legal point of a preferred list, four times.
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
      check((await page.textContent('#cap-count')).trim() === String(f.captured), 'the captured count matches the OBX');
      const goats = (f.board.match(/G/g) || []).length;
      check(goats + f.hand + f.captured === 20, 'goats add up to 20');
      check(await page.locator('[data-piece="goat"]').count() === goats, 'every goat of the OBX is drawn');
      check((await page.textContent('#score')).trim() !== '—', 'the engine score is shown');
      check(await page.locator('#pv span').count() >= 1, 'the principal variation is shown');
    }
    check(await movesShown() === 8, 'eight moves in the list');
    await page.waitForTimeout(1200); // let the last move's animation end
    await page.screenshot({ path: path.join(SHOTS, 'board.png') });

    // Undo takes back the engine's reply and my last goat.
    await page.click('#undo');
    await page.waitForFunction((want) => document.querySelector('#obx').value === want, before[3], { timeout: STEP_MS });
    check(await movesShown() === 6, 'undo took back two moves');

    // A pasted position: the tigers capture the fifth goat and win.
    await page.fill('#obx', 'TGXXT/XXXXX/XXXXX/XXXXX/TXXXT t @15 c4');
    await page.click('#load-obx');
    await page.waitForFunction(() => !document.querySelector('#result-banner').hidden, null, { timeout: STEP_MS });
    const won = await page.inputValue('#obx');
    check(at(won, 'B1') === 'X' && at(won, 'C1') === 'T', `the tiger jumped B1 (${won})`);
    check(fields(won).captured === 5, 'five captured');
    check((await page.textContent('#cap-count')).trim() === '5', 'captured count shows 5');
    check(await page.locator('[data-captured="B1"]').count() === 1, 'the captured goat is marked');
    check((await page.textContent('#result-title')).includes('Tigers win'), 'the result is shown');
    check((await page.textContent('#result-reason')).toLowerCase().includes('five goats captured'), 'with its reason');
    check((await page.textContent('#moves')).includes('A1×C1'), 'the capture is in the move list');
    await page.waitForTimeout(1200);
    await page.screenshot({ path: path.join(SHOTS, 'result.png') });

    // A malformed position is refused with the server's reason.
    expectRefusal = true;
    await page.fill('#obx', 'TTTTT/XXXXX/XXXXX/XXXXX/XXXXX g @20 c0');
    await page.click('#load-obx');
    await page.waitForFunction(() => document.querySelector('#obx-error').textContent.includes('tiger'), null,
      { timeout: STEP_MS });
    expectRefusal = false;
    checks++;

    // Play tigers: the engine places a goat first, then I move a tiger.
    await page.click('#new-game');
    await page.click('#mode-tigers');
    await settled(1);
    const t0 = await page.inputValue('#obx');
    check(fields(t0).turn === 't', 'tigers to move after the engine placed a goat');
    const tiger = await page.locator('[data-piece="tiger"].movable').first().getAttribute('data-at');
    await page.click(`[data-point="${tiger}"]`);
    const dest = await page.locator('[data-target]').first().getAttribute('data-target');
    check(Boolean(dest), `tiger ${tiger} has a highlighted target`);
    await page.click(`[data-point="${dest}"]`);
    await settled(3);
    const t1 = await page.inputValue('#obx');
    check(at(t1, dest) === 'T' && at(t1, tiger) !== 'T', `the tiger moved ${tiger} to ${dest} (${t1})`);
    check(fields(t1).turn === 't' && fields(t1).hand === 18, 'the engine placed its second goat');

    // Engine against engine for a few moves.
    await page.click('#mode-watch');
    await page.waitForFunction(() => {
      const cells = [...document.querySelectorAll('#moves td')].filter((td, i) => i % 3 !== 0 && td.textContent && td.textContent !== '…');
      return cells.length >= 7;
    }, null, { timeout: 60000 });
    await page.click('#pause');
    check(true, 'engine vs engine plays on its own');

    check(problems.length === 0, `no console errors or outside requests:\n${problems.join('\n')}`);
  } finally {
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
  console.log(`browser board: ${checks} checks passed; screenshots in ${SHOTS}/board.png and ${SHOTS}/result.png`);
}

main().catch((e) => {
  console.error(`FAIL: ${e.stack || e.message}`);
  process.exit(1);
});
