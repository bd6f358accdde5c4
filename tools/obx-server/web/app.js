// The web board: draws the position the server reports and asks it for legal moves (/legal),
// engine moves and lines (/obx) and the value of every move (/analysis). Every rule lives in
// the server; the page keeps the game as a tree of moves from a start OBX (the main line and
// its side lines) and sends the line it needs whole, with the game's repetition rule, so
// repetitions are judged over the whole line. The tree, the settings and the clocks are kept
// in localStorage; the address follows the line shown (/?obx=...&moves=...), so a game can be
// shared by its link.
'use strict';

(() => {
  const START = 'TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0 - #';
  const SVG = 'http://www.w3.org/2000/svg';
  const GAP = 115;
  const MARGIN = 80;
  const SIZE = 2 * MARGIN + 4 * GAP;
  const COLS = 'ABCDE';
  const STORE = 'baghchal.board.v2';
  const OLD_STORE = 'baghchal.board.v1';
  const ADDRESS_MAX = 2000; // the longest address kept (the server reads targets of 2,048 bytes)
  const LONG_LINE = 256;    // plies from which a request without its early history is worth one more
  const OPEN_TEXT = () => tr("A draw only under the draw-by-repetition rule; under this game's no-repetition rule its value is not known");
  const PROVEN_TEXT = () => tr('Proven under the no-repetition rule');
  // A move's glyph; in PGN the NAG $1..$6 in this order. A comment is kept to COMMENT_MAX chars.
  const GLYPHS = ['!', '?', '!!', '??', '!?', '?!'];
  const COMMENT_MAX = 2000;
  const GLYPH_SUFFIX = /(?:!!|\?\?|!\?|\?!|!|\?)$/;
  // The engine lines' and the analysis's search time (ms; 0: until stopped), the browser
  // engine's memories (MB): the settings' choices.
  const CEVAL_TIMES = [2000, 5000, 10000, 30000, 60000, 0];
  // A drawn shape: its colour (G green, R red, B blue, Y yellow, as lichess's) and a point (a
  // circle) or two (an arrow); at most SHAPES_MAX on a position.
  const SHAPE = /^[GRBY][A-E][1-5](?:[A-E][1-5])?$/;
  const SHAPES_MAX = 64;
  const ENGINE_HASH = [16, 32, 64, 128, 256];
  // The browser engine's threads: up to the machine's logical cores, at most this many.
  const MAX_ENGINE_THREADS = 16;

  const $ = (id) => document.getElementById(id);
  // Every text a person sees or hears goes through tr (i18n.js's I18N.t): the English is the key,
  // {name} is filled from vars, [one, other] picks by vars.n.
  const tr = (s, v) => (window.I18N ? I18N.t(s, v)
    : String(Array.isArray(s) ? s[v && Number(v.n) === 1 ? 0 : 1] : s).replace(/\{(\w+)\}/g, (m, k) => (v && k in v ? v[k] : m)));
  const sideName = (side) => (side === 'goats' ? tr('Goats') : tr('Tigers'));
  // Functions other files hang on the board (window.Board.<name>, arrays they push to): see
  // the hook object at the end of init.
  const hooks = (name) => (window.Board && Array.isArray(window.Board[name]) ? window.Board[name] : []);
  // A game played on the server (online.js, ONLINE.md) while window.Board.online is set: its
  // seat (the side the person plays, null to watch), live (the game goes on), clock (shaped as
  // state.clock), who(side) (the player's name for the strip), result (the server's) and
  // move(entry, node, opts) (sent to the server; false: not played). Meanwhile no engine plays
  // or advises, no side line is made, and neither the game nor the address is saved.
  const online = () => (window.Board && window.Board.online) || null;

  // ---- the game tree --------------------------------------------------------------------

  let nextId = 1;
  const nodes = new Map();

  // A node is a position: the root is the start, every other one the position after its move.
  // pos is the server's /legal answer for it; local a position worked out here while that
  // answer is on its way (the pieces only, no legal moves).
  function newNode(parent, entry, side) {
    const n = { id: nextId++, parent, entry, move: entry ? entry.move : null, side, children: [], pos: null,
      local: null, eval: null };
    nodes.set(n.id, n);
    return n;
  }

  function forget(node) {
    nodes.delete(node.id);
    for (const c of node.children) forget(c);
  }

  const state = {
    startObx: START,
    rule: 'forbid',
    root: null,
    cur: null,       // the node shown
    flipped: false,
    mode: 'goats',   // the side the person plays, or 'watch' / 'human'
    movetime: 500,
    skill: 20,       // 0..20, or 'elo'
    elo: 1500,
    tc: 'move',      // 'move' or 'B+I' (minutes + seconds) or 'custom'
    tcMin: 5,
    tcInc: 3,
    clock: null,     // {base, inc, left: {goats, tigers}, running, since, flag}
    resigned: null,  // the side that resigned: the game ends at the main line's end
    failure: null,   // {message, retry, attempt, at}: a request that failed; retried by itself
    ctrl: null,      // aborts the engine request in flight
    thinking: null,  // the node the engine is searching for
    paused: false,
    analysis: null,  // the engine's last search: {nodeId, score, depth, pv, side, nodes, time_ms}
    hint: null,      // {nodeId, from, to}
    notice: null,    // {nodeId, text}: why the piece clicked there cannot move
    an: null,        // the last /analysis answer: {nodeId, data}
    analysing: false,
    linesOn: false,
    multipv: 3,
    cevalTime: 10000, // how long the engine lines and the analysis search on (ms; 0: until stopped)
    engineHash: 64,   // the browser engine's memory (Hash, MB; the static board's local.js)
    engineThreads: null, // its threads where the page is cross-origin isolated (null: half the cores)
    engineServer: '', // a baghchal-server elsewhere for exact values (the static board's local.js)
    ceval: null,      // the lines' search: {nodeId, running, limit, time}
    anRun: null,      // the analysis's search: {nodeId, ctrl, running, limit, time}
    mpv: null,       // the engine lines of a node: {nodeId, n, data}
    mpvCtrl: null,
    selected: null,
    gen: 0,          // bumped on new game / undo / load / mode change: stale answers are dropped
    animate: null,
    obxEdited: false,
    sound: true,
    theme: 'dark',
    looks: { board: 'wood', pieces: 'faces' }, // the board's and the pieces' theme
    editor: null,    // {cells, tool}
    rebuilding: null,
    premove: null,   // the person's move chosen while the engine thinks: {nodeId, gen, sel, entry}
    held: null,      // clicks on a move just shown whose legal moves are on their way: {nodeId, gen, points}
    locked: false,   // a puzzle is being solved (puzzles.js, Board.lock): no engine help
  };

  // ---- small helpers ----------------------------------------------------------------------

  function el(name, attrs, parent) {
    const node = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (parent) parent.appendChild(node);
    return node;
  }

  function html(tag, cls, text, parent) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }

  function xy(point) {
    let c = COLS.indexOf(point[0].toUpperCase());
    let r = Number(point[1]) - 1;
    if (state.flipped) { c = 4 - c; r = 4 - r; }
    return [MARGIN + c * GAP, MARGIN + r * GAP];
  }

  function pointName(c, r) { return COLS[c] + (r + 1); }

  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }

  function capitalise(t) { return t ? t[0].toUpperCase() + t.slice(1) : ''; }

  // A failure of the connection (or a busy server), as opposed to an answer refusing the request.
  function unreachable(e) { return !e.status || e.status >= 500; }

  async function api(path, body, signal, stream) {
    let res;
    try {
      // The browser's engine searching on (local.js), each deeper answer to stream.onData.
      if (stream) res = await window.LocalEngine.stream(path, body, stream.time, stream.onData, signal);
      else res = await fetch(path, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
        signal,
      });
    } catch (e) {
      if (e.name === 'AbortError') throw e;
      const err = new Error('the server cannot be reached');
      err.status = 0;
      throw err;
    }
    let data = null;
    try { data = await res.json(); } catch (e) { data = null; }
    if (!res.ok) {
      const err = new Error(data && data.detail ? data.detail : `HTTP ${res.status}`);
      err.status = res.status;
      err.data = data;
      throw err;
    }
    return data;
  }

  // "mA1C3(B2)" -> {from: 'A1', to: 'C3', over: 'B2'}; "mC3" -> {to: 'C3'}
  function splitMove(text) {
    const m = /^m?([A-E][1-5])([A-E][1-5])?(?:\(([A-E][1-5])\))?$/i.exec(text || '');
    if (!m) return null;
    return m[2] ? { from: m[1].toUpperCase(), to: m[2].toUpperCase(), over: m[3] ? m[3].toUpperCase() : null }
      : { from: null, to: m[1].toUpperCase(), over: null };
  }

  function prettyMove(text) {
    const m = splitMove(text);
    if (!m) return text;
    if (!m.from) return m.to;
    return m.over ? `${m.from}×${m.to}` : `${m.from}–${m.to}`;
  }

  function boardCells(obx) {
    const rows = obx.split(/\s+/)[0].split('/');
    const cells = {};
    rows.forEach((row, r) => {
      let c = 0;
      for (const ch of row.toUpperCase()) {
        if (ch >= '1' && ch <= '5') { c += Number(ch); continue; }
        if (ch === 'T' || ch === 'G') cells[pointName(c, r)] = ch;
        c++;
      }
    });
    return cells;
  }

  function boardText(cells) {
    const rows = [];
    for (let r = 0; r < 5; r++) {
      let row = '';
      for (let c = 0; c < 5; c++) row += cells[pointName(c, r)] || 'X';
      rows.push(row);
    }
    return rows.join('/');
  }

  function sideOf(obx) { return (obx.trim().split(/\s+/)[1] || 'g').toLowerCase() === 't' ? 'tigers' : 'goats'; }
  function other(side) { return side === 'goats' ? 'tigers' : 'goats'; }

  // What the page can tell of a position by itself: the pieces, the side to move and the
  // counts, while the server's answer (legal moves, result) has not come.
  function localOf(obx) {
    const f = obx.trim().split(/\s+/);
    return { obx: obx.trim(), turn: sideOf(obx), in_hand: Number((f[2] || '@0').slice(1)) || 0,
      captured: Number((f[3] || 'c0').slice(1)) || 0, legal: [], result: null, local: true };
  }

  function localAfter(pos, entry) {
    const cells = boardCells(pos.obx);
    let hand = pos.in_hand;
    let caps = pos.captured;
    if (entry.from) {
      cells[entry.to] = cells[entry.from];
      delete cells[entry.from];
      if (entry.over) { delete cells[entry.over]; caps++; }
    } else {
      cells[entry.to] = 'G';
      hand--;
    }
    return localOf(`${boardText(cells)} ${pos.turn === 'goats' ? 't' : 'g'} @${Math.max(0, hand)} c${caps}`);
  }

  // A move written without its capture suffix ("A1C3") is still a capture: only a jump
  // spans two points, and the jumped goat is the one half way.
  function entryOf(text) {
    if (!/^m/i.test(text)) text = `m${text.toUpperCase()}`;
    const m = splitMove(text) || { to: null, from: null, over: null };
    if (m.from && !m.over) {
      const [fc, fr] = [COLS.indexOf(m.from[0]), Number(m.from[1])];
      const [tc, tr] = [COLS.indexOf(m.to[0]), Number(m.to[1])];
      if (Math.max(Math.abs(tc - fc), Math.abs(tr - fr)) === 2) {
        m.over = COLS[(fc + tc) / 2] + String((fr + tr) / 2);
        text = `m${m.from}${m.to}(${m.over})`;
      }
    }
    return { move: text, kind: m.over ? 'capture' : m.from ? 'step' : 'place', from: m.from, to: m.to, over: m.over };
  }

  function plain(mv) { return mv.replace(/^m/i, '').replace(/\(.*\)$/, '').toUpperCase(); }

  // ---- tree walks ---------------------------------------------------------------------------

  function pathTo(node) {
    const path = [];
    for (let n = node; n && n.parent; n = n.parent) path.push(n);
    return path.reverse();
  }
  function movesTo(node) { return pathTo(node).map((n) => n.move); }
  // The game of a node as a request gives it: the position after the line's last placement or
  // capture, as the server reported it, and the moves since; the start and every move when no
  // such position is known. No position before a placement or a capture can come back (the
  // goats in hand or the captured count differ), so under either rule that is all the history
  // that counts, and a game of any length stays a short request.
  function gameOf(node) {
    const path = pathTo(node);
    for (let i = path.length - 1; i >= 0; i--) {
      const n = path[i];
      if (n.entry.kind !== 'step' && n.obx) return { obx: n.obx, moves: path.slice(i + 1).map((x) => x.move) };
    }
    return { obx: state.startObx, moves: path.map((x) => x.move) };
  }
  // A long line whose last placement or capture the server has not reported yet (a game
  // restored or imported) asks for that position once, so that the requests after it are short.
  async function learnBase(node) {
    let base = node;
    while (base.parent && base.entry.kind === 'step') base = base.parent;
    if (!base.parent || base === node || base.obx || plyOf(node) <= LONG_LINE) return;
    base.obx = (await api('/legal', { ...gameOf(base), repetition: state.rule })).obx;
  }
  function plyOf(node) { let k = 0; for (let n = node; n.parent; n = n.parent) k++; return k; }
  function lineEnd(node) { let n = node; while (n.children.length) n = n.children[0]; return n; }
  function mainLeaf() { return lineEnd(state.root); }
  // The whole line through a node: the root, the path to it, then the first children on.
  function lineOf(node) {
    const line = [state.root, ...pathTo(node)];
    let n = node;
    while (n.children.length) { n = n.children[0]; line.push(n); }
    return line;
  }
  function onMainLine(node) {
    for (let n = node; n.parent; n = n.parent) if (n.parent.children[0] !== n) return false;
    return true;
  }
  function inTree(node) {
    for (let n = node; n; n = n.parent) if (n === state.root) return true;
    return false;
  }

  function posOf(node) {
    if (node.pos) return node.pos;
    if (!node.local) node.local = node.parent ? localAfter(posOf(node.parent), node.entry) : localOf(state.startObx);
    return node.local;
  }

  // ---- clocks ---------------------------------------------------------------------------------

  function tcParts() {
    if (state.tc === 'move' || online()) return null;
    if (state.tc === 'custom') return { base: Math.max(0.05, Number(state.tcMin) || 0) * 60000, inc: Math.max(0, Number(state.tcInc) || 0) * 1000 };
    const [b, i] = state.tc.split('+').map(Number);
    return { base: b * 60000, inc: i * 1000 };
  }

  function newClock() {
    const t = tcParts();
    state.clock = t ? { base: t.base, inc: t.inc, left: { goats: t.base, tigers: t.base }, running: null, since: 0, flag: null } : null;
  }

  function timeLeft(side) {
    const c = online() ? online().clock : state.clock;
    if (!c) return null;
    let t = c.left[side];
    if (c.running === side) t -= performance.now() - c.since;
    return Math.max(0, t);
  }

  // A move was added at the end of the main line: the mover's clock stops (and gains its
  // increment), the other one starts. The clocks start with the first move. A premove (free)
  // is charged no time.
  function clockOnMove(mover, node, free) {
    const c = state.clock;
    if (!c || c.flag) return;
    const now = performance.now();
    if (c.running === mover && !free) c.left[mover] = Math.max(0, c.left[mover] - (now - c.since));
    if (c.running === mover || c.running === null) c.left[mover] += c.inc;
    c.running = other(mover);
    c.since = now;
    node.clk = { goats: c.left.goats, tigers: c.left.tigers }; // for an undo after a flag fall
    if (node.pos && node.pos.result) stopClock();
  }

  function stopClock() {
    const c = state.clock;
    if (!c || !c.running) return;
    c.left[c.running] = timeLeft(c.running);
    c.running = null;
  }

  function flagFall(side) {
    const c = state.clock;
    c.left[side] = 0;
    c.running = null;
    c.flag = side;
    if (state.thinking) abortEngine();
    state.gen++;
    state.selected = null;
    sound('end');
    save();
    renderAll();
  }

  function tick() {
    const c = state.clock;
    if (c && c.running && !c.flag) {
      const leaf = mainLeaf();
      if (leaf.pos && leaf.pos.result) stopClock();
      else if (timeLeft(c.running) <= 0) { flagFall(c.running); return; }
    }
    renderClocks();
  }

  function fmtClock(ms) {
    if (ms === null) return '';
    if (ms < 10000) return `0:0${(Math.floor(ms / 100) / 10).toFixed(1)}`;
    const s = Math.ceil(ms / 1000);
    const h = Math.floor(s / 3600);
    const m = Math.floor((s % 3600) / 60);
    const sec = String(s % 60).padStart(2, '0');
    return h ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
  }

  // ---- results ------------------------------------------------------------------------------

  // The result at a node: the server's, or a flag fall at the end of the main line.
  function resultAt(node) {
    const pos = node.pos;
    if (pos && pos.result) return pos.result;
    if (online()) return node === mainLeaf() ? online().result : null;
    const c = state.clock;
    if (c && c.flag && node === mainLeaf()) {
      const winner = other(c.flag);
      return { winner, reason: 'time', description: `${winner} win: the ${c.flag}' time ran out` };
    }
    if (state.resigned && node === mainLeaf()) {
      const winner = other(state.resigned);
      return { winner, reason: 'resign', description: `${winner} win: the ${state.resigned} resigned` };
    }
    return null;
  }

  // A result as the page says it: {title, reason}, in the page's language. The server's
  // description (English) stays the PGN's Termination.
  function resultWords(r) {
    const title = r.title || (r.winner === 'goats' ? tr('Goats win') : r.winner === 'tigers' ? tr('Tigers win') : tr('Draw'));
    const loser = r.winner ? other(r.winner) : null;
    const reasons = {
      'five-captured': () => tr('five goats captured'),
      'tigers-trapped': () => tr('the tigers cannot move'),
      'goats-stuck': () => tr('the goats cannot move'),
      'repetition-blocked': () => (r.winner === 'goats' ? tr('every tiger move would repeat a position')
        : tr('every goat move would repeat a position')),
      'repetition-draw': () => tr('the position occurred three times'),
      time: () => (loser === 'goats' ? tr("the goats' time ran out") : tr("the tigers' time ran out")),
      resign: () => (loser === 'goats' ? tr('the goats resigned') : tr('the tigers resigned')),
    };
    const d = r.description || '';
    const reason = reasons[r.reason] ? reasons[r.reason]() : d.includes(':') ? d.split(':').slice(1).join(':').trim() : d;
    return { title, reason };
  }

  // A refusal or failure of the server (or of the page's engine), in the page's language: in
  // English the server's own words; in another language the kind of refusal, with the points,
  // moves and numbers the words name.
  function serverText(e) {
    const msg = (e && e.message) || '';
    if (!window.I18N || I18N.lang === 'en') return msg;
    if (!e || !e.status) return tr('the server cannot be reached');
    const said = [
      [/the board has (\d+) tigers/, (m) => tr('the board has {n} tigers; it must have exactly 4', { n: m[1] })],
      [/goats on board \((\d+)\) \+ in hand \((\d+)\) \+ captured \((\d+)\) = (\d+)/,
        (m) => tr('goats on the board ({board}) + in hand ({hand}) + captured ({captured}) = {sum}: they must make 20',
          { board: m[1], hand: m[2], captured: m[3], sum: m[4] })],
      [/goats in hand (\d+) out of range/, (m) => tr('{n} goats in hand: there can be 0 to 20', { n: m[1] })],
      [/captured goats (\d+) out of range/, (m) => tr('{n} goats captured: there can be 0 to 5', { n: m[1] })],
      [/tigers cannot be to move with all 20 goats/, () => tr('the tigers cannot be to move with all 20 goats in hand: the goats move first')],
      [/(?:^|\s)([A-E][1-5](?:[A-E][1-5])?(?:\([A-E][1-5]\))?) recreates an earlier position/i,
        (m) => tr('{move} would repeat an earlier position (repetition is forbidden in this game)', { move: m[1] })],
      [/would repeat|recreates an earlier position/, () => tr('the move would repeat an earlier position (repetition is forbidden in this game)')],
      [/the game is over/, () => tr('the game is over')],
      [/(\S+) is not a legal move for the (goats|tigers)/,
        (m) => (m[2] === 'goats' ? tr('{move} is not a legal move for the goats here', { move: m[1] })
          : tr('{move} is not a legal move for the tigers here', { move: m[1] }))],
      [/does not follow a line/, () => tr('the move does not follow a line of the board')],
      [/is not a move|jumps no goat|capture suffix/, () => tr('this is not a move: expected a point like C3, or two like A1B2')],
      [/exact analysis needs baghchal-server/, () => tr('exact analysis needs baghchal-server and its databases: this page plays with the engine in the browser')],
      [/empty OBX/, () => tr('the OBX is empty')],
    ];
    for (const [re, f] of said) {
      const m = re.exec(msg);
      if (m) return f(m);
    }
    const code = (e.data && e.data.code) || '';
    if (/^(field-count|row-count|row-length|board-char|turn|in-hand-syntax|captured-syntax|last-move|move-number|bad-position|bad-obx-field|missing-obx)$/.test(code)) {
      return tr('this is not an OBX position: five rows of T, G and X, the side to move, goats in hand and goats captured');
    }
    if (e.status === 503) return tr('the server is busy');
    if (e.status >= 500) return tr('the server failed (HTTP {status})', { status: e.status });
    return tr('the server refused the request (HTTP {status})', { status: e.status });
  }

  // The side a Resign click gives up for: the person's, or in a game of two players the side
  // to move; none while the engine plays both or the game is over.
  function resigningSide() {
    const leaf = mainLeaf();
    if (!leaf.pos || resultAt(leaf) || state.editor || online()) return null;
    const h = humanSide();
    return h === 'both' ? leaf.pos.turn : h === 'none' ? null : h;
  }

  let resignTimer = null;
  // A first click asks to confirm (for 3 s); the second resigns: the game ends at the end of
  // its main line, shown there.
  function resign() {
    const side = resigningSide();
    if (!side) return;
    const b = $('resign');
    if (!b.classList.contains('confirm')) {
      b.classList.add('confirm');
      b.textContent = tr('Confirm?');
      clearTimeout(resignTimer);
      resignTimer = setTimeout(() => { b.classList.remove('confirm'); b.textContent = tr('Resign'); }, 3000);
      return;
    }
    clearTimeout(resignTimer);
    b.classList.remove('confirm');
    b.textContent = tr('Resign');
    abortEngine();
    state.gen++;
    stopClock();
    state.resigned = side;
    state.selected = null;
    state.cur = mainLeaf();
    sound('end');
    save();
    renderAll();
  }

  // ---- who moves ----------------------------------------------------------------------------

  function humanSide() {
    if (online()) return online().seat && online().live ? online().seat : 'none';
    if (state.mode === 'goats' || state.mode === 'tigers') return state.mode;
    if (state.mode === 'human') return 'both';
    return 'none';
  }

  // A person may move at the end of a line on their own turn, and anywhere before it (which
  // starts a side line).
  function humanCanMove(node) {
    if (!node || !node.pos || resultAt(node) || state.failure || state.editor) return false;
    if (state.thinking === node) return false;
    if (node.children.length) return !online();
    const h = humanSide();
    return h === 'both' || h === node.pos.turn;
  }

  // Where the engine plays: on the clock, the end of the main line; otherwise the end of the
  // line shown.
  function engineNode() { return state.clock ? mainLeaf() : lineEnd(state.cur); }

  function engineTurnAt(node) {
    if (!node || !node.pos || resultAt(node) || state.failure || state.editor || node.children.length || online()) return false;
    if (state.mode === 'watch') return !state.paused;
    const h = humanSide();
    return h !== 'both' && h !== node.pos.turn;
  }

  // ---- the board ------------------------------------------------------------------------------

  const layers = {};
  const trays = {};

  function drawBoard() {
    const svg = $('board');
    svg.setAttribute('viewBox', `0 0 ${SIZE} ${SIZE}`);
    const defs = el('defs', {}, svg);

    // The boards (BOARD_THEMES): each a diagonal gradient; the stone's grain is a filter of its own.
    for (const [id, stops] of Object.entries(BOARD_THEMES)) {
      const g = el('linearGradient', { id: `board-${id}`, x1: '0', y1: '0', x2: '1', y2: '1' }, defs);
      stops.forEach((c, i) => el('stop', { offset: String(i / (stops.length - 1)), 'stop-color': c }, g));
    }
    const grain = el('filter', { id: 'grain', x: '0', y: '0', width: '100%', height: '100%' }, defs);
    el('feTurbulence', { type: 'fractalNoise', baseFrequency: '0.8', numOctaves: '2', seed: '7', stitchTiles: 'stitch' }, grain);
    el('feColorMatrix', { type: 'matrix', values: '0 0 0 0 0.2  0 0 0 0 0.19  0 0 0 0 0.17  0 0 0 0.55 -0.22' }, grain);

    const tigerFill = el('radialGradient', { id: 'tigerFill', cx: '0.38', cy: '0.32', r: '0.75' }, defs);
    el('stop', { offset: '0', 'stop-color': '#ffc163' }, tigerFill);
    el('stop', { offset: '0.6', 'stop-color': '#ec8a1c' }, tigerFill);
    el('stop', { offset: '1', 'stop-color': '#b45309' }, tigerFill);

    const goatFill = el('radialGradient', { id: 'goatFill', cx: '0.38', cy: '0.32', r: '0.8' }, defs);
    el('stop', { offset: '0', 'stop-color': '#ffffff' }, goatFill);
    el('stop', { offset: '0.7', 'stop-color': '#efe9da' }, goatFill);
    el('stop', { offset: '1', 'stop-color': '#c9c0aa' }, goatFill);

    const pebbleDark = el('radialGradient', { id: 'pebbleDark', cx: '0.35', cy: '0.3', r: '0.8' }, defs);
    el('stop', { offset: '0', 'stop-color': '#6e5d4b' }, pebbleDark);
    el('stop', { offset: '1', 'stop-color': '#2b231b' }, pebbleDark);
    const pebbleLight = el('radialGradient', { id: 'pebbleLight', cx: '0.35', cy: '0.3', r: '0.8' }, defs);
    el('stop', { offset: '0', 'stop-color': '#fbf9f4' }, pebbleLight);
    el('stop', { offset: '1', 'stop-color': '#d3cbbb' }, pebbleLight);

    const shadow = el('filter', { id: 'shadow', x: '-30%', y: '-30%', width: '160%', height: '160%' }, defs);
    el('feDropShadow', { dx: '0', dy: '4', stdDeviation: '3.5', 'flood-color': '#2b1a08', 'flood-opacity': '0.55' },
      shadow);

    // The pieces: two symbols every piece uses, drawn by the set chosen (applyLooks).
    el('symbol', { id: 'tiger', viewBox: '-50 -50 100 100', overflow: 'visible' }, defs);
    el('symbol', { id: 'goat', viewBox: '-50 -50 100 100', overflow: 'visible' }, defs);

    // The board: its surface (the theme's), the stone's grain, frame, lines.
    el('rect', { x: 0, y: 0, width: SIZE, height: SIZE, rx: 18, class: 'board-surface' }, svg);
    el('rect', { x: 0, y: 0, width: SIZE, height: SIZE, rx: 18, filter: 'url(#grain)', class: 'board-grain' }, svg);
    el('rect', { x: 8, y: 8, width: SIZE - 16, height: SIZE - 16, rx: 12, fill: 'none', class: 'board-edge',
      'stroke-width': 2, opacity: 0.6 }, svg);
    const lines = el('g', {}, svg);
    const lo = MARGIN;
    const hi = MARGIN + 4 * GAP;
    for (let i = 0; i < 5; i++) {
      const p = MARGIN + i * GAP;
      el('line', { x1: lo, y1: p, x2: hi, y2: p, class: 'board-line' }, lines);
      el('line', { x1: p, y1: lo, x2: p, y2: hi, class: 'board-line' }, lines);
    }
    // Diagonals join only the points whose column + row is even: the two long diagonals
    // and the diamond through the middles of the edges.
    const diagonals = [['A1', 'E5'], ['E1', 'A5'], ['C1', 'A3'], ['A3', 'C5'], ['C5', 'E3'], ['E3', 'C1']];
    for (const [a, b] of diagonals) {
      const [x1, y1] = xy(a);
      const [x2, y2] = xy(b);
      el('line', { x1, y1, x2, y2, class: 'board-diag' }, lines);
    }
    for (let c = 0; c < 5; c++) {
      for (let r = 0; r < 5; r++) {
        const [x, y] = xy(pointName(c, r));
        el('circle', { cx: x, cy: y, r: (c + r) % 2 === 0 ? 7 : 5.5, class: 'board-point' }, lines);
      }
    }
    layers.labels = el('g', {}, svg);
    layers.marks = el('g', {}, svg);
    layers.pieces = el('g', {}, svg);
    layers.effects = el('g', {}, svg);
    layers.targets = el('g', {}, svg);
    layers.arrows = el('g', {}, svg);
    layers.hits = el('g', {}, svg);
    for (let r = 0; r < 5; r++) {
      for (let c = 0; c < 5; c++) {
        const name = pointName(c, r);
        // The board is one Tab stop (entered at C3, then where the focus last was): the arrows
        // walk its points.
        const hit = el('circle', { r: 50, class: 'hit', 'data-point': name, tabindex: name === 'C3' ? '0' : '-1',
          role: 'button', 'aria-label': name }, layers.hits);
        hit.addEventListener('focus', () => { for (const h of layers.hits.children) h.tabIndex = h === hit ? 0 : -1; });
        hit.addEventListener('click', () => onPoint(name));
        hit.addEventListener('keydown', (e) => onPointKey(e, name));
        hit.addEventListener('pointerdown', (e) => onEditorPointerDown(e, name));
      }
    }
    placeStatic();
    applyLooks();
  }

  // ---- board and piece themes -----------------------------------------------------------------
  // Chosen in "Board and pieces" (the header's board button) and kept in the browser apart from
  // the game. The boards' colours are their gradients here; their lines and labels, style.css's
  // (by the root's data-board). Each piece set draws the two symbols every piece uses.
  const LOOKS_STORE = 'baghchal-looks';
  const BOARD_THEMES = {
    wood: ['#ecd3a0', '#deb877', '#c99a57'],
    stone: ['#d2cfc7', '#b7b3a9', '#9c988e'], // the traditional slab, its lines carved dark
    cloth: ['#356f47', '#2b5f3c', '#214b30'],
  };
  const PIECE_SETS = {
    faces(tiger, goat) {
      // A tiger token: orange face, black stripes, ears and eyes.
      el('circle', { cx: -27, cy: -28, r: 11, fill: '#c2410c', stroke: '#3b1d06', 'stroke-width': 3 }, tiger);
      el('circle', { cx: 27, cy: -28, r: 11, fill: '#c2410c', stroke: '#3b1d06', 'stroke-width': 3 }, tiger);
      el('circle', { r: 40, fill: 'url(#tigerFill)', stroke: '#3b1d06', 'stroke-width': 3.5 }, tiger);
      const stripes = [
        'M-38,-8 q12,2 18,10', 'M-37,10 q10,-2 16,4', 'M38,-8 q-12,2 -18,10', 'M37,10 q-10,-2 -16,4',
        'M-8,-39 q3,9 0,16', 'M8,-39 q-3,9 0,16', 'M0,-40 l0,12',
      ];
      for (const d of stripes) {
        el('path', { d, fill: 'none', stroke: '#23140a', 'stroke-width': 5, 'stroke-linecap': 'round' }, tiger);
      }
      el('ellipse', { cx: 0, cy: 14, rx: 17, ry: 13, fill: '#fff1dc', opacity: 0.9 }, tiger);
      el('ellipse', { cx: -13, cy: -6, rx: 5, ry: 6.5, fill: '#1d1208' }, tiger);
      el('ellipse', { cx: 13, cy: -6, rx: 5, ry: 6.5, fill: '#1d1208' }, tiger);
      el('circle', { cx: -11.5, cy: -8, r: 1.8, fill: '#fff' }, tiger);
      el('circle', { cx: 14.5, cy: -8, r: 1.8, fill: '#fff' }, tiger);
      el('path', { d: 'M-6,7 L6,7 L0,14 Z', fill: '#3b1d06' }, tiger);
      el('path', { d: 'M0,14 q-6,8 -12,4 M0,14 q6,8 12,4', fill: 'none', stroke: '#3b1d06', 'stroke-width': 2.5,
        'stroke-linecap': 'round' }, tiger);

      // A goat token: cream face, curved horns, floppy ears.
      el('path', { d: 'M-12,-26 q-14,-12 -5,-23 q-1,11 9,19', fill: '#a8916a', stroke: '#4a3b24', 'stroke-width': 2.5 },
        goat);
      el('path', { d: 'M12,-26 q14,-12 5,-23 q1,11 -9,19', fill: '#a8916a', stroke: '#4a3b24', 'stroke-width': 2.5 },
        goat);
      el('ellipse', { cx: -33, cy: -6, rx: 12, ry: 6, transform: 'rotate(25 -33 -6)', fill: '#e7dfcc',
        stroke: '#57503f', 'stroke-width': 2.5 }, goat);
      el('ellipse', { cx: 33, cy: -6, rx: 12, ry: 6, transform: 'rotate(-25 33 -6)', fill: '#e7dfcc',
        stroke: '#57503f', 'stroke-width': 2.5 }, goat);
      el('circle', { r: 33, fill: 'url(#goatFill)', stroke: '#57503f', 'stroke-width': 3.5 }, goat);
      el('ellipse', { cx: -11, cy: -5, rx: 4, ry: 5, fill: '#2a2418' }, goat);
      el('ellipse', { cx: 11, cy: -5, rx: 4, ry: 5, fill: '#2a2418' }, goat);
      el('ellipse', { cx: 0, cy: 14, rx: 10, ry: 7, fill: '#d9cdb4' }, goat);
      el('circle', { cx: -3.5, cy: 13, r: 1.8, fill: '#5b4f3a' }, goat);
      el('circle', { cx: 3.5, cy: 13, r: 1.8, fill: '#5b4f3a' }, goat);
    },
    // Stones as the game is played on a slab: dark river stones with three carved stripes for the
    // tigers, pale pebbles for the goats.
    pebbles(tiger, goat) {
      el('path', { d: 'M-38,-6 C-40,-30 -16,-41 4,-40 C28,-39 41,-22 39,2 C37,27 17,39 -4,38 C-27,37 -36,18 -38,-6 Z',
        fill: 'url(#pebbleDark)', stroke: '#1a140e', 'stroke-width': 3 }, tiger);
      for (const d of ['M-22,-22 q10,6 6,18', 'M-2,-28 q9,10 3,26', 'M18,-20 q8,10 2,24']) {
        el('path', { d, fill: 'none', stroke: '#e0a14a', 'stroke-width': 5, 'stroke-linecap': 'round' }, tiger);
      }
      el('path', { d: 'M-31,-4 C-32,-22 -14,-31 3,-30 C22,-29 32,-16 31,2 C30,21 14,30 -3,29 C-21,28 -30,14 -31,-4 Z',
        fill: 'url(#pebbleLight)', stroke: '#6f6759', 'stroke-width': 3 }, goat);
      el('ellipse', { cx: -9, cy: -12, rx: 9, ry: 5, fill: '#ffffff', opacity: 0.55 }, goat);
    },
    // Flat tokens: an orange disc with a dark ring and stripes, a white disc with a grey ring.
    tokens(tiger, goat) {
      el('circle', { r: 40, fill: '#e8801c', stroke: '#2a1606', 'stroke-width': 4 }, tiger);
      el('circle', { r: 29, fill: 'none', stroke: '#2a1606', 'stroke-width': 3 }, tiger);
      for (const a of [0, 60, 120, 180, 240, 300]) {
        el('path', { d: 'M0,-38 L0,-30', stroke: '#2a1606', 'stroke-width': 6, 'stroke-linecap': 'round', transform: `rotate(${a})` }, tiger);
      }
      el('circle', { r: 12, fill: '#2a1606' }, tiger);
      el('circle', { r: 33, fill: '#fbf8f1', stroke: '#5d574c', 'stroke-width': 4 }, goat);
      el('circle', { r: 22, fill: 'none', stroke: '#8d8678', 'stroke-width': 3 }, goat);
      el('circle', { r: 7, fill: '#8d8678' }, goat);
    },
  };

  function loadLooks() {
    try {
      const l = JSON.parse(localStorage.getItem(LOOKS_STORE) || 'null') || {};
      if (l.board in BOARD_THEMES) state.looks.board = l.board;
      if (l.pieces in PIECE_SETS) state.looks.pieces = l.pieces;
    } catch (e) { /* storage disabled or damaged: the default look */ }
  }

  function applyLooks() {
    const root = document.documentElement;
    root.setAttribute('data-board', state.looks.board);
    root.setAttribute('data-pieces', state.looks.pieces);
    const surface = $('board').querySelector('.board-surface');
    if (surface) surface.setAttribute('fill', `url(#board-${state.looks.board})`);
    const tiger = $('tiger');
    const goat = $('goat');
    if (tiger && goat && tiger.getAttribute('data-set') !== state.looks.pieces) {
      clear(tiger);
      clear(goat);
      PIECE_SETS[state.looks.pieces](tiger, goat);
      tiger.setAttribute('data-set', state.looks.pieces);
    }
    $('board-theme').value = state.looks.board;
    $('piece-theme').value = state.looks.pieces;
  }

  function setLooks(change) {
    Object.assign(state.looks, change);
    applyLooks();
    try { localStorage.setItem(LOOKS_STORE, JSON.stringify(state.looks)); } catch (e) { /* not kept */ }
  }

  // Labels sit in the frame's corners of each line, clear of the pieces; they and the click
  // targets follow the board's orientation.
  function placeStatic() {
    clear(layers.labels);
    for (let i = 0; i < 5; i++) {
      const col = state.flipped ? COLS[4 - i] : COLS[i];
      const row = String(state.flipped ? 5 - i : i + 1);
      for (const [x, y, text] of [[MARGIN + i * GAP + 30, 16, col], [MARGIN + i * GAP + 30, SIZE - 16, col],
        [16, MARGIN + i * GAP + 30, row], [SIZE - 16, MARGIN + i * GAP + 30, row]]) {
        const t = el('text', { x, y, class: 'board-label' }, layers.labels);
        t.textContent = text;
      }
    }
    for (const hit of layers.hits.children) {
      const [x, y] = xy(hit.getAttribute('data-point'));
      hit.setAttribute('cx', x);
      hit.setAttribute('cy', y);
    }
  }

  // Arrow keys move the focus between points as they appear on the screen; Enter or Space
  // clicks the point.
  function onPointKey(e, name) {
    const dirs = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      // In the editor the key puts the tool's piece there (or takes it off), as a press does.
      if (state.editor) editPoint(name);
      else onPoint(name);
      return;
    }
    const d = dirs[e.key];
    if (!d) return;
    e.preventDefault();
    e.stopPropagation();
    const sign = state.flipped ? -1 : 1;
    const c = COLS.indexOf(name[0]) + d[0] * sign;
    const r = Number(name[1]) - 1 + d[1] * sign;
    if (c < 0 || c > 4 || r < 0 || r > 4) return;
    const next = layers.hits.querySelector(`[data-point="${pointName(c, r)}"]`);
    if (next) next.focus();
  }

  // Each point tells a screen reader what is on it: "C3 Goat", "A1 Tiger", "B2".
  function labelPoints(cells) {
    for (const hit of layers.hits.children) {
      const p = hit.getAttribute('data-point');
      hit.setAttribute('aria-label', cells[p] ? `${p} ${tr(cells[p] === 'T' ? 'Tiger' : 'Goat')}` : p);
    }
  }

  function piece(kind, point) {
    const [x, y] = xy(point);
    const g = el('g', { class: `piece ${kind}`, 'data-piece': kind, 'data-at': point });
    g.style.transform = `translate(${x}px, ${y}px)`;
    const size = kind === 'tiger' ? 90 : 82;
    el('use', { href: `#${kind}`, x: -size / 2, y: -size / 2, width: size, height: size, filter: 'url(#shadow)' }, g);
    el('circle', { r: kind === 'tiger' ? 42 : 36, class: 'ring' }, g);
    return g;
  }

  // An arrow from a point to a point (a ring for a placement).
  function arrow(move, cls, data) {
    const m = splitMove(move);
    if (!m) return;
    const g = el('g', { class: `arrow ${cls}`, 'data-arrow': data, 'data-move': move }, layers.arrows);
    const [tx, ty] = xy(m.to);
    if (!m.from) {
      el('circle', { cx: tx, cy: ty, r: 40 }, g);
      return;
    }
    const [fx, fy] = xy(m.from);
    const len = Math.hypot(tx - fx, ty - fy);
    const ux = (tx - fx) / len;
    const uy = (ty - fy) / len;
    const hx = tx - ux * 18;
    const hy = ty - uy * 18;
    const bx = hx - ux * 34;
    const by = hy - uy * 34;
    el('line', { x1: fx, y1: fy, x2: bx, y2: by }, g);
    const px = -uy * 24;
    const py = ux * 24;
    el('path', { d: `M${hx},${hy} L${bx + px},${by + py} L${bx - px},${by - py} Z` }, g);
  }

  // ---- arrows and circles the player draws (right-drag, as on lichess) -----------------------
  // A right-drag from a point to another draws an arrow, a right click on a point a circle;
  // the same again takes it off. Green; with Shift red, with Alt blue, with both yellow. They
  // are the position's (node.shapes), kept with the game and written to PGN as lichess does, a
  // comment {[%csl GC3] [%cal GA1B2]}.
  let drawFrom = null;
  function shapeColour(e) { return e.shiftKey && e.altKey ? 'Y' : e.shiftKey ? 'R' : e.altKey ? 'B' : 'G'; }
  function onShapeDown(e) {
    if (e.button !== 2 || state.editor) return;
    // A right click cancels a premove (the contextmenu's work), and draws nothing.
    if (state.premove) { drawFrom = null; return; }
    drawFrom = pointAt(e.clientX, e.clientY);
  }
  function onShapeUp(e) {
    if (e.button !== 2 || !drawFrom) return;
    const to = pointAt(e.clientX, e.clientY);
    const from = drawFrom;
    drawFrom = null;
    if (!to) return;
    toggleShape(state.cur, shapeColour(e) + from + (to === from ? '' : to));
  }
  function toggleShape(node, shape) {
    if (!SHAPE.test(shape)) return;
    const list = node.shapes || [];
    const same = list.findIndex((x) => x.slice(1) === shape.slice(1));
    // The same shape again takes it off; in another colour it takes that colour.
    if (same >= 0 && list[same] === shape) list.splice(same, 1);
    else if (same >= 0) list[same] = shape;
    else if (list.length < SHAPES_MAX) list.push(shape);
    node.shapes = list;
    save();
    render();
  }
  function drawShapes(node) {
    for (const x of node.shapes || []) arrow(`m${x.slice(1)}`, `drawn drawn-${x[0]}`, 'drawn');
  }
  // The PGN comment of a position's shapes, lichess's form; '' when it has none.
  function shapesComment(node) {
    const list = node.shapes || [];
    const csl = list.filter((x) => x.length === 3);
    const cal = list.filter((x) => x.length === 5);
    const parts = [];
    if (csl.length) parts.push(`[%csl ${csl.join(',')}]`);
    if (cal.length) parts.push(`[%cal ${cal.join(',')}]`);
    return parts.length ? `{${parts.join(' ')}}` : '';
  }
  // A comment's shapes (any case: Ga1b2 too) and the rest of its text.
  function shapesOf(comment) {
    const shapes = [];
    const text = comment.replace(/\[%(cal|csl)\s+([^\]]*)\]/gi, (_, kind, list) => {
      for (const w of list.split(/[\s,]+/)) {
        const x = w.toUpperCase();
        if (SHAPE.test(x) && (kind.toLowerCase() === 'cal') === (x.length === 5)) shapes.push(x);
      }
      return ' ';
    }).replace(/\s+/g, ' ').trim();
    return { text, shapes };
  }

  function render() {
    const node = state.cur;
    const svg = $('board');
    clear(layers.arrows);
    if (state.editor) {
      svg.classList.add('editing');
      renderEditorBoard();
      return;
    }
    svg.classList.remove('editing');
    const pos = posOf(node);
    const cells = boardCells(pos.obx);
    const legal = (node.pos && node.pos.legal) || [];
    const myTurn = humanCanMove(node);
    const placing = pos.turn === 'goats' && pos.in_hand > 0;

    clear(layers.marks);
    const last = node.entry;
    if (last) {
      if (last.from) {
        const [fx, fy] = xy(last.from);
        el('circle', { cx: fx, cy: fy, r: 30, class: 'last-from' }, layers.marks);
      }
      const [tx, ty] = xy(last.to);
      el('circle', { cx: tx, cy: ty, r: 47, class: 'last-to' }, layers.marks);
    }

    clear(layers.pieces);
    for (const [point, ch] of Object.entries(cells)) {
      const kind = ch === 'T' ? 'tiger' : 'goat';
      const g = piece(kind, point);
      const movable = myTurn && !placing && legal.some((m) => m.from === point);
      if (movable) g.classList.add('movable');
      if (state.selected === point) g.classList.add('selected');
      layers.pieces.appendChild(g);
    }
    labelPoints(cells);

    // The last move slides (or drops) into place once.
    const anim = state.animate && state.animate.node === node ? state.animate.entry : null;
    state.animate = null;
    if (anim) {
      const g = layers.pieces.querySelector(`[data-at="${anim.to}"]`);
      if (g && anim.from) {
        const [fx, fy] = xy(anim.from);
        const [tx, ty] = xy(anim.to);
        g.style.transition = 'none';
        g.style.transform = `translate(${fx}px, ${fy}px)`;
        g.getBoundingClientRect();
        g.style.transition = '';
        g.style.transform = `translate(${tx}px, ${ty}px)`;
      } else if (g) {
        g.classList.add('placed');
      }
    }

    clear(layers.effects);
    if (last && last.over) {
      const [ox, oy] = xy(last.over);
      if (anim && anim.over) {
        const ghost = el('g', { class: 'captured-ghost' }, layers.effects);
        el('use', { href: '#goat', x: ox - 41, y: oy - 41, width: 82, height: 82 }, ghost);
      }
      const mark = el('g', { class: 'capture-mark', 'data-captured': last.over }, layers.effects);
      el('circle', { cx: ox, cy: oy, r: 24 }, mark);
      el('line', { x1: ox - 13, y1: oy - 13, x2: ox + 13, y2: oy + 13 }, mark);
      el('line', { x1: ox + 13, y1: oy - 13, x2: ox - 13, y2: oy + 13 }, mark);
    }

    clear(layers.targets);
    if (myTurn) {
      const shown = placing ? legal : legal.filter((m) => state.selected && m.from === state.selected);
      for (const m of shown) {
        const [x, y] = xy(m.to);
        const cls = m.kind === 'capture' ? 'target capture' : placing ? 'target place' : 'target';
        el('circle', { cx: x, cy: y, r: m.kind === 'capture' ? 22 : 15, class: cls, 'data-target': m.to }, layers.targets);
      }
    }
    for (const hit of layers.hits.children) {
      const p = hit.getAttribute('data-point');
      const can = myTurn && (placing ? legal.some((m) => m.to === p)
        : legal.some((m) => m.from === p) || (state.selected && legal.some((m) => m.from === state.selected && m.to === p)));
      hit.classList.toggle('clickable', Boolean(can));
    }

    // The engine's best lines of this position, then the hint.
    if (!resultAt(node)) {
      const lines = mpvLines(node);
      lines.slice(0, 2).forEach((l, i) => { if (l.pv && l.pv[0]) arrow(l.pv[0], i ? 'best line2' : 'best', i ? 'line2' : 'best'); });
      if (state.hint && state.hint.nodeId === node.id) arrow(state.hint.move, 'hint', 'hint');
    }
    // The player's own arrows and circles, at the end of a game too.
    drawShapes(node);
    drawPremove(node);
  }

  // ---- the panels ---------------------------------------------------------------------------

  function localEngine() { return document.documentElement.getAttribute('data-engine') === 'local'; }

  function renderStatus() {
    const s = $('status');
    clear(s);
    const node = state.cur;
    const pos = posOf(node);
    const result = resultAt(node);
    s.hidden = Boolean(result);
    s.setAttribute('data-turn', pos.turn);
    s.setAttribute('data-view', node === engineNode() || !node.children.length ? 'game' : String(plyOf(node)));
    s.setAttribute('data-ply', String(plyOf(node)));
    renderNotice();
    renderPremoveBar();
    if (result) return;
    const dot = html('span', `dot ${pos.turn}`);
    const text = html('span', null, pos.turn === 'goats' ? tr('Goats to move') : tr('Tigers to move'));
    const hint = html('span', 'hint-text');
    if (node.children.length) hint.textContent = tr('move {n} of the line: play a move for a side line, → or End to go on', { n: plyOf(node) });
    // The static board without a server asks the engine in this browser (local.js).
    else if (state.failure) hint.textContent = tr(localEngine() ? 'waiting for the engine' : 'waiting for the server');
    else if (!node.pos) hint.textContent = tr(localEngine() ? 'asking the engine…' : 'asking the server…');
    else if (state.thinking === node) hint.textContent = tr('the engine is thinking…');
    else if (humanCanMove(node)) {
      if (pos.turn === 'goats' && pos.in_hand > 0) hint.textContent = tr('click a point to place a goat');
      else hint.textContent = state.selected ? tr('click a highlighted point') : pos.turn === 'goats' ? tr('click a goat to move it') : tr('click a tiger to move it');
    } else if (state.mode === 'watch' && state.paused) hint.textContent = tr('paused');
    s.append(dot, text, hint);
  }

  function renderNotice() {
    const n = state.notice;
    const shown = Boolean(n && n.nodeId === state.cur.id && !state.editor);
    $('notice').hidden = !shown;
    $('notice').textContent = shown ? (typeof n.text === 'function' ? n.text() : n.text) : '';
  }

  function renderFailure() {
    const f = state.failure;
    $('failure').hidden = !f;
    if (!f) return;
    const wait = Math.max(0, Math.ceil((f.at - Date.now()) / 1000));
    const message = typeof f.message === 'function' ? f.message() : f.message;
    $('failure-text').textContent = wait ? tr('{message} Retrying in {n} s…', { message, n: wait }) : tr('{message} Retrying…', { message });
  }

  function strengthText() {
    if (state.skill === 'elo') return `Elo ${state.elo}`;
    return state.skill >= 20 ? tr('full strength') : tr('level {n}', { n: state.skill });
  }

  // The position the strips show: the editor's while it is open.
  function stripPos() { return state.editor ? localOf(editorObx()) : posOf(state.cur); }

  function renderPlayers() {
    const node = state.cur;
    const pos = stripPos();
    const top = state.flipped ? 'goats' : 'tigers';
    const h = humanSide();
    for (const [id, side] of [['player-top', top], ['player-bottom', other(top)]]) {
      const box = $(id);
      clear(box);
      box.setAttribute('data-side', side);
      box.classList.toggle('to-move', (state.editor || !resultAt(node)) && pos.turn === side);
      const who = html('span', 'who', null, box);
      html('span', `dot ${side}`, null, who);
      html('span', null, sideName(side), who);
      const role = online() ? online().who(side) : h === 'both' ? tr('player') : h === side ? tr('you') : tr('engine · {strength}', { strength: strengthText() });
      html('small', null, role, who);
      box.appendChild(trays[side]);
      const clock = html('span', 'clock', null, box);
      clock.id = `clock-${side}`;
      clock.hidden = !(online() ? online().clock : state.clock);
    }
    renderClocks();
  }

  function renderClocks() {
    renderFailure();
    const c = online() ? online().clock : state.clock;
    for (const side of ['goats', 'tigers']) {
      const e = $(`clock-${side}`);
      if (!e) continue;
      e.hidden = !c;
      if (!c) continue;
      const t = timeLeft(side);
      e.textContent = fmtClock(t);
      e.setAttribute('data-ms', String(Math.round(t)));
      e.classList.toggle('running', c.running === side);
      e.classList.toggle('low', t < 10000);
      e.classList.toggle('flagged', c.flag === side);
    }
  }

  function renderTrays() {
    const p = stripPos();
    $('hand-count').textContent = String(p.in_hand);
    $('cap-count').textContent = String(p.captured);
    const hand = $('hand');
    clear(hand);
    for (let i = 0; i < 20; i++) html('span', i < p.in_hand ? 'pip' : 'pip used', null, hand);
    const caps = $('caps');
    clear(caps);
    for (let i = 0; i < 5; i++) html('span', i < p.captured ? 'pip taken' : 'pip', null, caps);
  }

  // Goat moves are numbered; a line starting with a tiger move opens with "N...".
  function moveNumber(node) {
    const offset = sideOf(state.startObx) === 'tigers' ? 1 : 0;
    return Math.floor((plyOf(node) - 1 + offset) / 2) + 1;
  }

  // ---- lists walked by the keyboard ----------------------------------------------------------
  // The move list, the engine's lines and the analysis are one Tab stop each (a roving
  // tabindex): one item takes the Tab, the arrows walk the items, Enter or Space clicks the one
  // focused. A list drawn again while it had the focus keeps it: on the current move in the move
  // list (whose arrows walk the game), at the same place in the others.
  const ROVE = { moves: '[data-node]', lines: '.mv', 'analysis-list': 'li' };
  function roveItems(list) { return [...list.querySelectorAll(ROVE[list.id])]; }
  // Before a list is drawn again: the index of its item with the focus, or -1.
  function roveFocus(list) { return roveItems(list).indexOf(document.activeElement); }
  // An item's name that outlives a redraw: its line and place in it, or its move.
  function roveName(x) {
    return x ? `${x.parentElement.getAttribute('data-line') || ''}/${x.getAttribute('data-idx') || x.getAttribute('data-move') || ''}` : null;
  }
  // Before a list whose items come and go is drawn again (the engine's lines as they deepen,
  // the analysis): the item holding the Tab stop, by name, and whether it had the focus.
  function roveSave(list) {
    const items = roveItems(list);
    const focused = items.indexOf(document.activeElement);
    const stop = focused >= 0 ? focused : items.findIndex((x) => x.tabIndex === 0);
    return { focused: focused >= 0, index: Math.max(stop, 0), name: roveName(items[stop]) };
  }
  // After: the Tab stop (and the focus, if it had it) back on the item of that name, else on
  // the same line's last item, else at the same index.
  function roveRestore(list, was) {
    const items = roveItems(list);
    let at = was.name === null ? -1 : items.findIndex((x) => roveName(x) === was.name);
    if (at < 0 && was.name && !was.name.startsWith('/')) {
      const line = was.name.slice(0, was.name.indexOf('/'));
      items.forEach((x, i) => { if (x.parentElement.getAttribute('data-line') === line) at = i; });
    }
    rove(list, at >= 0 ? at : was.index, was.focused ? 0 : -1);
  }
  function rove(list, at, had) {
    const items = roveItems(list);
    at = Math.max(0, Math.min(at, items.length - 1));
    items.forEach((it, i) => { it.tabIndex = i === at ? 0 : -1; });
    if (had >= 0 && items[at]) items[at].focus({ preventScroll: true });
  }
  function onRoveKey(e) {
    const list = e.currentTarget;
    const items = roveItems(list);
    const i = items.indexOf(e.target);
    if (i < 0 || e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); e.target.click(); return; }
    if (list.id === 'moves') {
      // Up and down: the move printed before or after (side lines too); the other keys walk
      // the game as everywhere.
      if (e.key !== 'ArrowUp' && e.key !== 'ArrowDown') return;
      e.preventDefault();
      const next = items[i + (e.key === 'ArrowUp' ? -1 : 1)];
      if (next) next.click();
      return;
    }
    // Left and right along a line, up and down to the line above or below (along the list
    // when it is one line), Home and End to the line's ends.
    const rows = [...new Set(items.map((x) => x.parentElement))];
    const r = rows.indexOf(e.target.parentElement);
    const row = (k) => items.filter((x) => x.parentElement === rows[k]);
    const same = row(r);
    const k = same.indexOf(e.target);
    const step = (d) => (rows.length > 1 ? row(r + d)[Math.min(k, row(r + d).length - 1)] : same[k + d]);
    const keys = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: 0, ArrowDown: 0, Home: 0, End: 0 };
    if (!(e.key in keys)) return;
    e.preventDefault();
    e.stopPropagation(); // not the game's arrows
    const next = e.key === 'ArrowUp' ? step(-1) : e.key === 'ArrowDown' ? step(1) : e.key === 'Home' ? same[0]
      : e.key === 'End' ? same[same.length - 1] : same[k + keys[e.key]];
    if (!next) return;
    items.forEach((x) => { x.tabIndex = -1; });
    next.tabIndex = 0;
    next.focus();
  }

  function moveCell(node, cls) {
    const c = html('span', cls, prettyMove(node.move));
    const g = glyphOf(node);
    if (g) {
      // Its own glyph, else the mark of a game review (review.js).
      const s = html('span', `glyph g${GLYPHS.indexOf(g) + 1}${node.glyph ? '' : ' reviewed'}`, g, c);
      s.setAttribute('data-glyph', g);
    }
    c.setAttribute('data-node', String(node.id));
    c.setAttribute('role', 'listitem');
    if (node.entry.kind === 'capture') c.classList.add('cap');
    if (node === state.cur) { c.classList.add('current'); c.setAttribute('aria-current', 'true'); }
    return c;
  }

  // A side line, inline: its moves with their numbers, and side lines of its own in brackets.
  function renderVariation(first, box) {
    let n = first;
    let opening = true;
    while (n) {
      if (n.side === 'goats') html('span', 'vnum', `${moveNumber(n)}.`, box);
      else if (opening) html('span', 'vnum', `${moveNumber(n)}…`, box);
      box.appendChild(moveCell(n, 'vmv'));
      opening = false;
      if (n.comment) {
        html('span', 'vcomment', n.comment, box).setAttribute('data-comment', String(n.id));
        opening = true;
      }
      const sibs = n.parent.children;
      if (n !== first && sibs[0] === n && sibs.length > 1) {
        for (const s of sibs.slice(1)) {
          html('span', 'vnum', '(', box);
          renderVariation(s, box);
          html('span', 'vnum', ')', box);
        }
        opening = true;
      }
      n = n.children[0];
    }
  }

  // Only the list scrolls, never the page: the board stays where it is.
  function keepCurrentInView() {
    const scroll = $('moves-scroll');
    const cur = $('moves').querySelector('.current');
    if (cur) {
      const cr = cur.getBoundingClientRect();
      const sr = scroll.getBoundingClientRect();
      if (cr.top < sr.top || cr.bottom > sr.bottom) scroll.scrollTop += cr.top - sr.top - sr.height / 2;
    } else if (state.cur === state.root) scroll.scrollTop = 0;
  }

  function renderMoves() {
    const box = $('moves');
    const had = roveFocus(box);
    clear(box);
    if (state.root.comment) html('div', 'comment', state.root.comment, box).setAttribute('data-comment', String(state.root.id));
    let n = state.root.children[0];
    let open = false; // the row has its goat move and waits for the tigers'
    let ply = 0;
    while (n) {
      ply++;
      if (n.side === 'goats' || !open) {
        html('span', 'num', String(moveNumber(n)), box);
        if (n.side === 'tigers') html('span', 'empty', '…', box);
      }
      const cell = moveCell(n, 'mv');
      cell.setAttribute('data-ply', String(ply));
      if (!n.children.length) cell.classList.add('latest');
      box.appendChild(cell);
      open = n.side === 'goats';
      // A comment goes under its move, across the row.
      if (n.comment) {
        if (open) { html('span', 'empty', '…', box); open = false; }
        html('div', 'comment', n.comment, box).setAttribute('data-comment', String(n.id));
      }
      const sibs = n.parent.children;
      if (sibs.length > 1) {
        if (open) { html('span', 'empty', '…', box); open = false; }
        for (const s of sibs.slice(1)) {
          const v = html('div', 'var', null, box);
          renderVariation(s, v);
        }
      }
      n = n.children[0];
    }
    keepCurrentInView();
    rove(box, roveItems(box).findIndex((x) => x.classList.contains('current')), had);
    $('line-info').textContent = onMainLine(state.cur) ? tr('click a move to look back; a move there starts a side line')
      : tr('side line');
  }

  // The engine's "mate N" counts moves of the side to move (a win in N moves is 2N - 1 plies, a
  // loss in N moves 2N): shown in plies, as the database's distances are.
  function matePlies(mate) { return mate > 0 ? 2 * mate - 1 : -2 * mate; }

  function scoreForGoats(score, side) {
    const sign = side === 'goats' ? 1 : -1;
    if (score && typeof score.mate === 'number') return { mate: score.mate * sign, plies: matePlies(score.mate) };
    // A win or loss from the placement database, whose distance is not stored (its cp only
    // orders such lines): a win, no number.
    if (score && (score.wdl === 'win' || score.wdl === 'loss')) return { mate: (score.wdl === 'win' ? 1 : -1) * sign, plies: null };
    return { cp: (score ? score.cp : 0) * sign };
  }

  // 0 (tigers winning) .. 1 (goats winning).
  function fraction(s) {
    if (s.mate !== undefined) return s.mate > 0 ? 1 : s.mate < 0 ? 0 : 0.5;
    return 1 / (1 + Math.exp(-s.cp / 250));
  }

  function scoreText(s) {
    if (s.mate !== undefined) {
      const n = s.plies;
      if (typeof n !== 'number') return s.mate > 0 ? tr('Goats win') : tr('Tigers win');
      return s.mate > 0 ? tr(['Goats win in {n} ply', 'Goats win in {n} plies'], { n })
        : tr(['Tigers win in {n} ply', 'Tigers win in {n} plies'], { n });
    }
    const v = s.cp / 100;
    const abs = Math.abs(v).toFixed(2);
    return v === 0 ? tr('Even {v}', { v: '0.00' }) : v > 0 ? tr('Goats +{v}', { v: abs }) : tr('Tigers +{v}', { v: abs });
  }

  function shortScore(s) {
    if (s.mate !== undefined) {
      if (typeof s.plies !== 'number') return s.mate > 0 ? tr('G win') : tr('T win');
      const n = s.plies;
      return s.mate > 0 ? tr('G #{n}', { n }) : tr('T #{n}', { n });
    }
    const v = s.cp / 100;
    return `${v > 0 ? '+' : v < 0 ? '−' : ''}${Math.abs(v).toFixed(2)}`;
  }

  // The goats' share (0..1) on the card's bar and on the upright bar beside the board, whose
  // goats' part grows from the goats' side of the board.
  function setBars(f, text) {
    // As precise as data-goats says, so that the bar's height is the value it names.
    const pct = `${(f * 100).toFixed(1)}%`;
    $('evalbar').style.width = pct;
    const v = $('vbar');
    const fill = $('vbar-fill');
    fill.style.height = pct;
    fill.style.top = state.flipped ? '0' : '';
    fill.style.bottom = state.flipped ? '' : '0';
    v.setAttribute('data-goats', f.toFixed(3));
    v.setAttribute('aria-label', tr('Evaluation: {text}', { text }));
    v.title = text;
  }

  function renderEngine() {
    $('thinking').hidden = !state.thinking;
    const a = state.analysis;
    const score = $('score');
    const pv = $('pv');
    clear(pv);
    renderGraph();
    const result = resultAt(state.cur);
    if (result) {
      // The game is over here: no search to speak of, the result instead.
      score.textContent = result.winner === 'goats' ? tr('Goats won') : result.winner === 'tigers' ? tr('Tigers won') : tr('Drawn');
      score.setAttribute('data-cp', 'over');
      $('engine-meta').textContent = tr('game over');
      setBars(result.winner === 'goats' ? 1 : result.winner === 'tigers' ? 0 : 0.5, score.textContent);
      return;
    }
    const lines = mpvLines(state.cur);
    const shown = lines.length ? { score: lines[0].score, side: posOf(state.cur).turn } : a;
    if (!shown) {
      score.textContent = '—';
      score.removeAttribute('data-cp');
      $('engine-meta').textContent = '';
      setBars(0.5, tr('no score yet'));
      return;
    }
    const s = scoreForGoats(shown.score, shown.side);
    score.textContent = scoreText(s);
    score.setAttribute('data-cp', s.mate !== undefined ? `mate ${s.mate}` : String(s.cp));
    setBars(fraction(s), score.textContent);
    if (!a) { $('engine-meta').textContent = ''; return; }
    const nodesText = a.nodes >= 1e6 ? `${(a.nodes / 1e6).toFixed(1)}M` : a.nodes >= 1e3 ? `${Math.round(a.nodes / 1e3)}k` : String(a.nodes || 0);
    // A forced result found early runs the iterations up to the engine's limit: no depth to speak of.
    const depth = a.depth < 100 ? `${tr('depth {d}', { d: a.depth })} · ` : '';
    const via = viaText(a);
    $('engine-meta').textContent = `${a.kind === 'hint' ? tr('hint') : tr('last engine move')}: ${depth}${tr('{n} nodes', { n: nodesText })} · ${tr('{s} s', { s: ((a.time_ms || 0) / 1000).toFixed(2) })}${via ? ` · ${via}` : ''}`;
    $('engine-meta').setAttribute('data-via', a.via || '');
    renderRemote();
    let side = a.side;
    for (const m of a.pv || []) {
      html('span', side === 'goats' ? 'g' : 't', prettyMove(m), pv);
      side = other(side);
    }
  }

  // The engine's lines for a node, best first: [{score, pv}] (scores for the side to move).
  function mpvLines(node) {
    const m = state.mpv;
    if (!state.linesOn || state.locked || !m || m.nodeId !== node.id || !m.data) return [];
    if (m.data.lines && m.data.lines.length) return m.data.lines;
    return m.data.move ? [{ score: m.data.score, pv: m.data.pv, depth: m.data.depth }] : [];
  }

  // Where the lines' values come from: the search's depth, or the database when the search
  // stopped on its values (then the iterations run to the engine's limit: no depth to speak of).
  function linesSource(data) {
    if (data.depth < 100) return tr('depth {d}', { d: data.depth });
    return data.tbhits > 0 ? tr('from the database') : '';
  }

  function renderLines() {
    const list = $('lines');
    const had = roveSave(list);
    clear(list);
    const node = state.cur;
    const lines = mpvLines(node);
    const info = $('lines-info');
    const c = state.ceval && state.ceval.nodeId === node.id ? state.ceval : null;
    $('ceval-deeper').hidden = !(state.linesOn && c && !c.running && !c.limit && lines.length && !resultAt(node));
    info.removeAttribute('data-depth');
    info.setAttribute('data-running', String(!!(state.linesOn && c && c.running)));
    if (!state.linesOn) { info.textContent = ''; return; }
    if (resultAt(node)) { info.textContent = tr('game over'); return; }
    const failed = state.linesError && state.linesError.nodeId === node.id ? state.linesError.text : null;
    if (lines.length) {
      // Depth, nodes a second and whether it still searches, live as the lines deepen; a win
      // from the database says so instead of a depth.
      const d = state.mpv.data;
      const parts = [];
      if (typeof d.depth === 'number' && d.depth < 100) { parts.push(tr('depth {d}', { d: d.depth })); info.setAttribute('data-depth', String(d.depth)); }
      else if (linesSource(d)) parts.push(linesSource(d));
      if (npsText(d)) parts.push(npsText(d));
      if (c && c.running) parts.push(tr('searching…'));
      else if (c && c.limit) parts.push(tr("the server's longest search"));
      info.textContent = parts.join(' · ');
    } else info.textContent = failed ? failed() : tr('searching…');
    const side0 = posOf(node).turn;
    lines.forEach((l, i) => {
      const li = html('li', null, null, list);
      li.setAttribute('data-line', String(i + 1));
      if (l.database) { li.classList.add('from-database'); li.title = tr('The value from the database (the engine searched the moves above)'); }
      const s = scoreForGoats(l.score, side0);
      html('span', 'sc', shortScore(s), li).title = scoreText(s);
      let side = side0;
      (l.pv || []).slice(0, 10).forEach((mv, j) => {
        const span = html('span', `mv ${side === 'goats' ? 'g' : 't'}`, prettyMove(mv), li);
        span.setAttribute('data-idx', String(j));
        span.title = tr('play the line up to this move');
        span.setAttribute('role', 'button');
        span.addEventListener('click', () => playLine(node, l.pv.slice(0, j + 1)));
        side = other(side);
      });
    });
    roveRestore(list, had);
  }

  // The evaluation along the line shown: a point per position the engine has scored, goats up.
  function renderGraph() {
    const svg = $('evalgraph');
    clear(svg);
    const W = 300;
    const H = 80;
    const line = lineOf(state.cur);
    const plies = Math.max(line.length - 1, 1);
    const x = (i) => 4 + (i / plies) * (W - 8);
    const y = (f) => 4 + (1 - f) * (H - 8);
    el('rect', { x: 0, y: 0, width: W, height: H / 2, class: 'graph-goats' }, svg);
    el('rect', { x: 0, y: H / 2, width: W, height: H / 2, class: 'graph-tigers' }, svg);
    el('line', { x1: 0, y1: H / 2, x2: W, y2: H / 2, class: 'graph-mid' }, svg);
    const pts = [];
    line.forEach((n, i) => { if (n.eval) pts.push([x(i), y(fraction(n.eval))]); });
    svg.setAttribute('data-points', String(pts.length));
    svg.setAttribute('data-plies', String(line.length - 1));
    if (pts.length) {
      const d = pts.map(([px, py]) => `${px.toFixed(1)},${py.toFixed(1)}`).join(' ');
      el('polygon', { points: `${pts[0][0].toFixed(1)},${H / 2} ${d} ${pts[pts.length - 1][0].toFixed(1)},${H / 2}`,
        class: 'graph-area' }, svg);
      el('polyline', { points: d, class: 'graph-line' }, svg);
      for (const [px, py] of pts) el('circle', { cx: px, cy: py, r: 2.2, class: 'graph-dot' }, svg);
    }
    const cx = x(plyOf(state.cur));
    el('line', { x1: cx, y1: 0, x2: cx, y2: H, class: 'graph-cursor' }, svg);
    // Marks of a feature file on the graph (review.js: the plies where the value changed).
    for (const f of hooks('onGraph')) f(svg, { line, x, y, W, H });
    if (state.rebuilding) $('graph-info').textContent = tr('rebuilding {done} / {total}…', state.rebuilding);
    else $('graph-info').textContent = tr('click to jump');
  }

  function onGraphClick(e) {
    const svg = $('evalgraph');
    const r = svg.getBoundingClientRect();
    const line = lineOf(state.cur);
    const plies = Math.max(line.length - 1, 1);
    const fx = ((e.clientX - r.left) / r.width) * 300;
    const i = Math.round(((fx - 4) / 292) * plies);
    goTo(line[Math.max(0, Math.min(line.length - 1, i))]);
  }

  function renderResult() {
    const banner = $('result-banner');
    const r = resultAt(state.cur);
    if (!r) { banner.hidden = true; return; }
    const words = resultWords(r);
    $('result-title').textContent = words.title;
    $('result-reason').textContent = capitalise(words.reason);
    banner.hidden = false;
  }

  function valueText(m) {
    const proven = m.proven ? ' ✓' : '';
    if (m.wdl === 'win') return { cls: 'win', text: m.distance === null ? tr('Win') : tr('Win in {n}', { n: m.distance }), proven };
    if (m.wdl === 'loss') return { cls: 'loss', text: m.distance === null ? tr('Loss') : tr('Loss in {n}', { n: m.distance }), proven };
    // Under forbid no game is drawn: the database's draw is a value not known there.
    if (m.wdl === 'open' || (m.wdl === 'draw' && state.rule === 'forbid')) return { cls: 'open', text: tr('Open'), title: OPEN_TEXT() };
    if (m.wdl === 'draw') return { cls: 'draw', text: tr('Draw') };
    if (m.score && (m.score.wdl === 'win' || m.score.wdl === 'loss')) return { cls: m.score.wdl, text: m.score.wdl === 'win' ? tr('Win') : tr('Loss') };
    if (m.score && typeof m.score.cp === 'number') {
      const v = m.score.cp / 100;
      return { cls: v > 0.3 ? 'win' : v < -0.3 ? 'loss' : 'draw', text: `${v > 0 ? '+' : ''}${v.toFixed(2)}` };
    }
    return { cls: 'none', text: '?' };
  }

  function renderAnalysis() {
    const list = $('analysis-list');
    const had = roveSave(list);
    clear(list);
    const a = state.an;
    const fresh = a && a.nodeId === state.cur.id;
    $('analysis-legend').hidden = true;
    const run = state.anRun && state.anRun.nodeId === state.cur.id ? state.anRun : null;
    $('analysis-stop').hidden = !(state.anRun && state.anRun.running);
    $('analysis-source').setAttribute('data-running', String(!!(run && run.running)));
    if (!fresh) {
      $('analysis-source').textContent = state.analysing ? tr('analysing…') : '';
      return;
    }
    const d = a.data;
    const distances = d.moves.some((m) => typeof m.distance === 'number' && (m.wdl === 'win' || m.wdl === 'loss'));
    const live = d.source === 'search' ? [npsText(d), run && run.running ? tr('searching…') : run && run.limit
      ? tr("the server's longest search") : ''].filter(Boolean).map((x) => ` · ${x}`).join('') : '';
    $('analysis-source').textContent = d.source === 'database' ? (distances ? tr('from the database, plies to the end') : tr('from the database'))
      : d.source === 'search' ? tr('engine search, depth {d}', { d: d.depth }) + live : tr('game over');
    if (viaText(d)) $('analysis-source').textContent += ` · ${viaText(d)}`;
    $('analysis-source').setAttribute('data-depth', String(d.depth));
    $('analysis-source').setAttribute('data-via', d.via || '');
    renderRemote();
    let open = false;
    for (const m of d.moves) {
      const li = html('li', null, null, list);
      li.setAttribute('data-move', m.move);
      html('span', 'mv', prettyMove(m.move), li);
      const v = valueText(m);
      const val = html('span', `val ${v.cls}`, v.text, li);
      if (v.title) { val.title = v.title; li.title = v.title; open = true; }
      if (v.proven) {
        const p = html('span', 'proven', v.proven, val);
        p.title = PROVEN_TEXT();
        val.setAttribute('data-proven', 'true');
      }
      li.classList.add(v.cls);
      li.addEventListener('click', () => {
        const node = state.cur;
        if (!humanCanMove(node)) return;
        const entry = (node.pos.legal || []).find((x) => x.move === m.move);
        if (entry) play(entry, node);
      });
    }
    $('analysis-legend').hidden = !open;
    roveRestore(list, had);
    keepCurrentInView(); // the list may have shrunk the move list
  }

  function renderControls() {
    for (const b of document.querySelectorAll('[data-mode]')) {
      b.classList.toggle('active', b.getAttribute('data-mode') === state.mode);
    }
    const node = state.cur;
    $('undo').disabled = lineEnd(node) === state.root;
    $('pause').hidden = state.mode !== 'watch';
    $('resign').hidden = !resigningSide();
    $('pause').textContent = state.paused ? tr('Resume') : tr('Pause');
    $('resign').textContent = $('resign').classList.contains('confirm') ? tr('Confirm?') : tr('Resign');
    $('hint').disabled = !node.pos || Boolean(resultAt(node)) || Boolean(state.thinking) || Boolean(state.editor) || Boolean(state.locked);
    // While a puzzle is solved (Board.lock): no hint, no engine lines, no analysis.
    $('lines-on').disabled = Boolean(state.locked);
    $('analyse').disabled = Boolean(state.locked);
    $('flip').setAttribute('aria-pressed', String(state.flipped));
    $('nav-back').disabled = node === state.root;
    $('nav-first').disabled = node === state.root;
    $('nav-forward').disabled = !node.children.length;
    $('nav-last').disabled = !node.children.length;
    $('promote').hidden = onMainLine(node);
    $('delete-line').hidden = node === state.root;
    $('skill').value = String(state.skill);
    $('elo-row').hidden = state.skill !== 'elo';
    $('elo').value = String(state.elo);
    $('elo-label').textContent = String(state.elo);
    $('tc').value = state.tc;
    $('tc-custom').hidden = state.tc !== 'custom';
    $('movetime-row').hidden = state.tc !== 'move';
    $('rule').value = state.rule;
    $('lines-on').checked = state.linesOn;
    $('multipv').value = String(state.multipv);
    $('ceval-time').value = String(state.cevalTime);
    $('engine-hash').value = String(state.engineHash);
    $('sound').setAttribute('aria-pressed', String(state.sound));
    $('theme').setAttribute('aria-pressed', String(state.theme === 'light'));
    $('edit').disabled = Boolean(state.editor);
    const obx = $('obx');
    const pos = posOf(node);
    if (!state.obxEdited && document.activeElement !== obx) obx.value = pos.obx;
  }

  function renderAll() {
    render();
    renderStatus();
    renderPlayers();
    renderTrays();
    renderMoves();
    renderEngine();
    renderLines();
    renderResult();
    renderAnalysis();
    renderControls();
    renderEditorPanel();
    for (const f of hooks('onRender')) f();
  }

  // ---- sound: a short tone made on the spot, no files ---------------------------------------

  let audio = null;
  function sound(kind) {
    if (!state.sound) return;
    document.body.dataset.sound = kind;
    document.body.dataset.sounds = String(Number(document.body.dataset.sounds || 0) + 1);
    try {
      if (!audio) audio = new (window.AudioContext || window.webkitAudioContext)();
      const t = audio.currentTime;
      const tones = kind === 'capture' ? [[180, 0.16, 'square', 0.09]] : kind === 'end' ? [[520, 0.15, 'sine', 0.12], [390, 0.3, 'sine', 0.12]]
        : [[640, 0.07, 'triangle', 0.12]];
      let at = t;
      for (const [f, d, type, vol] of tones) {
        const o = audio.createOscillator();
        const g = audio.createGain();
        o.type = type;
        o.frequency.value = f;
        g.gain.setValueAtTime(vol, at);
        g.gain.exponentialRampToValueAtTime(0.001, at + d);
        o.connect(g).connect(audio.destination);
        o.start(at);
        o.stop(at + d);
        at += d;
      }
    } catch (e) { /* no audio here: the board plays on silently */ }
  }

  // ---- the record: kept, shared, exported, imported -----------------------------------------

  function serialise(node) {
    const o = { m: node.move, c: node.children.map(serialise) };
    if (node.eval) o.e = node.eval;
    if (node.obx && node.entry.kind !== 'step') o.o = node.obx; // where requests start (gameOf)
    if (node.clk) o.k = node.clk;
    if (node.glyph) o.g = node.glyph;
    if (node.comment) o.t = node.comment;
    if (node.shapes && node.shapes.length) o.s = node.shapes;
    if (node.review) o.r = node.review; // review.js's marks, kept with the game
    return o;
  }

  function build(parent, o, side) {
    const n = newNode(parent, entryOf(o.m), side);
    if (Array.isArray(o.s)) n.shapes = o.s.filter((x) => typeof x === 'string' && SHAPE.test(x)).slice(0, SHAPES_MAX);
    if (o.e && typeof o.e === 'object') n.eval = o.e;
    if (typeof o.o === 'string' && n.entry.kind !== 'step') n.obx = o.o;
    if (o.k && typeof o.k.goats === 'number' && typeof o.k.tigers === 'number') n.clk = { goats: o.k.goats, tigers: o.k.tigers };
    if (GLYPHS.includes(o.g)) n.glyph = o.g;
    if (typeof o.t === 'string' && o.t.trim()) n.comment = o.t.trim().slice(0, COMMENT_MAX);
    if (o.r && typeof o.r === 'object') n.review = o.r;
    for (const c of o.c || []) n.children.push(build(n, c, other(side)));
    return n;
  }

  // The game and the settings as they are kept (save) and given back (fromSaved).
  function record() {
    const c = state.clock;
    const clock = c ? { base: c.base, inc: c.inc, left: { goats: timeLeft('goats'), tigers: timeLeft('tigers') },
      running: c.running, flag: c.flag } : null;
    return {
        startObx: state.startObx, rule: state.rule, tree: state.root.children.map(serialise),
        rootEval: state.root.eval, rootComment: state.root.comment, rootShapes: state.root.shapes, path: pathTo(state.cur).map((n) => n.parent.children.indexOf(n)),
        mode: state.mode, movetime: state.movetime, flipped: state.flipped, skill: state.skill, elo: state.elo,
        tc: state.tc, tcMin: state.tcMin, tcInc: state.tcInc, clock, resigned: state.resigned, sound: state.sound, theme: state.theme,
        linesOn: state.linesOn, multipv: state.multipv, cevalTime: state.cevalTime, engineHash: state.engineHash,
        engineThreads: state.engineThreads, engineServer: state.engineServer,
    };
  }

  function save() {
    if (online()) { saveSettings(); return; }
    try {
      localStorage.setItem(STORE, JSON.stringify(record()));
    } catch (e) { /* storage full or disabled: the game just is not kept */ }
    updateUrl();
  }

  // A game kept aside (puzzles.js keeps the game in progress while puzzles are played) and
  // given back as it was: its moves, the move shown, its rule, clock and mode.
  function snapshot() { return JSON.parse(JSON.stringify(record())); }
  async function restoreGame(saved) {
    if (!saved || typeof saved.startObx !== 'string' || !Array.isArray(saved.tree)) return false;
    abortEngine();
    state.gen++;
    if (['goats', 'tigers', 'watch', 'human'].includes(saved.mode)) state.mode = saved.mode;
    if (saved.tc === 'move' || /^\d+\+\d+$/.test(saved.tc) || saved.tc === 'custom') state.tc = saved.tc;
    if (state.tc !== 'move') state.clock = newClock();
    fromSaved(saved);
    renderAll();
    const ok = await fetchPos(lineEnd(state.cur));
    if (ok) await ensurePos(state.cur);
    save();
    renderAll();
    schedule();
    requestLines();
    return ok;
  }

  // While an online game is shown the page's own game stays stored as it was: only the sound and
  // the theme chosen meanwhile are kept.
  function saveSettings() {
    try {
      const saved = JSON.parse(localStorage.getItem(STORE) || 'null');
      if (saved) localStorage.setItem(STORE, JSON.stringify({ ...saved, sound: state.sound, theme: state.theme }));
    } catch (e) { /* storage full or disabled */ }
  }

  // The address names the start, the moves of the line shown and, when it is not the line's
  // end, the move shown: reloading or sharing it opens the same place.
  function updateUrl() {
    const end = lineEnd(state.cur);
    const moves = movesTo(end).map(plain);
    let url = location.pathname;
    if (state.startObx !== START || moves.length || state.rule !== 'forbid') {
      // Readable: only what must be escaped is (a space is "+", "#" is "%23").
      const enc = (t) => encodeURIComponent(t).replace(/%2F/g, '/').replace(/%40/g, '@').replace(/%2C/g, ',')
        .replace(/%20/g, '+');
      url += `?obx=${enc(state.startObx)}`;
      if (moves.length) url += `&moves=${enc(moves.join(','))}`;
      if (end !== state.cur) url += `&ply=${plyOf(state.cur)}`;
      if (state.rule !== 'forbid') url += `&rule=${state.rule}`;
    }
    // The server reads request targets of up to 2,048 bytes: a longer address could not even
    // be reloaded. A game that long is named by the page's storage alone (and Export).
    state.addressTooLong = url.length > ADDRESS_MAX;
    if (state.addressTooLong) url = location.pathname;
    if (url !== location.pathname + location.search) history.replaceState(null, '', url);
  }

  function resultTag(r) { return !r ? '*' : r.winner === 'goats' ? '1-0' : r.winner === 'tigers' ? '0-1' : '1/2-1/2'; }

  function pgn() {
    const leaf = mainLeaf();
    const r = resultAt(leaf);
    const result = resultTag(r);
    const who = (side) => (state.mode === side || state.mode === 'human' ? 'Player' : 'baghchal');
    const d = new Date();
    const date = `${d.getFullYear()}.${String(d.getMonth() + 1).padStart(2, '0')}.${String(d.getDate()).padStart(2, '0')}`;
    const tags = [['Event', 'Bagh-Chal web board'], ['Site', location.host], ['Date', date], ['Round', '-'],
      ['White', who('goats')], ['Black', who('tigers')], ['Result', result], ['Variant', 'Bagh-Chal'],
      ['SetUp', '1'], ['FEN', state.startObx], ['Repetition', state.rule]];
    if (state.clock) tags.push(['TimeControl', `${Math.round(state.clock.base / 1000)}+${Math.round(state.clock.inc / 1000)}`]);
    tags.push(['Termination', r ? r.description : 'unterminated']);
    const head = tags.map(([k, v]) => `[${k} "${String(v).replace(/["\\]/g, '')}"]`).join('\n');
    // Move numbers count goat moves (White); a line opening with a tiger move starts "N...";
    // side lines follow their move in brackets.
    const words = [];
    const line = (first, opening) => {
      let n = first;
      let open = opening;
      while (n) {
        if (n.side === 'goats') words.push(`${moveNumber(n)}.`);
        else if (open) words.push(`${moveNumber(n)}...`);
        words.push(plain(n.move));
        open = false;
        const notes = pgnNotes(n);
        words.push(...notes);
        if (notes.some((w) => w[0] === '{')) open = true; // the move after a comment gets its number
        const sibs = n.parent.children;
        if (sibs[0] === n && sibs.length > 1) {
          for (const s of sibs.slice(1)) { words.push('('); line(s, true); words.push(')'); }
          open = true;
        }
        n = n.children[0];
      }
    };
    if (state.root.comment) words.push(pgnComment(state.root.comment));
    if (shapesComment(state.root)) words.push(shapesComment(state.root));
    if (state.root.children[0]) line(state.root.children[0], true);
    words.push(result);
    // "(" joins the word after it and ")" the word before: here, not by a replace over the text,
    // which would change the brackets of a comment.
    const pieces = [];
    let glue = false;
    for (const w of words) {
      if ((w === ')' || glue) && pieces.length) pieces[pieces.length - 1] += w;
      else pieces.push(w);
      glue = w === '(';
    }
    const lines = [];
    let text = '';
    for (const w of pieces) {
      if (text && text.length + w.length + 1 > 79) { lines.push(text); text = w; } else text = text ? `${text} ${w}` : w;
    }
    if (text) lines.push(text);
    return `${head}\n\n${lines.join('\n')}\n`;
  }

  // The glyph shown for a move: its own, else the mark a game review gave it (review.js).
  function glyphOf(node) { return node.glyph || (node.review && node.review.mark) || null; }

  // What PGN writes after a move: its glyph as a NAG ($1 !, $2 ?, $3 !!, $4 ??, $5 !?, $6 ?!),
  // its comment, and for a review's mark standing in for a glyph the better moves it names.
  function pgnNotes(n) {
    const out = [];
    const g = glyphOf(n);
    if (GLYPHS.includes(g)) out.push(`$${GLYPHS.indexOf(g) + 1}`);
    if (n.comment) out.push(pgnComment(n.comment));
    if (shapesComment(n)) out.push(shapesComment(n));
    const best = !n.glyph && n.review && n.review.mark && Array.isArray(n.review.best) ? n.review.best.filter((m) => typeof m === 'string') : [];
    if (best.length) out.push(pgnComment(`better: ${best.map(plain).join(', ')}`));
    return out;
  }

  // A comment in braces; "}" (which would end it) and a backslash are written with a backslash
  // before them (PGN has no escape of its own; our import reads them back).
  function pgnComment(text) { return `{${text.replace(/[\\}]/g, (c) => `\\${c}`)}}`; }

  function gameText() { return `${state.startObx}\n${movesTo(mainLeaf()).map(plain).join(' ')}\n`; }

  // A move as a record may write it: C3, A1B2, A1C3 or A1C3(B2), with or without the leading m.
  const MOVE_WORD = /^m?[A-E][1-5](?:[A-E][1-5](?:\([A-E][1-5]\))?)?$/i;
  const CHESS_WORD = /^(?:[KQRBN][a-h]?[1-8]?x?[a-h][1-8]|[a-h]x[a-h][1-8]|[a-h][1-8]=?[QRBN]|O-O(?:-O)?)[+#]?[!?]*$/;
  const OBX_LIKE = /^[TGX1-5]{1,5}(?:\/[TGX1-5]{1,5}){4}(?:\s|$)/i;

  // A word of a record that is not a move, said with what it looks like (chess: some word of
  // the record is a chess move).
  function badWordText(w, chess) {
    const vars = { word: w.length > 24 ? `${w.slice(0, 24)}…` : w,
      expected: tr('Expected moves such as C3 (a placement), A1B2 (a step) or A1C3 (a capture).') };
    return chess ? tr('"{word}" is not a Bagh-Chal move; this looks like a chess game. {expected}', vars)
      : tr('"{word}" is not a Bagh-Chal move. {expected}', vars);
  }

  // A move of a game named by its number, as the move list numbers it: the ply (0 for the first
  // move) counted from a start with the given side to move.
  function numbered(ply, startSide, text) {
    return tr('move {n}: {reason}', { n: Math.floor((ply + (startSide === 'tigers' ? 1 : 0)) / 2) + 1, reason: text });
  }

  // PGN (tags, FEN, movetext with side lines in brackets), its movetext alone (a list of moves
  // from the start, numbered or not: "1. C3 A1B1 2. C4"), or the plain form: the start OBX on
  // the first line, the moves after. Returns {startObx, rule, tree: [{m, c}]}, or {error} saying
  // what the text looks like and what was expected, and which move (by its number) it is.
  // Only the words are read here: the moves are checked by the server (or the page's engine).
  function parseGame(text) {
    const t = text.trim();
    if (!t) return null;
    const lines = t.split('\n');
    const first = t.replace(/^\d+\.+\s*/, '').split(/\s+/)[0];
    const list = !t.startsWith('[') && !OBX_LIKE.test(lines[0].trim()) &&
      (/^\d+\./.test(t) || MOVE_WORD.test(first.replace(GLYPH_SUFFIX, '')) || CHESS_WORD.test(first));
    if (t.startsWith('[') || list) {
      const fen = /\[FEN\s+"([^"]*)"\]/i.exec(t);
      const rep = /\[Repetition\s+"(forbid|draw)"\]/i.exec(t);
      const variant = /\[Variant\s+"([^"]*)"\]/i.exec(t);
      if (variant && !/^bagh[- ]?chal$/i.test(variant[1].trim())) return { error: tr('this PGN is a game of {variant}, not of Bagh-Chal.', { variant: variant[1].trim() }) };
      if (fen && !OBX_LIKE.test(fen[1].trim())) {
        return { error: tr('its FEN "{fen}" is not a Bagh-Chal position (an OBX: five rows of T, G and X, e.g. {start}).',
          { fen: fen[1].trim().slice(0, 40), start: START }) };
      }
      // Tags first, then each comment ({...}, a backslash inside keeping the character after it) is
      // taken out and left as a word of its own, \u0001 and its index, where it stood.
      const comments = [];
      const body = t.replace(/\[\s*\w+\s+"(?:\\.|[^"\\])*"\s*\]/g, ' ')
        .replace(/\{((?:\\[\s\S]|[^\\}])*)\}/g, (_, c) => ` \u0001${comments.push(c.replace(/\\([\s\S])/g, '$1').replace(/\s+/g, ' ').trim()) - 1} `)
        .replace(/\[[^\]]*\]/g, ' ').replace(/;[^\n]*/g, ' ')
        .replace(/\(/g, ' ( ').replace(/\)/g, ' ) ');
      const words = body.split(/\s+/).filter((w) => w && !/^\d+\.+$/.test(w) && !/^(1-0|0-1|1\/2-1\/2|\*)$/.test(w))
        .map((w) => w.replace(/^\d+\.+/, '')).filter(Boolean);
      // A move may carry its glyph (C3!?); NAGs ($2) and comments are notes, not moves.
      const bare = (w) => { const s = w.replace(GLYPH_SUFFIX, ''); return MOVE_WORD.test(s) ? s : w; };
      const chess = words.some((x) => CHESS_WORD.test(x));
      const startObx = fen ? fen[1].trim() : START;
      const startSide = sideOf(startObx);
      const plies = new Map(); // node -> its ply in its line (0: the first move)
      const root = { c: [] };
      let cur = root;
      let last = null;
      let before = '';  // a comment before the first move of a side line: that move's
      let opening = ''; // a comment before the game's first move: the start position's
      const note = (a, b) => (a ? `${a} ${b}` : b).slice(0, COMMENT_MAX);
      const stack = [];
      const parents = new Map();
      for (const w of words) {
        if (w[0] === '\u0001') {
          const whole = comments[Number(w.slice(1))];
          if (!whole) continue;
          // Drawn arrows and circles ([%cal ...] [%csl ...]) go to the move (or the start).
          const { text: c, shapes } = shapesOf(whole);
          if (shapes.length) {
            const at = last || (!stack.length && !root.c.length ? root : null);
            if (at) at.s = [...(at.s || []), ...shapes].slice(0, SHAPES_MAX);
          }
          if (!c) continue;
          if (last) last.t = note(last.t, c);
          else if (!stack.length && !root.c.length) opening = note(opening, c);
          else before = note(before, c);
        } else if (w[0] === '$') {
          // $1..$6 are the glyphs; a move keeps its first, other NAGs are not kept.
          const g = GLYPHS[Number(w.slice(1)) - 1];
          if (last && g && !last.g) last.g = g;
        } else if (w === '(') {
          if (!last) return { error: tr('a side line before any move') };
          stack.push({ cur, last });
          cur = parents.get(last);
          last = null;
        } else if (w === ')') {
          if (!stack.length) return { error: tr('a ")" without its "("') };
          ({ cur, last } = stack.pop());
        } else {
          const s = bare(w);
          const ply = cur === root ? 0 : plies.get(cur) + 1;
          if (!MOVE_WORD.test(s)) return { error: numbered(ply, startSide, badWordText(s, chess)) };
          const n = { m: entryOf(s).move, c: [] };
          plies.set(n, ply);
          if (s !== w) n.g = w.slice(s.length);
          if (before) { n.t = before; before = ''; }
          parents.set(n, cur);
          cur.c.push(n);
          last = n;
          cur = n;
        }
      }
      if (stack.length) return { error: tr('a "(" without its ")"') };
      return { startObx, rule: rep ? rep[1].toLowerCase() : null, tree: root.c, comment: opening, shapes: root.s || [] };
    }
    if (!OBX_LIKE.test(lines[0].trim())) {
      const first = lines[0].trim();
      return { error: tr('"{first}" is neither a PGN (tags in [brackets], then moves) nor a start OBX with its moves on the next line.',
        { first: first.length > 40 ? `${first.slice(0, 40)}…` : first }) };
    }
    const moves = lines.slice(1).join(' ').split(/[\s,]+/).filter(Boolean);
    const bad = moves.findIndex((x) => !MOVE_WORD.test(x));
    if (bad >= 0) return { error: numbered(bad, sideOf(lines[0].trim()), badWordText(moves[bad], moves.some((x) => CHESS_WORD.test(x)))) };
    const tree = [];
    let at = tree;
    for (const m of moves) { const n = { m: entryOf(m).move, c: [] }; at.push(n); at = n.c; }
    return { startObx: lines[0].trim(), rule: null, tree };
  }

  function leavesOf(list, prefix, out) {
    for (const n of list) {
      const moves = [...prefix, n.m];
      if (n.c.length) leavesOf(n.c, moves, out); else out.push(moves);
    }
    return out;
  }

  async function importGame() {
    const text = $('game-text').value;
    const g = parseGame(text);
    if (!g) return;
    // Said again from the text on a change of language.
    if (g.error) { showError(() => tr('Import: {error}', { error: (parseGame(text) || g).error }), false, 'record'); return; }
    const rule = g.rule || state.rule;
    try {
      // The server checks every line of the game; a refused one leaves the current game alone.
      const leaves = leavesOf(g.tree, [], []);
      if (!leaves.length) leaves.push([]);
      let mainPos = null;
      for (let i = 0; i < leaves.length; i++) {
        let data;
        try {
          data = await api('/legal', { obx: g.startObx, moves: leaves[i], repetition: rule });
        } catch (e) {
          // The server names a move by its place in what it was sent (moves[4]): the move of
          // the game, by its number, instead.
          const at = /^moves\[(\d+)\]:\s*/.exec(e.message || '');
          if (!at) throw e;
          const reason = serverText(e).replace(/^moves\[\d+\]:\s*/, '');
          showError(() => tr('Import: {error}', { error: numbered(Number(at[1]), sideOf(g.startObx), reason) }), false, 'record');
          return;
        }
        if (i === 0) mainPos = data;
      }
      const rootPos = await api('/legal', { obx: g.startObx, repetition: rule });
      reset(g.startObx, rootPos, rule);
      const side = sideOf(g.startObx);
      for (const o of g.tree) state.root.children.push(build(state.root, o, side));
      if (g.comment) state.root.comment = g.comment;
      if (g.shapes && g.shapes.length) state.root.shapes = g.shapes;
      const leaf = mainLeaf();
      leaf.pos = mainPos;
      leaf.obx = mainPos.obx;
      state.cur = leaf;
      const count = movesTo(leaf).length;
      const sides = leaves.length - 1;
      showError(() => {
        const moves = tr(['{n} move', '{n} moves'], { n: count });
        return sides ? tr('Game imported: {moves}, {lines}.', { moves, lines: tr(['{n} side line', '{n} side lines'], { n: sides }) })
          : tr('Game imported: {moves}.', { moves });
      }, true, 'record');
      save();
      renderAll();
      rebuildGraph();
      schedule();
    } catch (e) {
      showError(() => tr('Import: {error}', { error: serverText(e) }), false, 'record');
    }
  }

  // The graph of an imported game: the engine scores each position of the main line in turn,
  // briefly, and each score goes to the position after it, as for the engine's own moves.
  async function rebuildGraph() {
    const gen = state.gen;
    const line = lineOf(state.root);
    state.rebuilding = { done: 0, total: line.length - 1 };
    renderGraph();
    for (let i = 0; i + 1 < line.length; i++) {
      const n = line[i];
      if (gen !== state.gen) return;
      if (!line[i + 1].eval) {
        try {
          const data = await api('/obx', { ...gameOf(n), movetime: Math.min(state.movetime, 200),
            repetition: state.rule });
          if (gen !== state.gen) return;
          if (data.score) line[i + 1].eval = scoreForGoats(data.score, posOf(n).turn);
        } catch (e) {
          if (gen === state.gen) { state.rebuilding = null; renderGraph(); }
          return;
        }
      }
      state.rebuilding.done = i + 1;
      renderGraph();
    }
    state.rebuilding = null;
    save();
    renderGraph();
  }

  // ---- talking to the server: failures are retried by themselves ------------------------------

  // A message under the OBX, or under the game record for what Import and Export say (beside
  // their buttons, however long it is); the other place is cleared.
  // msg may be a function giving the text: it is asked again when the language changes.
  function showError(msg, ok, where) {
    const e = $(where === 'record' ? 'record-error' : 'obx-error');
    $(where === 'record' ? 'obx-error' : 'record-error').textContent = '';
    state.message = msg ? { msg, ok, where } : null;
    e.textContent = (typeof msg === 'function' ? msg() : msg) || '';
    e.classList.toggle('ok', Boolean(ok));
  }

  let failTimer = null;
  // The server did not answer: say so beside the board and try again by itself, waiting
  // longer each time (1, 2, 4, then every 5 s); Retry tries at once.
  function fail(message, retry) {
    const attempt = state.failure ? state.failure.attempt + 1 : 0;
    const delay = Math.min(5000, 1000 * 2 ** attempt);
    state.failure = { message, retry, attempt, at: Date.now() + delay };
    clearTimeout(failTimer);
    failTimer = setTimeout(retryFailed, delay);
    renderAll();
  }

  function retryFailed() {
    const f = state.failure;
    if (!f) return;
    clearTimeout(failTimer);
    // Kept until the retry succeeds, so the attempt count and the message stay.
    state.failure = null;
    const again = f;
    state.lastFailure = again;
    f.retry();
  }

  function recovered() {
    state.lastFailure = null;
    if (state.health === false) serverInfo();
  }

  // Asks for the position and legal moves of a node; true when they came.
  async function fetchPos(node) {
    try {
      await learnBase(node);
      const data = await api('/legal', { ...gameOf(node), repetition: state.rule });
      if (!inTree(node)) return false;
      node.pos = data;
      node.obx = data.obx;
      node.local = null;
      recovered();
      return true;
    } catch (e) {
      state.lastError = e;
      return false;
    }
  }

  // The failure of a retried request counts on from the last one (for the backoff).
  function failAgain(message, retry) {
    if (state.lastFailure && !state.failure) state.failure = state.lastFailure;
    state.lastFailure = null;
    fail(message, retry);
  }

  async function ensurePos(node) {
    if (node.pos) return true;
    const gen = state.gen;
    const ok = await fetchPos(node);
    if (gen !== state.gen || !inTree(node)) return ok;
    if (!ok) {
      if (state.lastError && !unreachable(state.lastError)) {
        const err = state.lastError;
        showError(() => tr('Server: {error}', { error: serverText(err) }));
        return false;
      }
      const err = state.lastError;
      failAgain(() => tr('The server did not answer ({error}).', { error: err ? serverText(err) : tr('no answer') }), () => {
        ensurePos(node).then((done) => { if (done) { renderAll(); schedule(); requestLines(); } });
      });
      return false;
    }
    return true;
  }

  function schedule() {
    const node = engineNode();
    if (state.thinking && state.thinking !== node) abortEngine();
    if (!engineTurnAt(node) || state.thinking) return;
    const gen = state.gen;
    setTimeout(() => { if (gen === state.gen) engineMove(); }, state.mode === 'watch' ? 400 : 120);
  }

  function abortEngine() {
    if (state.ctrl) state.ctrl.abort();
    state.ctrl = null;
    state.thinking = null;
  }

  // Plays a move at a node: shown at once, then the server's answer brings the new position.
  // A move already in the tree is only followed. If the answer does not come, the move is
  // taken back and played again once the server answers.
  async function play(entry, at, opts) {
    at = at || state.cur;
    opts = opts || {};
    state.obxEdited = false;
    state.selected = null;
    state.notice = null;
    // A feature file may take the move instead (Board.playGuards: review.js's "learn from your
    // mistakes" judges a try without playing it): a guard returning false stops it here.
    if (online() ? online().move(entry, at, opts) === false : hooks('playGuards').some((g) => g(entry, at) === false)) return;
    const known = at.children.find((c) => c.move === entry.move);
    if (known) {
      if (opts.follow !== false) goTo(known);
      return;
    }
    const wasMainLeaf = at === mainLeaf();
    const child = newNode(at, entry, at.pos.turn);
    at.children.push(child);
    if (opts.eval) child.eval = opts.eval;
    const clockBefore = state.clock ? JSON.parse(JSON.stringify(state.clock)) : null;
    if (wasMainLeaf) clockOnMove(child.side, child, opts.premove);
    const follow = state.cur === at || opts.follow === true;
    if (follow) {
      state.cur = child;
      state.animate = { node: child, entry };
      state.hint = null;
    }
    sound(entry.kind === 'capture' ? 'capture' : 'move');
    renderAll();
    const gen = state.gen;
    const ok = await fetchPos(child);
    if (gen !== state.gen || !inTree(child)) return;
    if (!ok) {
      at.children.splice(at.children.indexOf(child), 1);
      forget(child);
      if (state.cur === child) state.cur = at;
      if (clockBefore) state.clock = clockBefore;
      if (state.lastError && !unreachable(state.lastError)) {
        const err = state.lastError;
        showError(() => tr('Server: {error}', { error: serverText(err) }));
        renderAll();
        return;
      }
      failAgain(() => tr('The server did not answer; {move} was not played.', { move: prettyMove(entry.move) }), () => play(entry, at, opts));
      return;
    }
    if (wasMainLeaf && resultAt(child)) { stopClock(); sound('end'); }
    showError('');
    save();
    renderAll();
    schedule();
    requestLines();
    firePremove(child);
    releaseHeld(child);
  }

  // Plays a line of the engine from a node, as far as the move clicked.
  async function playLine(from, moves) {
    let at = from;
    for (const mv of moves) {
      if (!at.pos) { if (!(await ensurePos(at))) return; }
      const entry = (at.pos.legal || []).find((x) => x.move === mv) || entryOf(mv);
      let next = at.children.find((c) => c.move === entry.move);
      if (!next) {
        next = newNode(at, entry, at.pos.turn);
        at.children.push(next);
        if (!(await fetchPos(next))) {
          at.children.splice(at.children.indexOf(next), 1);
          forget(next);
          const err = state.lastError;
          showError(() => tr('Server: {error}', { error: err ? serverText(err) : tr('no answer') }));
          break;
        }
      }
      at = next;
    }
    goTo(at);
    save();
  }

  function strengthParams(p) {
    if (state.skill === 'elo') p.elo = state.elo;
    else if (state.skill < 20) p.skill = state.skill;
    return p;
  }

  function engineParams(node) {
    const p = { ...gameOf(node), repetition: state.rule };
    const c = state.clock;
    if (c && node === mainLeaf()) {
      p.gtime = Math.round(timeLeft('goats'));
      p.ttime = Math.round(timeLeft('tigers'));
      p.ginc = Math.round(c.inc);
      p.tinc = Math.round(c.inc);
    } else {
      p.movetime = state.movetime;
    }
    return strengthParams(p);
  }

  async function engineMove() {
    const node = engineNode();
    if (!engineTurnAt(node) || state.thinking) return;
    const gen = state.gen;
    const side = node.pos.turn;
    const ctrl = new AbortController();
    state.ctrl = ctrl;
    state.thinking = node;
    renderAll();
    let data = null;
    let error = null;
    for (let attempt = 0; attempt < 5 && !data; attempt++) {
      try {
        data = await api('/obx', engineParams(node), ctrl.signal);
      } catch (e) {
        if (gen !== state.gen || ctrl.signal.aborted) return;
        error = e;
        if (e.status === 503) {
          await new Promise((r) => setTimeout(r, 1000));
          if (gen !== state.gen || ctrl.signal.aborted) return;
          continue;
        }
        break;
      }
    }
    if (gen !== state.gen || ctrl.signal.aborted || !inTree(node)) return;
    state.ctrl = null;
    state.thinking = null;
    if (!data) {
      if (error && !unreachable(error)) { showError(() => tr('Engine: {error}', { error: serverText(error) })); renderAll(); return; }
      failAgain(() => tr('Engine: {error}.', { error: error ? serverText(error) : tr('no answer') }), () => { renderAll(); schedule(); });
      return;
    }
    recovered();
    if (!data.move || node.children.length) { renderAll(); return; }
    state.analysis = { nodeId: node.id, score: data.score, depth: data.depth, pv: data.pv, side, nodes: data.nodes, time_ms: data.time_ms };
    const entry = node.pos.legal.find((m) => m.move === data.move) || entryOf(data.move);
    play(entry, node, { eval: data.score ? scoreForGoats(data.score, side) : null });
    announceEngine(node.children.find((c) => c.move === entry.move));
  }

  // The engine's move for a screen reader: the live region says it once it is on the board.
  function announceEngine(child) {
    const region = $('announce');
    if (!region || !child) return;
    // Emptied first, so that the same words twice (a repeated move) are said again.
    region.textContent = '';
    region.textContent = tr('The engine played {move}.', { move: moveLabel(child) });
  }

  // ---- premoves: the person's next move, chosen while the engine thinks ----------------------

  // Text through the board's translation (i18n.js), English when it is not there.
  const say = (s, v) => (window.I18N ? I18N.t(s, v) : s.replace(/\{(\w+)\}/g, (_, k) => (v && k in v ? v[k] : '')));

  // Against the engine (on the clock too), while it searches the position shown, clicks choose
  // the person's next move: a placement point, or a piece and then where it goes. One premove at
  // a time: a new one replaces it. It is played as soon as the engine's move is on the board, if
  // the server's /legal answer for that position lists it; else it is dropped with the reason.
  // Nothing here judges a move: a target may be any point, the server decides.
  function premoveOpen(node) {
    const h = humanSide();
    return (h === 'goats' || h === 'tigers') && state.thinking === node && node === state.cur && !state.editor && !state.failure;
  }

  // The premove to show at a node: at the position the engine searches, and at its move while
  // the server's answer for it is on its way. A new game, an undo or a mode change drop it (gen).
  function premoveAt(node) {
    const p = state.premove;
    if (!p || p.gen !== state.gen || !node) return null;
    return node.id === p.nodeId || (node.parent && node.parent.id === p.nodeId && !node.pos) ? p : null;
  }

  function premoveClick(name) {
    const node = state.cur;
    const pos = posOf(node);
    const me = humanSide();
    const cells = boardCells(pos.obx);
    const old = premoveAt(node);
    let entry = null;
    if (me === 'goats' && pos.in_hand > 0) {
      if (!cells[name]) entry = entryOf(name);
    } else if (cells[name] === (me === 'goats' ? 'G' : 'T')) {
      if (!old || old.sel !== name) {
        state.premove = { nodeId: node.id, gen: state.gen, sel: name, entry: null };
        render();
        renderStatus();
        return;
      }
    } else if (old && old.sel) {
      // Two points apart in a straight line is a jump (its goat half way); any other target is
      // kept as it is, for the server to judge.
      entry = entryOf(`${old.sel}${name}`);
      if (entry.over && !/^[A-E][1-5]$/.test(entry.over)) entry = { move: `m${old.sel}${name}`, kind: 'step', from: old.sel, to: name, over: null };
    }
    // A click that makes no premove, or makes the one already set, cancels it.
    state.premove = entry && !(old && old.entry && old.entry.move === entry.move)
      ? { nodeId: node.id, gen: state.gen, sel: null, entry } : null;
    render();
    renderStatus();
  }

  function cancelPremove() {
    if (!premoveAt(state.cur)) return false;
    state.premove = null;
    render();
    renderStatus();
    return true;
  }

  // Marks in their own colour under the pieces (the chosen piece, or the premove's points) and
  // the premove's arrow.
  function drawPremove(node) {
    const p = premoveAt(node);
    if (!p) return;
    const points = p.entry ? [p.entry.from, p.entry.to].filter(Boolean) : [p.sel];
    for (const pt of points) {
      const [x, y] = xy(pt);
      el('rect', { x: x - 44, y: y - 44, width: 88, height: 88, rx: 16, class: 'premove-mark', 'data-premove': pt }, layers.marks);
    }
    if (p.entry) arrow(p.entry.move, 'premove', 'premove');
  }

  // Said over the status line (and to screen readers: role status), with its cancel button.
  function renderPremoveBar() {
    const p = premoveAt(state.cur);
    $('premove-bar').hidden = !p;
    if (!p) return;
    $('premove-text').textContent = p.entry
      ? say("Premove {move}: played after the engine's move.", { move: prettyMove(p.entry.move) })
      : say('Premove: the piece on {point}; click where it goes.', { point: p.sel });
  }

  // The engine's move is on the board and the server's answer for it has come.
  function firePremove(child) {
    const p = state.premove;
    if (!p || p.gen !== state.gen || !child.parent || child.parent.id !== p.nodeId) return;
    state.premove = null;
    if (state.cur !== child || !child.pos || resultAt(child)) { render(); renderStatus(); return; }
    const legal = child.pos.legal || [];
    if (!p.entry) {
      // Only a piece was chosen: it stays chosen where it has a move.
      if (legal.some((m) => m.from === p.sel)) state.selected = p.sel;
      render();
      renderStatus();
      return;
    }
    const e = p.entry;
    const m = legal.find((x) => x.to === e.to && (x.from || null) === (e.from || null));
    if (!m) { dropPremove(child, e); return; }
    // A premove takes no time: its clock is charged nothing, not even the wait for the server's
    // answer after the engine's move, and gains its increment.
    play(m, child, { premove: true });
  }

  // Why a premove cannot be played: what the board shows, else the server's reason.
  async function dropPremove(child, e) {
    const cells = boardCells(child.pos.obx);
    // Functions: the reason is said again in the new language after a switch.
    let why;
    if (e.from && cells[e.from] !== (child.pos.turn === 'goats' ? 'G' : 'T')) why = () => say('the goat on {point} was captured', { point: e.from });
    else if (cells[e.to]) why = () => say('the point is taken');
    else {
      try {
        await api('/legal', { ...gameOf(child), move: e.move, repetition: state.rule });
        why = () => say('the server refused it');
      } catch (err) {
        why = () => (err.data && err.data.code === 'move-repetition' ? say('it would repeat a position') : serverText(err).replace(/^move: /, ''));
      }
      if (state.cur !== child || child.children.length) return;
    }
    state.notice = { nodeId: child.id, text: () => say('Premove {move} dropped: {why}', { move: prettyMove(e.move), why: why() }) };
    renderStatus();
  }

  function onPoint(name) {
    if (state.editor) return;
    const node = state.cur;
    if (premoveOpen(node)) { premoveClick(name); return; }
    if (holdClick(node, name)) return;
    if (!humanCanMove(node)) return;
    const legal = node.pos.legal || [];
    const placing = node.pos.turn === 'goats' && node.pos.in_hand > 0;
    if (placing) {
      const m = legal.find((x) => x.kind === 'place' && x.to === name);
      if (m) play(m, node);
      return;
    }
    if (state.selected) {
      const m = legal.find((x) => x.from === state.selected && x.to === name);
      if (m) { play(m, node); return; }
    }
    state.notice = null;
    const own = boardCells(node.pos.obx)[name] === (node.pos.turn === 'goats' ? 'G' : 'T');
    if (own && state.selected !== name && !legal.some((x) => x.from === name)) {
      // A piece of the side to move with no move: say why (often a repetition).
      state.selected = name;
      explainStuck(node, name);
    } else {
      state.selected = legal.some((x) => x.from === name) && state.selected !== name ? name : null;
    }
    render();
    renderStatus();
  }

  // The move just shown (the opponent's, online or the engine's) is on the board before its
  // position's legal moves have come from the server. A click then is kept (the last two: a
  // piece and where it goes) and made as the person made it once they have come, so that a
  // quick reply is not lost; whether it plays anything is decided then, as for every click.
  function holdClick(node, name) {
    if (node.pos || state.failure || !node.parent || node.children.length) return false;
    const h = state.held && state.held.gen === state.gen && state.held.nodeId === node.id ? state.held : null;
    state.held = { nodeId: node.id, gen: state.gen, points: [...(h ? h.points : []), name].slice(-2) };
    return true;
  }

  function releaseHeld(node) {
    const h = state.held;
    if (!h || h.nodeId !== node.id) return;
    state.held = null;
    if (h.gen !== state.gen || state.cur !== node || !node.pos) return;
    for (const p of h.points) onPoint(p);
  }

  // The moves a piece would have on an empty board's lines from where it stands (steps, and a
  // tiger's jumps over a goat): only proposals, each judged by the server.
  function candidateMoves(cells, name) {
    const c = COLS.indexOf(name[0]);
    const r = Number(name[1]) - 1;
    const dirs = [[1, 0], [-1, 0], [0, 1], [0, -1]];
    if ((c + r) % 2 === 0) dirs.push([1, 1], [1, -1], [-1, 1], [-1, -1]);
    const on = (x, y) => x >= 0 && x < 5 && y >= 0 && y < 5;
    const out = [];
    for (const [dc, dr] of dirs) {
      if (!on(c + dc, r + dr)) continue;
      const next = pointName(c + dc, r + dr);
      if (!cells[next]) out.push(`${name}${next}`);
      else if (cells[name] === 'T' && cells[next] === 'G' && on(c + 2 * dc, r + 2 * dr) && !cells[pointName(c + 2 * dc, r + 2 * dr)]) {
        out.push(`${name}${pointName(c + 2 * dc, r + 2 * dr)}`);
      }
    }
    return out;
  }

  // A line's move as the move list writes it: "1. B2–C2", "1… C4–C5".
  function moveLabel(n) { return `${moveNumber(n)}${n.side === 'goats' ? '.' : '…'} ${prettyMove(n.move)}`; }

  function positionKey(obx) {
    const f = obx.trim().split(/\s+/);
    return [boardText(boardCells(obx)), ...f.slice(1, 4)].join(' ').toUpperCase();
  }

  async function explainStuck(node, name) {
    const pos = node.pos;
    const piece = pos.turn === 'goats' ? 'goat' : 'tiger';
    const forbidden = [];
    for (const mv of candidateMoves(boardCells(pos.obx), name)) {
      try {
        await api('/legal', { ...gameOf(node), move: mv, repetition: state.rule });
      } catch (e) {
        if (e.data && e.data.code === 'move-repetition') forbidden.push(mv);
        else if (unreachable(e)) return;
      }
    }
    if (state.cur !== node || state.selected !== name) return;
    // A function: said again in the new language after a switch.
    let text = () => (piece === 'goat' ? tr('The goat on {point} has no move.', { point: name })
      : tr('The tiger on {point} has no move.', { point: name }));
    if (forbidden.length === 1) {
      const after = positionKey(localAfter(pos, entryOf(forbidden[0])).obx);
      const seen = [state.root, ...pathTo(node)].find((n) => positionKey(posOf(n).obx) === after);
      const move = prettyMove(entryOf(forbidden[0]).move);
      text = () => {
        const where = !seen ? tr('an earlier position') : seen === state.root ? tr('the start position')
          : tr('the position after {move}', { move: moveLabel(seen) });
        return tr('{move} is forbidden: it would repeat {where} (repetition is forbidden in this game).', { move, where });
      };
    } else if (forbidden.length > 1) {
      const moves = forbidden.map((m) => prettyMove(entryOf(m).move)).join(', ');
      text = () => tr('{moves} are forbidden: each would repeat an earlier position (repetition is forbidden in this game).', { moves });
    }
    state.notice = { nodeId: node.id, text };
    renderStatus();
  }

  function reset(startObx, pos, rule) {
    abortEngine();
    state.gen++;
    state.obxEdited = false;
    state.startObx = startObx.trim();
    if (rule) state.rule = rule;
    nodes.clear();
    state.root = newNode(null, null, null);
    state.root.pos = pos || null;
    state.cur = state.root;
    state.failure = null;
    clearTimeout(failTimer);
    state.selected = null;
    state.analysis = null;
    state.an = null;
    state.mpv = null;
    state.hint = null;
    state.paused = false;
    state.rebuilding = null;
    state.resigned = null;
    newClock();
  }

  // A game from a start and a list of moves (the main line), shown at once from what the page
  // knows, then checked by the server.
  async function start(startObx, moves, rule, opts) {
    // An online game's board is set by online.js alone (a puzzle reopened meanwhile waits).
    if (online() && !(opts && opts.online)) return false;
    reset(startObx, null, rule);
    let at = state.root;
    let side = sideOf(startObx);
    for (const m of moves) {
      const n = newNode(at, entryOf(m), side);
      at.children.push(n);
      at = n;
      side = other(side);
    }
    state.cur = at;
    renderAll();
    state.lastError = null;
    const ok = await fetchPos(at);
    if (!ok) {
      // A record the server refuses (a stale or edited one) is dropped; a server that does
      // not answer is asked again.
      if (state.lastError && !unreachable(state.lastError)) return false;
      failAgain(() => tr('The server did not answer.'), () => start(startObx, moves, rule, opts));
      return true;
    }
    save();
    renderAll();
    schedule();
    requestLines();
    return true;
  }

  function newGame() {
    showError('');
    closeEditor();
    start(START, []);
  }

  function undo() {
    const end = lineEnd(state.cur);
    if (end === state.root) return;
    abortEngine();
    state.gen++;
    state.obxEdited = false;
    state.hint = null;
    state.analysis = null;
    state.an = null;
    state.selected = null;
    state.failure = null;
    clearTimeout(failTimer);
    const cut = (n) => { n.parent.children.splice(n.parent.children.indexOf(n), 1); forget(n); return n.parent; };
    let at = cut(end);
    // Against the engine, go back to the person's own turn.
    const h = humanSide();
    if ((h === 'goats' || h === 'tigers') && at.parent && at.side === h) at = cut(at);
    state.cur = at;
    if (state.clock && onMainLine(at)) {
      const c = state.clock;
      if (c.flag) {
        // The flag fell after the moves taken back: the game goes on from there, with the
        // clocks as they were at that position.
        c.flag = null;
        c.running = null;
        c.left = at.clk ? { ...at.clk } : { goats: c.base, tigers: c.base };
      }
      stopClock();
      if (at !== state.root && !state.clock.flag) { state.clock.running = posOf(at).turn; state.clock.since = performance.now(); }
    }
    state.resigned = null; // taken back with the moves, as a flag fall is
    if (state.mode === 'watch') state.paused = true;
    save();
    renderAll();
    ensurePos(at).then((ok) => { if (ok) { renderAll(); schedule(); requestLines(); } });
  }

  function promote() {
    let n = state.cur;
    while (n.parent && n.parent.children[0] === n) n = n.parent;
    if (!n.parent) return;
    const sibs = n.parent.children;
    sibs.splice(sibs.indexOf(n), 1);
    sibs.unshift(n);
    save();
    renderAll();
  }

  function deleteLine() {
    const n = state.cur;
    if (!n.parent) return;
    if (state.thinking && pathTo(state.thinking).includes(n)) abortEngine();
    n.parent.children.splice(n.parent.children.indexOf(n), 1);
    forget(n);
    state.gen++;
    goTo(n.parent);
  }

  // Shows a node; its position is asked for when not known yet.
  function goTo(node) {
    if (!node) return;
    state.selected = null;
    if (state.premove && state.premove.nodeId !== node.id) state.premove = null;
    state.cur = node;
    renderAll();
    save();
    ensurePos(node).then((ok) => { if (ok && state.cur === node) { renderAll(); schedule(); } });
    schedule();
    requestLines();
  }

  async function loadObx(text, quiet) {
    text = (text || $('obx').value).trim();
    if (!text) return false;
    try {
      const data = await api('/legal', { obx: text, repetition: state.rule });
      reset(text, data);
      if (!quiet) showError(() => tr('Position loaded.'), true);
      $('obx').blur();
      save();
      renderAll();
      schedule();
      requestLines();
      return true;
    } catch (e) {
      showError(() => serverText(e));
      return false;
    }
  }

  // Copies a text and says so only when it was copied: by the clipboard API, else by the copy
  // command on the field that shows it (an http address other than localhost has no API). When
  // neither works, the text is left selected in its field (or, for the link, the address bar)
  // for a copy by hand.
  // Text onto the clipboard; where the page may not use it, selected in field (when given) and
  // copied the old way. True when it was copied. (Also Board.copy, for the lobby and the game.)
  async function clipboardCopy(text, field) {
    let ok = false;
    try {
      if (navigator.clipboard && navigator.clipboard.writeText) { await navigator.clipboard.writeText(text); ok = true; }
    } catch (e) { ok = false; }
    if (!ok && field) {
      field.value = text;
      field.focus();
      field.select();
      try { ok = document.execCommand('copy') === true; } catch (e) { ok = false; }
    }
    return ok;
  }

  async function copyText(text, what, field, place) {
    const ok = await clipboardCopy(text, field);
    const where = field === $('game-text') ? 'record' : null;
    // The names of what is copied and where, in the page's language (OBX and PGN are names).
    const name = (w) => (w === 'Link' ? tr('Link') : w === 'Game' ? tr('Game') : w === 'OBX box' ? tr('OBX box')
      : w === 'game record' ? tr('game record') : w);
    if (ok) showError(() => tr('{what} copied.', { what: name(what) }), true, where);
    else if (field) {
      showError(() => tr('{what} not copied: this page may not use the clipboard here. It is selected in the {place}: copy it with Ctrl+C.',
        { what: name(what), place: name(place) }), false, where);
    } else showError(() => tr('{what} not copied: this page may not use the clipboard here. Copy it from the address bar.', { what: name(what) }));
  }

  async function hint() {
    const node = state.cur;
    if (state.locked) return;
    if (!node.pos || resultAt(node) || state.thinking) return;
    const gen = state.gen;
    const side = node.pos.turn;
    state.thinking = node;
    renderAll();
    try {
      // "purpose": the static board's local.js asks a server elsewhere for it first (the
      // server ignores the field).
      const data = await api('/obx', strengthParams({ ...gameOf(node), movetime: state.movetime,
        repetition: state.rule, purpose: 'hint' }));
      if (gen !== state.gen) return;
      state.analysis = { nodeId: node.id, score: data.score, depth: data.depth, pv: data.pv, side, nodes: data.nodes,
        time_ms: data.time_ms, kind: 'hint', via: data.via, server: data.server };
      state.hint = data.move ? { nodeId: node.id, move: data.move } : null;
    } catch (e) {
      if (gen === state.gen) showError(() => tr('Engine: {error}', { error: serverText(e) }));
    }
    if (gen !== state.gen) return;
    state.thinking = null;
    renderAll();
    schedule();
  }

  // Every move's value (/analysis). While the engine lines are on (the toggle, the key l) a
  // search searches on as they do (state.cevalTime, 0: until stopped), the list deepening live,
  // and "Stop" beside the button stops it; else one search of the engine's time per move. The
  // database answers at once either way; the button asks again from the start.
  async function analyse() {
    if (state.locked) return;
    if (state.anRun) state.anRun.ctrl.abort();
    const node = state.cur;
    const ctrl = new AbortController();
    const on = state.linesOn && !online();
    state.anRun = { nodeId: node.id, ctrl, running: on, limit: false, time: state.cevalTime };
    state.analysing = true;
    renderAnalysis();
    const take = (data) => {
      if (ctrl.signal.aborted || !inTree(node)) return;
      const old = state.an && state.an.nodeId === node.id ? state.an.data : null;
      if (on && old && old.source === data.source && (data.depth || 0) < (old.depth || 0)) return;
      state.an = { nodeId: node.id, data };
      renderAnalysis();
    };
    const body = { ...gameOf(node), repetition: state.rule };
    try {
      if (on) state.anRun.limit = (await deepen('/analysis', body, state.cevalTime, take, ctrl.signal)).limit;
      else take(await api('/analysis', { ...body, movetime: state.movetime }, ctrl.signal));
    } catch (e) {
      if (!ctrl.signal.aborted) showError(() => tr('Analysis: {error}', { error: serverText(e) }));
    }
    if (state.anRun && state.anRun.ctrl === ctrl) {
      state.anRun.running = false;
      state.analysing = false;
    }
    renderAnalysis();
  }

  function stopAnalysis() {
    if (!state.anRun) return;
    state.anRun.running = false;
    state.anRun.ctrl.abort();
    state.analysing = false;
    renderAnalysis();
  }


  // A search that goes on (lichess's "ceval"): the engine lines' and the analysis's. With the
  // browser's engine (the static board, local.js) one search of `time` ms (0: until the signal
  // stops it) on an engine of its own, each deeper iteration to onData as it ends; with a
  // server, searches of growing length (0.25 s, 0.5 s, 1 s, ...: each answer deeper than the
  // last) until the time is spent or the server's longest search (its max_movetime) was made.
  // Resolves with {limit: true} when it stopped at that limit before the time was spent.
  async function deepen(path, body, time, onData, signal) {
    if (window.LocalEngine && localEngine()) {
      const data = await api(path, body, signal, { time, onData });
      await onData(data);
      return { limit: false };
    }
    const max = (state.health && state.health.max_movetime) || 10000;
    const t0 = performance.now();
    for (let mt = 250; ; mt *= 2) {
      const left = time ? time - (performance.now() - t0) : Infinity;
      const ask = Math.round(Math.min(mt, max, Math.max(100, left)));
      const data = await api(path, { ...body, movetime: ask }, signal);
      await onData(data);
      // The database's value, a forced result or the end of the game: no deeper to go.
      if (data.source === 'database' || data.source === 'none' || data.result || !data.move && path === '/obx' ||
        (typeof data.depth === 'number' && data.depth >= 100)) return { limit: false };
      if (time && performance.now() - t0 >= time - 50) return { limit: false };
      if (ask >= max) return { limit: true };
    }
  }

  // Nodes a second of an answer, as the lines and the analysis show it ("850 kn/s").
  function npsText(d) {
    const nps = d.nps || (d.time_ms ? Math.round((d.nodes || 0) * 1000 / d.time_ms) : 0);
    if (!nps) return '';
    return nps >= 1e6 ? tr('{n} Mn/s', { n: (nps / 1e6).toFixed(1) }) : tr('{n} kn/s', { n: Math.max(1, Math.round(nps / 1e3)) });
  }

  // The engine's top lines of the position shown, asked again whenever it changes; they search
  // on for state.cevalTime (0: until stopped: the toggle, or the key l). deeper: the lines of the
  // position shown, searched on for twice as long as the last time (Go deeper).
  let linesTimer = null;
  function requestLines(deeper) {
    clearTimeout(linesTimer);
    if (state.mpvCtrl) { state.mpvCtrl.abort(); state.mpvCtrl = null; }
    if (state.ceval) state.ceval.running = false;
    // The analysis of every move searches the position it was asked for: stopped on leaving it.
    if (state.anRun && state.anRun.running && state.anRun.nodeId !== state.cur.id) stopAnalysis();
    if (!state.linesOn || online() || state.locked) { if (state.ceval) { state.ceval = null; renderLines(); } return; }
    if (state.ceval) renderLines();
    linesTimer = setTimeout(async () => {
      const node = state.cur;
      if (!node.pos || resultAt(node) || state.editor) return;
      const have = state.mpv && state.mpv.nodeId === node.id && state.mpv.n === state.multipv && state.mpv.rule === state.rule;
      if (have && deeper !== true) return;
      const ctrl = new AbortController();
      state.mpvCtrl = ctrl;
      if (!have) state.mpv = null;
      state.linesError = null;
      const last = state.ceval && state.ceval.nodeId === node.id ? state.ceval.time : state.cevalTime;
      const time = deeper === true ? (last ? Math.min(last * 2, 600000) : 0) : state.cevalTime;
      state.ceval = { nodeId: node.id, running: true, limit: false, time };
      renderLines();
      const local = window.LocalEngine && localEngine();
      const take = async (raw) => {
        if (ctrl.signal.aborted || state.cur !== node) return;
        const data = local ? raw : await padLines(node, raw, ctrl.signal);
        if (ctrl.signal.aborted || state.cur !== node) return;
        // A deeper search started again (Go deeper) shows the lines it had until it passes them.
        const old = state.mpv && state.mpv.nodeId === node.id ? state.mpv.data : null;
        if (old && (data.depth || 0) < (old.depth || 0)) return;
        state.mpv = { nodeId: node.id, n: state.multipv, rule: state.rule, data };
        render();
        renderEngine();
        renderLines();
      };
      try {
        const r = await deepen('/obx', { ...gameOf(node), multipv: state.multipv, repetition: state.rule }, time, take, ctrl.signal);
        if (ctrl.signal.aborted) return;
        state.mpvCtrl = null;
        state.ceval = { ...state.ceval, running: false, limit: r.limit };
        renderLines();
      } catch (e) {
        if (!ctrl.signal.aborted) {
          state.mpvCtrl = null;
          state.ceval = { ...state.ceval, running: false };
          state.linesError = { nodeId: node.id, text: () => tr('lines: {error}', { error: serverText(e) }) };
          renderLines();
        }
      }
    }, 150);
  }

  // The engine lines on or off (the checkbox, the key l).
  function setLinesOn(on) {
    state.linesOn = on;
    state.mpv = null;
    save();
    renderAll();
    requestLines();
  }

  // At a database position the engine searches only the moves it would play (under the draw
  // rule, the draws that leave the most losing replies), so it may answer fewer lines than
  // asked: the lines asked for are made up with the database's values of the other moves, best
  // first, each a line of its one move.
  async function padLines(node, data, signal) {
    const lines = data.lines || [];
    const want = state.multipv;
    if (want <= 1 || !lines.length || lines.length >= want || lines.length >= (node.pos.legal || []).length) return data;
    let an;
    try {
      an = await api('/analysis', { ...gameOf(node), movetime: 100, repetition: state.rule }, signal);
    } catch (e) {
      if (e.name === 'AbortError') throw e;
      return data;
    }
    if (an.source !== 'database') return data;
    const shown = new Set(lines.map((l) => l.pv && l.pv[0]));
    const score = (m) => (m.wdl === 'draw' ? { cp: 0 } : typeof m.distance !== 'number' ? { wdl: m.wdl }
      : { mate: m.wdl === 'win' ? Math.ceil(m.distance / 2) : -Math.max(1, Math.ceil(m.distance / 2)) });
    const more = an.moves.filter((m) => !shown.has(m.move) && (m.wdl === 'win' || m.wdl === 'loss' ||
      (m.wdl === 'draw' && state.rule === 'draw')) && score(m))
      .slice(0, want - lines.length)
      .map((m, i) => ({ multipv: lines.length + i + 1, depth: null, score: score(m), pv: [m.move], database: true }));
    return { ...data, lines: [...lines, ...more] };
  }

  function setMode(mode) {
    if (mode === state.mode) return;
    abortEngine();
    state.mode = mode;
    state.gen++;
    state.paused = false;
    state.selected = null;
    save();
    renderAll();
    schedule();
  }

  function setMovetime(ms) {
    state.movetime = ms;
    $('movetime-label').textContent = tr('{s} s', { s: (ms / 1000).toFixed(1) });
  }

  function togglePause() {
    state.paused = !state.paused;
    if (state.paused) {
      // The move being searched is dropped, not played.
      abortEngine();
      state.gen++;
    }
    renderAll();
    schedule();
  }

  function flip() {
    state.flipped = !state.flipped;
    placeStatic();
    save();
    renderAll();
  }

  // A new time control starts a new game on it, as on a game server.
  function setTimeControl() {
    const tc = $('tc').value;
    const min = Number($('tc-min').value) || 5;
    const inc = Number($('tc-inc').value) || 0;
    if (tc === state.tc && (tc !== 'custom' || (min === state.tcMin && inc === state.tcInc))) return;
    state.tc = tc;
    state.tcMin = min;
    state.tcInc = inc;
    renderControls();
    newGame();
  }

  async function setRule(rule) {
    if (rule === state.rule) return;
    const before = state.rule;
    const end = lineEnd(state.cur);
    try {
      await api('/legal', { obx: state.startObx, moves: movesTo(end), repetition: rule });
    } catch (e) {
      showError(() => tr('The game cannot go on under that rule: {error}', { error: serverText(e) }));
      $('rule').value = before;
      return;
    }
    state.rule = rule;
    for (const n of nodes.values()) { if (n.pos) { n.local = n.pos; n.local.local = true; n.local.legal = []; } n.pos = null; }
    state.an = null;
    state.mpv = null;
    state.gen++;
    abortEngine();
    save();
    goTo(state.cur);
  }

  async function serverInfo() {
    try {
      const res = await fetch('/health');
      const h = await res.json();
      state.health = h;
      renderServerInfo();
      const slider = $('movetime');
      slider.max = String(Math.max(100, Math.min(10000, h.max_movetime)));
      if (Number(slider.value) > Number(slider.max)) slider.value = slider.max;
      setMovetime(Number(slider.value));
    } catch (e) {
      state.health = false;
      renderServerInfo();
    }
  }

  // The header's line on the server: its engine, workers and database, or that it is not there.
  function renderServerInfo() {
    const h = state.health;
    if (h === undefined) return; // still asking: "connecting…" stays
    let text = tr('server unreachable');
    if (h) {
      text = tr(['engine {version} · {n} worker', 'engine {version} · {n} workers'], { version: h.version, n: h.workers });
      if (h.tablebase) text = tr('{text} · database', { text });
    }
    $('server-info').textContent = text;
  }

  function toggleKeys() {
    const d = $('keys');
    if (d.open) d.close();
    else if (d.showModal) d.showModal();
    else d.setAttribute('open', '');
  }

  function onKey(e) {
    const t = e.target;
    // Keys go to a field that uses them (text, numbers, a slider, a list); a checkbox or a
    // button does not, so the arrows still walk the game after "Engine lines" is ticked.
    if (t && (t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' ||
      (t.tagName === 'INPUT' && !['checkbox', 'radio', 'button'].includes(t.type)))) return;
    // "?" opens the list of shortcuts (and closes it); while it is open the keys are its own.
    if (e.key === '?' && !e.ctrlKey && !e.metaKey && !e.altKey) { e.preventDefault(); toggleKeys(); return; }
    if ($('keys').open || $('looks').open) return;
    // Esc leaves the editor as its Cancel does.
    if (state.editor) { if (e.key === 'Escape') $('ed-cancel').click(); return; }
    if (e.key === 'Escape' && cancelPremove()) { e.preventDefault(); return; }
    const n = state.cur;
    if (e.key === 'ArrowLeft') { e.preventDefault(); if (n.parent) goTo(n.parent); }
    else if (e.key === 'ArrowRight') { e.preventDefault(); if (n.children[0]) goTo(n.children[0]); }
    else if (e.key === 'Home') { e.preventDefault(); goTo(state.root); }
    else if (e.key === 'End') { e.preventDefault(); goTo(lineEnd(n)); }
    else if (e.key === 'f' && !e.ctrlKey && !e.metaKey && !e.altKey) flip();
    // l: the engine lines (searching on) on or off, as on lichess.
    else if (e.key === 'l' && !e.ctrlKey && !e.metaKey && !e.altKey && !online() && !state.locked) setLinesOn(!state.linesOn);
  }

  // ---- the position editor ---------------------------------------------------------------------

  function openEditor() {
    abortEngine();
    state.gen++;
    const pos = posOf(state.cur);
    state.editor = { cells: boardCells(pos.obx), tool: 'goat', drag: null };
    $('ed-hand').value = String(pos.in_hand);
    $('ed-captured').value = String(pos.captured);
    $('ed-turn').value = pos.turn === 'tigers' ? 't' : 'g';
    $('ed-rule').value = state.rule;
    $('ed-error').textContent = '';
    $('editor').hidden = false;
    renderAll();
    // The page from its top (the button may be far below the board, on a phone), unless that
    // leaves the editor out of sight (a window where the tools go below the board).
    window.scrollTo(0, 0);
    if ($('editor').getBoundingClientRect().bottom > window.innerHeight) $('editor').scrollIntoView({ block: 'nearest' });
    // The focus was on "Edit position", disabled now: it goes to the editor's first tool.
    $(`tool-${state.editor.tool}`).focus({ preventScroll: true });
  }

  function closeEditor() {
    if (!state.editor) return;
    state.editor = null;
    clear(layers.effects);
    // A focus in the editor would be lost with it: it goes back to "Edit position".
    const had = $('editor').contains(document.activeElement);
    $('editor').hidden = true;
    if (had) {
      document.body.classList.remove('editing'); // a phone shows the button again
      $('edit').disabled = false;
      $('edit').focus({ preventScroll: true });
    }
  }

  function editorObx() {
    const e = state.editor;
    return `${boardText(e.cells)} ${$('ed-turn').value} @${$('ed-hand').value || 0} c${$('ed-captured').value || 0}`;
  }

  // Goats in hand follow the goats on the board and the captured count, as long as they can.
  function fitHand() {
    const goats = Object.values(state.editor.cells).filter((c) => c === 'G').length;
    const caps = Number($('ed-captured').value) || 0;
    $('ed-hand').value = String(Math.max(0, 20 - goats - caps));
  }

  function renderEditorBoard() {
    const e = state.editor;
    clear(layers.marks);
    clear(layers.targets);
    clear(layers.pieces);
    clear(layers.effects);
    for (const [point, ch] of Object.entries(e.cells)) layers.pieces.appendChild(piece(ch === 'T' ? 'tiger' : 'goat', point));
    for (const hit of layers.hits.children) hit.classList.add('clickable');
    labelPoints(e.cells);
  }

  function renderEditorPanel() {
    document.body.classList.toggle('editing', Boolean(state.editor));
    if (!state.editor) return;
    for (const b of document.querySelectorAll('.tool')) b.classList.toggle('active', b.getAttribute('data-tool') === state.editor.tool);
    const obx = editorObx();
    $('ed-obx').textContent = obx;
    // A refusal speaks of the position refused: once that changes, it goes.
    if (state.editor.refused !== obx) { $('ed-error').textContent = ''; state.editor.refused = null; }
    else if (state.editor.error) $('ed-error').textContent = state.editor.error();
    renderPlayers();
    renderTrays();
  }

  function editPoint(name, kind) {
    const e = state.editor;
    const k = kind || e.tool;
    const ch = k === 'tiger' ? 'T' : k === 'goat' ? 'G' : null;
    if (!ch || (!kind && e.cells[name] === ch)) delete e.cells[name]; else e.cells[name] = ch;
    fitHand();
    render();
    renderEditorPanel();
  }

  // The point under a screen position, or null off the board.
  function pointAt(x, y) {
    const r = $('board').getBoundingClientRect();
    if (x < r.left || x > r.right || y < r.top || y > r.bottom) return null;
    const bx = ((x - r.left) / r.width) * SIZE;
    const by = ((y - r.top) / r.height) * SIZE;
    let c = Math.round((bx - MARGIN) / GAP);
    let row = Math.round((by - MARGIN) / GAP);
    if (c < 0 || c > 4 || row < 0 || row > 4) return null;
    if (Math.hypot(bx - (MARGIN + c * GAP), by - (MARGIN + row * GAP)) > 57) return null;
    if (state.flipped) { c = 4 - c; row = 4 - row; }
    return pointName(c, row);
  }

  // Dragging: a piece from the palette onto a point, or a piece from point to point (off the
  // board removes it). A press and release on one point without moving is a click.
  function startDrag(e, kind, from) {
    e.preventDefault();
    state.editor.drag = { kind, from, x: e.clientX, y: e.clientY, moved: false };
    document.addEventListener('pointermove', onDragMove);
    document.addEventListener('pointerup', onDragEnd, { once: true });
  }

  function onDragMove(e) {
    const d = state.editor && state.editor.drag;
    if (!d) return;
    if (Math.hypot(e.clientX - d.x, e.clientY - d.y) > 4) d.moved = true;
    clear(layers.effects);
    const r = $('board').getBoundingClientRect();
    const bx = ((e.clientX - r.left) / r.width) * SIZE;
    const by = ((e.clientY - r.top) / r.height) * SIZE;
    if (bx >= 0 && by >= 0 && bx <= SIZE && by <= SIZE) {
      const size = d.kind === 'tiger' ? 90 : 82;
      el('use', { href: `#${d.kind}`, x: bx - size / 2, y: by - size / 2, width: size, height: size, class: 'drag-ghost' }, layers.effects);
    }
  }

  function onDragEnd(e) {
    document.removeEventListener('pointermove', onDragMove);
    const d = state.editor && state.editor.drag;
    if (!d) return;
    state.editor.drag = null;
    clear(layers.effects);
    const to = pointAt(e.clientX, e.clientY);
    if (!d.moved) {
      if (d.from) editPoint(d.from);
      return;
    }
    if (d.from && d.from !== to) delete state.editor.cells[d.from];
    if (to) state.editor.cells[to] = d.kind === 'tiger' ? 'T' : 'G';
    fitHand();
    render();
    renderEditorPanel();
  }

  function onEditorPointerDown(e, name) {
    if (!state.editor || e.button !== 0) return;
    const ch = state.editor.cells[name];
    if (ch) startDrag(e, ch === 'T' ? 'tiger' : 'goat', name);
    else {
      e.preventDefault();
      editPoint(name);
    }
  }

  function setEditorCells(obx) {
    state.editor.cells = boardCells(obx);
    const p = localOf(obx);
    $('ed-hand').value = String(p.in_hand);
    $('ed-captured').value = String(p.captured);
    $('ed-turn').value = p.turn === 'tigers' ? 't' : 'g';
    render();
    renderEditorPanel();
  }

  // The position is the server's to judge: an impossible one is refused with its reason.
  async function editorDone() {
    const obx = editorObx();
    const rule = $('ed-rule').value;
    try {
      const data = await api('/legal', { obx, repetition: rule });
      closeEditor();
      reset(obx, data, rule);
      showError(() => tr('Position set up.'), true);
      save();
      renderAll();
      schedule();
      requestLines();
    } catch (e) {
      if (!state.editor) return;
      state.editor.refused = obx;
      state.editor.error = () => (unreachable(e) ? tr('Server: {error}', { error: serverText(e) }) : tr('Refused: {error}', { error: serverText(e) }));
      $('ed-error').textContent = state.editor.error();
      $('ed-error').setAttribute('data-code', e.data && e.data.code ? e.data.code : '');
    }
  }

  // ---- start ----------------------------------------------------------------------------------

  function restore() {
    try {
      let saved = JSON.parse(localStorage.getItem(STORE) || 'null');
      if (!saved) {
        const old = JSON.parse(localStorage.getItem(OLD_STORE) || 'null');
        if (old && Array.isArray(old.moves)) {
          const tree = [];
          let at = tree;
          for (const m of old.moves) { const n = { m, c: [] }; at.push(n); at = n.c; }
          saved = { ...old, tree, path: old.moves.map(() => 0) };
        }
      }
      if (!saved || typeof saved.startObx !== 'string' || !Array.isArray(saved.tree)) return null;
      if (['goats', 'tigers', 'watch', 'human'].includes(saved.mode)) state.mode = saved.mode;
      if (Number.isInteger(saved.movetime)) $('movetime').value = String(saved.movetime);
      if ((Number.isInteger(saved.skill) && saved.skill >= 0 && saved.skill <= 20) || saved.skill === 'elo') state.skill = saved.skill;
      if (Number.isInteger(saved.elo) && saved.elo >= 600 && saved.elo <= 2400) state.elo = saved.elo;
      if (typeof saved.tc === 'string') state.tc = saved.tc;
      if (typeof saved.tcMin === 'number') state.tcMin = saved.tcMin;
      if (typeof saved.tcInc === 'number') state.tcInc = saved.tcInc;
      if (typeof saved.sound === 'boolean') state.sound = saved.sound;
      if (saved.theme === 'light' || saved.theme === 'dark') state.theme = saved.theme;
      if (typeof saved.linesOn === 'boolean') state.linesOn = saved.linesOn;
      if (CEVAL_TIMES.includes(saved.cevalTime)) state.cevalTime = saved.cevalTime;
      if (ENGINE_HASH.includes(saved.engineHash)) state.engineHash = saved.engineHash;
      if (Number.isInteger(saved.engineThreads) && saved.engineThreads >= 1 && saved.engineThreads <= MAX_ENGINE_THREADS) state.engineThreads = saved.engineThreads;
      if (typeof saved.engineServer === 'string') state.engineServer = saved.engineServer.slice(0, 300);
      if (Number.isInteger(saved.multipv) && saved.multipv >= 1 && saved.multipv <= 5) state.multipv = saved.multipv;
      state.flipped = Boolean(saved.flipped);
      return saved;
    } catch (e) {
      return null;
    }
  }

  // The saved game as a tree, with the node its path names.
  function fromSaved(saved) {
    reset(saved.startObx, null, saved.rule === 'draw' ? 'draw' : 'forbid');
    const side = sideOf(saved.startObx);
    for (const o of saved.tree) state.root.children.push(build(state.root, o, side));
    if (saved.rootEval) state.root.eval = saved.rootEval;
    if (typeof saved.rootComment === 'string' && saved.rootComment.trim()) state.root.comment = saved.rootComment.trim().slice(0, COMMENT_MAX);
    if (Array.isArray(saved.rootShapes)) state.root.shapes = saved.rootShapes.filter((x) => typeof x === 'string' && SHAPE.test(x)).slice(0, SHAPES_MAX);
    let at = state.root;
    for (const i of saved.path || []) { if (!at.children[i]) break; at = at.children[i]; }
    state.cur = at;
    if (saved.clock && state.clock) {
      const c = saved.clock;
      state.clock = { base: c.base, inc: c.inc, left: c.left, running: c.running, since: performance.now(), flag: c.flag };
    }
    if (saved.resigned === 'goats' || saved.resigned === 'tigers') state.resigned = saved.resigned;
  }

  // The node of a saved tree at the end of a list of moves, or null.
  function findLine(moves) {
    let at = state.root;
    for (const m of moves) {
      const want = entryOf(m).move.toUpperCase();
      const next = at.children.find((c) => c.move.toUpperCase() === want);
      if (!next) return null;
      at = next;
    }
    return at;
  }

  // /?obx=...&moves=...&ply=...&rule=...: the line in the address, inside the saved tree when
  // it belongs to it (its side lines and graph stay), else as a game of its own.
  async function openAddress(q, saved) {
    const obx = q.get('obx').trim();
    const moves = (q.get('moves') || '').split(/[\s,]+/).filter(Boolean);
    const rule = q.get('rule') === 'draw' ? 'draw' : 'forbid';
    let end = null;
    if (saved && saved.startObx.trim() === obx && (saved.rule || 'forbid') === rule) {
      fromSaved(saved);
      end = findLine(moves);
    }
    if (!end) {
      reset(obx, null, rule);
      let at = state.root;
      let side = sideOf(obx);
      for (const m of moves) { const n = newNode(at, entryOf(m), side); at.children.push(n); at = n; side = other(side); }
      end = at;
    }
    const line = [state.root, ...pathTo(end)];
    const ply = q.has('ply') ? Number(q.get('ply')) : line.length - 1;
    state.cur = line[Math.max(0, Math.min(line.length - 1, Number.isInteger(ply) ? ply : line.length - 1))];
    renderAll();
    state.lastError = null;
    const ok = await fetchPos(end);
    if (!ok) {
      if (state.lastError && !unreachable(state.lastError)) {
        const err = state.lastError;
        showError(() => tr("The address's game was refused: {error}", { error: serverText(err) }));
        return false;
      }
      failAgain(() => tr('The server did not answer.'), () => openAddress(q, saved));
      return true;
    }
    if (state.cur !== end) await ensurePos(state.cur);
    // A shared position is the player's to play: against the engine, the side to move is
    // theirs, so that the engine does not answer a position nobody has looked at yet.
    const turn = end.pos && end.pos.turn;
    if ((state.mode === 'goats' || state.mode === 'tigers') && turn && turn !== state.mode && !resultAt(end)) {
      state.mode = turn;
      state.gen++;
    }
    showError(() => (moves.length ? tr(['Game loaded: {n} move.', 'Game loaded: {n} moves.'], { n: moves.length }) : tr('Position loaded.')), true);
    save();
    renderAll();
    schedule();
    requestLines();
    return true;
  }

  // The browser engine's settings, where the page has one (the static board's local.js reads
  // them from <html>): its memory (Hash). Its threads: one, said beside it with the reason.
  function applyEngineSettings() {
    document.documentElement.setAttribute('data-engine-hash', String(state.engineHash));
    document.documentElement.setAttribute('data-engine-server', state.engineServer);
    if (document.activeElement !== $('engine-server')) $('engine-server').value = state.engineServer;
    renderRemote();
    // Threads where the worker has them (local.js's <html data-engine-threaded>: the page is
    // cross-origin isolated): 1 up to the logical cores, half of them unless chosen; else one, and why.
    const threaded = document.documentElement.getAttribute('data-engine-threaded') === 'true';
    const cores = Math.max(1, Math.min(MAX_ENGINE_THREADS, navigator.hardwareConcurrency || 1));
    const threads = threaded ? Math.min(cores, state.engineThreads || Math.max(1, Math.floor(cores / 2))) : 1;
    const sel = $('engine-threads');
    if (sel.options.length !== (threaded ? cores : 1)) {
      clear(sel);
      for (let n = 1; n <= (threaded ? cores : 1); n++) html('option', null, String(n), sel).value = String(n);
    }
    sel.value = String(threads);
    sel.disabled = !threaded;
    $('engine-threads-note').textContent = threaded ? '' : tr('1: this page is not cross-origin isolated');
    document.documentElement.setAttribute('data-engine-threads', String(threads));
  }

  // Whether the server for exact values answered the last time it was asked (local.js's
  // <html data-remote>).
  function renderRemote() {
    const r = document.documentElement.getAttribute('data-remote');
    const out = $('engine-server-state');
    out.textContent = !state.engineServer ? '' : r === 'ok' ? tr('it answers') : r === 'failed'
      ? tr('it did not answer: the engine in this browser searches') : '';
    out.setAttribute('data-state', state.engineServer ? r || '' : '');
  }
  // Who answered: a server elsewhere (its host) or the engine in this browser (the static
  // board's local.js says so in "via"); nothing when the page has its own server.
  function viaText(d) {
    if (!d || !d.via) return '';
    return d.via === 'server' ? tr('server {host}', { host: d.server || '' }) : tr('this browser');
  }

  function applyTheme() {
    document.documentElement.setAttribute('data-theme', state.theme);
  }

  async function init() {
    const saved = restore();
    trays.goats = $('tray-goats');
    trays.tigers = $('tray-tigers');
    applyTheme();
    loadLooks();
    state.root = newNode(null, null, null);
    state.cur = state.root;
    drawBoard();
    for (const b of document.querySelectorAll('[data-mode]')) {
      b.addEventListener('click', () => setMode(b.getAttribute('data-mode')));
    }
    $('new-game').addEventListener('click', newGame);
    $('banner-new').addEventListener('click', newGame);
    $('undo').addEventListener('click', undo);
    $('hint').addEventListener('click', hint);
    $('resign').addEventListener('click', resign);
    $('keys-open').addEventListener('click', toggleKeys);
    $('looks-open').addEventListener('click', () => { const d = $('looks'); if (d.showModal) d.showModal(); else d.setAttribute('open', ''); });
    $('board-theme').addEventListener('change', (e) => setLooks({ board: e.target.value }));
    $('piece-theme').addEventListener('change', (e) => setLooks({ pieces: e.target.value }));
    $('pause').addEventListener('click', togglePause);
    $('flip').addEventListener('click', flip);
    $('retry').addEventListener('click', retryFailed);
    $('nav-first').addEventListener('click', () => goTo(state.root));
    $('nav-back').addEventListener('click', () => goTo(state.cur.parent));
    $('nav-forward').addEventListener('click', () => goTo(state.cur.children[0]));
    $('nav-last').addEventListener('click', () => goTo(lineEnd(state.cur)));
    $('promote').addEventListener('click', promote);
    $('delete-line').addEventListener('click', deleteLine);
    $('analyse').addEventListener('click', analyse);
    $('analysis-stop').addEventListener('click', stopAnalysis);
    $('skill').addEventListener('change', (e) => {
      state.skill = e.target.value === 'elo' ? 'elo' : Number(e.target.value);
      save();
      renderAll();
    });
    $('elo').addEventListener('input', (e) => { state.elo = Number(e.target.value); save(); renderControls(); renderPlayers(); });
    $('tc').addEventListener('change', setTimeControl);
    $('tc-min').addEventListener('change', setTimeControl);
    $('tc-inc').addEventListener('change', setTimeControl);
    $('rule').addEventListener('change', (e) => setRule(e.target.value));
    $('movetime').addEventListener('input', (e) => { setMovetime(Number(e.target.value)); save(); });
    $('lines-on').addEventListener('change', (e) => setLinesOn(e.target.checked));
    $('ceval-time').addEventListener('change', (e) => { state.cevalTime = Number(e.target.value); save(); state.mpv = null; requestLines(); });
    $('ceval-deeper').addEventListener('click', () => requestLines(true));
    $('engine-hash').addEventListener('change', (e) => { state.engineHash = Number(e.target.value); applyEngineSettings(); save(); });
    $('engine-threads').addEventListener('change', (e) => { state.engineThreads = Number(e.target.value); applyEngineSettings(); save(); });
    $('engine-server').addEventListener('change', (e) => {
      state.engineServer = e.target.value.trim().slice(0, 300);
      document.documentElement.removeAttribute('data-remote');
      applyEngineSettings();
      save();
    });
    $('multipv').addEventListener('change', (e) => { state.multipv = Number(e.target.value); save(); requestLines(); });
    $('sound').addEventListener('click', () => { state.sound = !state.sound; save(); renderControls(); });
    $('theme').addEventListener('click', () => { state.theme = state.theme === 'light' ? 'dark' : 'light'; applyTheme(); save(); renderControls(); });
    $('copy-obx').addEventListener('click', () => copyText(posOf(state.cur).obx, 'OBX', $('obx'), 'OBX box'));
    $('copy-link').addEventListener('click', () => {
      if (state.addressTooLong) showError(() => tr('The game is too long for an address: use Export PGN or Export OBX.'));
      else copyText(location.href, 'Link');
    });
    $('load-obx').addEventListener('click', () => loadObx());
    $('obx').addEventListener('input', () => { state.obxEdited = true; });
    $('obx').addEventListener('keydown', (e) => {
      if (e.key === 'Enter') {
        e.preventDefault();
        loadObx();
      }
    });
    $('export-pgn').addEventListener('click', () => { $('game-text').value = pgn(); copyText(pgn(), 'PGN', $('game-text'), 'game record'); });
    $('export-game').addEventListener('click', () => { $('game-text').value = gameText(); copyText(gameText(), 'Game', $('game-text'), 'game record'); });
    $('import-game').addEventListener('click', importGame);
    $('moves').addEventListener('click', (e) => {
      const cell = e.target.closest('[data-node]');
      if (cell) goTo(nodes.get(Number(cell.getAttribute('data-node'))));
    });
    $('evalgraph').addEventListener('click', onGraphClick);
    for (const id of Object.keys(ROVE)) $(id).addEventListener('keydown', onRoveKey);
    // The board's right button draws (and cancels a premove): no menu there.
    $('board').addEventListener('contextmenu', (e) => { cancelPremove(); if (!state.editor) e.preventDefault(); });
    $('board').addEventListener('pointerdown', onShapeDown);
    $('board').addEventListener('pointerup', onShapeUp);
    $('premove-cancel').addEventListener('click', cancelPremove);
    $('edit').addEventListener('click', openEditor);
    $('ed-cancel').addEventListener('click', () => { closeEditor(); renderAll(); schedule(); });
    $('ed-done').addEventListener('click', editorDone);
    $('ed-start').addEventListener('click', () => setEditorCells(START));
    $('ed-clear').addEventListener('click', () => setEditorCells('XXXXX/XXXXX/XXXXX/XXXXX/XXXXX g @20 c0'));
    for (const id of ['ed-hand', 'ed-turn', 'ed-rule']) $(id).addEventListener('input', renderEditorPanel);
    $('ed-captured').addEventListener('input', () => { fitHand(); renderEditorPanel(); });
    for (const b of document.querySelectorAll('.tool')) {
      const kind = b.getAttribute('data-tool');
      b.addEventListener('click', () => { state.editor.tool = kind; renderEditorPanel(); });
      if (kind !== 'empty') b.addEventListener('pointerdown', (e) => { if (state.editor && e.button === 0) { state.editor.tool = kind; startDrag(e, kind, null); } });
    }
    document.addEventListener('keydown', onKey);
    // A new layout (a phone turned, a window resized) keeps the move shown in the list's view.
    if (window.ResizeObserver) new ResizeObserver(keepCurrentInView).observe($('moves-scroll'));
    setMovetime(Number($('movetime').value));
    applyEngineSettings();
    // The board as other files of web/ see it (review.js, ...): its state (read it; change it
    // only through these functions) and the functions they need. Arrays of callbacks they push
    // to: playGuards (entry, node) -> false takes a move before it is played; onRender () after
    // every full render; onGraph (svg, {line, x, y, W, H}) after the evaluation graph is drawn.
    window.Board = window.Board || {};
    Object.assign(window.Board, {
      state, api, goTo, renderAll, save, lineOf, pathTo, plyOf, gameOf, posOf, inTree, moveLabel, prettyMove, html,
      copy: clipboardCopy,
      // An arrow on the board from a move at a node (the hint's), until the node changes.
      showArrow(node, move) { state.hint = move ? { nodeId: node.id, move } : null; render(); },
    });
    // For puzzles.js: a game from an OBX under a rule (start), a move played at a node (play,
    // the board's reply from the puzzle's line), who plays (setMode: 'human' while a puzzle runs,
    // so the engine answers nothing) and a node's position asked for (ensurePos).
    Object.assign(window.Board, { start, play, setMode, ensurePos });
    // For puzzles.js: the game in progress kept aside and given back (snapshot, restoreGame),
    // and the engine's help locked while a puzzle is solved (lock(true): no hint, no engine
    // lines, no analysis; the analysis shown is dropped).
    Object.assign(window.Board, { snapshot, restoreGame, lock(on) {
      state.locked = Boolean(on);
      if (on) {
        if (state.anRun) stopAnalysis();
        state.an = null;
        state.hint = null;
        if (state.mpvCtrl) { state.mpvCtrl.abort(); state.mpvCtrl = null; }
        state.ceval = null;
      }
      renderAll();
      if (!on) requestLines();
    } });
    // For online.js: the board turned (the person's side at the bottom), a move's text as the
    // tree keeps it, and a result in words.
    Object.assign(window.Board, { flip, entryOf, resultWords });
    // For annotations.js: the glyphs a move may carry, and what follows a change of a glyph or
    // a comment (node.glyph, node.comment): the game is kept and the move list shows it.
    Object.assign(window.Board, { glyphs: GLYPHS, commentMax: COMMENT_MAX, annotated() { save(); renderMoves(); } });
    // A change of language writes again every text the script wrote; the game stays as it is.
    if (window.I18N) {
      I18N.onChange(() => {
        renderAll();
        renderServerInfo();
        setMovetime(state.movetime);
        applyEngineSettings();
        const m = state.message;
        if (m) showError(m.msg, m.ok, m.where);
      });
    }
    $('tc-min').value = String(state.tcMin);
    $('tc-inc').value = String(state.tcInc);
    serverInfo();
    setInterval(tick, 100);
    const q = new URLSearchParams(location.search);
    // An online game's page (online.js) leaves the page's own game where it is kept.
    if (online()) { renderAll(); return; }
    if (q.get('obx') && await openAddress(q, saved)) return;
    if (saved) {
      fromSaved(saved);
      renderAll();
      const ok = await fetchPos(lineEnd(state.cur));
      if (ok || unreachable(state.lastError || {})) {
        if (!ok) failAgain(() => tr('The server did not answer.'), () => goTo(state.cur));
        else { await ensurePos(state.cur); save(); renderAll(); schedule(); requestLines(); }
        return;
      }
    }
    newGame();
  }

  document.addEventListener('DOMContentLoaded', init);
})();
