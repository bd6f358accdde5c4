// The web board: draws the position the server reports and asks it for legal moves (/legal)
// and engine moves (/obx). Every rule lives in the server; the page only keeps the game
// record (a start OBX and the moves played from it) and sends it whole, so repetitions
// are judged over the whole game.
'use strict';

(() => {
  const START = 'TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0 - #';
  const SVG = 'http://www.w3.org/2000/svg';
  const GAP = 115;
  const MARGIN = 80;
  const SIZE = 2 * MARGIN + 4 * GAP;
  const COLS = 'ABCDE';

  const $ = (id) => document.getElementById(id);

  const state = {
    startObx: START,
    moves: [],      // OBX move texts played from startObx
    record: [],     // per move: {side, legal entry}
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
    const c = COLS.indexOf(point[0].toUpperCase());
    const r = Number(point[1]) - 1;
    return [MARGIN + c * GAP, MARGIN + r * GAP];
  }

  function pointName(c, r) { return COLS[c] + (r + 1); }

  async function api(path, body) {
    const res = await fetch(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
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

  function humanToMove() {
    if (!state.pos || state.pos.result) return false;
    const h = humanSide();
    return h === 'both' || h === state.pos.turn;
  }

  function engineToMove() {
    if (!state.pos || state.pos.result) return false;
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
    for (let i = 0; i < 5; i++) {
      const t = el('text', { x: MARGIN + i * GAP, y: 28, class: 'board-label' }, svg);
      t.textContent = COLS[i];
      const b = el('text', { x: MARGIN + i * GAP, y: SIZE - 31, class: 'board-label' }, svg);
      b.textContent = COLS[i];
      const l = el('text', { x: 33, y: MARGIN + i * GAP, class: 'board-label' }, svg);
      l.textContent = String(i + 1);
      const r = el('text', { x: SIZE - 33, y: MARGIN + i * GAP, class: 'board-label' }, svg);
      r.textContent = String(i + 1);
    }
    layers.marks = el('g', {}, svg);
    layers.pieces = el('g', {}, svg);
    layers.effects = el('g', {}, svg);
    layers.targets = el('g', {}, svg);
    layers.hits = el('g', {}, svg);
    for (let c = 0; c < 5; c++) {
      for (let r = 0; r < 5; r++) {
        const name = pointName(c, r);
        const [x, y] = xy(name);
        const hit = el('circle', { cx: x, cy: y, r: 50, class: 'hit', 'data-point': name }, layers.hits);
        hit.addEventListener('click', () => onPoint(name));
      }
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

  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }

  function lastMove() {
    return state.record.length ? state.record[state.record.length - 1].legal : null;
  }

  function render() {
    if (!state.pos) return;
    const cells = boardCells(state.pos.obx);
    const legal = state.pos.legal || [];
    const myTurn = humanToMove() && !state.loading;
    const placing = state.pos.turn === 'goats' && state.pos.in_hand > 0;

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
    const anim = state.animate;
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

  function renderStatus() {
    const s = $('status');
    clear(s);
    if (!state.pos) return;
    const dot = document.createElement('span');
    dot.className = `dot ${state.pos.turn}`;
    const text = document.createElement('span');
    const hint = document.createElement('span');
    hint.className = 'hint-text';
    if (state.pos.result) {
      dot.className = 'dot ' + (state.pos.result.winner || 'goats');
      text.textContent = capitalise(state.pos.result.description);
    } else {
      const side = state.pos.turn === 'goats' ? 'Goats' : 'Tigers';
      text.textContent = `${side} to move`;
      if (state.thinking) hint.textContent = 'the engine is thinking…';
      else if (humanToMove()) {
        if (state.pos.turn === 'goats' && state.pos.in_hand > 0) hint.textContent = 'click a point to place a goat';
        else hint.textContent = state.selected ? 'click a highlighted point' : `click a ${state.pos.turn === 'goats' ? 'goat' : 'tiger'} to move it`;
      } else if (state.mode === 'watch' && state.paused) hint.textContent = 'paused';
    }
    s.append(dot, text, hint);
    s.setAttribute('data-turn', state.pos.turn);
  }

  function capitalise(t) { return t ? t[0].toUpperCase() + t.slice(1) : ''; }

  function renderTrays() {
    const p = state.pos;
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
      if (rec.legal.kind === 'capture') cell.classList.add('cap');
      if (i === state.record.length - 1) cell.classList.add('latest');
      if (rec.side === 'tigers') row = null;
    });
    const scroll = body.closest('.moves-scroll');
    if (scroll) scroll.scrollTop = scroll.scrollHeight;
  }

  function scoreForGoats(a) {
    const sign = a.side === 'goats' ? 1 : -1;
    if (a.score && typeof a.score.mate === 'number') return { mate: a.score.mate * sign };
    return { cp: (a.score ? a.score.cp : 0) * sign };
  }

  function renderEngine() {
    $('thinking').hidden = !state.thinking;
    const a = state.analysis;
    const score = $('score');
    const bar = $('evalbar');
    const pv = $('pv');
    clear(pv);
    if (!a) {
      score.textContent = '—';
      $('engine-meta').textContent = '';
      bar.style.width = '50%';
      return;
    }
    const s = scoreForGoats(a);
    let frac;
    if (s.mate !== undefined) {
      const who = s.mate > 0 ? 'Goats' : 'Tigers';
      score.textContent = `${who} win in ${Math.abs(s.mate)}`;
      frac = s.mate > 0 ? 1 : 0;
    } else {
      const v = s.cp / 100;
      score.textContent = v === 0 ? 'Even 0.00' : `${v > 0 ? 'Goats' : 'Tigers'} +${Math.abs(v).toFixed(2)}`;
      frac = 1 / (1 + Math.exp(-s.cp / 250));
    }
    score.setAttribute('data-cp', s.mate !== undefined ? `mate ${s.mate}` : String(s.cp));
    bar.style.width = `${Math.round(frac * 100)}%`;
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

  function renderResult() {
    const banner = $('result-banner');
    const r = state.pos && state.pos.result;
    if (!r) { banner.hidden = true; return; }
    const winner = r.winner ? `${capitalise(r.winner)} win` : 'Draw';
    $('result-title').textContent = winner;
    const reason = r.description.includes(':') ? r.description.split(':').slice(1).join(':').trim() : r.description;
    $('result-reason').textContent = capitalise(reason);
    banner.hidden = false;
  }

  function renderControls() {
    for (const b of document.querySelectorAll('[data-mode]')) {
      b.classList.toggle('active', b.getAttribute('data-mode') === state.mode);
    }
    $('undo').disabled = state.record.length === 0;
    $('pause').hidden = state.mode !== 'watch';
    $('pause').textContent = state.paused ? 'Resume' : 'Pause';
    $('hint').disabled = !state.pos || Boolean(state.pos.result) || state.thinking;
    const obx = $('obx');
    if (state.pos && !state.obxEdited && document.activeElement !== obx) obx.value = state.pos.obx;
  }

  function renderAll() {
    render();
    renderStatus();
    renderTrays();
    renderMoves();
    renderEngine();
    renderResult();
    renderControls();
  }

  // ---- game flow ----------------------------------------------------------------------

  function showError(msg, ok) {
    const e = $('obx-error');
    e.textContent = msg || '';
    e.classList.toggle('ok', Boolean(ok));
  }

  // Asks for the legal moves of the current record, then lets the engine move if it is its turn.
  async function refresh() {
    const gen = state.gen;
    state.loading = true;
    try {
      const data = await api('/legal', { obx: state.startObx, moves: state.moves });
      if (gen !== state.gen) return;
      state.pos = data;
    } catch (e) {
      if (gen !== state.gen) return;
      showError(`Server: ${e.message}`);
    } finally {
      if (gen === state.gen) state.loading = false;
    }
    renderAll();
    schedule();
  }

  function schedule() {
    if (!engineToMove() || state.thinking) return;
    const gen = state.gen;
    setTimeout(() => { if (gen === state.gen) engineMove(); }, state.mode === 'watch' ? 400 : 120);
  }

  function play(entry) {
    state.obxEdited = false;
    state.record.push({ side: state.pos.turn, legal: entry });
    state.moves.push(entry.move);
    state.selected = null;
    state.hint = null;
    state.animate = entry;
    // Show the move at once; the server's answer brings the new position and its moves.
    state.pos = { ...state.pos, legal: [] };
    state.gen++;
    return refresh();
  }

  async function engineMove() {
    if (!engineToMove() || state.thinking) return;
    const gen = state.gen;
    const side = state.pos.turn;
    state.thinking = true;
    renderAll();
    let data = null;
    for (let attempt = 0; attempt < 5 && !data; attempt++) {
      try {
        data = await api('/obx', { obx: state.startObx, moves: state.moves, movetime: state.movetime });
      } catch (e) {
        if (gen !== state.gen) return;
        if (e.status === 503) {
          showError('The server is busy; retrying…');
          await new Promise((r) => setTimeout(r, 1000));
          continue;
        }
        state.thinking = false;
        showError(`Engine: ${e.message}`);
        renderAll();
        return;
      }
    }
    if (gen !== state.gen) return;
    state.thinking = false;
    if (!data || !data.move) {
      renderAll();
      return;
    }
    showError('');
    state.analysis = { score: data.score, depth: data.depth, pv: data.pv, side, nodes: data.nodes, time_ms: data.time_ms };
    const entry = state.pos.legal.find((m) => m.move === data.move) || { ...splitMove(data.move), move: data.move,
      kind: splitMove(data.move) && splitMove(data.move).over ? 'capture' : 'step' };
    play(entry);
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
    state.gen++;
    state.obxEdited = false;
    state.startObx = startObx;
    state.moves = [];
    state.record = [];
    state.selected = null;
    state.thinking = false;
    state.analysis = null;
    state.hint = null;
    state.paused = false;
    state.pos = pos || null;
  }

  function newGame() {
    reset(START);
    showError('');
    refresh();
  }

  function undo() {
    if (!state.record.length) return;
    state.gen++;
    state.obxEdited = false;
    state.thinking = false;
    state.hint = null;
    state.selected = null;
    const pop = () => { state.record.pop(); state.moves.pop(); };
    pop();
    // Against the engine, go back to the person's own turn.
    const h = humanSide();
    if ((h === 'goats' || h === 'tigers') && state.record.length && state.record[state.record.length - 1].side === h) pop();
    if (state.mode === 'watch') state.paused = true;
    refresh();
  }

  async function loadObx() {
    const text = $('obx').value.trim();
    if (!text) return;
    try {
      const data = await api('/legal', { obx: text });
      reset(text, data);
      showError('Position loaded.', true);
      $('obx').blur();
      renderAll();
      schedule();
    } catch (e) {
      showError(e.message);
    }
  }

  async function copyObx() {
    const text = state.pos ? state.pos.obx : $('obx').value;
    try {
      await navigator.clipboard.writeText(text);
    } catch (e) {
      const input = $('obx');
      input.focus();
      input.select();
      document.execCommand('copy');
      input.blur();
    }
    showError('OBX copied.', true);
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
      state.hint = splitMove(data.move);
    } catch (e) {
      if (gen === state.gen) showError(`Engine: ${e.message}`);
    }
    if (gen !== state.gen) return;
    state.thinking = false;
    renderAll();
  }

  function setMode(mode) {
    if (mode === state.mode) return;
    state.mode = mode;
    state.gen++;
    state.thinking = false;
    state.paused = false;
    state.selected = null;
    renderAll();
    schedule();
  }

  function setMovetime(ms) {
    state.movetime = ms;
    $('movetime-label').textContent = `${(ms / 1000).toFixed(1)} s`;
  }

  async function serverInfo() {
    try {
      const res = await fetch('/health');
      const h = await res.json();
      $('server-info').textContent = `engine ${h.version} · ${h.workers} workers`;
      const slider = $('movetime');
      slider.max = String(Math.max(100, Math.min(10000, h.max_movetime)));
      if (Number(slider.value) > Number(slider.max)) slider.value = slider.max;
      setMovetime(Number(slider.value));
    } catch (e) {
      $('server-info').textContent = 'server unreachable';
    }
  }

  function init() {
    drawBoard();
    for (const b of document.querySelectorAll('[data-mode]')) {
      b.addEventListener('click', () => setMode(b.getAttribute('data-mode')));
    }
    $('new-game').addEventListener('click', newGame);
    $('banner-new').addEventListener('click', newGame);
    $('undo').addEventListener('click', undo);
    $('hint').addEventListener('click', hint);
    $('pause').addEventListener('click', () => {
      state.paused = !state.paused;
      renderAll();
      schedule();
    });
    $('movetime').addEventListener('input', (e) => setMovetime(Number(e.target.value)));
    $('copy-obx').addEventListener('click', copyObx);
    $('load-obx').addEventListener('click', loadObx);
    $('obx').addEventListener('input', () => { state.obxEdited = true; });
    $('obx').addEventListener('keydown', (e) => {
      if (e.key === 'Enter') {
        e.preventDefault();
        loadObx();
      }
    });
    setMovetime(Number($('movetime').value));
    serverInfo();
    newGame();
  }

  document.addEventListener('DOMContentLoaded', init);
})();
