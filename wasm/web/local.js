// The static board's engine. Loaded before app.js: when a baghchal-server answers /health the
// page is the server's board as it is; when none does (a static host, a phone offline) the
// page's requests to /health, /legal and /obx are answered by the engine in a Web Worker
// (baghchal-worker.js) with the protocol's lines (PROTOCOL.md): every rule is still the
// engine's. /analysis is a MultiPV search over every move (no databases here: an engine
// estimate, source "search"). The header and <html data-engine>
// ("server" or "local"; not data-mode, which app.js gives its mode buttons) say which mode the
// page is in; <html data-pending> counts the requests the worker has still to answer.
'use strict';

(() => {
  const API = ['/health', '/legal', '/obx', '/analysis'];
  const realFetch = window.fetch.bind(window);
  let mode = null;

  if ('serviceWorker' in navigator && /^https?:$/.test(location.protocol)) {
    navigator.serviceWorker.register('sw.js').catch(() => {});
  }

  const probe = (async () => {
    const ctrl = new AbortController();
    const timer = setTimeout(() => ctrl.abort(), 2000);
    try {
      const res = await realFetch('/health', { cache: 'no-store', signal: ctrl.signal });
      const h = await res.json();
      mode = res.ok && h && h.status === 'ok' ? 'server' : 'local';
    } catch (e) {
      mode = 'local';
    } finally {
      clearTimeout(timer);
    }
    document.documentElement.setAttribute('data-engine', mode);
    // The engine starts at once: its first answer (the page's /health) comes the sooner.
    if (mode === 'local') health();
    return mode;
  })();

  // ---- the worker: one job at a time, each a few lines and the line that ends it --------------

  let worker = null, current = null;
  const jobs = [];

  function next() {
    if (current || !jobs.length) return;
    current = jobs.shift();
    for (const l of current.lines) worker.postMessage(l);
  }

  // A job not started yet is dropped; the one running is told to stop (its bestmove ends it).
  function cancel(job) {
    const i = jobs.indexOf(job);
    if (i >= 0) {
      jobs.splice(i, 1);
      job.resolve(null);
    } else if (current === job) {
      worker.postMessage('stop');
    }
  }

  function run(lines, last, hold) {
    if (!worker) {
      worker = new Worker('baghchal-worker.js');
      worker.onmessage = (e) => {
        const line = String(e.data);
        if (!current) return;
        current.out.push(line);
        if (line.startsWith(current.last)) {
          const done = current;
          current = null;
          done.resolve(done.out);
          next();
        }
      };
    }
    return new Promise((resolve) => {
      const job = { lines, last, out: [], resolve };
      if (hold) hold(job);
      jobs.push(job);
      next();
    });
  }

  // ---- from protocol lines to the server's JSON (tools/obx-server/README.md) -------------------

  const COLS = 'ABCDE';
  // Move text (C3, A1B2, A1C3) in the API's OBX form: mC3, mA1B2, mA1C3(B2).
  function obxMove(text) {
    if (text.length !== 4) return 'm' + text;
    const c0 = COLS.indexOf(text[0]), r0 = Number(text[1]), c1 = COLS.indexOf(text[2]), r1 = Number(text[3]);
    if (Math.abs(c1 - c0) !== 2 && Math.abs(r1 - r0) !== 2) return 'm' + text;
    return `m${text}(${COLS[(c0 + c1) / 2]}${(r0 + r1) / 2})`;
  }
  function entry(text) {
    const m = obxMove(text);
    if (text.length === 2) return { move: m, text, kind: 'place', from: null, to: text, over: null };
    const over = m.length > 5 ? m.slice(6, 8) : null;
    return { move: m, text, kind: over ? 'capture' : 'step', from: text.slice(0, 2), to: text.slice(2, 4), over };
  }
  const REASONS = [['five goats captured', 'five-captured'], ['the tigers cannot move', 'tigers-trapped'],
    ['the goats cannot move', 'goats-stuck'], ['would repeat', 'repetition-blocked'], ['three times', 'repetition-draw']];
  function result(text) {
    if (!text) return null;
    const winner = text.startsWith('tigers') ? 'tigers' : text.startsWith('goats') ? 'goats' : null;
    const r = REASONS.find(([k]) => text.includes(k));
    return { winner, reason: r ? r[1] : 'none', description: text };
  }
  function field(out, prefix) {
    const l = out.find((x) => x.startsWith(prefix));
    return l === undefined ? null : l.slice(prefix.length);
  }
  function errorOf(out) {
    const l = out.find((x) => x.startsWith('info string error: '));
    return l ? l.slice(19) : null;
  }
  function answer(status, body) {
    return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
  }
  // The engine names a refused move by its place in the position command ("move 3 'C3': ...");
  // the server by its place in the request ("moves[2]: ..."), as the page expects.
  function refused(engineDetail) {
    const detail = engineDetail.replace(/^move (\d+) '[^']*': /, (_, n) => `moves[${Number(n) - 1}]: `);
    const code = /repeat/.test(detail) ? 'move-repetition' : /not a legal move|the game is over|move/.test(detail)
      ? 'illegal-move' : 'bad-position';
    return answer(422, { error: 'Unprocessable', code, detail });
  }
  function clean(s) { return String(s == null ? '' : s).replace(/[\r\n]/g, ' '); }
  function positionLines(b, extra) {
    const moves = (Array.isArray(b.moves) ? b.moves : []).concat(b.move ? [b.move] : [], extra || []).map(clean);
    return [`setoption name Repetition value ${b.repetition === 'draw' ? 'draw' : 'forbid'}`,
      `position obx ${clean(b.obx)}${moves.length ? ' moves ' + moves.join(' ') : ''}`];
  }
  async function legal(b, extra) {
    const out = await run([...positionLines(b, extra), 'd', 'isready'], 'readyok');
    const err = errorOf(out);
    if (err) return { err };
    const list = (field(out, 'Legal moves') || '').replace(/^ \(\d+\):/, '').trim();
    return {
      obx: field(out, 'OBX: '), turn: field(out, 'Side to move: '), in_hand: Number(field(out, 'Goats in hand: ')),
      captured: Number(field(out, 'Goats captured: ')), legal: list ? list.split(' ').map(entry) : [],
      result: result(field(out, 'Result: ')),
    };
  }
  function score(words, i) {
    const v = Number(words[i + 2]);
    return words[i + 1] === 'mate' ? { mate: v } : { cp: v };
  }
  function parseInfo(l) {
    const w = l.split(' '), info = {};
    for (let i = 1; i < w.length; i++) {
      const k = w[i];
      if (k === 'score') { info.score = score(w, i); i += 2; }
      else if (k === 'pv') { info.pv = w.slice(i + 1).map(obxMove); break; }
      else if (['depth', 'seldepth', 'multipv', 'nodes', 'time', 'tbhits'].includes(k)) info[k] = Number(w[++i]);
      else if (k === 'lowerbound' || k === 'upperbound') info.bound = k;
      else if (k === 'string') break;
    }
    return info;
  }
  function num(v, lo, hi) {
    const n = Number(v);
    return v === undefined || v === null || v === '' || !Number.isFinite(n) ? null : Math.min(hi, Math.max(lo, Math.trunc(n)));
  }
  async function search(b, signal) {
    const pos = await legal(b);
    if (pos.err) return refused(pos.err);
    const base = { input: b.obx, position: pos.obx };
    if (pos.result) return answer(200, { ...base, obx: pos.obx, move: null, score: null, pv: [], result: pos.result });
    const multipv = num(b.multipv, 1, 64) || 1, depth = num(b.depth, 1, 127), elo = num(b.elo, 600, 2400);
    const skill = num(b.skill, 0, 20);
    let go = 'go';
    const movetime = num(b.movetime, 1, 10000);
    const clocks = ['gtime', 'ttime', 'ginc', 'tinc'].filter((k) => num(b[k], 0, 1e9) !== null);
    if (movetime) go += ` movetime ${movetime}`;
    else if (clocks.length) go += clocks.map((k) => ` ${k} ${num(b[k], 0, 1e9)}`).join('');
    else if (!depth) go += ' movetime 1000';
    if (depth) go += ` depth ${depth}`;
    if (signal && signal.aborted) throw new DOMException('Aborted', 'AbortError');
    let job = null;
    const onAbort = () => { if (job) cancel(job); };
    if (signal) signal.addEventListener('abort', onAbort);
    const out = await run([`setoption name MultiPV value ${multipv}`,
      `setoption name UCI_LimitStrength value ${elo ? 'true' : 'false'}`, ...(elo ? [`setoption name UCI_Elo value ${elo}`] : []),
      `setoption name Skill Level value ${skill === null ? 20 : skill}`, ...positionLines(b), go], 'bestmove', (j) => { job = j; });
    if (signal) signal.removeEventListener('abort', onAbort);
    if (!out || (signal && signal.aborted)) throw new DOMException('Aborted', 'AbortError');
    const best = out[out.length - 1].split(' ')[1];
    const lines = {};
    for (const l of out) {
      if (!l.startsWith('info ') || l.startsWith('info string')) continue;
      const i = parseInfo(l);
      if (i.pv && !i.bound) lines[i.multipv || 1] = i;
    }
    const top = lines[1] || {};
    const after = await legal(b, [best]);
    const data = {
      ...base, obx: after.obx, move: obxMove(best), score: top.score || null, depth: top.depth || 0,
      seldepth: top.seldepth || 0, nodes: top.nodes || 0, time_ms: top.time || 0, tbhits: top.tbhits || 0,
      pv: top.pv || [obxMove(best)], result: after.result,
    };
    if (multipv > 1) {
      data.lines = Object.keys(lines).map(Number).sort((x, y) => x - y)
        .map((k) => ({ multipv: k, depth: lines[k].depth, score: lines[k].score, pv: lines[k].pv }));
    }
    return answer(200, data);
  }
  // /analysis: one MultiPV search over every legal move (the server's answer when no database
  // covers the position, tools/obx-server/README.md), in the same JSON: source "search", each
  // move's score from the deepest iteration that reached every move, best first, wdl and
  // distance only for a forced result. The worker has no databases: never "database".
  function rank(s) {
    if (!s) return -Infinity;
    return typeof s.mate === 'number' ? (s.mate > 0 ? 100000 - s.mate : -100000 - s.mate) : s.cp;
  }
  async function analysis(b, signal) {
    const pos = await legal(b);
    if (pos.err) return refused(pos.err);
    const base = { input: b.obx, position: pos.obx, turn: pos.turn };
    if (pos.result || !pos.legal.length) return answer(200, { ...base, source: 'none', depth: null, moves: [], result: pos.result });
    const depth = num(b.depth, 1, 127);
    const movetime = num(b.movetime, 1, 10000);
    let go = 'go';
    if (movetime || !depth) go += ` movetime ${movetime || 1000}`;
    if (depth) go += ` depth ${depth}`;
    if (signal && signal.aborted) throw new DOMException('Aborted', 'AbortError');
    let job = null;
    const onAbort = () => { if (job) cancel(job); };
    if (signal) signal.addEventListener('abort', onAbort);
    const out = await run([`setoption name MultiPV value ${Math.min(64, pos.legal.length)}`,
      'setoption name UCI_LimitStrength value false', 'setoption name Skill Level value 20', ...positionLines(b), go],
    'bestmove', (j) => { job = j; });
    if (signal) signal.removeEventListener('abort', onAbort);
    if (!out || (signal && signal.aborted)) throw new DOMException('Aborted', 'AbortError');
    // Each iteration's line for each first move; the deepest iteration that reached them all
    // (else, move by move, the deepest line that reached it).
    const byDepth = new Map();
    for (const l of out) {
      if (!l.startsWith('info ') || l.startsWith('info string')) continue;
      const i = parseInfo(l);
      if (!i.pv || !i.pv.length || i.bound || !i.score) continue;
      if (!byDepth.has(i.depth)) byDepth.set(i.depth, new Map());
      byDepth.get(i.depth).set(i.pv[0], i.score);
    }
    const depths = [...byDepth.keys()].sort((x, y) => y - x);
    const full = depths.find((d) => byDepth.get(d).size >= pos.legal.length);
    const scoreOf = (mv) => {
      if (full !== undefined) return byDepth.get(full).get(mv) || null;
      for (const d of depths) if (byDepth.get(d).has(mv)) return byDepth.get(d).get(mv);
      return null;
    };
    const moves = pos.legal.map((m) => {
      const score = scoreOf(m.move);
      const mate = score && typeof score.mate === 'number';
      return { ...m, wdl: mate ? (score.mate > 0 ? 'win' : 'loss') : null,
        distance: mate ? (score.mate > 0 ? 2 * score.mate - 1 : -2 * score.mate) : null, score };
    });
    // Best first; equal scores keep the engine's order of the legal moves.
    moves.sort((x, y) => rank(y.score) - rank(x.score));
    return answer(200, { ...base, source: 'search', depth: full !== undefined ? full : (depths[0] || 0), moves, result: null });
  }

  let version = null;
  async function health() {
    if (!version) {
      const out = await run(['uci'], 'uciok');
      version = (field(out, 'id name baghchal ') || '?').trim();
    }
    return answer(200, { status: 'ok', version, workers: 1, busy: current ? 1 : 0, queued: jobs.length,
      threads: 1, movetime: 1000, max_movetime: 10000, repetition: 'forbid', tablebase: false, mode: 'local' });
  }

  async function local(path, init) {
    if (path === '/health') return health();
    let b;
    try { b = JSON.parse((init && init.body) || '{}'); } catch (e) { b = null; }
    if (!b || typeof b.obx !== 'string') return answer(400, { error: 'Bad Request', code: 'bad-parameter', detail: 'obx is required' });
    if (path === '/legal') {
      const pos = await legal(b);
      return pos.err ? refused(pos.err) : answer(200, pos);
    }
    if (path === '/analysis') return analysis(b, init && init.signal);
    return search(b, init && init.signal);
  }

  window.fetch = async (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input.url, location.href);
    if (url.origin === location.origin && API.includes(url.pathname) && (await probe) === 'local') {
      // <html data-pending>: the requests the page's engine has still to answer.
      const root = document.documentElement;
      root.dataset.pending = String(Number(root.dataset.pending || 0) + 1);
      try {
        return await local(url.pathname, init);
      } finally {
        root.dataset.pending = String(Number(root.dataset.pending) - 1);
      }
    }
    return realFetch(input, init);
  };

  // The page's language (i18n.js, loaded after this file: asked when a text is written).
  const t = (s, v) => (window.I18N ? window.I18N.t(s, v) : s.replace(/\{(\w+)\}/g, (m, k) => (v && k in v ? v[k] : m)));

  // The header says which mode the page is in (written again when app.js writes it, as it does
  // on a change of language).
  document.addEventListener('DOMContentLoaded', () => {
    const info = document.getElementById('server-info');
    if (!info) return;
    const show = () => {
      if (mode !== 'local') return;
      const text = t('engine {version} in this browser · no server: no databases', { version: version || '' }).replace('  ', ' ');
      if (info.textContent !== text) info.textContent = text;
      const title = t('The engine runs in this page (WebAssembly). With baghchal-server the page uses it, and its databases.');
      if (info.title !== title) info.title = title;
    };
    new MutationObserver(show).observe(info, { childList: true, characterData: true, subtree: true });
    probe.then(show);
  });
})();
