// Playing online in the browser (tools/obx-server/ONLINE.md; the web board's lobby.js and
// online.js), against a server of the test's own with its own database (a temporary file).
// Two players in two browser contexts (their own cookies): A at 1280x800 in English picks a
// name, B is a guest on a 390x844 phone in Nepali. A's seek shows in B's lobby without a reload
// and goes when A cancels it; B accepts the next one and both land in the game; a third context
// watches it from the lobby's list of games. Each move shows on the other player's page and on
// the spectator's; the board refuses a move out of turn, and a move the server refuses is taken
// back with the server's words; a draw is offered and declined; the chat carries text as text;
// a takeback is asked and accepted; B reloads in the middle, finds the same position and clocks
// and plays on; B resigns and the three pages say so; the finished game opens from its link in
// a fresh context, where Alice then signs in. A rematch takes both to a new game, which A
// aborts; in the next, B leaves and A claims the win; a link for a friend starts a game of three
// seconds, which ends on the clock, and its review opens on the board. axe-core finds no serious
// or critical violation on the lobby and the game, at both sizes, in both languages and both
// themes. Screenshots: SHOT_DIR/lobby-*.png.
'use strict';

const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { chromium } = require('playwright-core');

const SERVER_BIN = process.env.BOARD_SERVER;
const SHOTS = process.env.SHOT_DIR || '.';
const STEP_MS = 15000;
const DESKTOP = { width: 1280, height: 800, name: 'desktop' };
const PHONE = { width: 390, height: 844, name: 'phone' };
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];
const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

let checks = 0;
function check(cond, msg) {
  assert.ok(cond, msg);
  checks++;
}

// A server of the test's own, on a free port, with a database in a temporary folder.
function startServer(dir) {
  return new Promise((resolve, reject) => {
    const p = spawn(SERVER_BIN, ['--port', '0', '--workers', '1', '--hash', '8', '--movetime', '100',
      '--database', path.join(dir, 'room.sqlite'), '--gone-seconds', '2'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`the server did not start: ${out} ${err}`)), 15000);
    p.stdout.on('data', (d) => {
      out += d;
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)\//.exec(out);
      if (m) { clearTimeout(timer); resolve({ proc: p, url: `http://127.0.0.1:${m[1]}/` }); }
    });
    p.stderr.on('data', (d) => { err += d; });
    p.on('exit', (code) => { clearTimeout(timer); reject(new Error(`the server exited (${code}): ${err}`)); });
  });
}

async function main() {
  assert.ok(SERVER_BIN, 'BOARD_SERVER is not set');
  const t0 = Date.now();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'baghchal-lobby-'));
  const server = await startServer(dir);
  const URL_ = server.url;
  const origin = new URL(URL_);
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  const problems = [];
  const pages = [];
  try {
    // A person: a context of its own (cookies, storage) at a size, in a language.
    const person = async (who, size, lang) => {
      const ctx = await browser.newContext({ viewport: { width: size.width, height: size.height }, locale: 'en-US', reducedMotion: 'reduce' });
      await ctx.route('**/*', (route) => {
        const u = new URL(route.request().url());
        if (u.host !== origin.host) { problems.push(`${who}: request outside the server: ${u.href}`); return route.abort(); }
        return route.continue();
      });
      await ctx.addInitScript((l) => { if (!sessionStorage.getItem('lang-set')) { localStorage.setItem('baghchal.lang', l); sessionStorage.setItem('lang-set', '1'); } }, lang);
      const page = await ctx.newPage();
      page.on('console', (m) => {
        if (m.type() !== 'error') return;
        // A visitor without an account is asked for it once (401); a refused move is said on the page.
        if (/status of 40[19]/.test(m.text())) return;
        problems.push(`${who}: console: ${m.text()}`);
      });
      page.on('pageerror', (e) => problems.push(`${who}: page error: ${e.message}`));
      pages.push(page);
      page.who = who;
      page.size = size;
      return page;
    };
    const shot = (page, name) => page.screenshot({ path: path.join(SHOTS, `lobby-${name}.png`) });
    const until = (page, f, arg, ms) => page.waitForFunction(f, arg, { timeout: ms || STEP_MS });
    const text = (page, sel) => page.$eval(sel, (e) => e.textContent.trim());
    const moves = (page) => page.locator('#moves .mv[data-ply]').count();
    // The position shown: the board, the side to move, goats in hand and captured.
    const obx = async (page) => (await page.inputValue('#obx')).split(/\s+/).slice(0, 4).join(' ');
    const audit = async (page, what) => {
      if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(AXE);
      await until(page, () => document.getAnimations().length === 0);
      const out = await page.evaluate((tags) => window.axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] })
        .then((r) => ({ rules: r.passes.length + r.violations.length + r.incomplete.length + r.inapplicable.length,
          violations: r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')) })) })), TAGS);
      check(out.rules >= 80, `${what}: axe ran (${out.rules} rules)`);
      const bad = out.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      const all = out.violations.map((v) => `  ${v.id} (${v.impact}): ${v.help}: ${v.nodes.slice(0, 4).join(', ')}`).join('\n');
      if (out.violations.length) console.log(`${what}: axe says\n${all}`);
      check(bad.length === 0, `${what}: no serious or critical axe violation`);
    };
    // Nothing wider than the window; the board, its strips and the game's card in the first screen.
    const layout = async (page, what, sels) => {
      const size = page.size;
      const wide = await page.evaluate(() => document.documentElement.scrollWidth);
      check(wide <= size.width, `${page.who} (${size.name}), ${what}: nothing wider than the window (${wide} px)`);
      for (const sel of sels) {
        const b = await page.locator(sel).first().boundingBox();
        check(b && b.x >= 0 && b.y >= 0 && b.x + b.width <= size.width + 0.5 && b.y + b.height <= size.height + 0.5,
          `${page.who} (${size.name}), ${what}: ${sel} is in the first screen (${JSON.stringify(b)})`);
      }
      const spilt = await page.$$eval('button', (bs) => bs.filter((b) => b.getClientRects().length && b.scrollWidth > b.clientWidth + 1)
        .map((b) => `${b.id || b.className}: ${b.textContent.trim()}`));
      check(spilt.length === 0, `${page.who}, ${what}: every button holds its words (${spilt.join('; ')})`);
    };
    const openLobby = async (page) => {
      await page.goto(URL_);
      await until(page, () => document.querySelector('#status')?.getAttribute('data-turn'));
      await page.click('#online-open');
      await until(page, () => document.querySelector('#lobby')?.hidden === false && /\S/.test(document.querySelector('#acct-who').textContent) &&
        !document.querySelector('#acct-who').textContent.includes('…'));
    };

    // ---- the lobby: a guest each; A picks a name ----
    const A = await person('A', DESKTOP, 'en');
    const B = await person('B', PHONE, 'ne');
    // B left the puzzles open on the board: they wait while B plays.
    await B.context().addInitScript(() => { if (!localStorage.getItem('baghchal.puzzles')) localStorage.setItem('baghchal.puzzles', '{"open":true}'); });
    await openLobby(A);
    check(/^Guest-/.test(await text(A, '#acct-who strong')), `A is a guest at the first visit (${await text(A, '#acct-who')})`);
    check(await A.evaluate(() => typeof JSON.parse(localStorage.getItem('baghchal.online')).token === 'string'), 'A\'s token is kept in localStorage');
    check(await A.isDisabled('#seek-rated'), 'a guest cannot ask for a rated game');
    await A.click('#acct-name');
    await A.fill('#acct-user', 'Alice');
    await A.fill('#acct-pass', 'a secret of Alice');
    await A.click('#acct-submit');
    await until(A, () => document.querySelector('#acct-who strong')?.textContent === 'Alice');
    check(!(await A.isDisabled('#seek-rated')), 'a named player may ask for a rated game');
    await openLobby(B);
    check(await B.getAttribute('html', 'lang') === 'ne', 'B reads Nepali');
    check(await text(B, '#lobby-title') === 'अनलाइन खेल्नुहोस्', `B's lobby in Nepali (${await text(B, '#lobby-title')})`);
    await until(A, () => /2 players online/.test(document.querySelector('#lobby-count').textContent));
    check((await A.$$eval('#lobby-players .lobby-name', (es) => es.map((e) => e.textContent))).includes('Alice'), 'the players online list Alice');

    // ---- a seek shown, then cancelled, in the other lobby without a reload ----
    await A.selectOption('#seek-side', 'tigers');
    await A.selectOption('#seek-tc', '1+0');
    await A.click('#seek-create');
    await until(A, () => document.querySelectorAll('#seeks li.own').length === 1);
    check(await text(A, '#seeks li.own button') === 'Cancel', 'A\'s own seek has a Cancel button');
    let at = Date.now();
    await until(B, () => document.querySelectorAll('#seeks li:not(.own)').length === 1, null, 3000);
    const shownIn = Date.now() - at;
    check(shownIn < 1500, `the seek is in B's lobby within a second (${shownIn} ms)`);
    const row = await text(B, '#seeks li');
    check(row.includes('Alice') && row.includes('1+0') && row.includes('तपाईं बाख्रा') && row.includes('दोहोर्‍याउन नपाइने') && row.includes('अनौपचारिक'),
      `B sees the seek's player, clock, side, rule and mode (${row})`);
    await audit(A, 'A, desktop, the lobby');
    await audit(B, 'B, phone, Nepali, the lobby');
    await layout(A, 'the lobby', ['#seek-create', '#seeks', '#lobby-games']);
    await layout(B, 'the lobby', ['#online-open', '#seek-create']);
    await shot(A, 'lobby-desktop');
    await shot(B, 'lobby-phone-ne');
    at = Date.now();
    await A.click('#seeks li.own button');
    await until(B, () => document.querySelectorAll('#seeks li').length === 0, null, 3000);
    check(Date.now() - at < 1500, `the cancelled seek leaves B's lobby within a second (${Date.now() - at} ms)`);

    // ---- the game: A's seek (goats, 2+1) accepted by B; both land in it; C watches ----
    await A.selectOption('#seek-side', 'goats');
    await A.selectOption('#seek-tc', '2+1');
    await A.selectOption('#seek-rule', 'draw');
    await A.click('#seek-create');
    await until(B, () => document.querySelectorAll('#seeks li:not(.own)').length === 1, null, 3000);
    check((await text(B, '#seeks li')).includes('2+1') && (await text(B, '#seeks li')).includes('तेस्रो दोहोर्‍याइमा बराबरी'), 'the new seek, 2+1, the draw rule');
    await B.click('#seeks li button');
    await until(B, () => /[?&]game=/.test(location.search) && document.querySelector('#online-card')?.getAttribute('data-status') === 'started');
    await until(A, () => /[?&]game=/.test(location.search) && document.querySelector('#online-card')?.getAttribute('data-status') === 'started');
    const gameUrl = A.url();
    check(B.url() === gameUrl, `both are in the same game (${gameUrl})`);
    check(await A.getAttribute('#online-card', 'data-seat') === 'goats' && await B.getAttribute('#online-card', 'data-seat') === 'tigers',
      'A plays goats, B tigers');
    check(await A.evaluate(() => !Board.state.flipped) && await B.evaluate(() => Board.state.flipped), 'each has its side at the bottom');
    check((await text(A, '#player-bottom')).includes('Alice') && (await text(A, '#player-top')).includes('Guest-'), 'the strips name the players');
    check(await text(A, '#online-status') === 'Your turn' && await text(B, '#online-status') === 'Alice को प्रतीक्षामा',
      `whose turn, in each language (${await text(A, '#online-status')} / ${await text(B, '#online-status')})`);
    check(await A.isVisible('#online-abort') && !(await A.isVisible('#online-resign')), 'Abort before the second move, not Resign');

    const C = await person('C', DESKTOP, 'en');
    await openLobby(C);
    await until(C, () => document.querySelectorAll('#lobby-games a').length === 1);
    check((await text(C, '#lobby-games a')).includes('Alice'), 'the game is in the lobby\'s list');
    // C reads the light theme: the lobby with a game's clocks, then the game.
    await C.click('#theme');
    check(await C.getAttribute('html', 'data-theme') === 'light', 'C switched to the light theme');
    await audit(C, 'C, desktop, light, the lobby with a game being played');
    await C.click('#lobby-games a');
    await until(C, () => document.querySelector('#online-card')?.getAttribute('data-status') === 'started');
    check(await C.getAttribute('#online-card', 'data-seat') === 'none' && (await text(C, '#online-status')).includes('Alice'), 'C watches');

    // ---- moves: each on the other pages; nothing out of turn ----
    const play = async (mover, points, n) => {
      // Each point once the board offers it, as a person clicks: the opponent's move shows
      // before its position's legal moves have come, and a click then plays nothing.
      for (const p of points) {
        await until(mover, (q) => document.querySelector(`#board .hit[data-point="${q}"]`)?.classList.contains('clickable'), p);
        await mover.click(`[data-point="${p}"]`);
      }
      for (const page of [A, B, C]) {
        await until(page, (want) => document.querySelectorAll('#moves .mv[data-ply]').length === want &&
          Number(document.querySelector('#online-card').getAttribute('data-plies')) === want, n);
      }
      const [a, b, c] = [await obx(A), await obx(B), await obx(C)];
      check(a === b && b === c, `move ${n} (${points.join('')}) is the same on the three pages (${a} / ${b} / ${c})`);
    };
    check(await B.locator('#board .hit.clickable').count() === 0, 'B (tigers) has nothing to click on the goats\' turn');
    await B.click('[data-point="A1"]');
    await B.click('[data-point="A2"]');
    await B.waitForTimeout(300);
    check(await moves(B) === 0 && await moves(A) === 0, 'a move out of turn is not played');
    check(await C.locator('#board .hit.clickable').count() === 0, 'the spectator has nothing to click');
    await play(A, ['C3'], 1);
    await play(B, ['A1', 'A2'], 2);
    check(await A.locator('#clock-goats.running').count() === 1 && await C.locator('#clock-goats.running').count() === 1,
      'the goats\' clock runs once each side has moved');
    // A move the server refuses is taken back, with the server's words.
    await A.route('**/api/board/game/*/move/**', (route) => route.fulfill({ status: 409, contentType: 'application/json',
      body: JSON.stringify({ error: "it is the tigers' turn", code: 'not-your-turn' }) }), { times: 1 });
    await A.click('[data-point="B3"]');
    await until(A, () => document.querySelector('#online-error').textContent !== '' &&
      document.querySelectorAll('#moves .mv[data-ply]').length === 2 && document.querySelectorAll('#board .hit.clickable').length > 0);
    check(await text(A, '#online-error') === "it is the tigers' turn" && await moves(B) === 2 && await moves(C) === 2,
      `a refused move is taken back, the server's reason shown (${await text(A, '#online-error')})`);
    await play(A, ['B3'], 3);
    check(await text(A, '#online-error') === '', 'the reason goes with the next move');
    // A quick reply: A clicks D3 as soon as B's move shows, before the new position's legal
    // moves have come from the server (held here); the click is kept and played when they come.
    let releaseLegal;
    const legalHeld = new Promise((r) => { releaseLegal = r; });
    let heldLegal = 0;
    await A.route('**/legal', async (route) => { heldLegal++; await legalHeld; await route.continue(); });
    await play(B, ['E1', 'E2'], 4);
    check(heldLegal > 0 && await A.locator('#board .hit.clickable').count() === 0,
      'A sees B\'s move before its position\'s legal moves have come');
    await A.click('[data-point="D3"]');
    await A.waitForTimeout(200);
    check(await moves(A) === 4, 'the click waits for the legal moves');
    releaseLegal();
    for (const page of [A, B, C]) {
      await until(page, () => document.querySelectorAll('#moves .mv[data-ply]').length === 5 &&
        Number(document.querySelector('#online-card').getAttribute('data-plies')) === 5);
    }
    await A.unroute('**/legal');
    check(await obx(A) === await obx(B) && await obx(B) === await obx(C) && /D3/.test(await text(A, '#moves .mv[data-ply="5"]')),
      `the click made before the legal moves came is played: ${await text(A, '#moves .mv[data-ply="5"]')}`);
    check(await A.isVisible('#online-resign') && !(await A.isVisible('#online-abort')), 'Resign after the second move, no Abort');

    // A draw offered (the draw rule) and declined.
    await A.click('#online-draw');
    await until(B, () => !document.querySelector('#online-yes').hidden);
    await until(C, () => document.querySelector('#online-offer').hidden === false);
    check((await text(B, '#online-offer-text')) === 'Alice बराबरीको प्रस्ताव गर्छन्।' && (await text(C, '#online-offer-text')) === 'Alice offers a draw.' &&
      !(await C.isVisible('#online-yes')), 'the draw offer, to the opponent and the spectator');
    check((await text(A, '#online-draw')) === 'Withdraw the draw offer', 'the offerer may withdraw it');
    await B.click('#online-no');
    await until(A, () => document.querySelector('#online-offer').hidden && document.querySelector('#online-draw').textContent === 'Offer a draw');
    // Each page hears of it on its own stream, B's maybe a moment after A's.
    await until(B, () => document.querySelector('#online-offer').hidden);
    check(await B.evaluate(() => document.querySelector('#online-offer').hidden), 'declined');

    // The chat: text as text, on the other pages.
    await B.fill('#chat-text', 'नमस्ते <b>Alice</b>');
    await B.click('#chat-send');
    for (const page of [A, C]) await until(page, () => document.querySelectorAll('#chat-lines .chat-line').length === 1);
    check((await text(A, '#chat-lines .chat-line')).includes('नमस्ते <b>Alice</b>') && await A.locator('#chat-lines b').count() === 0,
      'a chat line is shown as text');
    check(!(await C.isVisible('#chat-form')), 'a spectator does not write in the chat');

    // A takeback: asked by B after its move, accepted by A.
    await play(B, ['A2', 'A1'], 6);
    await B.click('#online-takeback');
    await until(A, () => !document.querySelector('#online-offer').hidden && !document.querySelector('#online-yes').hidden);
    check((await text(A, '#online-offer-text')).includes('asks to take a move back'), `A is asked (${await text(A, '#online-offer-text')})`);
    await A.click('#online-yes');
    for (const page of [A, B, C]) await until(page, () => document.querySelectorAll('#moves .mv[data-ply]').length === 5);
    check(await obx(A) === await obx(B) && await obx(B) === await obx(C), 'the move is taken back on the three pages');
    await audit(A, 'A, desktop, the game');
    await audit(B, 'B, phone, Nepali, the game');
    await layout(A, 'the game', ['#board', '#player-top', '#player-bottom', '#online-card', '#online-resign', '#moves-card']);
    await layout(B, 'the game', ['#board', '#player-top', '#player-bottom', '#online-status']);
    check(await B.evaluate(() => document.body.classList.contains('puzzling')) && !(await B.isVisible('#puzzles')) &&
      await B.isVisible('#online-card') && await B.isVisible('#moves-card'), 'the puzzles left open wait: the game\'s column shows, not them');
    await shot(A, 'game-desktop');
    await shot(B, 'game-phone-ne');

    // ---- B reloads: the same position and clocks, and plays on ----
    const before = await obx(B);
    await B.reload();
    await until(B, () => document.querySelector('#online-card')?.getAttribute('data-status') === 'started' &&
      document.querySelectorAll('#moves .mv[data-ply]').length === 5 && document.querySelectorAll('#board .hit.clickable').length > 0);
    check(await obx(B) === before, 'after the reload, the same position');
    const clocks = async (page) => page.evaluate(() => ['goats', 'tigers'].map((s) => Number(document.querySelector(`#clock-${s}`).getAttribute('data-ms'))));
    const [ca, cb] = [await clocks(A), await clocks(B)];
    check(Math.abs(ca[0] - cb[0]) < 1500 && Math.abs(ca[1] - cb[1]) < 1500, `after the reload, the same clocks (A ${ca}, B ${cb})`);
    check(await B.locator('#clock-tigers.running').count() === 1 && cb[1] < 120000 + 3000, 'the tigers\' clock runs on');
    await play(B, ['E2', 'E1'], 6);

    // ---- B resigns; the three pages say so; the link opens the finished game ----
    await B.click('#online-resign');
    check((await text(B, '#online-resign')) === 'हार मान्ने पक्का?', 'Resign asks to confirm');
    await B.click('#online-resign');
    for (const page of [A, B, C]) await until(page, () => document.querySelector('#online-card').getAttribute('data-status') === 'resign');
    check((await text(A, '#result-title')) === 'Goats win' && (await text(A, '#result-reason')) === 'The tigers resigned',
      `A sees the result (${await text(A, '#result-banner')})`);
    check((await text(B, '#result-title')) === 'बाख्राको जित' && (await text(B, '#online-status')).includes('बाघले हार माने'),
      `B sees it in Nepali (${await text(B, '#result-banner')} / ${await text(B, '#online-status')})`);
    check((await text(C, '#online-status')) === 'Goats win · the tigers resigned', `C sees it (${await text(C, '#online-status')})`);
    check(await A.isVisible('#online-rematch') && await A.isVisible('#online-review') && await A.inputValue('#online-link') === gameUrl,
      'after the end: Rematch, Review and the game\'s link');
    check(await A.locator('#board .hit.clickable').count() === 0, 'no move after the end');
    await audit(C, 'C, desktop, light, a finished game');
    await shot(A, 'finished-desktop');
    await shot(B, 'finished-phone-ne');
    const D = await person('D', PHONE, 'en');
    await D.goto(gameUrl);
    await until(D, () => document.querySelector('#online-card')?.getAttribute('data-status') === 'resign' &&
      document.querySelectorAll('#moves .mv[data-ply]').length === 6);
    check(await obx(D) === await obx(A) && (await text(D, '#result-title')) === 'Goats win', 'the finished game opens from its link');
    check(await D.getAttribute('#online-card', 'data-seat') === 'none' && !(await D.isVisible('#online-rematch')), 'for a visitor, read-only');
    await layout(D, 'a finished game', ['#board', '#online-status']);
    // Alice's name and password from another browser.
    await D.click('#online-open');
    await until(D, () => document.querySelector('#lobby')?.hidden === false && /^Guest-/.test(document.querySelector('#acct-who strong')?.textContent || ''));
    await D.click('#acct-login');
    await D.fill('#acct-user', 'Alice');
    await D.fill('#acct-pass', 'a wrong password');
    await D.click('#acct-submit');
    await until(D, () => document.querySelector('#acct-error').textContent !== '');
    check(await text(D, '#acct-error') === 'wrong name or password', `a wrong password refused (${await text(D, '#acct-error')})`);
    await D.fill('#acct-pass', 'a secret of Alice');
    await D.click('#acct-submit');
    await until(D, () => document.querySelector('#acct-who strong')?.textContent === 'Alice');
    check(await D.isVisible('#acct-out') && !(await D.isVisible('#acct-name')), 'signed in as Alice: Sign out, no name to pick');
    await D.context().close();

    // ---- a rematch: both go to the new game, sides swapped; A aborts it ----
    const rematch = async (offerer, taker, old) => {
      await offerer.click('#online-rematch');
      await until(taker, () => !document.querySelector('#online-yes').hidden);
      check((await text(taker, '#online-offer-text')).length > 0, `the rematch offered (${await text(taker, '#online-offer-text')})`);
      await taker.click('#online-yes');
      for (const page of [A, B]) {
        await until(page, (was) => location.href !== was && document.querySelector('#online-card')?.getAttribute('data-status') === 'started', old);
      }
      check(A.url() === B.url(), 'the rematch: both in the same new game');
      return A.url();
    };
    const game2 = await rematch(A, B, gameUrl);
    check(await A.getAttribute('#online-card', 'data-seat') === 'tigers', 'the rematch swaps the sides');
    await A.click('#online-abort');
    for (const page of [A, B]) await until(page, () => document.querySelector('#online-card').getAttribute('data-status') === 'aborted');
    check((await text(A, '#result-title')) === 'Game aborted' && (await text(B, '#result-title')) === 'खेल रद्द', `the abort said (${await text(A, '#result-banner')})`);

    // ---- once more; B leaves the game and A claims the win ----
    await rematch(B, A, game2);
    check(await A.getAttribute('#online-card', 'data-seat') === 'goats', 'the sides swapped again');
    await A.click('[data-point="C3"]');
    await until(B, () => document.querySelectorAll('#moves .mv[data-ply]').length === 1 && document.querySelectorAll('#board .hit.clickable').length > 0);
    await B.click('[data-point="A1"]');
    await B.click('[data-point="A2"]');
    await until(A, () => document.querySelectorAll('#moves .mv[data-ply]').length === 2);
    await B.goto(URL_);
    await until(A, () => /left the game/.test(document.querySelector('#online-note').textContent));
    await until(A, () => !document.querySelector('#online-claim').hidden, null, 10000);
    await A.click('#online-claim');
    await until(A, () => document.querySelector('#online-card').getAttribute('data-status') === 'timeout');
    check((await text(A, '#result-title')) === 'Goats win' && (await text(A, '#result-reason')) === 'The tigers left the game',
      `the win claimed (${await text(A, '#result-banner')})`);

    // ---- a link for a friend, on a clock of three seconds: B follows it; the goats' flag falls ----
    await A.click('#online-lobby');
    await until(A, () => document.querySelector('#lobby')?.hidden === false && document.querySelector('#acct-who strong')?.textContent === 'Alice');
    await A.selectOption('#seek-side', 'goats');
    await A.selectOption('#seek-tc', 'custom');
    await A.fill('#seek-min', '0.05');
    await A.fill('#seek-inc', '0');
    await A.click('#seek-friend');
    await until(A, () => document.querySelector('#friend-box')?.hidden === false && /[?&]challenge=/.test(document.querySelector('#friend-url').value));
    const link = await A.inputValue('#friend-url');
    check(link.startsWith(URL_) && await A.locator('#seeks li').count() === 0, `the friend's link (${link}), not in the lobby`);
    await B.goto(link);
    for (const page of [A, B]) await until(page, () => document.querySelector('#online-card')?.getAttribute('data-status') === 'started');
    check(A.url() === B.url() && (await text(A, '#online-meta')).startsWith('0.05+0'), `the link started the game for both (${await text(A, '#online-meta')})`);
    await A.click('[data-point="C3"]');
    await until(B, () => document.querySelectorAll('#board .hit.clickable').length > 0 && document.querySelectorAll('#moves .mv[data-ply]').length === 1);
    await B.click('[data-point="A1"]');
    await B.click('[data-point="A2"]');
    for (const page of [A, B]) await until(page, () => document.querySelector('#online-card').getAttribute('data-status') === 'outoftime', null, 10000);
    check((await text(A, '#result-title')) === 'Tigers win' && (await text(A, '#result-reason')) === "The goats' time ran out",
      `the flag fell (${await text(A, '#result-banner')})`);
    check((await text(B, '#result-title')) === 'बाघको जित', `B sees it in Nepali (${await text(B, '#result-banner')})`);
    check(await A.locator('#clock-goats.flagged').count() === 1 && (await text(A, '#clock-goats')) === '0:00.0', 'the goats\' clock shows the flag');
    check(await B.evaluate(() => [...I18N.missing]).then((m) => m.length === 0), 'B asked for no text without its Nepali');
    await shot(A, 'flag-desktop');

    // ---- the review of the finished game, on the board ----
    await A.click('#online-review');
    await until(A, () => !document.body.classList.contains('online') && /[?&]obx=/.test(location.search) &&
      document.querySelector('#review')?.hidden === false && document.querySelectorAll('#moves .mv[data-ply]').length === 2, null, 30000);
    check(await A.isVisible('.engine') && !(await A.isVisible('#online-card')) && !(await A.isVisible('#online-chat')),
      'Review: the board\'s own tools, the game in them');
    await shot(A, 'review-desktop');

    check(problems.length === 0, `no console errors or outside requests:\n${problems.join('\n')}`);
  } catch (e) {
    for (const p of pages) await p.screenshot({ path: path.join(SHOTS, `lobby-failure-${p.who}.png`) }).catch(() => {});
    if (problems.length) console.error(problems.join('\n'));
    throw e;
  } finally {
    await browser.close();
    server.proc.kill('SIGTERM');
    fs.rmSync(dir, { recursive: true, force: true });
  }
  console.log(`browser lobby: ${checks} checks passed in ${((Date.now() - t0) / 1000).toFixed(1)} s; screenshots in ${SHOTS}: lobby-*.png`);
}

main().catch((e) => {
  console.error(`FAIL: ${e.stack || e.message}`);
  process.exit(1);
});
