// The analysis that keeps going, on the server's board, in one page load at 1280x800 and at a
// 390x844 phone: the engine lines switched on by the key l search on until stopped (searches
// of growing length, 0.25 s, 0.5 s, ... up to the server's longest, each answer shown as it
// comes: the depth grows, nodes a second, "searching…"), l stops them (no request after it);
// with a time of 2 s they stop by themselves and "Go deeper" searches on for twice as long; the
// analysis of every move deepens the same way and its Stop stops it. The controls fit the
// phone's width. Arrows and circles drawn by a right-drag (colours with Shift and Alt), taken off
// by the same again, kept with their move and over a reload, exported to PGN as lichess writes
// them and imported back.
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { chromium } = require('playwright-core');

const URL_ = process.env.BOARD_URL;
const STEP_MS = 20000;

let checks = 0;
function check(cond, msg) {
  assert.ok(cond, msg);
  checks++;
}

async function main() {
  assert.ok(URL_, 'BOARD_URL is not set');
  const origin = new URL(URL_);
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'baghchal-analysis-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const problems = [];
  // Every request to the API with its body and when it was sent.
  const sent = [];
  try {
    await context.route('**/*', (route) => {
      const req = route.request();
      const u = new URL(req.url());
      if (u.host !== origin.host) { problems.push(`request outside the server: ${u.href}`); return route.abort(); }
      if (u.pathname === '/obx' || u.pathname === '/analysis') {
        let body = null;
        try { body = JSON.parse(req.postData() || 'null'); } catch (e) { body = null; }
        sent.push({ path: u.pathname, body, at: Date.now() });
      }
      return route.continue();
    });
    const page = context.pages()[0] || await context.newPage();
    page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    await page.goto(URL_);
    await page.waitForFunction(() => document.querySelectorAll('#board .hit.clickable').length > 0, null, { timeout: STEP_MS });
    // Two players: no engine move between the searches looked at here.
    await page.click('#mode-human');
    await page.click('[data-point="C3"]');
    await page.waitForFunction(() => document.querySelectorAll('#moves [data-node]').length === 1, null, { timeout: STEP_MS });
    // A key to the page, not to the field last used (a select keeps its keys).
    const key = async (k) => {
      await page.evaluate(() => { if (document.activeElement) document.activeElement.blur(); });
      await page.keyboard.press(k);
    };
    const lineReqs = () => sent.filter((r) => r.path === '/obx' && r.body && r.body.multipv);
    const info = () => page.evaluate(() => {
      const i = document.querySelector('#lines-info');
      return { text: i.textContent, depth: Number(i.dataset.depth || 0), running: i.dataset.running === 'true',
        lines: document.querySelectorAll('#lines li').length, deeper: !document.querySelector('#ceval-deeper').hidden };
    });

    // ---- until stopped: l starts it, the lines deepen live, the server's limit ends it -------
    check(!(await page.isChecked('#lines-on')), 'the engine lines start off');
    await page.selectOption('#ceval-time', '0');
    await key('l');
    check(await page.isChecked('#lines-on'), 'the key l switched the engine lines on');
    await page.waitForFunction(() => document.querySelectorAll('#lines li').length === 3 &&
      document.querySelector('#lines-info').dataset.running === 'true', null, { timeout: STEP_MS });
    const first = await info();
    check(/searching…/.test(first.text) && /\d+ kn\/s|\d\.\d Mn\/s/.test(first.text) && first.depth > 0,
      `the lines say their depth, nodes a second and that they search on (${first.text})`);
    // A later answer, deeper, shown while it still searches.
    await page.waitForFunction((d) => {
      const i = document.querySelector('#lines-info');
      return Number(i.dataset.depth || 0) > d && i.dataset.running === 'true';
    }, first.depth, { timeout: STEP_MS });
    const deeper = await info();
    check(deeper.depth > first.depth && deeper.lines === 3, `the lines deepened live: depth ${first.depth}, then ${deeper.depth}`);
    // run.sh's server searches at most 3 s: 0.25, 0.5, 1, 2, 3 s, then it says it stopped there.
    await page.waitForFunction(() => document.querySelector('#lines-info').dataset.running === 'false', null, { timeout: STEP_MS });
    const limit = await info();
    const times = lineReqs().map((r) => r.body.movetime);
    check(JSON.stringify(times) === JSON.stringify([250, 500, 1000, 2000, 3000]),
      `the lines were searched for growing times up to the server's longest (${times})`);
    check(/the server's longest search/.test(limit.text) && !limit.deeper, `the lines say why they stopped (${limit.text})`);
    // The game as the board sends it: from its last placement, or from the start with the moves.
    const afterC3 = (b) => (b.moves.length === 0 && /^TXXXT\/XXXXX\/XXGXX\/XXXXX\/TXXXT t @19 c0 /.test(b.obx)) ||
      (b.moves.length === 1 && b.moves[0] === 'mC3');
    check(lineReqs().every((r) => r.body.multipv === 3 && afterC3(r.body)),
      `every search was of the position shown, with its game and three lines (${JSON.stringify(lineReqs()[0].body)})`);

    // l again while it searches: the lines go, no search is asked after it.
    await page.click('[data-point="A1"]'); // the tiger on A1 (goats placed C3: tigers to move)
    await page.click('[data-point="B1"]');
    await page.waitForFunction(() => document.querySelectorAll('#moves [data-node]').length === 2 &&
      document.querySelector('#lines-info').dataset.running === 'true' && document.querySelectorAll('#lines li').length === 3,
    null, { timeout: STEP_MS });
    await key('l');
    const stoppedAt = lineReqs().length;
    check(!(await page.isChecked('#lines-on')) && (await page.locator('#lines li').count()) === 0, 'l switched the lines off');
    await page.waitForTimeout(1200);
    check(lineReqs().length === stoppedAt, `no search of the lines after l (${lineReqs().length - stoppedAt} more)`);

    // ---- 2 s, then Go deeper: 4 s ----------------------------------------------------------
    await page.selectOption('#ceval-time', '2000');
    const before2 = lineReqs().length;
    await key('l');
    await page.waitForFunction(() => {
      const i = document.querySelector('#lines-info');
      return i.dataset.running === 'false' && !document.querySelector('#ceval-deeper').hidden;
    }, null, { timeout: STEP_MS });
    const two = lineReqs().slice(before2).map((r) => r.body.movetime);
    const sum2 = two.reduce((a, b) => a + b, 0);
    // The searches asked add up to the time chosen, less the time their answers took to come
    // (a busy machine asks less), or more when a search ends before its time.
    check(two[0] === 250 && two[1] === 500 && sum2 >= 1000 && sum2 <= 2500,
      `the lines searched about 2 s in all, then stopped (${two})`);
    const at2 = await info();
    const before4 = lineReqs().length;
    await page.click('#ceval-deeper');
    await page.waitForFunction(() => document.querySelector('#lines-info').dataset.running === 'true', null, { timeout: STEP_MS });
    check((await info()).depth >= at2.depth, 'Go deeper keeps the lines it had while it searches again');
    await page.waitForFunction(() => document.querySelector('#lines-info').dataset.running === 'false', null, { timeout: STEP_MS });
    const four = lineReqs().slice(before4).map((r) => r.body.movetime);
    const sum4 = four.reduce((a, b) => a + b, 0);
    const at4 = await info();
    check(sum4 >= sum2 + 1000 && sum4 <= 5000 && at4.depth >= at2.depth,
      `Go deeper searched about twice as long (${four}), depth ${at2.depth} then ${at4.depth}`);

    // ---- the analysis of every move deepens too, and its button stops it ----------------------
    await page.selectOption('#ceval-time', '0');
    await page.click('#analyse');
    await page.waitForFunction(() => {
      const s = document.querySelector('#analysis-source');
      return s.dataset.running === 'true' && document.querySelectorAll('#analysis-list li').length > 0 &&
        Number(s.dataset.depth) > 0;
    }, null, { timeout: STEP_MS });
    const a1 = Number(await page.getAttribute('#analysis-source', 'data-depth'));
    check(/searching…/.test(await page.textContent('#analysis-source')) && await page.isVisible('#analysis-stop'),
      'the analysis says it searches on, with a button that stops it');
    await page.waitForFunction((d) => Number(document.querySelector('#analysis-source').dataset.depth) > d, a1, { timeout: STEP_MS });
    const anCount = () => sent.filter((r) => r.path === '/analysis').length;
    await page.click('#analysis-stop');
    const anStopped = anCount();
    check((await page.getAttribute('#analysis-source', 'data-running')) === 'false' && !(await page.isVisible('#analysis-stop')),
      'the analysis stopped at the click');
    await page.waitForTimeout(800);
    check(anCount() === anStopped && (await page.locator('#analysis-list li').count()) > 0,
      'no analysis asked after the stop; its list stays');
    const anTimes = sent.filter((r) => r.path === '/analysis').map((r) => r.body.movetime);
    check(anTimes[0] === 250 && anTimes[1] === 500, `the analysis searched for growing times (${anTimes})`);

    // ---- arrows and circles drawn by the player: kept with the move, in the PGN ---------------
    await page.uncheck('#lines-on');
    const centre = async (pt) => {
      const b = await page.locator(`[data-point="${pt}"]`).boundingBox();
      return [b.x + b.width / 2, b.y + b.height / 2];
    };
    // A right-drag from one point to another (the same point: a right click), keys held.
    const rdrag = async (from, to, mods) => {
      for (const k of mods || []) await page.keyboard.down(k);
      const [fx, fy] = await centre(from);
      const [tx, ty] = await centre(to);
      await page.mouse.move(fx, fy);
      await page.mouse.down({ button: 'right' });
      await page.mouse.move((fx + tx) / 2, (fy + ty) / 2);
      await page.mouse.move(tx, ty);
      await page.mouse.up({ button: 'right' });
      for (const k of mods || []) await page.keyboard.up(k);
    };
    const drawn = () => page.locator('#board [data-arrow="drawn"]').evaluateAll((gs) => gs.map((g) =>
      `${g.getAttribute('class').replace(/.*drawn-(\w).*/, '$1')}${g.getAttribute('data-move').slice(1)}${g.querySelector('path') ? '>' : 'o'}`).sort());
    await page.evaluate(() => {
      window.menus = [];
      document.addEventListener('contextmenu', (e) => window.menus.push(e.defaultPrevented));
    });
    await rdrag('C3', 'C4');
    await rdrag('B1', 'B1', ['Shift']);
    check(JSON.stringify(await drawn()) === JSON.stringify(['GC3C4>', 'RB1o']),
      `a right-drag draws a green arrow, a right click with Shift a red circle (${await drawn()})`);
    const menus = await page.evaluate(() => window.menus);
    check(menus.length >= 2 && menus.every(Boolean), `the board's right button opens no menu (${menus})`);
    await rdrag('C3', 'C4');
    await rdrag('A5', 'B4', ['Alt']);
    check(JSON.stringify(await drawn()) === JSON.stringify(['BA5B4>', 'RB1o']), `the same arrow again takes it off (${await drawn()})`);
    // Kept with the move: gone at the position before it, back at it, and after a reload.
    await key('ArrowLeft');
    check((await drawn()).length === 0, 'the position before has no shapes');
    await key('ArrowRight');
    check((await drawn()).length === 2, 'the move shown again has its shapes');
    await page.reload();
    await page.waitForFunction(() => document.querySelectorAll('#board [data-arrow="drawn"]').length === 2, null, { timeout: STEP_MS });
    check(JSON.stringify(await drawn()) === JSON.stringify(['BA5B4>', 'RB1o']), 'the shapes are kept over a reload');
    await page.click('#export-pgn');
    const pgn = await page.inputValue('#game-text');
    check(/1\. C3 A1B1 \{\[%csl RB1\] \[%cal BA5B4\]\}/.test(pgn.replace(/\s+/g, ' ')), `the PGN has them as a comment, lichess's form (${pgn.split('\n\n')[1]})`);
    // Imported: lichess's lower case too, beside a comment of words.
    await page.fill('#game-text', pgn.replace('{[%csl RB1] [%cal BA5B4]}', '{a plan [%cal Gc3d4,Rb1c1] [%csl Yd4]}'));
    await page.click('#import-game');
    await page.waitForFunction(() => document.querySelectorAll('#board [data-arrow="drawn"]').length === 3, null, { timeout: STEP_MS });
    check(JSON.stringify(await drawn()) === JSON.stringify(['GC3D4>', 'RB1C1>', 'YD4o']) &&
      (await page.textContent('#moves .comment')).trim() === 'a plan', `the imported shapes are drawn, the words are the comment (${await drawn()})`);

    // ---- the phone: the lines' controls within its width ---------------------------------------
    await page.setViewportSize({ width: 390, height: 844 });
    await page.check('#lines-on');
    await rdrag('E5', 'D4');
    check((await drawn()).includes('GE5D4>'), `a right-drag draws on the phone too (${await drawn()})`);
    await page.waitForFunction(() => document.querySelectorAll('#lines li').length === 3, null, { timeout: STEP_MS });
    const fit = await page.evaluate(() => {
      const r = (id) => document.getElementById(id).getBoundingClientRect();
      return { scroll: document.documentElement.scrollWidth, time: r('ceval-time').right, info: r('lines-info').right,
        lines: r('lines').right };
    });
    check(fit.scroll <= 390 && fit.time <= 390 && fit.info <= 390 && fit.lines <= 390,
      `the lines' controls fit the phone (${JSON.stringify(fit)})`);
    check(problems.length === 0, `no page errors or outside requests: ${problems.join('; ')}`);
  } finally {
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
  console.log(`ok: ${checks} checks`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
