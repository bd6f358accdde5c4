// Premoves and move annotations on the web board, at 1280x800 and at a 390x844 phone: a premove
// chosen while the engine thinks and played when its move comes (on the clock at no cost of
// time), one dropped because the engine's move took its point, one cancelled three ways; glyphs
// and comments set on the main line, a side line and the start, kept over a reload, exported as
// PGN (the whole movetext compared), imported back equal, and a PGN written elsewhere ($2,
// C3!?, {comments}) imported. Screenshots in SHOT_DIR as annot-*.png.
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { chromium } = require('playwright-core');
const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];

const URL_ = process.env.BOARD_URL;
const SHOTS = process.env.SHOT_DIR || '.';
const STEP_MS = 20000;
const DESKTOP = { width: 1280, height: 800, name: 'desktop' };
const PHONE = { width: 390, height: 844, name: 'phone' };
const START = 'TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0 - #';
// Goats to move, five in hand. After the goats place on B4 the tigers have one move, E5-D4:
// A1, E1 and A5 are shut in, E5 can only step to D4.
const FORCED = 'TGGGT/GGXGG/GXGXG/GXXXG/TGGGT g @5 c0';

let checks = 0;
function check(cond, msg) {
  assert.ok(cond, msg);
  checks++;
}

function inside(box, vp) {
  return Boolean(box) && box.x >= 0 && box.y >= 0 && box.x + box.width <= vp.width + 0.5 && box.y + box.height <= vp.height + 0.5;
}

// WCAG contrast of two colours given as "rgb(r, g, b)".
function contrast(a, b) {
  const lum = (c) => {
    const [r, g, bl] = c.match(/[\d.]+/g).slice(0, 3).map(Number).map((v) => {
      const s = v / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}

// The movetext of a PGN: everything after the blank line that ends the tags.
function movetext(pgn) { return pgn.slice(pgn.indexOf('\n\n') + 2); }

async function main() {
  assert.ok(URL_, 'BOARD_URL is not set');
  const origin = new URL(URL_);
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'baghchal-annot-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    viewport: { width: DESKTOP.width, height: DESKTOP.height },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const problems = [];
  let expectRefusal = false;
  try {
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
      if (m.type() !== 'error' || (expectRefusal && m.text().includes('status of 422'))) return;
      problems.push(`console: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));

    const box = (sel) => page.locator(sel).boundingBox();
    const shot = (name) => page.screenshot({ path: path.join(SHOTS, `annot-${name}.png`) });
    const moveTexts = () => page.$$eval('#moves .mv[data-ply]', (cells) => cells.map((c) => c.firstChild.textContent));
    const ready = () => page.waitForFunction(() => document.querySelector('#thinking').hidden &&
      document.querySelectorAll('#board .hit.clickable').length > 0, null, { timeout: STEP_MS });
    const goto = async (query) => {
      await page.goto(`${URL_}${query || ''}`);
      await page.waitForFunction(() => /to move/.test(document.querySelector('#status')?.textContent || ''), null, { timeout: STEP_MS });
      await ready();
    };
    // A fresh page at a size: no saved game. The storage is cleared from another document of
    // the origin, so no board can save into it meanwhile.
    const open = async (size, query) => {
      phase++;
      const stale = held;
      held = [];
      stale.forEach((r) => r());
      await page.setViewportSize({ width: size.width, height: size.height });
      await page.goto(`${URL_}favicon.svg`);
      await page.evaluate(() => localStorage.clear());
      await goto(query);
    };
    // axe-core's WCAG A/AA rules and best practices over the page as it is (evaluated through the
    // debugging protocol: the page's policy refuses inline scripts), in both themes; animations
    // (the engine's "thinking…" pulse) are stopped so the colours read are the ones that stay.
    const audit = async (what) => {
      if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(AXE);
      for (const theme of ['dark', 'light']) {
        await page.evaluate((th) => document.documentElement.setAttribute('data-theme', th), theme);
        await page.evaluate(() => document.getAnimations().forEach((a) => a.cancel()));
        const res = await page.evaluate((tags) => window.axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] })
          .then((r) => r.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`)), AXE_TAGS);
        check(res.length === 0, `${what}, ${theme}: axe finds no violation:\n${res.join('\n')}`);
      }
      await page.evaluate(() => document.documentElement.setAttribute('data-theme', 'dark'));
    };
    const saved = () => page.evaluate(() => JSON.parse(localStorage.getItem('baghchal.board.v2')));
    // While the premoves are tried, each engine answer is held until the test lets it go, so
    // that a premove can be chosen (and cancelled) meanwhile.
    let holding = true;
    let held = [];
    let phase = 0; // one per page opened: an answer asked by an earlier page is not held
    let engineMove = null; // when set, the engine's answer names this move instead (a legal one)
    await page.route('**/obx', async (route) => {
      if (!holding) return route.continue();
      const asked = phase;
      const response = await route.fetch();
      const json = await response.json();
      if (engineMove) json.move = engineMove;
      if (asked === phase) await new Promise((r) => held.push(r));
      return route.fulfill({ response, json }).catch(() => {}); // for a page gone meanwhile
    });
    const release = async () => {
      for (let i = 0; i < 500 && !held.length; i++) await new Promise((r) => setTimeout(r, 20));
      check(held.length > 0, 'an engine answer is held');
      const go = held;
      held = [];
      go.forEach((r) => r());
    };
    const forced = `?obx=${FORCED.replace(/ /g, '+')}`;
    // Places the goat on B4 and waits for the engine to think about E5-D4.
    const placeAndWait = async () => {
      await page.click('[data-point="B4"]');
      await page.waitForFunction(() => !document.querySelector('#thinking').hidden, null, { timeout: STEP_MS });
    };
    const premoveShown = () => page.evaluate(() => ({
      bar: document.querySelector('#premove-bar').hidden ? null : document.querySelector('#premove-text').textContent,
      marks: [...document.querySelectorAll('#board [data-premove]')].map((m) => m.getAttribute('data-premove')),
      arrow: [...document.querySelectorAll('#board [data-arrow="premove"]')].map((a) => a.getAttribute('data-move')),
    }));

    for (const size of [DESKTOP, PHONE]) {
      // ---- a premove played when the engine's move comes ----
      await open(size, forced);
      await placeAndWait();
      await page.click('[data-point="C4"]');
      let p = await premoveShown();
      check(p.bar === "Premove C4: played after the engine's move.", `${size.name}: the premove is said (${p.bar})`);
      check(JSON.stringify(p.marks) === '["C4"]' && JSON.stringify(p.arrow) === '["mC4"]', `${size.name}: its point is marked (${JSON.stringify(p)})`);
      check(await page.getAttribute('#premove-bar', 'role') === 'status', `${size.name}: screen readers hear it`);
      check(inside(await box('#premove-bar'), size) && inside(await box('#premove-cancel'), size), `${size.name}: the premove and its cancel button are in view`);
      await shot(`premove-${size.name}`);
      await audit(`${size.name}: a premove shown`);
      await release();
      await page.waitForFunction(() => document.querySelectorAll('#moves .mv[data-ply]').length >= 3, null, { timeout: STEP_MS });
      let moves = await moveTexts();
      check(JSON.stringify(moves.slice(0, 3)) === JSON.stringify(['B4', 'E5–D4', 'C4']), `${size.name}: the premove is played after the engine's move (${moves})`);
      p = await premoveShown();
      check(p.bar === null && p.marks.length === 0, `${size.name}: and is no longer shown`);

      // ---- a premove whose point the engine's move took is dropped, with the reason ----
      await open(size, forced);
      await placeAndWait();
      await page.click('[data-point="D4"]');
      check((await premoveShown()).bar === "Premove D4: played after the engine's move.", `${size.name}: the premove D4 is set`);
      await release();
      await page.waitForFunction(() => !document.querySelector('#notice').hidden, null, { timeout: STEP_MS });
      const said = (await page.textContent('#notice')).trim();
      check(said === 'Premove D4 dropped: the point is taken', `${size.name}: the dropped premove says why (${said})`);
      check(inside(await box('#notice'), size), `${size.name}: the reason is in view`);
      await ready();
      moves = await moveTexts();
      check(JSON.stringify(moves) === JSON.stringify(['B4', 'E5–D4']), `${size.name}: nothing is played for it (${moves})`);
      check(/^Goats to move/.test((await page.textContent('#status')).trim()), `${size.name}: the goats are to move`);
      await shot(`dropped-${size.name}`);

      // ---- a premove cancelled: Esc, right click, the button, a click on a taken point ----
      await open(size, forced);
      await placeAndWait();
      const ways = [
        ['Esc', () => page.keyboard.press('Escape')],
        ['right click', () => page.click('[data-point="A3"]', { button: 'right' })],
        ['the button', () => page.click('#premove-cancel')],
        ['a click on a taken point', () => page.click('[data-point="A2"]')],
      ];
      for (const [how, act] of ways) {
        await page.click('[data-point="C4"]');
        check((await premoveShown()).marks.join() === 'C4', `${size.name}: premove set before ${how}`);
        await act();
        p = await premoveShown();
        check(p.bar === null && p.marks.length === 0 && p.arrow.length === 0, `${size.name}: ${how} cancels the premove (${JSON.stringify(p)})`);
      }
      // A second premove replaces the first: one at a time.
      await page.click('[data-point="C4"]');
      await page.click('[data-point="C2"]');
      check((await premoveShown()).marks.join() === 'C2', `${size.name}: a new premove replaces the old one`);
      await page.keyboard.press('Escape');
      await release();
      await ready();
      moves = await moveTexts();
      check(JSON.stringify(moves) === JSON.stringify(['B4', 'E5–D4']), `${size.name}: a cancelled premove is not played (${moves})`);
    }

    // ---- a tiger's premove: the piece, then where it goes; and one that is no line of the board ----
    for (const size of [DESKTOP, PHONE]) {
      await open(size);
      engineMove = 'mC3';
      await page.click('#mode-tigers');
      await page.waitForFunction(() => !document.querySelector('#thinking').hidden, null, { timeout: STEP_MS });
      await page.click('[data-point="A1"]');
      let p = await premoveShown();
      check(p.bar === 'Premove: the piece on A1; click where it goes.' && p.marks.join() === 'A1', `${size.name}: the tiger chosen (${JSON.stringify(p)})`);
      await page.click('[data-point="A1"]');
      check((await premoveShown()).bar === null, `${size.name}: a second click on it lets it go`);
      await page.click('[data-point="A1"]');
      await page.click('[data-point="B1"]');
      p = await premoveShown();
      check(p.bar === "Premove A1–B1: played after the engine's move." && p.marks.join() === 'A1,B1' &&
        p.arrow.join() === 'mA1B1', `${size.name}: the tiger's premove (${JSON.stringify(p)})`);
      await release();
      await page.waitForFunction(() => document.querySelectorAll('#moves .mv[data-ply]').length >= 2, null, { timeout: STEP_MS });
      let moves = await moveTexts();
      check(JSON.stringify(moves.slice(0, 2)) === JSON.stringify(['C3', 'A1–B1']), `${size.name}: played after the goat's placement (${moves})`);
      // A target off the board's lines goes to the server, which refuses it: dropped with its reason.
      engineMove = 'mD4';
      await page.waitForFunction(() => !document.querySelector('#thinking').hidden, null, { timeout: STEP_MS });
      await page.click('[data-point="E1"]');
      await page.click('[data-point="D3"]');
      check((await premoveShown()).bar === "Premove E1–D3: played after the engine's move.", `${size.name}: a premove off the lines is kept`);
      expectRefusal = true; // the server's 422 for the move asked about
      await release();
      await page.waitForFunction(() => !document.querySelector('#notice').hidden, null, { timeout: STEP_MS });
      expectRefusal = false;
      const said = (await page.textContent('#notice')).trim();
      check(said === 'Premove E1–D3 dropped: E1D3 does not follow a line of the board', `${size.name}: the server's reason (${said})`);
      moves = await moveTexts();
      check(JSON.stringify(moves) === JSON.stringify(['C3', 'A1–B1', 'D4']), `${size.name}: nothing played for it (${moves})`);
      await shot(`tiger-${size.name}`);
      engineMove = null;
    }
    engineMove = null;

    // ---- on the clock a premove costs no time: its clock gains the increment only ----
    await open(DESKTOP, forced);
    await page.selectOption('#tc', '1+1');
    await page.waitForFunction(() => JSON.parse(localStorage.getItem('baghchal.board.v2') || '{}').tc === '1+1', null, { timeout: STEP_MS });
    await goto(forced);
    await placeAndWait();
    await page.click('[data-point="C4"]');
    await release();
    await page.waitForFunction(() => {
      const t = JSON.parse(localStorage.getItem('baghchal.board.v2')).tree;
      return t[0] && t[0].c[0] && t[0].c[0].c[0] && t[0].c[0].c[0].k;
    }, null, { timeout: STEP_MS });
    const clocks = await page.evaluate(() => {
      const s = JSON.parse(localStorage.getItem('baghchal.board.v2'));
      const b4 = s.tree[0];
      return { tc: s.tc, engine: b4.c[0].k, premove: b4.c[0].c[0].k, moves: [b4.m, b4.c[0].m, b4.c[0].c[0].m] };
    });
    check(clocks.tc === '1+1' && clocks.moves.join() === 'mB4,mE5D4,mC4', `the game on the clock (${JSON.stringify(clocks)})`);
    check(clocks.premove.goats === clocks.engine.goats + 1000, `the premove's clock gains its increment and loses nothing (${JSON.stringify(clocks)})`);
    await page.selectOption('#tc', 'move');
    holding = false;

    // ---- glyphs and comments ----
    const START_Q = `?obx=${START.replace(/ /g, '+').replace('#', '%23')}&moves=C3,A1B1,B3,E1D1`;
    const COMMENT = 'strong {really} \\ yes';
    for (const size of [DESKTOP, PHONE]) {
      await open(size, START_Q);
      await page.click('#mode-human');
      await page.click('#moves .mv[data-ply="3"]');
      check(await page.isHidden('#annot'), `${size.name}: the annotation control is closed at first`);
      await page.click('#annot-open');
      check(await page.isVisible('#annot') && await page.getAttribute('#annot-open', 'aria-expanded') === 'true', `${size.name}: Annotate opens it`);
      check(await page.evaluate(() => document.activeElement.id) === 'annot-comment', `${size.name}: with the focus in the comment field`);
      await page.click('#annot [data-glyph="!?"]');
      check(await page.getAttribute('#annot [data-glyph="!?"]', 'aria-pressed') === 'true', `${size.name}: the glyph button is pressed`);
      check(await page.getAttribute('#annot [data-glyph="!?"]', 'aria-label') === '!? interesting move', `${size.name}: and labelled`);
      await page.fill('#annot-comment', COMMENT);
      // A side line at ply 3 with its own glyph and comment, and a comment on the start.
      await page.click('#moves .mv[data-ply="2"]');
      // The board shows ply 2, with its legal moves known, before the click that branches from
      // it (on a busy machine a click could land on the last ply's board and add a move to the
      // main line instead, or come before the server has sent ply 2's moves).
      await page.waitForFunction(() => document.querySelector('#status')?.getAttribute('data-ply') === '2' &&
        document.querySelector('#board [data-point="D3"].clickable') !== null, null, { timeout: STEP_MS });
      await page.click('[data-point="D3"]');
      await page.waitForFunction(() => document.querySelector('#moves .vmv.current') !== null, null, { timeout: STEP_MS });
      await page.focus('#annot [data-glyph="?"]');
      await page.keyboard.press('Enter'); // by keyboard
      await page.fill('#annot-comment', 'side (line) note');
      await page.keyboard.press('Home');  // in the field: its own key
      check(await page.getAttribute('#status', 'data-ply') === '3', `${size.name}: keys typed in the comment stay there`);
      await page.click('#nav-first');
      check(await page.isDisabled('#annot [data-glyph="!"]'), `${size.name}: the start has no glyph`);
      await page.fill('#annot-comment', 'Opening notes');
      await page.click('#nav-last');
      const shown = () => page.evaluate(() => ({
        glyphs: [...document.querySelectorAll('#moves .glyph')].map((g) => `${g.parentElement.firstChild.textContent}${g.textContent}`),
        comments: [...document.querySelectorAll('#moves .comment')].map((c) => c.textContent),
        vcomments: [...document.querySelectorAll('#moves .vcomment')].map((c) => c.textContent),
      }));
      const want = JSON.stringify({ glyphs: ['B3!?', 'D3?'], comments: ['Opening notes', COMMENT], vcomments: ['side (line) note'] });
      let got = await shown();
      check(JSON.stringify(got) === want, `${size.name}: the list shows glyphs and comments (${JSON.stringify(got)})`);
      for (const sel of ['#board', '#moves-scroll', '#annot', '#controls']) {
        check(inside(await box(sel), size), `${size.name}: ${sel} is in view with the annotations open (${JSON.stringify(await box(sel))})`);
      }
      if (size === DESKTOP) {
        const bar = await page.$$eval('#controls button:not([hidden])', (bs) => new Set(bs.map((b) => Math.round(b.getBoundingClientRect().top))).size);
        check(bar === 1, 'the controls stay on one row');
        // Each glyph readable on the card in both themes.
        for (const theme of ['dark', 'light']) {
          await page.evaluate((th) => document.documentElement.setAttribute('data-theme', th), theme);
          const pairs = await page.$$eval('#moves .glyph', (gs) => gs.map((g) => [getComputedStyle(g).color,
            getComputedStyle(document.querySelector('#moves-card')).backgroundColor, g.textContent]));
          for (const [fg, bg, g] of pairs) check(contrast(fg, bg) >= 4.5, `${theme}: the glyph ${g} has contrast ${contrast(fg, bg).toFixed(2)}`);
        }
        await page.evaluate(() => document.documentElement.setAttribute('data-theme', 'dark'));
      }
      await shot(`notes-${size.name}`);
      await audit(`${size.name}: glyphs, comments and their control`);

      // Kept over a reload.
      await page.reload();
      await page.waitForFunction(() => /to move/.test(document.querySelector('#status')?.textContent || ''), null, { timeout: STEP_MS });
      got = await shown();
      check(JSON.stringify(got) === want, `${size.name}: glyphs and comments are kept over a reload (${JSON.stringify(got)})`);

      // Exported: the whole movetext.
      await page.click('#export-pgn');
      const pgn = await page.inputValue('#game-text');
      const wantText = '{Opening notes} 1. C3 A1B1 2. B3 $5 {strong {really\\} \\\\ yes} (2. D3 $2\n{side (line) note}) 2... E1D1 *\n';
      check(movetext(pgn) === wantText, `${size.name}: PGN movetext with NAGs and comments:\n${movetext(pgn)}\nexpected:\n${wantText}`);
      await page.click('#export-game');
      const obx = await page.inputValue('#game-text');
      check(obx === `${START}\nC3 A1B1 B3 E1D1\n`, `${size.name}: Export OBX leaves them out (${obx})`);

      // Imported back: the same tree, the same PGN.
      await page.click('#new-game');
      await page.fill('#game-text', pgn);
      await page.$eval('#record-error', (e) => { e.textContent = ''; });
      await page.click('#import-game');
      await page.waitForFunction(() => /Game imported/.test(document.querySelector('#record-error').textContent), null, { timeout: STEP_MS });
      got = await shown();
      check(JSON.stringify(got) === want, `${size.name}: imported back, the same glyphs and comments (${JSON.stringify(got)})`);
      await page.click('#export-pgn');
      check(movetext(await page.inputValue('#game-text')) === wantText, `${size.name}: and the same PGN`);
      const tree = (await saved()).tree;
      check(tree[0].c[0].c.length === 2 && tree[0].c[0].c[1].g === '?' && tree[0].c[0].c[1].t === 'side (line) note',
        `${size.name}: the side line keeps its glyph and comment (${JSON.stringify(tree[0].c[0].c[1])})`);

      // A PGN from elsewhere: NAGs, glyphs written on the move, comments in a side line.
      const outside = `[Event "club night"]\n[Site "Kathmandu"]\n[Variant "Bagh-Chal"]\n[FEN "${START}"]\n\n` +
        '1. C3 $2 {too early; try a corner} A1B1 $1 2. B3!? ( 2. D3?! {dubious} E1D1 ) 2... E1D2 $10 *\n';
      await page.fill('#game-text', outside);
      await page.$eval('#record-error', (e) => { e.textContent = ''; });
      await page.click('#import-game');
      await page.waitForFunction(() => /Game imported: 4 moves, 1 side lines?\./.test(document.querySelector('#record-error').textContent), null, { timeout: STEP_MS });
      got = await shown();
      check(JSON.stringify(got) === JSON.stringify({ glyphs: ['C3?', 'A1–B1!', 'B3!?', 'D3?!'], comments: ['too early; try a corner'], vcomments: ['dubious'] }),
        `${size.name}: a PGN from elsewhere is read with its notes (${JSON.stringify(got)})`);
      await page.click('#export-pgn');
      const again = movetext(await page.inputValue('#game-text'));
      check(again === '1. C3 $2 {too early; try a corner} 1... A1B1 $1 2. B3 $5 (2. D3 $6 {dubious}\n2... E1D1) 2... E1D2 *\n',
        `${size.name}: and written back in this board's form:\n${again}`);
      await shot(`imported-${size.name}`);

      // A game review's marks (review.js: node.review, kept with the game): shown where a move has
      // no glyph of its own, and written as its NAG with the better moves as a comment.
      await page.evaluate(() => {
        const s = JSON.parse(localStorage.getItem('baghchal.board.v2'));
        const b3 = s.tree[0].c[0].c[0];
        b3.r = { mark: '?', exact: true, best: ['mD3'] };
        b3.c[0].r = { mark: '??', exact: true, best: ['mE1D1', 'mA5A4'] };
        localStorage.setItem('baghchal.board.v2', JSON.stringify(s));
      });
      await page.reload();
      await page.waitForFunction(() => /to move/.test(document.querySelector('#status')?.textContent || ''), null, { timeout: STEP_MS });
      got = await page.$$eval('#moves .glyph', (gs) => gs.map((g) => `${g.parentElement.firstChild.textContent}${g.textContent}${g.classList.contains('reviewed') ? ' (review)' : ''}`));
      check(JSON.stringify(got) === JSON.stringify(['C3?', 'A1–B1!', 'B3!?', 'D3?!', 'E1–D2?? (review)']), `${size.name}: a review's mark where no glyph is set (${got})`);
      await page.click('#export-pgn');
      const reviewed = movetext(await page.inputValue('#game-text'));
      check(reviewed === '1. C3 $2 {too early; try a corner} 1... A1B1 $1 2. B3 $5 (2. D3 $6 {dubious}\n2... E1D1) 2... E1D2 $4 {better: E1D1, A5A4} *\n',
        `${size.name}: the review's mark and better moves in the PGN:\n${reviewed}`);
    }

    check(problems.length === 0, `no console errors or outside requests:\n${problems.join('\n')}`);
  } catch (e) {
    const page = context.pages()[0];
    if (page) await page.screenshot({ path: path.join(SHOTS, 'annot-failure.png') }).catch(() => {});
    if (problems.length) console.error(problems.join('\n'));
    throw e;
  } finally {
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
  console.log(`browser annotations: ${checks} checks passed; screenshots in ${SHOTS}: annot-*.png`);
}

main().catch((e) => {
  console.error(`FAIL: ${e.stack || e.message}`);
  process.exit(1);
});
