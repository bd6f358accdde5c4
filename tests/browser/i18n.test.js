// The board in Nepali and English (i18n.js). First, without a browser: every text the web files
// pass to the translation function (t(...), tr(...), say(...), I18N.t(...) with a literal) has a
// Nepali entry. Then in Chromium, at 1280x800 and at a 390x844 phone: switched to Nepali, no English
// word is left on the page (every visible text, aria-label, title and placeholder) in each state
// (a game in progress, the engine's lines, the analysis, a refused move, the editor and its
// refusal, the shortcuts dialog, an import refused, a premove, a finished game, and the panels
// of the feature files that are there: review, puzzles, annotations); the layout holds (defects.test.js's boxes); the choice
// survives a reload; English comes back whole; <html lang> follows; the browser's languages
// choose the first language. Screenshots: SHOT_DIR/i18n-*.png.
// BOARD_SOFT=1 reports every failed check and goes on (while working on it).
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { chromium } = require('playwright-core');

const URL_ = process.env.BOARD_URL;
const SHOTS = process.env.SHOT_DIR || '.';
// The web files (the page's scripts): beside this file in the source tree, or named by BOARD_WEB.
const WEB = process.env.BOARD_WEB || path.join(__dirname, '..', '..', 'tools', 'obx-server', 'web');
const LOCAL_JS = process.env.BOARD_LOCAL_JS || path.join(__dirname, '..', '..', 'wasm', 'web', 'local.js');
const STEP_MS = 20000;
const DESKTOP = { width: 1280, height: 800, name: 'desktop' };
const PHONE = { width: 390, height: 844, name: 'phone' };
// Goats to move, every goat placed, three captured (defects.test.js's point 1).
const STEPS = 'GTGGG/TGXGT/GXGXG/GGTGG/GGXGG g @0 c3 - -';
// Five goats captured: the tigers have won.
const OVER = 'TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @15 c5';

const SOFT = process.env.BOARD_SOFT === '1';
let checks = 0;
let soft = 0;
function check(cond, msg) {
  if (SOFT && !cond) { console.log(`FAILED: ${msg}`); soft++; return; }
  assert.ok(cond, msg);
  checks++;
}

function inside(box, vp) {
  return Boolean(box) && box.x >= 0 && box.y >= 0 && box.x + box.width <= vp.width + 0.5 && box.y + box.height <= vp.height + 0.5;
}

// ---- the keys in the sources -------------------------------------------------------------------

// The string literal starting at s[i] (a quote), or null: [text, index after it].
function literal(s, i) {
  const q = s[i];
  if (q !== "'" && q !== '"') return null;
  let out = '';
  for (let j = i + 1; j < s.length; j++) {
    const c = s[j];
    if (c === '\\') {
      const n = s[j + 1];
      out += n === 'n' ? '\n' : n === 't' ? '\t' : n;
      j++;
    } else if (c === q) {
      return [out, j + 1];
    } else if (c === '\n') {
      return null;
    } else {
      out += c;
    }
  }
  return null;
}

// Every literal key of the calls t('...'), tr('...'), say('...'), I18N.t('...') (the names the
// web files give the translation function) and their plural forms t(['one', 'other'], ...) in a
// source text.
function keysOf(src) {
  const keys = [];
  const re = /(?:\bI18N\.t|(?<![\w.$])(?:tr?|say))\(\s*/g;
  let m;
  while ((m = re.exec(src))) {
    let i = re.lastIndex;
    if (src[i] === '[') {
      i++;
      for (;;) {
        while (/\s/.test(src[i])) i++;
        const lit = literal(src, i);
        if (!lit) break;
        keys.push(lit[0]);
        i = lit[1];
        while (/\s/.test(src[i])) i++;
        if (src[i] !== ',') break;
        i++;
      }
    } else {
      const lit = literal(src, i);
      if (lit) keys.push(lit[0]);
    }
  }
  return keys;
}

function sourceKeys() {
  const files = fs.readdirSync(WEB).filter((f) => f.endsWith('.js')).map((f) => path.join(WEB, f));
  if (fs.existsSync(LOCAL_JS)) files.push(LOCAL_JS);
  const out = new Map();
  for (const f of files) for (const k of keysOf(fs.readFileSync(f, 'utf8'))) if (!out.has(k)) out.set(k, path.basename(f));
  return out;
}

// ---- English left on the page --------------------------------------------------------------------

// Words that are the same in both languages: names, keys of the keyboard, notations.
const NAMES = new Set(['OBX', 'PGN', 'FEN', 'HTTP', 'Elo', 'UCI_Elo', 'baghchal', 'baghchal-server', 'WebAssembly',
  'Tab', 'Enter', 'Space', 'Esc', 'Home', 'End', 'Ctrl', 'Ctrl+C', 'Shift', 'Alt', 'English', 'NAG']);

// The Latin words of a text that are not moves, points, OBX, numbers or names.
function englishWords(text) {
  const bad = [];
  // Quoted text is the person's own (an import refused repeats it).
  const plain = text.replace(/"[^"]*"/g, ' ').replace(/“[^”]*”/g, ' ');
  for (const raw of plain.split(/\s+/)) {
    const w = raw.replace(/^[\s([{"'«·…–—|/:;,.!?।]+|[\s)\]}"'»·…–—|/:;,.!?।]+$/g, '');
    if (!/[A-Za-z]/.test(w)) continue;
    if (/^[A-Za-z]$/.test(w)) continue; // a column, a key (f), an OBX letter
    if (/^m?[A-E][1-5](?:[A-E][1-5])?(?:\([A-E][1-5]\))?[!?]*$/i.test(w)) continue; // a move
    if (/^[A-E][1-5][–×-][A-E][1-5][!?]*$/.test(w)) continue; // a move as the list writes it
    if (/^[TGX1-5]{1,5}(?:\/[TGX1-5]{1,5}){4}$/i.test(w)) continue; // an OBX board
    if (/^(?:@\d+|c\d+|#[gt]?\d*)$/i.test(w)) continue; // OBX fields
    if (/^\d[\d.]*[kM]$/.test(w)) continue; // node counts (1.2M, 15k)
    if (/^#\S*$/.test(w)) continue;
    if (NAMES.has(w) || NAMES.has(w.replace(/[()]/g, ''))) continue;
    bad.push(w);
  }
  return bad;
}

// Every text a person sees or a screen reader says on the page now: [where, text].
async function pageTexts(page) {
  return page.evaluate(() => {
    const out = [];
    const shown = (el) => {
      for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
        if (e.hidden || e.getAttribute('aria-hidden') === 'true') return false;
        const st = getComputedStyle(e);
        if (st.display === 'none' || st.visibility === 'hidden') return false;
        if (e.tagName === 'DIALOG' && !e.open) return false;
      }
      return el.getClientRects().length > 0 || el.tagName === 'OPTION';
    };
    const name = (el) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.className && typeof el.className === 'string' ? `.${el.className.split(' ')[0]}` : ''}`;
    const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      const el = n.parentElement;
      if (!el || !n.nodeValue.trim()) continue;
      if (['TEXTAREA', 'SCRIPT', 'STYLE', 'KBD'].includes(el.tagName)) continue;
      if (el.closest('[lang="en"]')) continue; // said as English on purpose (the language's own name)
      const sel = el.closest('select');
      if (sel) {
        if (el.tagName !== 'OPTION' || !el.selected || !shown(sel)) continue;
      } else if (!shown(el)) continue;
      out.push([name(el), n.nodeValue]);
    }
    for (const el of document.querySelectorAll('[aria-label], [title], [placeholder], [alt]')) {
      if (el.closest('[lang="en"]') || !(shown(el) || el.tagName === 'svg')) continue;
      for (const a of ['aria-label', 'title', 'placeholder', 'alt']) {
        const v = el.getAttribute(a);
        if (v) out.push([`${name(el)}@${a}`, v]);
      }
    }
    out.push(['title', document.title]);
    return out;
  });
}

async function main() {
  assert.ok(URL_, 'BOARD_URL is not set');
  // Devanagari needs a font (Debian: fonts-lohit-deva), else the screenshots show boxes and the
  // widths measured are not a Nepali reader's.
  let fonts = '';
  try { fonts = execFileSync('fc-list', [':lang=ne', 'family'], { encoding: 'utf8' }); } catch (e) { fonts = ''; }
  check(fonts.trim() !== '', 'a font for Nepali (Devanagari) is installed: apt-get install fonts-lohit-deva');

  const origin = new URL(URL_);
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'baghchal-i18n-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    locale: 'en-US',
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
      if (m.type() !== 'error') return;
      if (expectRefusal && m.text().includes('status of 4')) return;
      problems.push(`console: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));

    const box = (sel) => page.locator(sel).boundingBox();
    const shot = (name) => page.screenshot({ path: path.join(SHOTS, `i18n-${name}.png`) });
    const ready = () => page.waitForFunction(() => document.querySelector('#thinking').hidden &&
      (document.querySelectorAll('#board .hit.clickable').length > 0 || !document.querySelector('#result-banner').hidden),
    null, { timeout: STEP_MS });
    const movesShown = () => page.locator('#moves .mv[data-ply]').count();
    // A fresh page at a size in a language: no saved game, the address given.
    const open = async (size, lang, query) => {
      await page.setViewportSize({ width: size.width, height: size.height });
      await page.goto(`${URL_}favicon.svg`);
      await page.evaluate((l) => { localStorage.clear(); localStorage.setItem('baghchal.lang', l); }, lang);
      await page.goto(`${URL_}${query || ''}`);
      await page.waitForFunction(() => document.querySelector('#status')?.getAttribute('data-turn') &&
        (document.querySelector('#status').textContent.trim() !== '' || !document.querySelector('#result-banner').hidden), null, { timeout: STEP_MS });
      await page.waitForFunction(() => !/…$/.test(document.querySelector('#server-info').textContent), null, { timeout: STEP_MS });
    };
    const setMovetime = (ms) => page.$eval('#movetime', (e, v) => { e.value = String(v); e.dispatchEvent(new Event('input')); }, ms);
    const step = async (from, to) => {
      const n = await movesShown();
      await page.click(`[data-point="${from}"]`);
      await page.click(`[data-point="${to}"]`);
      await page.waitForFunction((want) => document.querySelectorAll('#moves .mv[data-ply]').length === want &&
        document.querySelectorAll('#board .hit.clickable').length > 0, n + 1, { timeout: STEP_MS });
    };
    // No English word on the page in this state.
    const noEnglish = async (what) => {
      const found = [];
      for (const [where, text] of await pageTexts(page)) {
        const bad = englishWords(text);
        if (bad.length) found.push(`${where}: ${bad.join(' ')}   («${text.trim().slice(0, 90)}»)`);
      }
      check(found.length === 0, `${what}: English left in Nepali:\n  ${found.join('\n  ')}`);
      // And no text the scripts asked for (a key made at run time too) lacked its Nepali.
      const asked = await page.evaluate(() => [...I18N.missing]);
      check(asked.length === 0, `${what}: texts asked for in Nepali with none: ${JSON.stringify(asked)}`);
    };
    // defects.test.js's boxes, in whatever language the page is.
    const layoutHolds = async (size, what) => {
      await page.evaluate(() => window.scrollTo(0, 0));
      for (const sel of ['#board', '#controls']) {
        check(inside(await box(sel), size), `${size.name}, ${what}: ${sel} is in the first screen (${JSON.stringify(await box(sel))})`);
      }
      check(await page.$eval('#controls', (e) => e.scrollWidth <= e.clientWidth + 1), `${size.name}, ${what}: the controls fit one row`);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth);
      check(overflow <= size.width, `${size.name}, ${what}: nothing is wider than the window (${overflow} px)`);
      // No button's words spill out of it.
      const spilt = await page.$$eval('button', (bs) => bs.filter((b) => b.getClientRects().length && !b.hidden &&
        b.scrollWidth > b.clientWidth + 1).map((b) => `${b.id || b.className}: ${b.textContent.trim()} (${b.scrollWidth} > ${b.clientWidth})`));
      check(spilt.length === 0, `${size.name}, ${what}: every button holds its words (${spilt.join('; ')})`);
      if (size === DESKTOP) {
        const bar = await box('#controls');
        const btn = await box('#controls #undo');
        check(bar.height < btn.height * 1.5, `desktop, ${what}: the controls keep one row (${bar.height} px, a button ${btn.height})`);
        for (const sel of ['#moves-card', '#analysis-card', '#lines']) {
          if (!(await page.locator(sel).isVisible())) continue;
          check(inside(await box(sel), size), `desktop, ${what}: ${sel} is inside 1280x800 (${JSON.stringify(await box(sel))})`);
        }
        const record = await box('.record');
        for (const sel of ['#export-pgn', '#export-game', '#import-game']) {
          const b = await box(sel);
          check(b.x >= record.x && b.x + b.width <= record.x + record.width, `desktop, ${what}: ${sel} is inside its card (${JSON.stringify(b)})`);
        }
      }
    };

    // ---- 1. every key in the sources has its Nepali ----
    await open(DESKTOP, 'en');
    const table = await page.evaluate(() => I18N.table('ne'));
    const keys = sourceKeys();
    const missing = [...keys].filter(([k]) => !(k in table)).map(([k, f]) => `${f}: ${JSON.stringify(k)}`);
    check(keys.size > 150, `the sources' keys are found (${keys.size})`);
    check(missing.length === 0, `every key used in the web files has a Nepali entry; missing:\n  ${missing.join('\n  ')}`);
    // The markup's keys (data-i18n, data-i18n-attrs) too.
    const markup = await page.evaluate(() => {
      const out = [];
      for (const el of document.querySelectorAll('[data-i18n]')) {
        if (el.children.length === 0) out.push(el.getAttribute('data-i18n'));
        else for (const n of el.childNodes) if (n.nodeType === 3 && n.nodeValue.trim()) out.push(n.nodeValue.replace(/\s+/g, ' ').trim());
      }
      for (const el of document.querySelectorAll('[data-i18n-attrs]')) {
        for (const a of el.getAttribute('data-i18n-attrs').split(',')) if (el.getAttribute(a.trim())) out.push(el.getAttribute(a.trim()).replace(/\s+/g, ' ').trim());
      }
      return out;
    });
    const markupMissing = [...new Set(markup)].filter((k) => !(k in table));
    check(markup.length > 80 && markupMissing.length === 0, `every marked text of index.html has a Nepali entry (${markup.length}); missing:\n  ${markupMissing.join('\n  ')}`);
    // The plural forms: a key each, chosen by the count.
    const plural = await page.evaluate(() => [I18N.t(['{n} ply', '{n} plies'], { n: 1 }), I18N.t(['{n} ply', '{n} plies'], { n: 2 }),
      I18N.t('{a} and {b}', { a: 'C3' }), I18N.t('Not a key {x}', { x: 1 })]);
    check(JSON.stringify(plural) === JSON.stringify(['1 ply', '2 plies', 'C3 and {b}', 'Not a key 1']),
      `t: the form by count, placeholders from vars, English for an unknown key (${plural})`);

    // ---- 2. the language switch: Nepali, kept over a reload, English back; the game stays ----
    await open(DESKTOP, 'en', `?obx=${STEPS.replace(/ /g, '+')}&moves=B2C2,C4C5`);
    await page.click('#mode-human');
    await ready();
    check(await page.getAttribute('html', 'lang') === 'en' && (await page.textContent('#status')).includes('Goats to move'),
      'English first (the browser speaks English, nothing saved)');
    const before = await page.inputValue('#obx');
    await page.selectOption('#lang', 'ne');
    await page.waitForFunction(() => document.documentElement.lang === 'ne', null, { timeout: 3000 });
    check((await page.textContent('#status')).includes('बाख्राको पालो'), `the status in Nepali (${await page.textContent('#status')})`);
    check(await page.inputValue('#obx') === before && await movesShown() === 2 && await page.getAttribute('#status', 'data-ply') === '2',
      'the game is the same after the switch');
    check(await page.evaluate(() => localStorage.getItem('baghchal.lang')) === 'ne', 'the choice is saved');
    check((await page.textContent('h1')).trim() === 'बाघचाल' && await page.title() === 'बाघचाल · बाघ र बाख्रा', 'the game\'s own name: बाघचाल');
    await page.reload();
    await page.waitForFunction(() => (document.querySelector('#status')?.textContent || '').includes('बाख्राको पालो'), null, { timeout: STEP_MS });
    check(await page.getAttribute('html', 'lang') === 'ne' && await page.inputValue('#lang') === 'ne', 'Nepali after a reload');
    check(await movesShown() === 2, 'and the game too');
    await page.selectOption('#lang', 'en');
    await page.waitForFunction(() => document.documentElement.lang === 'en', null, { timeout: 3000 });
    const deva = (await pageTexts(page)).filter(([, t]) => /[\u0900-\u097F]/.test(t)).map(([w, t]) => `${w}: ${t.trim()}`);
    check(deva.length === 0, `English back whole: no Nepali left:\n  ${deva.join('\n  ')}`);
    check((await page.textContent('#status')).includes('Goats to move') && (await page.textContent('#new-game')).trim() === 'New game' &&
      await page.getAttribute('#nav-first', 'aria-label') === 'First position' && await page.title() === 'Bagh-Chal · Tigers and Goats',
    'the English texts, labels and title are back');
    check(await page.evaluate(() => localStorage.getItem('baghchal.lang')) === 'en', 'English saved');

    // ---- 3. each state in Nepali, at both sizes ----
    for (const size of [DESKTOP, PHONE]) {
      // A game in progress against the engine, the engine's lines and the analysis.
      await open(size, 'ne');
      await setMovetime(100);
      check(await page.getAttribute('html', 'lang') === 'ne', `${size.name}: <html lang="ne">`);
      await ready();
      await noEnglish(`${size.name}, a new game`);
      await page.click('[data-point="C3"]');
      await page.waitForFunction(() => document.querySelectorAll('#moves .mv[data-ply]').length === 2, null, { timeout: STEP_MS });
      await ready();
      check(/^इन्जिनको अन्तिम चाल: /.test(await page.textContent('#engine-meta')), `${size.name}: the engine's move said in Nepali (${await page.textContent('#engine-meta')})`);
      await page.check('#lines-on');
      await page.waitForFunction(() => document.querySelectorAll('#lines li').length === 3, null, { timeout: STEP_MS });
      await page.click('#analyse');
      await page.waitForFunction(() => document.querySelectorAll('#analysis-list li').length > 0, null, { timeout: STEP_MS });
      check(/^गहिराइ \d+ · \d+(\.\d)? (हजार|मिलियन) स्थिति\/से( · (खोज्दै…|सर्भरको सबैभन्दा लामो खोज))?$/.test((await page.textContent('#lines-info')).trim()),
        `${size.name}: the lines' depth, speed and search (${await page.textContent('#lines-info')})`);
      await noEnglish(`${size.name}, a game with the engine's lines and the analysis`);
      await layoutHolds(size, 'a game with lines and analysis');
      await shot(`game-${size.name}`);
      await page.uncheck('#lines-on');

      // A move refused for repetition, said in Nepali with the move and the position.
      await open(size, 'ne', `?obx=${STEPS.replace(/ /g, '+')}`);
      await page.click('#mode-human');
      await step('B2', 'C2');
      await step('C4', 'C5');
      await step('D2', 'D3');
      await step('C5', 'C4');
      expectRefusal = true;
      await page.click('[data-point="D3"]');
      await page.waitForFunction(() => !document.querySelector('#notice').hidden, null, { timeout: STEP_MS });
      expectRefusal = false;
      const notice = (await page.textContent('#notice')).trim();
      check(notice === 'D3–D2 निषेधित छ: यसले 1. B2–C2 पछिको स्थिति दोहोर्‍याउँछ (यो खेलमा दोहोर्‍याउन पाइँदैन)।',
        `${size.name}: the refusal in Nepali (${notice})`);
      check(inside(await box('#notice'), size), `${size.name}: the refusal is in view`);
      await noEnglish(`${size.name}, a move refused`);
      await layoutHolds(size, 'a move refused');
      await shot(`refused-${size.name}`);
      // Switched while shown: the refusal is said again in English.
      await page.selectOption('#lang', 'en');
      await page.waitForFunction(() => document.documentElement.lang === 'en', null, { timeout: 3000 });
      check((await page.textContent('#notice')).trim() === 'D3–D2 is forbidden: it would repeat the position after 1. B2–C2 (repetition is forbidden in this game).',
        `${size.name}: the refusal in English after the switch (${await page.textContent('#notice')})`);
      await page.selectOption('#lang', 'ne');

      // A side line with the analysis (defects.test.js's point 13): the list, its buttons, the
      // analysis and the record's buttons keep their room in Nepali.
      await open(size, 'ne', `?obx=${STEPS.replace(/ /g, '+')}&moves=B2C2,C4C5,D2D3,C5C4`);
      await page.click('#mode-human');
      await page.click('#moves .mv[data-ply="2"]');
      await ready();
      await page.click('[data-point="C3"]');
      await page.click('[data-point="C4"]');
      await page.waitForFunction(() => document.querySelectorAll('#moves .var .vmv').length === 1, null, { timeout: STEP_MS });
      await page.click('#analyse');
      await page.waitForFunction(() => document.querySelectorAll('#analysis-list li').length > 0, null, { timeout: STEP_MS });
      await page.evaluate(() => window.scrollTo(0, 0));
      const firstScreen = size === DESKTOP
        ? ['#export-pgn', '#export-game', '#import-game', '#game-text', '#promote', '#delete-line', '#analysis-card']
        : ['#promote', '#delete-line', '#board', '#moves-scroll', '#analysis-card'];
      for (const sel of firstScreen) {
        check(inside(await box(sel), size), `${size.name}, a side line: ${sel} is in the first screen (${JSON.stringify(await box(sel))})`);
      }
      const list = await box('#moves-scroll');
      if (size === DESKTOP) {
        const rows = await page.$eval('#moves-scroll', (e) => e.clientHeight / (document.querySelector('#moves .mv').getBoundingClientRect().height || 20));
        check(rows >= 8, `desktop, a side line: the move list shows at least 8 rows (${rows.toFixed(1)})`);
      } else {
        check(list.height >= 50 && list.width >= 250, `phone, a side line: the move list keeps its room (${JSON.stringify(list)})`);
      }
      await noEnglish(`${size.name}, a side line`);
      await layoutHolds(size, 'a side line');
      await shot(`sideline-${size.name}`);

      // The editor and the server's refusal of a fifth tiger.
      await open(size, 'ne');
      await page.click('#edit');
      await page.click('#tool-tiger');
      await page.click('[data-point="C3"]');
      expectRefusal = true;
      await page.click('#ed-done');
      await page.waitForFunction(() => document.querySelector('#ed-error').textContent !== '', null, { timeout: STEP_MS });
      expectRefusal = false;
      const refused = await page.textContent('#ed-error');
      check(refused === 'अस्वीकृत: बोर्डमा 5 बाघ छन्; ठ्याक्कै 4 हुनुपर्छ', `${size.name}: the editor's refusal in Nepali (${refused})`);
      for (const sel of ['#board', '#tool-goat', '#tool-tiger', '#ed-done', '#ed-error']) {
        check(inside(await box(sel), size), `${size.name} editor: ${sel} is in the first screen (${JSON.stringify(await box(sel))})`);
      }
      await noEnglish(`${size.name}, the editor`);
      await shot(`editor-${size.name}`);
      await page.selectOption('#lang', 'en');
      await page.waitForFunction(() => document.documentElement.lang === 'en', null, { timeout: 3000 });
      check(await page.textContent('#ed-error') === 'Refused: the board has 5 tigers, expected exactly 4',
        `${size.name}: the refusal in the server's English after the switch (${await page.textContent('#ed-error')})`);
      await page.selectOption('#lang', 'ne');
      await page.click('#ed-cancel');

      // The shortcuts dialog.
      await page.keyboard.press('?');
      await page.waitForFunction(() => document.querySelector('#keys').open, null, { timeout: 3000 });
      check(inside(await box('#keys'), size), `${size.name}: the shortcuts are in view (${JSON.stringify(await box('#keys'))})`);
      await noEnglish(`${size.name}, the shortcuts`);
      await shot(`keys-${size.name}`);
      await page.keyboard.press('Escape');

      // An import refused: what the text looks like, in Nepali.
      expectRefusal = true;
      await page.fill('#game-text', '[Event "Casual"]\n\n1. e4 e5 2. Nf3 Nc6 *');
      await page.click('#import-game');
      await page.waitForFunction(() => document.querySelector('#record-error').textContent !== '', null, { timeout: STEP_MS });
      expectRefusal = false;
      const said = await page.textContent('#record-error');
      check(said === 'आयात: चाल 2: "Nf3" बाघचालको चाल होइन; यो चेसको खेलजस्तो देखिन्छ। C3 (राख्ने), A1B2 (सार्ने) वा A1C3 (समात्ने) जस्ता चाल अपेक्षित छन्।',
        `${size.name}: the import refused in Nepali (${said})`);
      await noEnglish(`${size.name}, an import refused`);
      // An import taken: its count by the plural's form.
      await page.fill('#game-text', `${STEPS}\nB2C2`);
      await page.click('#import-game');
      await page.waitForFunction(() => document.querySelector('#record-error').classList.contains('ok'), null, { timeout: STEP_MS });
      check(await page.textContent('#record-error') === 'खेल आयात भयो: 1 चाल।', `${size.name}: the import said in Nepali (${await page.textContent('#record-error')})`);
      await page.selectOption('#lang', 'en');
      await page.waitForFunction(() => document.documentElement.lang === 'en', null, { timeout: 3000 });
      check(await page.textContent('#record-error') === 'Game imported: 1 move.', `${size.name}: one move, singular (${await page.textContent('#record-error')})`);
      await page.selectOption('#lang', 'ne');

      // A premove chosen while the engine thinks (when the board has premoves).
      if (await page.locator('#premove-bar').count()) {
        await open(size, 'ne');
        await setMovetime(2500);
        await page.click('[data-point="C3"]');
        await page.waitForFunction(() => !document.querySelector('#thinking').hidden, null, { timeout: STEP_MS });
        const free = await page.evaluate(() => ['A2', 'B4', 'D4', 'E2', 'B2'].find((p) => !document.querySelector(`#board [data-at="${p}"]`)));
        await page.click(`[data-point="${free}"]`);
        if (await page.locator('#premove-bar').isVisible()) {
          await noEnglish(`${size.name}, a premove`);
          await shot(`premove-${size.name}`);
        }
        await ready();
        await setMovetime(100);
      }

      // A finished game: the result and its reason.
      await open(size, 'ne', `?obx=${OVER.replace(/ /g, '+')}`);
      await page.waitForFunction(() => !document.querySelector('#result-banner').hidden, null, { timeout: STEP_MS });
      check((await page.textContent('#result-title')).trim() === 'बाघको जित' && (await page.textContent('#result-reason')).trim() === 'पाँच बाख्रा समातिए',
        `${size.name}: the result in Nepali (${await page.textContent('#result-banner')})`);
      check((await page.textContent('#score')).trim() === 'बाघले जिते', `${size.name}: the engine card says so (${await page.textContent('#score')})`);
      await noEnglish(`${size.name}, a finished game`);
      await layoutHolds(size, 'a finished game');
      await shot(`result-${size.name}`);

      // The panels of the feature files that are there (review.js, puzzles.js).
      for (const [opener, panel] of [['#review-open', '#review'], ['#puzzles-open', '#puzzles'], ['#annot-open', '#annot']]) {
        if (!(await page.locator(opener).count())) continue;
        await open(size, 'ne', `?obx=${STEPS.replace(/ /g, '+')}&moves=B2C2,C4C5,D2D3`);
        check(await page.locator(opener).isVisible(), `${size.name}: ${opener} is there`);
        await page.click(opener);
        await page.waitForTimeout(1500);
        await noEnglish(`${size.name}, ${panel}`);
        await shot(`${panel.slice(1)}-${size.name}`);
      }
    }

    // ---- 4. the browser's languages choose the first language ----
    for (const [locale, want] of [['ne-NP', 'ne'], ['en-GB', 'en']]) {
      const other = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true,
        args: ['--no-sandbox', '--disable-gpu'] });
      try {
        const ctx = await other.newContext({ locale });
        const p = await ctx.newPage();
        await p.goto(URL_);
        await p.waitForFunction(() => document.querySelector('#status')?.getAttribute('data-turn'), null, { timeout: STEP_MS });
        check(await p.evaluate(() => [I18N.lang, document.documentElement.lang].join()) === `${want},${want}`,
          `a browser speaking ${locale} opens in ${want}`);
      } finally {
        await other.close();
      }
    }

    check(problems.length === 0, `no console errors or outside requests:\n${problems.join('\n')}`);
  } catch (e) {
    const page = context.pages()[0];
    if (page) await page.screenshot({ path: path.join(SHOTS, 'i18n-failure.png') }).catch(() => {});
    if (problems.length) console.error(problems.join('\n'));
    throw e;
  } finally {
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
  if (soft) { console.error(`FAIL: ${soft} checks failed`); process.exit(1); }
  console.log(`browser i18n: ${checks} checks passed; screenshots in ${SHOTS}: i18n-*.png`);
}

main().catch((e) => {
  console.error(`FAIL: ${e.stack || e.message}`);
  process.exit(1);
});
