// The game review and "learn from your mistakes" (review.js) in Chromium, at 1280x800 and at a
// 390x844 phone. The marks the page must show are worked out here, apart from the page, from the
// server's /analysis of the position before every move (the database's values, under the
// game's rule and history): a movement-phase game with known mistakes under the draw rule gets
// exactly those plies marked, the better moves named, each side's count of moves that kept the
// value and its accuracy as lichess computes it from the win chances; a game of best moves gets
// no mark and 100%; under forbid an open value is judged by the engine's estimate, said so, and
// a proven win given up is ??; a win in one missed is ?? under either rule; without a database
// the panel says "engine estimate". Learning: a wrong try refused, a right
// one accepted, "Show solution", and the summary. Screenshots review-*.png in SHOT_DIR.
// Needs BOARD_TB=1 (the server started with the movement database) for the exact parts.
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { chromium } = require('playwright-core');

const URL_ = process.env.BOARD_URL;
const SHOTS = process.env.SHOT_DIR || '.';
const TB = Number(process.env.BOARD_TB || 0) > 0;
const STEP_MS = 30000;
const SIZES = [{ width: 1280, height: 800, name: 'desktop' }, { width: 390, height: 844, name: 'phone' }];
const START = 'GTGGG/TGXGT/GXGXG/GGTGG/GGXGG g @0 c3 - -';
// From START under the draw rule: ply 3 (goats) throws the draw to a loss, ply 8 (tigers) a win to a draw.
const DRAW_GAME = 'C1C2,B1B3,D4D3,C4D4,C3C4,B3C3,A1B1,C3B2,D1C1,A2A1,C4C3,A1A2,C1D1,A2A1,B1C1,A1B1'.split(',');
// From START under forbid: ply 4 goes from open to a loss (proves nothing), ply 5 from a win to a loss.
const FORBID_GAME = 'B2C2,B1B2,A1B1,B2A1,C2B2,E2C2,B2B3,C2D2,C3D3,C4C5,E1E2,A2B2'.split(',');

let checks = 0;
function check(cond, msg) { assert.ok(cond, msg); checks++; }

async function analysis(obx, moves, rule) {
  const res = await fetch(new URL('/analysis', URL_), { method: 'POST', body: JSON.stringify({ obx, moves, repetition: rule }) });
  assert.equal(res.status, 200, `/analysis ${res.status}`);
  return res.json();
}

// What the page should say of a game, from /analysis alone: per ply the mark and the moves that
// keep the value; per side the moves counted (a choice that mattered, both values known) and kept.
async function expected(obx, moves, rule) {
  const RANK = { win: 2, draw: 1, loss: 0 };
  const cls = (m) => (m.wdl === 'win' || m.wdl === 'loss' || (m.wdl === 'draw' && rule === 'draw') ? m.wdl : 'open');
  const out = { marks: [], open: 0, openPlies: [], chances: [],
    sides: { goats: { counted: 0, kept: 0 }, tigers: { counted: 0, kept: 0 } } };
  const WC = { win: 1, draw: 0.5, loss: 0 };
  const atOnce = (m) => m.wdl === 'win' && m.distance === 1;
  for (let i = 0; i < moves.length; i++) {
    const d = await analysis(obx, moves.slice(0, i), rule);
    assert.equal(d.source, 'database', `ply ${i + 1} is in the database`);
    const me = d.moves.find((m) => m.move.replace(/^m/, '').replace(/\(.*\)$/, '') === moves[i]);
    assert.ok(me, `ply ${i + 1}: ${moves[i]} is legal`);
    const before = cls(d.moves[0]);
    const after = cls(me);
    // A win in one missed, and (under forbid) a proven win given up for an open value: ??.
    const missed = atOnce(d.moves[0]) && !atOnce(me);
    if (missed || (before === 'win' && after === 'open')) {
      const keep = d.moves.filter((m) => (missed ? atOnce(m) : cls(m) === 'win')).map((m) => m.move);
      out.marks.push({ ply: i + 1, mark: '??', why: missed ? 'win-in-1' : 'thrown-win', best: [...keep].sort(), shown: keep.slice(0, 4).map(pretty) });
      out.sides[d.turn].counted++;
      if (after === 'open') { out.open++; out.openPlies.push(i + 1); } else out.chances.push({ side: d.turn, before: WC[before], after: WC[after] });
      continue;
    }
    if (before === 'open' || after === 'open') { out.open++; out.openPlies.push(i + 1); continue; }
    out.chances.push({ side: d.turn, before: WC[before], after: WC[after] });
    const drop = RANK[before] - RANK[after];
    if (drop > 0) {
      const keep = d.moves.filter((m) => cls(m) === before).map((m) => m.move);
      out.marks.push({ ply: i + 1, mark: drop === 2 ? '??' : '?', best: [...keep].sort(), shown: keep.slice(0, 4).map(pretty) });
    }
    if (d.moves.some((m) => cls(m) !== before)) {
      const s = out.sides[d.turn];
      s.counted++;
      if (!drop) s.kept++;
    }
  }
  return out;
}

// lichess's accuracy (lila's AccuracyPercent) of each side from the win chances (0..1) before
// and after each move for the side that made it, in the order of the game.
function lichessAccuracy(plies) {
  const move = (b, a) => (a >= b ? 100 : Math.min(100, Math.max(0, 103.1668100711649 * Math.exp(-0.04354415386753951 * (b - a)) - 3.166924740191411 + 1)));
  const g = (p, v) => 100 * (p.side === 'goats' ? v : 1 - v);
  const series = plies.length ? [g(plies[0], plies[0].before), ...plies.map((p) => g(p, p.after))] : [];
  const size = Math.min(8, Math.max(2, Math.floor(plies.length / 10)));
  const wins = [];
  for (let i = 0; i < Math.min(size, series.length) - 2; i++) wins.push(series.slice(0, size));
  for (let i = 0; i + size <= series.length; i++) wins.push(series.slice(i, i + size));
  const weights = wins.map((w) => {
    const m = w.reduce((a, b) => a + b, 0) / w.length;
    return Math.min(12, Math.max(0.5, Math.sqrt(w.reduce((a, b) => a + (b - m) ** 2, 0) / w.length)));
  });
  const out = {};
  for (const side of ['goats', 'tigers']) {
    const xs = plies.map((p, i) => [p, weights[i]]).filter(([p]) => p.side === side).map(([p, w]) => [move(100 * p.before, 100 * p.after), w]);
    out[side] = xs.length ? String(Math.round(((xs.reduce((a, [v, w]) => a + v * w, 0) / xs.reduce((a, [, w]) => a + w, 0)) +
      xs.length / xs.reduce((a, [v]) => a + 1 / Math.max(1, v), 0)) / 2)) : '';
  }
  return out;
}

// A move as the page writes it: C3, A1–B2, A1×C3.
function pretty(move) {
  const m = /^m?([A-E][1-5])([A-E][1-5])?(\(([A-E][1-5])\))?$/.exec(move);
  return !m[2] ? m[1] : m[3] ? `${m[1]}×${m[2]}` : `${m[1]}–${m[2]}`;
}

function address(obx, moves, rule) {
  const q = new URLSearchParams({ obx });
  if (moves.length) q.set('moves', moves.join(','));
  if (rule === 'draw') q.set('rule', 'draw');
  return new URL(`/?${q}`, URL_).href;
}

function inside(box, vp) {
  return Boolean(box) && box.x >= 0 && box.y >= 0 && box.x + box.width <= vp.width + 0.5 && box.y + box.height <= vp.height + 0.5;
}

// Opens a game, as two players (so the engine plays no move in it), and reviews it.
async function review(page, obx, moves, rule) {
  await page.goto(address(obx, moves, rule));
  await page.waitForFunction((n) => document.querySelectorAll('#moves .mv[data-ply]').length === n &&
    /to move/.test(document.querySelector('#status').textContent), moves.length, { timeout: STEP_MS });
  if (!((await page.getAttribute('#mode-human', 'class')) || '').includes('active')) await page.click('#mode-human');
  await page.click('#review-open');
  await page.waitForFunction(() => document.querySelector('#review-progress').hidden &&
    document.querySelectorAll('#review-acc .acc-row').length === 2, null, { timeout: 120000 });
  return page.evaluate(() => ({
    source: document.querySelector('#review-source').getAttribute('data-source'),
    sourceText: document.querySelector('#review-source').textContent,
    note: document.querySelector('#review-note').textContent,
    estimated: document.querySelector('#review-note .review-estimate')?.getAttribute('data-plies') || '',
    marks: [...document.querySelectorAll('#review-list .review-move')].map((b) => ({ ply: Number(b.dataset.ply), mark: b.dataset.mark,
      best: b.dataset.best.split(',').filter(Boolean).sort(), text: b.textContent, estimate: b.dataset.estimate === 'true',
      why: b.querySelector('.review-change').dataset.why })),
    graph: [...document.querySelectorAll('#evalgraph .review-marker')].map((c) => `${c.dataset.ply}${c.dataset.mark}`),
    sides: Object.fromEntries([...document.querySelectorAll('#review-acc .acc-row')].map((r) => [r.dataset.side,
      { accuracy: r.dataset.accuracy, counted: Number(r.dataset.counted), kept: Number(r.dataset.kept), text: r.textContent }])),
    none: document.querySelector('#review-list .review-none')?.textContent || '',
    // The plies whose open value the engine's estimate judged, with their side and mark.
    estimatedPlies: JSON.parse(document.querySelector('#review-note .review-open-estimate')?.dataset.plies || '[]'),
  }));
}

// The page's marks, less those the engine's estimate gave to plies whose exact value is open
// (a search's, not the database's: checked apart, in checkEstimated).
function checkAgainst(gotAll, want, what) {
  const exactMark = (m) => !want.openPlies.includes(m.ply) || want.marks.some((w) => w.ply === m.ply);
  const got = { ...gotAll, marks: gotAll.marks.filter(exactMark), graph: gotAll.graph.filter((g) => exactMark({ ply: parseInt(g, 10) })) };
  check(JSON.stringify(got.marks.map((m) => [m.ply, m.mark])) === JSON.stringify(want.marks.map((m) => [m.ply, m.mark])),
    `${what}: the marked plies ${JSON.stringify(got.marks.map((m) => [m.ply, m.mark]))}, expected ${JSON.stringify(want.marks.map((m) => [m.ply, m.mark]))}`);
  want.marks.forEach((m, i) => check(JSON.stringify(got.marks[i].best) === JSON.stringify(m.best),
    `${what}: ply ${m.ply} names the moves that keep the value ${JSON.stringify(m.best)}, got ${JSON.stringify(got.marks[i].best)}`));
  // On the screen: the first four of them, best first, and how many more.
  want.marks.forEach((m, i) => {
    const text = `better: ${m.shown.join(', ')}${m.best.length > 4 ? ` +${m.best.length - 4}` : ''}`;
    check(got.marks[i].text.endsWith(text), `${what}: ply ${m.ply}'s row says "${text}": ${got.marks[i].text}`);
  });
  check(JSON.stringify(got.graph) === JSON.stringify(want.marks.map((m) => `${m.ply}${m.mark}`)),
    `${what}: the graph marks those plies: ${JSON.stringify(got.graph)}`);
  // The count beside the accuracy: the exact moves as worked out here, and each estimated one
  // (counted; kept when it has no mark). The accuracy: lichess's, from the win chances, where
  // every value is exact; with estimates, a figure within 0..100.
  const acc = lichessAccuracy(want.chances);
  for (const side of ['goats', 'tigers']) {
    const w = want.sides[side];
    const g = got.sides[side];
    const est = gotAll.estimatedPlies.filter((e) => e.side === side && !want.marks.some((m) => m.ply === e.ply));
    const counted = w.counted + est.length;
    const kept = w.kept + est.filter((e) => !e.mark).length;
    const pct = want.openPlies.length ? g.accuracy : acc[side];
    check(g.counted === counted && g.kept === kept && g.accuracy === pct && (pct === '' || (Number(pct) >= 0 && Number(pct) <= 100)),
      `${what}: ${side}' accuracy ${g.accuracy}% (${g.kept} of ${g.counted}), expected ${pct}% (${kept} of ${counted})`);
  }
}

async function main() {
  assert.ok(URL_, 'BOARD_URL is not set');
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'baghchal-review-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = context.pages()[0] || await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  try {
    if (!TB) {
      // No database: the movement game is searched, and the panel says so.
      const got = await review(page, START, DRAW_GAME.slice(0, 6), 'draw');
      check(got.source === 'estimate' && /engine estimate/.test(got.sourceText) && got.estimated === '1,2,3,4,5,6',
        `without a database the review is an engine estimate of plies 1-6: ${JSON.stringify(got)}`);
      await page.screenshot({ path: path.join(SHOTS, 'review-estimate.png') });
      console.log(`review: ${checks} checks passed (no database: only the engine estimate was checked)`);
      return;
    }
    const wantDraw = await expected(START, DRAW_GAME, 'draw');
    check(wantDraw.marks.length === 2, `the draw-rule game has two mistakes: ${JSON.stringify(wantDraw.marks)}`);
    for (const vp of SIZES) {
      await page.setViewportSize({ width: vp.width, height: vp.height });
      const got = await review(page, START, DRAW_GAME, 'draw');
      check(got.source === 'exact' && got.estimated === '', `${vp.name}: the review is exact: ${got.sourceText}`);
      checkAgainst(got, wantDraw, `${vp.name}, draw rule`);
      for (const sel of ['#review', '#board', '#evalgraph', '#review-list']) {
        check(inside(await page.locator(sel).boundingBox(), vp), `${vp.name}: ${sel} is inside the window`);
      }
      if (vp.name === 'desktop') {
        for (const sel of ['#moves-card', '#controls']) check(inside(await page.locator(sel).boundingBox(), vp), `${vp.name}: ${sel} stays in view`);
      }
      await page.screenshot({ path: path.join(SHOTS, `review-${vp.name}.png`) });
      if (vp.name === 'desktop') {
        // Kept with the game: after a reload the marks come back without a request.
        await page.reload();
        await page.waitForFunction((n) => document.querySelectorAll('#moves .mv[data-ply]').length === n &&
          /to move/.test(document.querySelector('#status').textContent), DRAW_GAME.length, { timeout: STEP_MS });
        const kept = await page.evaluate(() => {
          const asked = [];
          const f = window.fetch;
          window.fetch = (u, i) => { asked.push(String(u)); return f(u, i); };
          document.querySelector('#review-open').click();
          return new Promise((r) => setTimeout(() => r({ asked: asked.filter((u) => u.includes('/analysis')).length,
            marks: [...document.querySelectorAll('#review-list .review-move')].map((x) => x.dataset.ply + x.dataset.mark) }), 500));
        });
        check(kept.asked === 0 && JSON.stringify(kept.marks) === JSON.stringify(wantDraw.marks.map((m) => `${m.ply}${m.mark}`)),
          `the review is kept with the game: ${JSON.stringify(kept)}`);
      }
      // A click on a mark goes to that move.
      await page.click('#review-list .review-move[data-ply="8"]');
      await page.waitForFunction(() => document.querySelector('#status').getAttribute('data-ply') === '8', null, { timeout: STEP_MS });
      check(true, `${vp.name}: a mark's row shows its move`);

      // Learning from the mistakes of both sides (two players): ply 3, then ply 8.
      await page.click('#learn-start');
      await page.waitForFunction(() => document.querySelector('#status').getAttribute('data-ply') === '2' &&
        document.querySelectorAll('#board .hit.clickable').length > 0, null, { timeout: STEP_MS });
      const prompt = await page.textContent('#learn-prompt');
      check(/^1 of 2: Goats played 2\. D4–D3\?/.test(prompt), `${vp.name}: the first position to learn from: ${prompt}`);
      // The move played in the game is a wrong try: refused, nothing played.
      await page.click('[data-point="D4"]');
      await page.click('[data-point="D3"]');
      await page.waitForFunction(() => document.querySelector('#learn-feedback').dataset.kind === 'wrong', null, { timeout: STEP_MS });
      check(/D4–D3 does not keep the draw/.test(await page.textContent('#learn-feedback')), `${vp.name}: a wrong try says so`);
      check(await page.getAttribute('#status', 'data-ply') === '2' && await page.locator('#moves .mv[data-ply]').count() === DRAW_GAME.length,
        `${vp.name}: a wrong try plays nothing`);
      // A move that keeps the draw: accepted (any of them; here the one the database names).
      const right = wantDraw.marks[0].best[0].replace(/^m/, '');
      await page.click(`[data-point="${right.slice(0, 2)}"]`);
      await page.click(`[data-point="${right.slice(2, 4)}"]`);
      await page.waitForFunction(() => document.querySelector('#learn-feedback').dataset.kind === 'right', null, { timeout: STEP_MS });
      check((await page.textContent('#learn-feedback')).startsWith(`Right: ${right.slice(0, 2)}–${right.slice(2, 4)} keeps the draw`),
        `${vp.name}: a right try is accepted: ${await page.textContent('#learn-feedback')}`);
      check(await page.locator('[data-arrow="hint"]').count() === 1, `${vp.name}: the right move is shown by an arrow`);
      await page.click('#learn-next');
      await page.waitForFunction(() => document.querySelector('#status').getAttribute('data-ply') === '7', null, { timeout: STEP_MS });
      check(/^2 of 2: Tigers played 4… C3–B2\?/.test(await page.textContent('#learn-prompt')), `${vp.name}: the second position`);
      await page.click('#learn-solution');
      const solution = await page.textContent('#learn-feedback');
      check(wantDraw.marks[1].best.every((m) => solution.includes(m.replace(/^m/, '').replace(/\(.*\)$/, '').replace(/^(..)(..)$/, (_, a, b) => (Math.abs(a.charCodeAt(0) - b.charCodeAt(0)) === 2 || Math.abs(a[1] - b[1]) === 2 ? `${a}×${b}` : `${a}–${b}`)))),
        `${vp.name}: "Show solution" names every move that keeps the win: ${solution}`);
      await page.click('#learn-next');
      const summary = await page.textContent('#learn-prompt');
      check(summary === 'Done: 1 of 2 found (0 at the first try), 1 shown, 0 skipped.', `${vp.name}: the summary: ${summary}`);
      check(await page.locator('#moves .mv[data-ply]').count() === DRAW_GAME.length, `${vp.name}: learning left the game as it was`);
      await page.screenshot({ path: path.join(SHOTS, `review-learn-${vp.name}.png`) });
      await page.click('#learn-stop');
      await page.click('#review-close');
    }
    await page.setViewportSize({ width: 1280, height: 800 });

    // A game of best moves: no mark, 100% for both.
    const best = [];
    for (let i = 0; i < 10; i++) best.push((await analysis(START, best, 'draw')).moves[0].move.replace(/^m/, '').replace(/\(.*\)$/, ''));
    const wantBest = await expected(START, best, 'draw');
    const gotBest = await review(page, START, best, 'draw');
    check(gotBest.marks.length === 0 && /No move changed the value/.test(gotBest.none), `a game of best moves has no mark: ${JSON.stringify(gotBest.marks)}`);
    check(wantBest.sides.goats.counted > 0 && gotBest.sides.goats.accuracy === '100' && gotBest.sides.tigers.accuracy === (wantBest.sides.tigers.counted ? '100' : ''),
      `a game of best moves is 100%: ${JSON.stringify(gotBest.sides)}`);
    checkAgainst(gotBest, wantBest, 'best moves');
    await page.click('#review-close');

    // Under forbid: the open values (ply 4: open to a proven loss) are never marks; the known win
    // thrown to a loss is.
    const wantForbid = await expected(START, FORBID_GAME, 'forbid');
    check(wantForbid.open > 0 && wantForbid.marks.some((m) => m.mark === '??'), `the forbid game has open plies and a ??: ${JSON.stringify(wantForbid)}`);
    const gotForbid = await review(page, START, FORBID_GAME, 'forbid');
    checkAgainst(gotForbid, wantForbid, 'forbid');
    // The open plies are judged by the engine's estimate, each said to be one.
    check(wantForbid.openPlies.includes(4) && gotForbid.estimatedPlies.map((e) => e.ply).join() === wantForbid.openPlies.join(),
      `under forbid every open ply is judged by the engine's estimate: ${JSON.stringify(gotForbid.estimatedPlies)}`);
    check(gotForbid.marks.filter((m) => wantForbid.openPlies.includes(m.ply) && !wantForbid.marks.some((w) => w.ply === m.ply))
      .every((m) => m.estimate && /\(estimate: \d+% → \d+%\)/.test(m.text)), `the estimated marks say so: ${JSON.stringify(gotForbid.marks)}`);
    check(/database draw is open: its value is not known/.test(gotForbid.note), `under forbid the panel says what open means: ${gotForbid.note}`);
    await page.screenshot({ path: path.join(SHOTS, 'review-forbid.png') });
    await page.click('#review-close');

    // A win in one missed is ?? (as on lichess), even when the move played still wins: the tigers
    // could capture a fifth goat (A1×C1, C3×C1 or E1×C1) and stepped A5–B5 instead.
    const FIVE = 'TGXGT/GGGGG/GGTGG/XGGGX/TXGXG t @0 c4 - -';
    for (const rule of ['draw', 'forbid']) {
      const wantOne = await expected(FIVE, ['A5B5'], rule);
      const gotOne = await review(page, FIVE, ['A5B5'], rule);
      check(JSON.stringify(wantOne.marks.map((m) => [m.ply, m.mark, m.why, m.best.join()])) === JSON.stringify([[1, '??', 'win-in-1', 'mA1C1(B1),mC3C1(C2),mE1C1(D1)']]) &&
        gotOne.marks.length === 1 && gotOne.marks[0].mark === '??' && gotOne.marks[0].why === 'win-in-1' && /a win in 1 missed/.test(gotOne.marks[0].text),
      `${rule}: the win in one missed is ??: ${JSON.stringify(gotOne.marks)}`);
      checkAgainst(gotOne, wantOne, `${rule}, a win in one missed`);
      check(gotOne.sides.tigers.kept === 0 && gotOne.sides.tigers.counted === 1, `${rule}: it kept nothing: ${JSON.stringify(gotOne.sides.tigers)}`);
      await page.click('#review-close');
    }

    // Placement positions (the server has no placement file here): an engine estimate, said so.
    const placement = ['C3', 'A1B1', 'A1'];
    const gotEst = await review(page, 'TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0 - #', placement, 'draw');
    check(gotEst.source === 'estimate' && gotEst.sourceText === 'engine estimate' && gotEst.estimated === '1,2,3',
      `without the database for them the plies are an engine estimate: ${JSON.stringify(gotEst)}`);
    await page.screenshot({ path: path.join(SHOTS, 'review-estimate.png') });
    await page.click('#review-close');

    // A review cancelled keeps what it did and goes on from there: 16 searched plies.
    const start = 'TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0 - #';
    const long = [];
    for (let i = 0; i < 16; i++) {
      const res = await fetch(new URL('/legal', URL_), { method: 'POST', body: JSON.stringify({ obx: start, moves: long, repetition: 'draw' }) });
      long.push((await res.json()).legal[0].move.replace(/^m/, '').replace(/\(.*\)$/, ''));
    }
    await page.goto(address(start, long, 'draw'));
    await page.waitForFunction((n) => document.querySelectorAll('#moves .mv[data-ply]').length === n &&
      /to move/.test(document.querySelector('#status').textContent), long.length, { timeout: STEP_MS });
    await page.click('#review-open');
    await page.waitForFunction(() => !document.querySelector('#review-progress').hidden && document.querySelector('#review-bar').value >= 1,
      null, { timeout: STEP_MS });
    await page.click('#review-cancel');
    await page.waitForFunction(() => document.querySelector('#review-progress').hidden, null, { timeout: STEP_MS });
    const part = await page.textContent('#review-note .review-partial');
    const done = Number(/^(\d+) of 16 plies reviewed/.exec(part)?.[1]);
    check(done >= 1 && done < 16, `a cancelled review says how far it went: ${part}`);
    check(await page.textContent('#review-run') === 'Review the rest', 'and offers the rest');
    await page.click('#review-run');
    await page.waitForFunction(() => document.querySelector('#review-progress').hidden &&
      document.querySelector('#review-note .review-estimate')?.getAttribute('data-plies') === Array.from({ length: 16 }, (_, i) => i + 1).join(','),
    null, { timeout: 120000 });
    check(await page.locator('#review-note .review-partial').count() === 0 && await page.isHidden('#review-run'),
      'the rest reviewed, every ply an engine estimate');
    // Speed: the first 100 plies of run.sh's long game (forbid, from the start; the placement
    // searched, the movement phase from the database), as long as 90 s at the most.
    const longgame = (process.env.BOARD_LONGGAME || '').split(/\s+/).filter(Boolean).slice(0, 100);
    if (longgame.length === 100) {
      await page.goto(address('TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0 - #', longgame, 'forbid'));
      await page.waitForFunction(() => document.querySelectorAll('#moves .mv[data-ply]').length === 100 &&
        /to move/.test(document.querySelector('#status').textContent), null, { timeout: STEP_MS });
      const t0 = Date.now();
      await page.click('#review-open');
      await page.waitForFunction(() => document.querySelector('#review-progress').hidden &&
        document.querySelector('#review-note .review-time'), null, { timeout: 180000 });
      const ms = Date.now() - t0;
      const said = await page.textContent('#review-note .review-time');
      console.log(`review: a 100-ply game (forbid, 38 plies searched) in ${(ms / 1000).toFixed(1)} s (${said})`);
      check(ms < 90000 && /^100 plies analysed in [\d.]+ s\.$/.test(said), `a 100-ply game is reviewed in ${ms} ms, not minutes`);
      const est = await page.getAttribute('#review-note .review-estimate', 'data-plies');
      // Plies 1-38 searched; the 20th goat's placement (ply 39) is exact: every move of it
      // leads into the movement database.
      check(est === Array.from({ length: 38 }, (_, i) => i + 1).join(','), `the placement plies are the estimated ones: ${est}`);
    }
    check(errors.length === 0, `no page errors: ${errors.join('; ')}`);
  } catch (e) {
    await page.screenshot({ path: path.join(SHOTS, 'review-failure.png') }).catch(() => {});
    throw e;
  } finally {
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
  console.log(`review: ${checks} checks passed`);
}

main().catch((e) => { console.error(e); process.exit(1); });
