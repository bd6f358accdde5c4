// The web board: draws the position the server reports and asks it for legal moves (/legal),
// engine moves (/obx) and the value of every move (/analysis). Every rule lives in the
// server; the page only keeps the game record (a start OBX and the moves played from it)
// and sends it whole, so repetitions are judged over the whole game. The record is kept in
// localStorage across reloads; /?obx=... opens a position.
'use strict';

(() => {
  const START = 'TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0 - #';
  const SVG = 'http://www.w3.org/2000/svg';
  const GAP = 115;
  const MARGIN = 80;
  const SIZE = 2 * MARGIN + 4 * GAP;
  const COLS = 'ABCDE';

  const $ = (id) => document.getElementById(id);

  const STORE = 'baghchal.board.v1';

  const state = {
    startObx: START,
    moves: [],      // OBX move texts played from startObx
    record: [],     // per move: {side, legal entry}
    evals: [],      // per ply (0 = start): the engine's score for the goats, or null
    positions: [],  // per ply: the /legal answer, once known
    view: null,     // a ply being looked at (the list, the arrow keys), or null for the game
    flipped: false,
    skill: 20,
    failure: null,  // {message, retry}: a request that failed; the game is as before it
    ctrl: null,     // aborts the engine request in flight
    lines: null,    // the last /analysis answer shown, with its ply
    pos: null,      // the last /legal answer
    mode: 'goats',  // the side the person plays, or 'watch' / 'human'
    movetime: 500,
    selected: null,
    gen: 0,         // bumped on new game / undo / load / mode change: stale answers are dropped
    thinking: false,
    loading: false,
    paused: false,
    analysis: null, // {score, depth, pv, side, nodes, time_ms}
    hint: null,
    animate: null,  // the move to animate on the next draw
    obxEdited: false, // the OBX box holds the person's own text: leave it alone
  };

  // ---- small helpers --------------------------------------------------------------

  function el(name, attrs, parent) {
    const node = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (parent) parent.appendChild(node);
    return node;
  }

  function xy(point) {
    let c = COLS.indexOf(point[0].toUpperCase());
    let r = Number(point[1]) - 1;
    if (state.flipped) { c = 4 - c; r = 4 - r; }
    return [MARGIN + c * GAP, MARGIN + r * GAP];
  }

  function pointName(c, r) { return COLS[c] + (r + 1); }

  async function api(path, body, signal) {
    const res = await fetch(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
      signal,
    });
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

  function humanSide() {
    if (state.mode === 'goats' || state.mode === 'tigers') return state.mode;
    if (state.mode === 'human') return 'both';
    return 'none';
  }

  // The position on the board: the game's, or the one looked at in the move list.
  function shownPly() { return state.view === null ? state.moves.length : state.view; }
  function shownPos() { return state.view === null ? state.pos : state.positions[state.view] || null; }

  function humanToMove() {
    if (!state.pos || state.pos.result || state.view !== null || state.failure) return false;
    const h = humanSide();
    return h === 'both' || h === state.pos.turn;
  }

  function engineToMove() {
    if (!state.pos || state.pos.result || state.view !== null || state.failure) return false;
    if (state.mode === 'watch') return !state.paused;
    const h = humanSide();
    return h !== 'both' && h !== state.pos.turn;
  }

  // ---- the board ----------------------------------------------------------------------

  const layers = {};

  function drawBoard() {
    const svg = $('board');
    svg.setAttribute('viewBox', `0 0 ${SIZE} ${SIZE}`);
    const defs = el('defs', {}, svg);

    const wood = el('linearGradient', { id: 'wood', x1: '0', y1: '0', x2: '1', y2: '1' }, defs);
    el('stop', { offset: '0', 'stop-color': '#ecd3a0' }, wood);
    el('stop', { offset: '0.55', 'stop-color': '#deb877' }, wood);
    el('stop', { offset: '1', 'stop-color': '#c99a57' }, wood);

    const tigerFill = el('radialGradient', { id: 'tigerFill', cx: '0.38', cy: '0.32', r: '0.75' }, defs);
    el('stop', { offset: '0', 'stop-color': '#ffc163' }, tigerFill);
    el('stop', { offset: '0.6', 'stop-color': '#ec8a1c' }, tigerFill);
    el('stop', { offset: '1', 'stop-color': '#b45309' }, tigerFill);

    const goatFill = el('radialGradient', { id: 'goatFill', cx: '0.38', cy: '0.32', r: '0.8' }, defs);
    el('stop', { offset: '0', 'stop-color': '#ffffff' }, goatFill);
    el('stop', { offset: '0.7', 'stop-color': '#efe9da' }, goatFill);
    el('stop', { offset: '1', 'stop-color': '#c9c0aa' }, goatFill);

    const shadow = el('filter', { id: 'shadow', x: '-30%', y: '-30%', width: '160%', height: '160%' }, defs);
    el('feDropShadow', { dx: '0', dy: '4', stdDeviation: '3.5', 'flood-color': '#2b1a08', 'flood-opacity': '0.55' },
      shadow);

    // A tiger token: orange face, black stripes, ears and eyes.
    const tiger = el('symbol', { id: 'tiger', viewBox: '-50 -50 100 100', overflow: 'visible' }, defs);
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
    const goat = el('symbol', { id: 'goat', viewBox: '-50 -50 100 100', overflow: 'visible' }, defs);
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

    // The board: wood, frame, lines.
    el('rect', { x: 0, y: 0, width: SIZE, height: SIZE, rx: 18, fill: 'url(#wood)' }, svg);
    el('rect', { x: 12, y: 12, width: SIZE - 24, height: SIZE - 24, rx: 12, fill: 'none', stroke: '#a77a3f',
      'stroke-width': 2, opacity: 0.7 }, svg);
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
    layers.hits = el('g', {}, svg);
    for (let r = 0; r < 5; r++) {
      for (let c = 0; c < 5; c++) {
        const name = pointName(c, r);
        const hit = el('circle', { r: 50, class: 'hit', 'data-point': name, tabindex: '0', role: 'button',
          'aria-label': name }, layers.hits);
        hit.addEventListener('click', () => onPoint(name));
        hit.addEventListener('keydown', (e) => onPointKey(e, name));
      }
    }
    placeStatic();
  }

  // Labels and click targets follow the board's orientation.
  function placeStatic() {
    clear(layers.labels);
    for (let i = 0; i < 5; i++) {
      const col = state.flipped ? COLS[4 - i] : COLS[i];
      const row = String(state.flipped ? 5 - i : i + 1);
      for (const [x, y, text] of [[MARGIN + i * GAP, 28, col], [MARGIN + i * GAP, SIZE - 31, col],
        [33, MARGIN + i * GAP, row], [SIZE - 33, MARGIN + i * GAP, row]]) {
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
      onPoint(name);
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

  function piece(kind, point) {
    const [x, y] = xy(point);
    const g = el('g', { class: `piece ${kind}`, 'data-piece': kind, 'data-at': point });
    g.style.transform = `translate(${x}px, ${y}px)`;
    const size = kind === 'tiger' ? 90 : 82;
    el('use', { href: `#${kind}`, x: -size / 2, y: -size / 2, width: size, height: size, filter: 'url(#shadow)' }, g);
    el('circle', { r: kind === 'tiger' ? 42 : 36, class: 'ring' }, g);
    return g;
  }

  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }

  function lastMove() {
    const n = shownPly();
    return n > 0 && state.record[n - 1] ? state.record[n - 1].legal : null;
  }

  function render() {
    const pos = shownPos();
    if (!pos) return;
    const cells = boardCells(pos.obx);
    const legal = pos.legal || [];
    const myTurn = humanToMove() && !state.loading;
    const placing = pos.turn === 'goats' && pos.in_hand > 0;

    clear(layers.marks);
    const last = lastMove();
    if (last) {
      if (last.from) {
        const [fx, fy] = xy(last.from);
        el('circle', { cx: fx, cy: fy, r: 30, class: 'last-from' }, layers.marks);
      }
      const [tx, ty] = xy(last.to);
      el('circle', { cx: tx, cy: ty, r: 47, class: 'last-to' }, layers.marks);
    }
    if (state.hint) {
      for (const p of [state.hint.from, state.hint.to]) {
        if (!p) continue;
        const [hx, hy] = xy(p);
        el('circle', { cx: hx, cy: hy, r: 50, class: 'hint-mark' }, layers.marks);
      }
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

    // The last move slides (or drops) into place once.
    const anim = state.view === null ? state.animate : null;
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
  }

  // ---- panels ---------------------------------------------------------------------------

  function capitalise(t) { return t ? t[0].toUpperCase() + t.slice(1) : ''; }

  function renderStatus() {
    const s = $('status');
    clear(s);
    const pos = shownPos();
    if (!pos) return;
    const dot = document.createElement('span');
    dot.className = `dot ${pos.turn}`;
    const text = document.createElement('span');
    const hint = document.createElement('span');
    hint.className = 'hint-text';
    if (pos.result) {
      dot.className = 'dot ' + (pos.result.winner || 'goats');
      text.textContent = capitalise(pos.result.description);
    } else {
      text.textContent = `${pos.turn === 'goats' ? 'Goats' : 'Tigers'} to move`;
      if (state.view !== null) hint.textContent = `move ${state.view} of ${state.moves.length}: press → or End to return`;
      else if (state.failure) hint.textContent = 'waiting for the server';
      else if (state.thinking) hint.textContent = 'the engine is thinking…';
      else if (humanToMove()) {
        if (pos.turn === 'goats' && pos.in_hand > 0) hint.textContent = 'click a point to place a goat';
        else hint.textContent = state.selected ? 'click a highlighted point' : `click a ${pos.turn === 'goats' ? 'goat' : 'tiger'} to move it`;
      } else if (state.mode === 'watch' && state.paused) hint.textContent = 'paused';
    }
    s.append(dot, text, hint);
    s.setAttribute('data-turn', pos.turn);
    s.setAttribute('data-view', state.view === null ? 'game' : String(state.view));
  }

  function renderTrays() {
    const p = shownPos();
    if (!p) return;
    $('hand-count').textContent = String(p.in_hand);
    $('cap-count').textContent = String(p.captured);
    const hand = $('hand');
    clear(hand);
    for (let i = 0; i < 20; i++) {
      const d = document.createElement('span');
      d.className = i < p.in_hand ? 'pip' : 'pip used';
      hand.appendChild(d);
    }
    const caps = $('caps');
    clear(caps);
    for (let i = 0; i < 5; i++) {
      const d = document.createElement('span');
      d.className = i < p.captured ? 'pip taken' : 'pip';
      caps.appendChild(d);
    }
  }

  function renderMoves() {
    const body = $('moves');
    clear(body);
    let row = null;
    let n = 0;
    const shown = shownPly();
    state.record.forEach((rec, i) => {
      if (!row || rec.side === 'goats') {
        row = document.createElement('tr');
        n++;
        const num = document.createElement('td');
        num.textContent = String(n);
        const g = document.createElement('td');
        const t = document.createElement('td');
        row.append(num, g, t);
        body.appendChild(row);
        if (rec.side === 'tigers') g.textContent = '…';
      }
      const cell = row.children[rec.side === 'goats' ? 1 : 2];
      cell.textContent = prettyMove(rec.legal.move);
      cell.setAttribute('data-ply', String(i + 1));
      cell.classList.add('ply');
      if (rec.legal.kind === 'capture') cell.classList.add('cap');
      if (i === shown - 1) cell.classList.add('latest');
      if (rec.side === 'tigers') row = null;
    });
    const scroll = body.closest('.moves-scroll');
    const cur = body.querySelector('.latest');
    if (scroll && state.view === null) scroll.scrollTop = scroll.scrollHeight;
    else if (cur && cur.scrollIntoView) cur.scrollIntoView({ block: 'nearest' });
  }

  function scoreForGoats(score, side) {
    const sign = side === 'goats' ? 1 : -1;
    if (score && typeof score.mate === 'number') return { mate: score.mate * sign };
    return { cp: (score ? score.cp : 0) * sign };
  }

  // 0 (tigers winning) .. 1 (goats winning).
  function fraction(s) {
    if (s.mate !== undefined) return s.mate > 0 ? 1 : 0;
    return 1 / (1 + Math.exp(-s.cp / 250));
  }

  function renderEngine() {
    $('thinking').hidden = !state.thinking;
    const a = state.analysis;
    const score = $('score');
    const bar = $('evalbar');
    const pv = $('pv');
    clear(pv);
    renderGraph();
    if (!a) {
      score.textContent = '—';
      score.removeAttribute('data-cp');
      $('engine-meta').textContent = '';
      bar.style.width = '50%';
      return;
    }
    const s = scoreForGoats(a.score, a.side);
    if (s.mate !== undefined) {
      score.textContent = `${s.mate > 0 ? 'Goats' : 'Tigers'} win in ${Math.abs(s.mate)}`;
    } else {
      const v = s.cp / 100;
      score.textContent = v === 0 ? 'Even 0.00' : `${v > 0 ? 'Goats' : 'Tigers'} +${Math.abs(v).toFixed(2)}`;
    }
    score.setAttribute('data-cp', s.mate !== undefined ? `mate ${s.mate}` : String(s.cp));
    bar.style.width = `${Math.round(fraction(s) * 100)}%`;
    const nodes = a.nodes >= 1e6 ? `${(a.nodes / 1e6).toFixed(1)}M` : a.nodes >= 1e3 ? `${Math.round(a.nodes / 1e3)}k` : String(a.nodes || 0);
    // A forced result found early runs the iterations up to the engine's limit: no depth to speak of.
    const depth = a.depth < 100 ? `depth ${a.depth} · ` : '';
    $('engine-meta').textContent = `${depth}${nodes} nodes · ${((a.time_ms || 0) / 1000).toFixed(2)} s`;
    let side = a.side;
    for (const m of a.pv || []) {
      const span = document.createElement('span');
      span.className = side === 'goats' ? 'g' : 't';
      span.textContent = prettyMove(m);
      pv.appendChild(span);
      side = side === 'goats' ? 'tigers' : 'goats';
    }
  }

  // The evaluation over the game: one point per ply the engine has scored, goats up.
  function renderGraph() {
    const svg = $('evalgraph');
    clear(svg);
    const W = 300;
    const H = 80;
    const plies = Math.max(state.moves.length, 1);
    const x = (i) => 4 + (i / plies) * (W - 8);
    const y = (f) => 4 + (1 - f) * (H - 8);
    el('rect', { x: 0, y: 0, width: W, height: H / 2, class: 'graph-goats' }, svg);
    el('rect', { x: 0, y: H / 2, width: W, height: H / 2, class: 'graph-tigers' }, svg);
    el('line', { x1: 0, y1: H / 2, x2: W, y2: H / 2, class: 'graph-mid' }, svg);
    const pts = [];
    state.evals.forEach((e, i) => { if (e) pts.push([x(i), y(fraction(e))]); });
    svg.setAttribute('data-points', String(pts.length));
    if (pts.length) {
      const d = pts.map(([px, py]) => `${px.toFixed(1)},${py.toFixed(1)}`).join(' ');
      el('polygon', { points: `${pts[0][0].toFixed(1)},${H / 2} ${d} ${pts[pts.length - 1][0].toFixed(1)},${H / 2}`,
        class: 'graph-area' }, svg);
      el('polyline', { points: d, class: 'graph-line' }, svg);
      for (const [px, py] of pts) el('circle', { cx: px, cy: py, r: 2.2, class: 'graph-dot' }, svg);
    }
    const cx = x(shownPly());
    el('line', { x1: cx, y1: 0, x2: cx, y2: H, class: 'graph-cursor' }, svg);
  }

  function renderResult() {
    const banner = $('result-banner');
    const r = state.view === null && state.pos && state.pos.result;
    if (!r) { banner.hidden = true; return; }
    $('result-title').textContent = r.winner ? `${capitalise(r.winner)} win` : 'Draw';
    const reason = r.description.includes(':') ? r.description.split(':').slice(1).join(':').trim() : r.description;
    $('result-reason').textContent = capitalise(reason);
    banner.hidden = false;
  }

  function valueText(m) {
    if (m.wdl === 'win') return { cls: 'win', text: m.distance === null ? 'Win' : `Win in ${m.distance}` };
    if (m.wdl === 'loss') return { cls: 'loss', text: m.distance === null ? 'Loss' : `Loss in ${m.distance}` };
    if (m.wdl === 'draw') return { cls: 'draw', text: 'Draw' };
    if (m.score && typeof m.score.cp === 'number') {
      const v = m.score.cp / 100;
      return { cls: v > 0.3 ? 'win' : v < -0.3 ? 'loss' : 'draw', text: `${v > 0 ? '+' : ''}${v.toFixed(2)}` };
    }
    return { cls: 'none', text: '?' };
  }

  function renderLines() {
    const list = $('analysis-list');
    clear(list);
    const a = state.lines;
    const fresh = a && a.ply === shownPly() && a.moves.join(',') === state.moves.slice(0, a.ply).join(',');
    if (!fresh) {
      $('analysis-source').textContent = state.analysing ? 'analysing…' : '';
      return;
    }
    const d = a.data;
    $('analysis-source').textContent = d.source === 'database' ? 'from the database, plies to the end'
      : d.source === 'search' ? `engine search, depth ${d.depth}` : 'game over';
    for (const m of d.moves) {
      const li = document.createElement('li');
      li.setAttribute('data-move', m.move);
      const mv = document.createElement('span');
      mv.className = 'mv';
      mv.textContent = prettyMove(m.move);
      const v = valueText(m);
      const val = document.createElement('span');
      val.className = `val ${v.cls}`;
      val.textContent = v.text;
      li.classList.add(v.cls);
      li.append(mv, val);
      li.addEventListener('click', () => {
        if (state.view === null && humanToMove() && !state.loading) {
          const entry = (state.pos.legal || []).find((x) => x.move === m.move);
          if (entry) play(entry);
        }
      });
      list.appendChild(li);
    }
  }

  function renderControls() {
    for (const b of document.querySelectorAll('[data-mode]')) {
      b.classList.toggle('active', b.getAttribute('data-mode') === state.mode);
    }
    $('undo').disabled = state.record.length === 0;
    $('pause').hidden = state.mode !== 'watch';
    $('pause').textContent = state.paused ? 'Resume' : 'Pause';
    $('hint').disabled = !state.pos || Boolean(state.pos.result) || state.thinking || state.view !== null;
    $('flip').setAttribute('aria-pressed', String(state.flipped));
    $('nav-back').disabled = shownPly() === 0;
    $('nav-forward').disabled = state.view === null;
    $('skill').value = String(state.skill);
    $('retry').hidden = !state.failure;
    const obx = $('obx');
    const pos = shownPos();
    if (pos && !state.obxEdited && document.activeElement !== obx) obx.value = pos.obx;
  }

  function renderAll() {
    render();
    renderStatus();
    renderTrays();
    renderMoves();
    renderEngine();
    renderResult();
    renderLines();
    renderControls();
  }

  // ---- the game record: kept, exported, imported ----------------------------------------

  function save() {
    try {
      localStorage.setItem(STORE, JSON.stringify({ startObx: state.startObx, moves: state.moves, mode: state.mode,
        movetime: state.movetime, flipped: state.flipped, skill: state.skill }));
    } catch (e) { /* storage full or disabled: the game just is not kept */ }
  }

  function sideOf(obx) { return (obx.trim().split(/\s+/)[1] || 'g').toLowerCase() === 't' ? 'tigers' : 'goats'; }

  // A move written without its capture suffix ("A1C3") is still a capture: only a jump
  // spans two points, and the jumped goat is the one half way.
  function entryOf(text) {
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

  function recordOf(startObx, moves) {
    let side = sideOf(startObx);
    return moves.map((mv) => {
      const rec = { side, legal: entryOf(mv) };
      side = side === 'goats' ? 'tigers' : 'goats';
      return rec;
    });
  }

  function plain(mv) { return mv.replace(/^m/i, '').replace(/\(.*\)$/, '').toUpperCase(); }

  function pgn() {
    const r = state.pos && state.pos.result;
    const result = !r ? '*' : r.winner === 'goats' ? '1-0' : r.winner === 'tigers' ? '0-1' : '1/2-1/2';
    const who = (side) => (state.mode === side ? 'Player' : state.mode === 'human' ? 'Player' : 'baghchal');
    const d = new Date();
    const date = `${d.getFullYear()}.${String(d.getMonth() + 1).padStart(2, '0')}.${String(d.getDate()).padStart(2, '0')}`;
    const tags = [['Event', 'Bagh-Chal web board'], ['Site', location.host], ['Date', date], ['Round', '-'],
      ['White', who('goats')], ['Black', who('tigers')], ['Result', result], ['Variant', 'Bagh-Chal'],
      ['SetUp', '1'], ['FEN', state.startObx], ['Termination', r ? r.description : 'unterminated']];
    const head = tags.map(([k, v]) => `[${k} "${String(v).replace(/["\\]/g, '')}"]`).join('\n');
    // Move numbers count goat moves (White); a game starting with tigers opens with "1...".
    const words = [];
    let n = 1;
    state.record.forEach((rec, i) => {
      if (rec.side === 'goats') words.push(`${n}.`);
      else if (i === 0) words.push(`${n}...`);
      words.push(plain(rec.legal.move));
      if (rec.side === 'tigers') n++;
    });
    words.push(result);
    const lines = [];
    let line = '';
    for (const w of words) {
      if (line && line.length + w.length + 1 > 79) { lines.push(line); line = w; } else line = line ? `${line} ${w}` : w;
    }
    if (line) lines.push(line);
    return `${head}\n\n${lines.join('\n')}\n`;
  }

  function gameText() { return `${state.startObx}\n${state.moves.map(plain).join(' ')}\n`; }

  // PGN (tags, FEN, movetext) or the plain form: the start OBX on the first line, moves after.
  function parseGame(text) {
    const t = text.trim();
    if (!t) return null;
    if (t.startsWith('[')) {
      const fen = /\[FEN\s+"([^"]*)"\]/i.exec(t);
      const body = t.replace(/\[[^\]]*\]/g, ' ').replace(/\{[^}]*\}/g, ' ').replace(/;[^\n]*/g, ' ');
      const moves = body.split(/\s+/).filter((w) => w && !/^\d+\.+$/.test(w) && !/^(1-0|0-1|1\/2-1\/2|\*)$/.test(w))
        .map((w) => w.replace(/^\d+\.+/, '')).filter(Boolean);
      return { startObx: fen ? fen[1].trim() : START, moves };
    }
    const lines = t.split('\n');
    return { startObx: lines[0].trim(), moves: lines.slice(1).join(' ').split(/[\s,]+/).filter(Boolean) };
  }

  async function importGame() {
    const g = parseGame($('game-text').value);
    if (!g) return;
    try {
      const data = await api('/legal', { obx: g.startObx, moves: g.moves });
      // The server's own spelling of each move: replay the list through /legal answers is
      // costly, so keep what was given in OBX form.
      reset(g.startObx, null);
      state.moves = g.moves.map((m) => (m.startsWith('m') || m.startsWith('M') ? m : `m${m.toUpperCase()}`));
      state.record = recordOf(g.startObx, state.moves);
      state.evals = new Array(state.moves.length + 1).fill(null);
      state.pos = data;
      state.positions[state.moves.length] = data;
      showError(`Game imported: ${g.moves.length} moves.`, true);
      save();
      renderAll();
      schedule();
    } catch (e) {
      showError(`Import: ${e.message}`);
    }
  }

  // ---- game flow ----------------------------------------------------------------------

  function showError(msg, ok) {
    const e = $('obx-error');
    e.textContent = msg || '';
    e.classList.toggle('ok', Boolean(ok));
  }

  function fail(message, retry) {
    state.failure = { message, retry };
    showError(message);
    renderAll();
  }

  function retryFailed() {
    const f = state.failure;
    if (!f) return;
    state.failure = null;
    showError('');
    f.retry();
  }

  // Asks for the position and legal moves of the game; true when they came.
  async function refresh() {
    const gen = state.gen;
    state.loading = true;
    try {
      const data = await api('/legal', { obx: state.startObx, moves: state.moves });
      if (gen !== state.gen) return false;
      state.pos = data;
      state.positions[state.moves.length] = data;
      return true;
    } catch (e) {
      state.lastError = e;
      return false;
    } finally {
      if (gen === state.gen) state.loading = false;
    }
  }

  function schedule() {
    if (!engineToMove() || state.thinking) return;
    const gen = state.gen;
    setTimeout(() => { if (gen === state.gen) engineMove(); }, state.mode === 'watch' ? 400 : 120);
  }

  function abortEngine() {
    if (state.ctrl) state.ctrl.abort();
    state.ctrl = null;
    state.thinking = false;
  }

  // Plays a move: shown at once, then the server's answer brings the new position. If it
  // does not come, the game goes back to before the move and offers a retry.
  async function play(entry, evalAfter) {
    const before = { pos: state.pos, side: state.pos.turn };
    state.obxEdited = false;
    state.record.push({ side: before.side, legal: entry });
    state.moves.push(entry.move);
    state.evals[state.moves.length] = evalAfter || null;
    state.selected = null;
    state.hint = null;
    state.animate = entry;
    state.pos = { ...state.pos, legal: [] };
    state.gen++;
    renderAll();
    const gen = state.gen;
    const ok = await refresh();
    if (gen !== state.gen) return;
    if (!ok) {
      state.record.pop();
      state.moves.pop();
      state.evals.length = state.moves.length + 1;
      state.positions.length = state.moves.length + 1;
      state.pos = before.pos;
      fail(`The server did not answer; ${prettyMove(entry.move)} was not played.`, () => play(entry, evalAfter));
      return;
    }
    showError('');
    save();
    renderAll();
    schedule();
  }

  function engineParams() {
    const p = { obx: state.startObx, moves: state.moves, movetime: state.movetime };
    if (state.skill < 20) p.skill = state.skill;
    return p;
  }

  async function engineMove() {
    if (!engineToMove() || state.thinking) return;
    const gen = state.gen;
    const side = state.pos.turn;
    const ctrl = new AbortController();
    state.ctrl = ctrl;
    state.thinking = true;
    renderAll();
    let data = null;
    let error = null;
    for (let attempt = 0; attempt < 5 && !data; attempt++) {
      try {
        data = await api('/obx', engineParams(), ctrl.signal);
      } catch (e) {
        if (gen !== state.gen || ctrl.signal.aborted) return;
        error = e;
        if (e.status === 503) {
          showError('The server is busy; retrying…');
          await new Promise((r) => setTimeout(r, 1000));
          if (gen !== state.gen) return;
          continue;
        }
        break;
      }
    }
    if (gen !== state.gen || ctrl.signal.aborted) return;
    state.ctrl = null;
    state.thinking = false;
    if (!data) {
      fail(`Engine: ${error ? error.message : 'no answer'}`, () => { renderAll(); schedule(); });
      return;
    }
    if (!data.move) {
      renderAll();
      return;
    }
    showError('');
    state.analysis = { score: data.score, depth: data.depth, pv: data.pv, side, nodes: data.nodes, time_ms: data.time_ms };
    const entry = state.pos.legal.find((m) => m.move === data.move) || entryOf(data.move);
    play(entry, data.score ? scoreForGoats(data.score, side) : null);
  }

  function onPoint(name) {
    if (!humanToMove() || state.loading || state.thinking) return;
    const legal = state.pos.legal || [];
    const placing = state.pos.turn === 'goats' && state.pos.in_hand > 0;
    if (placing) {
      const m = legal.find((x) => x.kind === 'place' && x.to === name);
      if (m) play(m);
      return;
    }
    if (state.selected) {
      const m = legal.find((x) => x.from === state.selected && x.to === name);
      if (m) { play(m); return; }
    }
    state.selected = legal.some((x) => x.from === name) && state.selected !== name ? name : null;
    render();
    renderStatus();
  }

  function reset(startObx, pos) {
    abortEngine();
    state.gen++;
    state.obxEdited = false;
    state.startObx = startObx;
    state.moves = [];
    state.record = [];
    state.evals = [null];
    state.positions = pos ? [pos] : [];
    state.view = null;
    state.failure = null;
    state.selected = null;
    state.analysis = null;
    state.lines = null;
    state.hint = null;
    state.paused = false;
    state.pos = pos || null;
  }

  async function start(startObx, moves) {
    reset(startObx);
    state.moves = moves.slice();
    state.record = recordOf(startObx, state.moves);
    state.evals = new Array(state.moves.length + 1).fill(null);
    state.lastError = null;
    const ok = await refresh();
    if (!ok) {
      // A record the server refuses (a stale or edited one) is dropped; a server that does
      // not answer is asked again.
      if (state.lastError && state.lastError.status) return false;
      fail('The server did not answer.', () => start(startObx, moves));
      return true;
    }
    save();
    renderAll();
    schedule();
    return true;
  }

  function newGame() {
    showError('');
    start(START, []);
  }

  function undo() {
    if (!state.record.length) return;
    abortEngine();
    state.gen++;
    state.obxEdited = false;
    state.hint = null;
    state.analysis = null;
    state.lines = null;
    state.selected = null;
    state.view = null;
    state.failure = null;
    const pop = () => { state.record.pop(); state.moves.pop(); };
    pop();
    // Against the engine, go back to the person's own turn.
    const h = humanSide();
    if ((h === 'goats' || h === 'tigers') && state.record.length && state.record[state.record.length - 1].side === h) pop();
    state.evals.length = state.moves.length + 1;
    state.positions.length = state.moves.length + 1;
    if (state.mode === 'watch') state.paused = true;
    const known = state.positions[state.moves.length];
    if (known) state.pos = known;
    save();
    renderAll();
    refresh().then((ok) => {
      if (!ok) { fail('The server did not answer.', () => { refresh().then(() => { renderAll(); schedule(); }); }); return; }
      renderAll();
      schedule();
    });
  }

  // Looks at ply n of the game (0 = the start); the game's own ply returns to play.
  async function goTo(n) {
    n = Math.max(0, Math.min(state.moves.length, n));
    state.selected = null;
    if (n === state.moves.length) {
      state.view = null;
      renderAll();
      schedule();
      return;
    }
    state.view = n;
    if (!state.positions[n]) {
      try {
        const data = await api('/legal', { obx: state.startObx, moves: state.moves.slice(0, n) });
        state.positions[n] = data;
      } catch (e) {
        state.view = null;
        showError(`Server: ${e.message}`);
      }
    }
    renderAll();
  }

  async function loadObx(text) {
    text = (text || $('obx').value).trim();
    if (!text) return false;
    try {
      const data = await api('/legal', { obx: text });
      reset(text, data);
      showError('Position loaded.', true);
      $('obx').blur();
      save();
      renderAll();
      schedule();
      return true;
    } catch (e) {
      showError(e.message);
      return false;
    }
  }

  async function copyText(text, done) {
    try {
      await navigator.clipboard.writeText(text);
    } catch (e) { /* not allowed here: the text stays selected for a manual copy */ }
    showError(done, true);
  }

  async function hint() {
    if (!state.pos || state.pos.result || state.thinking) return;
    const gen = state.gen;
    const side = state.pos.turn;
    state.thinking = true;
    renderAll();
    try {
      const data = await api('/obx', { obx: state.startObx, moves: state.moves, movetime: state.movetime });
      if (gen !== state.gen) return;
      state.analysis = { score: data.score, depth: data.depth, pv: data.pv, side, nodes: data.nodes, time_ms: data.time_ms };
      state.evals[state.moves.length] = data.score ? scoreForGoats(data.score, side) : null;
      state.hint = splitMove(data.move);
    } catch (e) {
      if (gen === state.gen) showError(`Engine: ${e.message}`);
    }
    if (gen !== state.gen) return;
    state.thinking = false;
    renderAll();
  }

  async function analyse() {
    const ply = shownPly();
    const moves = state.moves.slice(0, ply);
    state.analysing = true;
    renderLines();
    try {
      const data = await api('/analysis', { obx: state.startObx, moves, movetime: state.movetime });
      state.lines = { ply, moves, data };
    } catch (e) {
      showError(`Analysis: ${e.message}`);
    }
    state.analysing = false;
    renderLines();
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
    $('movetime-label').textContent = `${(ms / 1000).toFixed(1)} s`;
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

  async function serverInfo() {
    try {
      const res = await fetch('/health');
      const h = await res.json();
      $('server-info').textContent = `engine ${h.version} · ${h.workers} workers${h.tablebase ? ' · database' : ''}`;
      const slider = $('movetime');
      slider.max = String(Math.max(100, Math.min(10000, h.max_movetime)));
      if (Number(slider.value) > Number(slider.max)) slider.value = slider.max;
      setMovetime(Number(slider.value));
    } catch (e) {
      $('server-info').textContent = 'server unreachable';
    }
  }

  function onKey(e) {
    const t = e.target;
    if (t && (t.tagName === 'TEXTAREA' || t.tagName === 'INPUT' || t.tagName === 'SELECT')) return;
    if (e.key === 'ArrowLeft') { e.preventDefault(); goTo(shownPly() - 1); }
    else if (e.key === 'ArrowRight') { e.preventDefault(); goTo(shownPly() + 1); }
    else if (e.key === 'Home') { e.preventDefault(); goTo(0); }
    else if (e.key === 'End') { e.preventDefault(); goTo(state.moves.length); }
    else if (e.key === 'f' && !e.ctrlKey && !e.metaKey && !e.altKey) flip();
  }

  function restore() {
    try {
      const saved = JSON.parse(localStorage.getItem(STORE) || 'null');
      if (!saved || typeof saved.startObx !== 'string' || !Array.isArray(saved.moves)) return null;
      if (['goats', 'tigers', 'watch', 'human'].includes(saved.mode)) state.mode = saved.mode;
      if (Number.isInteger(saved.movetime)) $('movetime').value = String(saved.movetime);
      if (Number.isInteger(saved.skill) && saved.skill >= 0 && saved.skill <= 20) state.skill = saved.skill;
      state.flipped = Boolean(saved.flipped);
      return saved;
    } catch (e) {
      return null;
    }
  }

  async function init() {
    const saved = restore();
    drawBoard();
    for (const b of document.querySelectorAll('[data-mode]')) {
      b.addEventListener('click', () => setMode(b.getAttribute('data-mode')));
    }
    $('new-game').addEventListener('click', newGame);
    $('banner-new').addEventListener('click', newGame);
    $('undo').addEventListener('click', undo);
    $('hint').addEventListener('click', hint);
    $('pause').addEventListener('click', togglePause);
    $('flip').addEventListener('click', flip);
    $('retry').addEventListener('click', retryFailed);
    $('nav-back').addEventListener('click', () => goTo(shownPly() - 1));
    $('nav-forward').addEventListener('click', () => goTo(shownPly() + 1));
    $('analyse').addEventListener('click', analyse);
    $('skill').addEventListener('change', (e) => { state.skill = Number(e.target.value); save(); });
    $('movetime').addEventListener('input', (e) => { setMovetime(Number(e.target.value)); save(); });
    $('copy-obx').addEventListener('click', () => copyText(shownPos() ? shownPos().obx : $('obx').value, 'OBX copied.'));
    $('load-obx').addEventListener('click', () => loadObx());
    $('obx').addEventListener('input', () => { state.obxEdited = true; });
    $('obx').addEventListener('keydown', (e) => {
      if (e.key === 'Enter') {
        e.preventDefault();
        loadObx();
      }
    });
    $('export-pgn').addEventListener('click', () => { $('game-text').value = pgn(); copyText(pgn(), 'PGN copied.'); });
    $('export-game').addEventListener('click', () => { $('game-text').value = gameText(); copyText(gameText(), 'Game copied.'); });
    $('import-game').addEventListener('click', importGame);
    $('moves').addEventListener('click', (e) => {
      const cell = e.target.closest('[data-ply]');
      if (cell) goTo(Number(cell.getAttribute('data-ply')));
    });
    document.addEventListener('keydown', onKey);
    setMovetime(Number($('movetime').value));
    serverInfo();
    const asked = new URLSearchParams(location.search).get('obx');
    if (asked && await loadObx(asked)) return;
    if (saved && await start(saved.startObx, saved.moves)) return;
    newGame();
  }

  document.addEventListener('DOMContentLoaded', init);
})();
