// The web board's accessibility. axe-core (from npm, pinned in package.json) runs its WCAG 2.0
// and 2.1 A and AA rules and its best practices over the page in 14 states (the start, a game
// with a piece picked up, the engine's five lines with the analysis, the editor, the shortcuts,
// "Board and pieces" on the stone slab, a finished game, an import refusal, the server's
// failure, a 40-ply game, Nepali, and the review, annotation and puzzle panels where the page
// has them), at 1280x800 and 390x844, dark
// and light: no violation. Then the keyboard alone: Tab reaches every control with a visible
// focus, a few moves are played, the lists walked and played from, and every panel opened and
// closed. With SHOT_DIR set, a screenshot of each state goes there as a11y-*.png.
// A11Y_SOFT=1 prints every failed check and goes on (while fixing them); A11Y_ONLY=start,editor
// runs only those states (A11Y_ONLY=none: the keyboard part alone).
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { chromium } = require('playwright-core');

const URL_ = process.env.BOARD_URL;
const SHOTS = process.env.SHOT_DIR || '.';
// A picture of every state audited (56 of them) only when asked for with SHOT_DIR: they took a
// sixth of the file's time.
const STATE_SHOTS = Boolean(process.env.SHOT_DIR);
const SOFT = process.env.A11Y_SOFT === '1';
const ONLY = (process.env.A11Y_ONLY || '').split(',').filter(Boolean);
const STEP_MS = 20000;
const DESKTOP = { width: 1280, height: 800, name: 'desktop' };
const PHONE = { width: 390, height: 844, name: 'phone' };
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];
// A legal game of 40 plies under the no-repetition rule (tools/longgame), long enough for the
// move list to scroll.
const GAME40 = ('B3 A1A2 C3 E1E2 B4 E5D5 C1 E2D2 E5 A2A1 C4 A5A4 A5 D2C2 E4 C2D2 E1 D2D3 B5 D3E3 E2 E3D3 E3 A1A2 ' +
  'C5 D3D2 D1 A4A3 B1 D2D3 D4 A3A4 A1 A2B2 A2 B2C2 D2 A4A3 B2 A3A4').split(' ');
const gameQuery = (moves) => `?${new URLSearchParams({ obx: 'TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0', moves: moves.join(',') })}`;
const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

let checks = 0;
let soft = 0;
function check(cond, msg) {
  if (SOFT && !cond) { console.log(`FAILED: ${msg}`); soft++; return; }
  assert.ok(cond, msg);
  checks++;
}

async function main() {
  assert.ok(URL_, 'BOARD_URL is not set');
  const origin = new URL(URL_);
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'baghchal-a11y-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    viewport: { width: DESKTOP.width, height: DESKTOP.height },
    // The page as a person who asks for less motion sees it: no colour is caught half-way
    // through a transition, however slow the machine.
    reducedMotion: 'reduce',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const problems = [];
  let expectRefusal = false;
  let failApi = false; // every request to the server's API refused, as a server that is down
  let refused = 0; // requests refused so far whose console line has not come yet
  try {
    await context.route('**/*', (route) => {
      const u = new URL(route.request().url());
      if (u.host !== origin.host) {
        problems.push(`request outside the server: ${u.href}`);
        return route.abort();
      }
      if (failApi && route.request().method() === 'POST') { refused++; return route.abort('connectionrefused'); }
      return route.continue();
    });
    const page = context.pages()[0] || await context.newPage();
    page.on('console', (m) => {
      if (m.type() !== 'error') return;
      if (expectRefusal && m.text().includes('status of 4')) return;
      // One console line for each request this test refused; it may come after the state ends.
      if (refused > 0 && m.text().includes('ERR_CONNECTION_REFUSED')) { refused--; return; }
      problems.push(`console: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));

    const movesShown = () => page.locator('#moves .mv[data-ply]').count();
    const ready = () => page.waitForFunction(() => document.querySelector('#thinking').hidden &&
      (document.querySelectorAll('#board .hit.clickable').length > 0 || !document.querySelector('#result-banner').hidden),
    null, { timeout: STEP_MS });
    const open = async (size, query) => {
      await page.setViewportSize({ width: size.width, height: size.height });
      await page.goto(`${URL_}favicon.svg`);
      await page.evaluate(() => localStorage.clear());
      await page.goto(`${URL_}${query || ''}`);
      await page.waitForFunction(() => /to move/.test(document.querySelector('#status')?.textContent || ''), null, { timeout: STEP_MS });
      await ready();
    };
    const setMovetime = (ms) => page.$eval('#movetime', (e, v) => { e.value = String(v); e.dispatchEvent(new Event('input')); }, ms);
    const step = async (from, to) => {
      const n = await movesShown();
      await page.click(`[data-point="${from}"]`);
      if (to) await page.click(`[data-point="${to}"]`);
      await page.waitForFunction((want) => document.querySelectorAll('#moves .mv[data-ply]').length === want &&
        document.querySelectorAll('#board .hit.clickable').length > 0, n + 1, { timeout: STEP_MS });
    };
    const theme = async (want) => {
      // Clicked by the script: a modal dialog open keeps the mouse from the button.
      if (await page.getAttribute('html', 'data-theme') !== want) await page.$eval('#theme', (b) => b.click());
      assert.equal(await page.getAttribute('html', 'data-theme'), want);
    };

    // axe over the whole page as it is now. The page's Content-Security-Policy ('self') refuses
    // an inline script, so axe is evaluated through the debugging protocol, which it does not
    // govern; the page's own policy stays on.
    let axeRuns = 0;
    const audit = async (what) => {
      if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(AXE);
      // No transition or animation half-way: the colours axe reads are the ones that stay.
      await page.waitForFunction(() => document.getAnimations().length === 0, null, { timeout: STEP_MS });
      const out = await page.evaluate((tags) => window.axe.run(document, {
        runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'],
      }).then((r) => ({
        rules: r.passes.length + r.violations.length + r.incomplete.length + r.inapplicable.length,
        contrastChecked: r.passes.some((v) => v.id === 'color-contrast'),
        violations: r.violations.map((v) => ({
          id: v.id, impact: v.impact, help: v.help,
          nodes: v.nodes.map((n) => ({ target: n.target.join(' '), summary: n.failureSummary })),
        })),
      })), TAGS);
      // The rules did run: a tag misspelt would run none and find nothing.
      check(out.rules >= 80 && out.contrastChecked, `${what}: axe ran ${out.rules} rules, colour contrast among those passed`);
      const res = out.violations;
      axeRuns++;
      const text = res.map((v) => `  ${v.id} (${v.impact}): ${v.help}\n${v.nodes.map((n) =>
        `    ${n.target}\n      ${n.summary.replace(/\n/g, '\n      ')}`).join('\n')}`).join('\n');
      if (res.length) console.log(`${what}: ${res.length} violation(s)\n${text}`);
      check(res.length === 0, `${what}: axe finds no violation`);
    };

    // Each state in both themes at this size; a state sets itself up from a fresh page (opened
    // at its address, if it has one). A state of a feature the page does not have returns false.
    const has = async (sel) => (await page.locator(sel).count()) > 0;
    const STATES = [
      ['start', async () => {}],
      // Three moves, and a tiger picked up: its targets on the board.
      ['game', async () => {
        await page.click('#mode-human');
        await step('C3');
        await step('A1', 'B1');
        await step('B3');
        await page.click('[data-point="B1"]');
        await page.waitForSelector('[data-target]');
      }],
      // The engine's five lines and the analysis.
      ['engine', async () => {
        await page.click('#mode-human');
        await page.selectOption('#multipv', '5');
        await page.check('#lines-on');
        await page.click('#analyse');
        await page.waitForFunction(() => document.querySelectorAll('#lines li').length === 5 &&
          document.querySelectorAll('#analysis-list li').length > 0, null, { timeout: STEP_MS });
      }],
      ['editor', async () => {
        await page.click('#edit');
        await page.waitForSelector('#editor:not([hidden])');
      }],
      ['shortcuts', async () => {
        await page.click('#keys-open');
        await page.waitForFunction(() => document.querySelector('#keys').open);
      }],
      ['board and pieces', async () => {
        await page.click('#looks-open');
        await page.waitForFunction(() => document.querySelector('#looks').open);
        await page.selectOption('#board-theme', 'stone');
        await page.selectOption('#piece-theme', 'pebbles');
      }],
      ['finished', async () => {
        await page.click('#mode-goats');
        await page.fill('#obx', 'TGXXT/XXXXX/XXXXX/XXXXX/TXXXT t @15 c4');
        await page.click('#load-obx');
        await page.waitForFunction(() => !document.querySelector('#result-banner').hidden, null, { timeout: STEP_MS });
      }],
      ['refusal', async () => {
        await page.fill('#game-text', 'C3 C3');
        expectRefusal = true;
        await page.click('#import-game');
        await page.waitForFunction(() => document.querySelector('#record-error').textContent !== '', null, { timeout: STEP_MS });
        expectRefusal = false;
      }],
      ['failure', async () => {
        await page.click('#mode-human');
        failApi = true;
        await page.click('[data-point="C3"]');
        await page.waitForFunction(() => !document.querySelector('#failure').hidden, null, { timeout: STEP_MS });
      }],
      ['long', async () => {
        await page.click('#mode-human');
        await page.click('#nav-first');
        await page.keyboard.press('ArrowRight');
        await page.waitForFunction(() => document.querySelector('#status').getAttribute('data-ply') === '1');
      }, gameQuery(GAME40)],
      ['nepali', async () => {
        if (!(await has('#lang'))) return false;
        await page.click('#mode-human');
        await page.selectOption('#lang', 'ne');
        await page.check('#lines-on');
        await page.click('#analyse');
        await page.waitForFunction(() => document.querySelectorAll('#analysis-list li').length > 0 &&
          document.querySelectorAll('#lines li').length > 0, null, { timeout: STEP_MS });
        check(await page.getAttribute('html', 'lang') === 'ne', 'the page says it is in Nepali');
      }, gameQuery(GAME40.slice(0, 6))],
      ['review', async () => {
        if (!(await has('#review-open'))) return false;
        await page.click('#mode-human');
        await page.click('#review-open');
        await page.waitForFunction(() => document.querySelector('#review-progress').hidden &&
          document.querySelectorAll('#review-acc .acc-row').length === 2, null, { timeout: 120000 });
      }, gameQuery(GAME40.slice(0, 8))],
      ['annotate', async () => {
        if (!(await has('#annot-open'))) return false;
        await page.click('#mode-human');
        await page.click('#moves .mv[data-ply="3"]');
        await page.click('#annot-open');
        await page.waitForSelector('#annot:not([hidden])');
      }, gameQuery(GAME40.slice(0, 6))],
      ['puzzles', async () => {
        if (!(await has('#puzzles-open'))) return false;
        await page.click('#puzzles-open');
        await page.waitForFunction(() => document.querySelector('#puzzle-task').textContent.trim() !== '', null, { timeout: STEP_MS });
      }],
    ];

    await open(DESKTOP);
    check(await page.$eval('#new-game', (b) => getComputedStyle(b).transitionDuration) === '0s' &&
      await page.evaluate(() => document.getAnimations().length) === 0, 'less motion asked: no transition, no animation');
    for (const size of [DESKTOP, PHONE]) {
      for (const [name, setup, query] of STATES) {
        if (ONLY.length && !ONLY.includes(name)) continue;
        await open(size, query);
        await setMovetime(100);
        if (await setup() === false) { console.log(`${size.name}: no ${name} on this page`); continue; }
        for (const th of ['dark', 'light']) {
          await theme(th);
          await audit(`${size.name}, ${th}, ${name}`);
          if (STATE_SHOTS) await page.screenshot({ path: path.join(SHOTS, `a11y-${name}-${th}-${size.name}.png`) });
        }
        failApi = false;
        expectRefusal = false;
      }
    }
    console.log(`axe ran ${axeRuns} times`);

    // ---- the keyboard alone -------------------------------------------------------------------
    const press = (k) => page.keyboard.press(k);
    const active = () => page.evaluate(() => {
      const a = document.activeElement;
      if (!a || a === document.body) return '';
      return a.id ? `#${a.id}` : a.getAttribute('data-point') ? `point ${a.getAttribute('data-point')}`
        : a.getAttribute('data-node') ? `move ${a.textContent}` : a.getAttribute('data-move') ? `analysis ${a.getAttribute('data-move')}`
          : `${a.tagName.toLowerCase()}.${a.className}`;
    });
    const isActive = (sel) => page.evaluate((s) => Boolean(document.activeElement && document.activeElement.matches(s)), sel);
    // Tab (Shift+Tab with back) until the focus is on sel, as a person would: false if it never is.
    const tabTo = async (sel, back) => {
      for (let i = 0; i < 300; i++) {
        if (await isActive(sel)) return true;
        await press(back ? 'Shift+Tab' : 'Tab');
      }
      return false;
    };
    // From the focused point to another with the arrows (the board not flipped: down is row + 1).
    const walkTo = async (to) => {
      const from = await page.evaluate(() => document.activeElement.getAttribute('data-point'));
      assert.ok(from, `the focus is on a point (${await active()})`);
      const dc = to.charCodeAt(0) - from.charCodeAt(0);
      const dr = Number(to[1]) - Number(from[1]);
      for (let i = 0; i < Math.abs(dc); i++) await press(dc > 0 ? 'ArrowRight' : 'ArrowLeft');
      for (let i = 0; i < Math.abs(dr); i++) await press(dr > 0 ? 'ArrowDown' : 'ArrowUp');
      check(await isActive(`[data-point="${to}"]`), `the arrows went from ${from} to ${to} (${await active()})`);
    };
    const at = (obx, point) => obx.split(' ')[0].split('/')[Number(point[1]) - 1][point.charCodeAt(0) - 65];
    const obxNow = () => page.inputValue('#obx');
    // n moves in the list, and the board ready for the next (its legal moves known).
    const plies = (n) => page.waitForFunction((want) => document.querySelectorAll('#moves .mv[data-ply]').length === want &&
      document.querySelector('#thinking').hidden && document.querySelectorAll('#board .hit.clickable').length > 0, n, { timeout: STEP_MS });

    // Every control in view is reached by Tab, each with a visible focus: an outline, or the
    // ring of a point on the board. A control is named by what stays when a list is drawn again.
    const tabWalk = async (what) => {
      await page.waitForFunction(() => document.querySelector('#thinking').hidden, null, { timeout: STEP_MS });
      await page.evaluate(() => {
        window.a11yKey = (e) => (e.id ? `#${e.id}` : e.getAttribute('data-point') ? `point ${e.getAttribute('data-point')}`
          : e.getAttribute('data-ply') ? `move ${e.getAttribute('data-ply')}` : e.getAttribute('data-move') ? `analysis ${e.getAttribute('data-move')}`
            : e.getAttribute('data-idx') ? `line ${e.parentElement.getAttribute('data-line')} move ${e.getAttribute('data-idx')}`
              : e.outerHTML.slice(0, 80));
      });
      const want = await page.evaluate(() => {
        const keyOf = window.a11yKey;
        const out = [];
        for (const e of document.querySelectorAll('button, input, select, textarea, a[href], [tabindex]')) {
          if (e.disabled || e.tabIndex < 0 || e.closest('[inert]')) continue;
          const r = e.getBoundingClientRect();
          if (!r.width || !r.height || getComputedStyle(e).visibility === 'hidden') continue;
          out.push(keyOf(e));
        }
        return out;
      });
      await page.evaluate(() => document.activeElement && document.activeElement.blur());
      const seen = new Set();
      const unseen = [];
      for (let i = 0; i < 2 * want.length + 10 && want.some((k) => !seen.has(k)); i++) {
        await press('Tab');
        const f = await page.evaluate(() => {
          const a = document.activeElement;
          if (!a || a === document.body) return null;
          const cs = getComputedStyle(a);
          const ring = a.matches('.hit') ? cs.stroke !== 'none' && parseFloat(cs.strokeWidth) >= 3
            : cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) >= 2;
          return { k: window.a11yKey(a), ring: ring && a.matches(':focus-visible') };
        });
        if (!f) continue;
        if (!f.ring) unseen.push(f.k);
        seen.add(f.k);
      }
      const missed = want.filter((k) => !seen.has(k));
      check(missed.length === 0, `${what}: Tab reaches every control (${want.length}); not: ${missed.join(', ')}`);
      check(unseen.length === 0, `${what}: each shows its focus; not: ${unseen.join(', ')}`);
    };

    for (const size of [DESKTOP, PHONE]) {
      const vp = `${size.name}, keyboard`;
      await open(size);
      await setMovetime(100);
      await tabWalk(`${size.name}, start`);

      // Two players; three moves on the board.
      check(await tabTo('#mode-human'), `${vp}: Tab reaches "Two players"`);
      await press('Enter');
      check(await page.locator('#mode-human.active').count() === 1, `${vp}: Enter chose "Two players"`);
      check(await tabTo('[data-point]'), `${vp}: Tab reaches the board`);
      check(await isActive('[data-point="C3"]') && await page.locator('#board [data-point][tabindex="0"]').count() === 1,
        `${vp}: the board is one Tab stop, entered at C3 (${await active()})`);
      await walkTo('C3');
      await press('Enter');
      await plies(1);
      const labels = await page.$$eval('[data-point="C3"], [data-point="A1"], [data-point="B2"]', (hs) => hs.map((h) => h.getAttribute('aria-label')));
      check(JSON.stringify(labels.sort()) === JSON.stringify(['A1 Tiger', 'B2', 'C3 Goat']), `${vp}: each point says what is on it (${labels})`);
      await walkTo('A1');
      await press('Space');
      await walkTo('B1');
      await press('Enter');
      await plies(2);
      await walkTo('B3');
      await press('Enter');
      await plies(3);
      check(await page.locator('#board [data-point="B3"][tabindex="0"]').count() === 1, `${vp}: the board's Tab stop follows the focus`);
      let obx = await obxNow();
      check(at(obx, 'C3') === 'G' && at(obx, 'B3') === 'G' && at(obx, 'B1') === 'T' && at(obx, 'A1') === 'X',
        `${vp}: C3, A1-B1, B3 played by the keyboard (${obx})`);

      // The move list: one Tab stop, on the current move; up goes to the move before.
      check(await tabTo('#moves [tabindex="0"]'), `${vp}: Tab reaches the move list`);
      check(await isActive('#moves [data-ply="3"][aria-current="true"]'), `${vp}: on the current move (${await active()})`);
      await press('ArrowUp');
      await page.waitForFunction(() => document.querySelector('#status').getAttribute('data-ply') === '2');
      check(await isActive('#moves [data-ply="2"][aria-current="true"]'), `${vp}: ArrowUp went to move 2 and the focus with it (${await active()})`);
      await press('End');
      await page.waitForFunction(() => document.querySelector('#status').getAttribute('data-ply') === '3');
      check(await isActive('#moves [data-ply="3"]'), `${vp}: End went back to the last move (${await active()})`);

      // The engine's lines: switched on by Space, walked by the arrows, a line played by Enter.
      check(await tabTo('#lines-on'), `${vp}: Tab reaches "Engine lines"`);
      await press('Space');
      await page.waitForFunction(() => document.querySelectorAll('#lines li').length === 3 &&
        document.querySelectorAll('#lines li[data-line="2"] .mv').length >= 2, null, { timeout: STEP_MS });
      check(await tabTo('#lines .mv[tabindex="0"]'), `${vp}: Tab reaches the lines`);
      check(await isActive('#lines li[data-line="1"] .mv[data-idx="0"]'), `${vp}: on the first move of the first line`);
      await press('ArrowRight');
      await press('ArrowDown');
      check(await isActive('#lines li[data-line="2"] .mv[data-idx="1"]'), `${vp}: the arrows went to line 2's second move (${await active()})`);
      check(await page.evaluate(() => document.querySelector('#status').getAttribute('data-ply')) === '3', `${vp}: the arrows in the lines leave the game where it is`);
      // The line as it stands when Enter is pressed (the lines deepen while the test runs).
      await page.evaluate(() => document.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' && e.target.closest('#lines')) {
          window.a11yLine = [...e.target.parentElement.querySelectorAll('.mv')].slice(0, 2).map((m) => m.textContent.trim());
          window.a11yLineAt = [e.target.parentElement.getAttribute('data-line'), e.target.getAttribute('data-idx')];
        }
      }, { capture: true, once: true }));
      await press('Enter');
      const line2 = await page.evaluate(() => window.a11yLine);
      check(JSON.stringify(await page.evaluate(() => window.a11yLineAt)) === '["2","1"]', `${vp}: Enter was pressed on line 2's second move`);
      await plies(5);
      const last2 = await page.$$eval('#moves .mv[data-ply]', (ms) => ms.slice(3, 5).map((m) => m.firstChild.textContent.trim()));
      check(JSON.stringify(last2) === JSON.stringify(line2), `${vp}: Enter played line 2 up to its second move (${last2} / ${line2})`);
      await press('Space'); // focus went back to the lines; "Engine lines" off again below
      check(await tabTo('#lines-on', true), `${vp}: Shift+Tab back to "Engine lines"`);
      await press('Space');
      check(!(await page.isChecked('#lines-on')), `${vp}: Space switched the lines off`);

      // The analysis: asked by Enter, walked by the arrows, a move played by Enter.
      check(await tabTo('#analyse'), `${vp}: Tab reaches "Analyse position"`);
      await press('Enter');
      await page.waitForFunction(() => document.querySelectorAll('#analysis-list li').length > 1, null, { timeout: STEP_MS });
      check(await tabTo('#analysis-list li[tabindex="0"]'), `${vp}: Tab reaches the analysis`);
      await press('ArrowDown');
      const chosen = await page.evaluate(() => document.activeElement.getAttribute('data-move'));
      const second = await page.$$eval('#analysis-list li', (ls) => ls[1].getAttribute('data-move'));
      check(chosen === second, `${vp}: ArrowDown went to the second move (${chosen})`);
      const n = await movesShown();
      await press('Enter');
      await plies(n + 1);
      check(await page.evaluate(() => [...document.querySelectorAll('#moves .mv[data-ply]')].pop().getAttribute('data-node')) !== null,
        `${vp}: Enter played ${chosen}`);
      await tabWalk(`${size.name}, game`);

      // The shortcuts: ? opens them, Esc closes them and the focus is where it was.
      check(await tabTo('#new-game'), `${vp}: Tab reaches "New game"`);
      await press('?');
      check(await page.evaluate(() => document.querySelector('#keys').open), `${vp}: ? opened the shortcuts`);
      check(await page.evaluate(() => document.querySelector('#keys').contains(document.activeElement)), `${vp}: the focus is in them`);
      await press('Escape');
      check(!(await page.evaluate(() => document.querySelector('#keys').open)), `${vp}: Esc closed them`);
      check(await isActive('#new-game'), `${vp}: the focus is back on "New game" (${await active()})`);
      await press('Enter');
      await plies(0);

      // The editor: Enter opens it on its tools, a tiger put on C3 by the keys, Esc leaves it.
      check(await tabTo('#edit'), `${vp}: Tab reaches "Edit position"`);
      await press('Enter');
      check(await page.locator('#editor').isVisible(), `${vp}: Enter opened the editor`);
      check(await isActive('#tool-goat'), `${vp}: the focus is on its goat (${await active()})`);
      await press('Shift+Tab');
      check(await isActive('#tool-tiger'), `${vp}: Shift+Tab to the tiger`);
      await press('Enter');
      check(await page.locator('#tool-tiger.active').count() === 1, `${vp}: Enter took the tiger`);
      check(await tabTo('[data-point]', true), `${vp}: Shift+Tab reaches the board from the editor`);
      await walkTo('C3');
      await press('Enter');
      const ed = (await page.textContent('#ed-obx')).trim();
      check(at(ed, 'C3') === 'T', `${vp}: Enter put a tiger on C3 (${ed})`);
      await tabWalk(`${size.name}, editor`);
      await press('Escape');
      check(await page.locator('#editor').isHidden(), `${vp}: Esc closed the editor`);
      check(at(await obxNow(), 'C3') === 'X', `${vp}: and left the position as it was`);
      check(await tabTo('#edit'), `${vp}: Tab reaches "Edit position" again`);
      await press('Enter');
      check(await tabTo('#ed-cancel'), `${vp}: Tab reaches Cancel`);
      await press('Enter');
      check(await page.locator('#editor').isHidden(), `${vp}: Cancel by Enter closed the editor`);
      check(await isActive('#edit'), `${vp}: the focus went back to "Edit position" (${await active()})`);
      await page.screenshot({ path: path.join(SHOTS, `a11y-keyboard-${size.name}.png`) });

      // The panels of the feature files (where the page has them): opened by Enter on their
      // button, closed by Enter on their close button, the focus never dropped to the page.
      const lost = () => page.evaluate(() => !document.activeElement || document.activeElement === document.body);
      const panel = async (name, openSel, box, ready, closeSel, query) => {
        if (!(await has(openSel))) { console.log(`${vp}: no ${name} on this page`); return; }
        await open(size, query);
        await setMovetime(100);
        check(await tabTo(openSel), `${vp}: Tab reaches ${openSel}`);
        await press('Enter');
        await page.waitForFunction(ready, null, { timeout: 120000 });
        check(await page.locator(box).isVisible(), `${vp}: Enter opened the ${name}`);
        check(!(await lost()), `${vp}: the ${name} opened with the focus on the page's controls (${await active()})`);
        check(await tabTo(closeSel), `${vp}: Tab reaches ${closeSel}`);
        await press('Enter');
        check(await page.locator(box).isHidden(), `${vp}: Enter on ${closeSel} closed the ${name}`);
        check(!(await lost()), `${vp}: the focus stays on a control after the ${name} closed (${await active()})`);
      };
      await panel('review', '#review-open', '#review', () => document.querySelector('#review-progress').hidden &&
        document.querySelectorAll('#review-acc .acc-row').length === 2, '#review-close', gameQuery(GAME40.slice(0, 8)));
      await panel('puzzles', '#puzzles-open', '#puzzles', () => document.querySelector('#puzzle-task').textContent.trim() !== '',
        '#puzzles-close');
      await panel('annotation', '#annot-open', '#annot', () => !document.querySelector('#annot').hidden, '#annot-open',
        gameQuery(GAME40.slice(0, 6)));
    }
    check(problems.length === 0, `no console errors or outside requests:\n${problems.join('\n')}`);
  } finally {
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
  if (soft) {
    console.log(`FAIL: ${soft} check(s) failed, ${checks} passed`);
    process.exit(1);
  }
  console.log(`PASS: ${checks} accessibility checks`);
}

main().catch((e) => {
  console.error(`FAIL: ${e.stack || e.message}`);
  process.exit(1);
});
