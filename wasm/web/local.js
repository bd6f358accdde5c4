// The static board's engine. Loaded before app.js: when a baghchal-server answers /health the
// page is the server's board as it is; when none does (a static host, a phone offline) the
// page's requests to /health, /legal and /obx are answered by the engine in a Web Worker
// (baghchal-worker.js; baghchal-worker-mt.js, with threads, where the page is cross-origin
// isolated) with the protocol's lines (PROTOCOL.md): every rule is still the
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

  // ---- the workers: one job at a time each, each a few lines and the line that ends it --------
  // Engines, each in a worker of its own: the game's (its moves, hints, the position's legal
  // moves), the engine lines' and the analysis of every move's (the last two made when first
  // used; they may search on until stopped), so that none waits behind another's search.

  function makeEngine() {
    const e = { worker: null, current: null, jobs: [], hash: null, threads: 1 };
    e.next = () => {
      if (e.current || !e.jobs.length) return;
      e.current = e.jobs.shift();
      for (const l of e.current.lines) e.worker.postMessage(l);
    };
    // A job not started yet is dropped; the one running is told to stop (its bestmove ends it).
    e.cancel = (job) => {
      const i = e.jobs.indexOf(job);
      if (i >= 0) {
        e.jobs.splice(i, 1);
        job.resolve(null);
      } else if (e.current === job) {
        e.worker.postMessage('stop');
      }
    };
    // lines sent in order; the answer's lines up to the one that starts with last; each line
    // also to onLine as it comes (a search's info lines, live).
    e.run = (lines, last, hold, onLine) => {
      if (!e.worker) {
        e.worker = new Worker(THREADED ? 'baghchal-worker-mt.js' : 'baghchal-worker.js');
        e.worker.onmessage = (m) => {
          const line = String(m.data);
          const cur = e.current;
          if (!cur) return;
          cur.out.push(line);
          if (cur.onLine) cur.onLine(line);
          if (line.startsWith(cur.last)) {
            e.current = null;
            cur.resolve(cur.out);
            e.next();
          }
        };
      }
      // The memory the page's settings give the engine (Board's "Engine memory"), sent before
      // the job when it changed.
      const want = hashMb();
      if (want && want !== e.hash) {
        lines = [`setoption name Hash value ${want}`, ...lines];
        e.hash = want;
      }
      // Its threads (Board's "Engine threads"), where the worker has them.
      const threads = threadCount();
      if (THREADED && threads !== e.threads) {
        lines = [`setoption name Threads value ${threads}`, ...lines];
        e.threads = threads;
      }
      return new Promise((resolve) => {
        const job = { lines, last, out: [], resolve, onLine };
        if (hold) hold(job);
        e.jobs.push(job);
        e.next();
      });
    };
    return e;
  }
  // Threads where the page may share memory with its workers (it is cross-origin isolated: the
  // host sends Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy:
  // require-corp): the worker built with emscripten's pthreads, protocol/main.c on threads of
  // its own as natively. Elsewhere the worker without threads. <html data-engine-threaded>
  // says which, for the page's settings.
  const THREADED = Boolean(window.crossOriginIsolated) && typeof SharedArrayBuffer === 'function';
  document.documentElement.setAttribute('data-engine-threaded', String(THREADED));
  // The threads the page's settings ask for (app.js keeps them in <html data-engine-threads>).
  function threadCount() {
    const n = Number(document.documentElement.getAttribute('data-engine-threads'));
    return Number.isInteger(n) && n >= 1 && n <= 64 ? n : 1;
  }
  const game = makeEngine(), lines = makeEngine(), every = makeEngine();
  // The Hash (MB) the page's settings ask for (app.js keeps it in <html data-engine-hash>).
  function hashMb() {
    const n = Number(document.documentElement.getAttribute('data-engine-hash'));
    return Number.isInteger(n) && n >= 1 && n <= 1024 ? n : 0;
  }
  const run = game.run;

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
  async function legal(b, extra, eng) {
    const out = await (eng || game).run([...positionLines(b, extra), 'd', 'isready'], 'readyok');
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
      else if (['depth', 'seldepth', 'multipv', 'nodes', 'nps', 'time', 'tbhits'].includes(k)) info[k] = Number(w[++i]);
      else if (k === 'lowerbound' || k === 'upperbound') info.bound = k;
      else if (k === 'string') break;
    }
    return info;
  }
  function num(v, lo, hi) {
    const n = Number(v);
    return v === undefined || v === null || v === '' || !Number.isFinite(n) ? null : Math.min(hi, Math.max(lo, Math.trunc(n)));
  }
  const aborted = () => new DOMException('Aborted', 'AbortError');
  // One search on an engine: its lines up to bestmove (null when it was dropped before it
  // started), each info line to onInfo as it comes; the signal stops it.
  async function searchLines(eng, lines, signal, onInfo) {
    if (signal && signal.aborted) throw aborted();
    let job = null;
    const onAbort = () => { if (job) eng.cancel(job); };
    if (signal) signal.addEventListener('abort', onAbort);
    const out = await eng.run(lines, 'bestmove', (j) => { job = j; }, onInfo && ((l) => {
      if (l.startsWith('info ') && !l.startsWith('info string')) onInfo(parseInfo(l));
    }));
    if (signal) signal.removeEventListener('abort', onAbort);
    if (!out || (signal && signal.aborted)) throw aborted();
    return out;
  }
  // A stream's answers to its page: at most one every 150 ms while the search runs (the last
  // one waits for the next), each the answer as it stands.
  function throttle(onData) {
    let last = 0, timer = null, pending = null;
    const send = () => { timer = null; last = Date.now(); const d = pending; pending = null; if (d) onData(d); };
    return {
      push(d) {
        pending = d;
        if (!timer) timer = setTimeout(send, Math.max(0, 150 - (Date.now() - last)));
      },
      drop() { clearTimeout(timer); timer = null; pending = null; },
    };
  }
  // The answer of /obx from its lines (by multipv), as far as the search went.
  function searchData(base, lines, best, multipv) {
    const top = lines[1] || {};
    const data = {
      ...base, move: best ? obxMove(best) : (top.pv ? top.pv[0] : null), score: top.score || null, depth: top.depth || 0,
      seldepth: top.seldepth || 0, nodes: top.nodes || 0, nps: top.nps || 0, time_ms: top.time || 0, tbhits: top.tbhits || 0,
      pv: top.pv || (best ? [obxMove(best)] : []),
    };
    if (multipv > 1) {
      data.lines = Object.keys(lines).map(Number).sort((x, y) => x - y)
        .map((k) => ({ multipv: k, depth: lines[k].depth, score: lines[k].score, pv: lines[k].pv }));
    }
    return data;
  }
  // /obx. With opts.stream (the analysis's engine): searched for opts.time ms (0: until
  // stopped) and each deeper iteration, once all its lines are in, to opts.stream.
  async function search(b, signal, opts) {
    opts = opts || {};
    const eng = opts.stream ? lines : game;
    const pos = await legal(b, null, eng);
    if (pos.err) return refused(pos.err);
    const base = { input: b.obx, position: pos.obx };
    if (pos.result) return answer(200, { ...base, obx: pos.obx, move: null, score: null, pv: [], result: pos.result });
    const multipv = num(b.multipv, 1, 64) || 1, depth = num(b.depth, 1, 127), elo = num(b.elo, 600, 2400);
    const skill = num(b.skill, 0, 20);
    let go = 'go';
    const movetime = num(b.movetime, 1, 10000);
    const clocks = ['gtime', 'ttime', 'ginc', 'tinc'].filter((k) => num(b[k], 0, 1e9) !== null);
    if (opts.stream) go += opts.time ? ` movetime ${opts.time}` : ' infinite';
    else if (movetime) go += ` movetime ${movetime}`;
    else if (clocks.length) go += clocks.map((k) => ` ${k} ${num(b[k], 0, 1e9)}`).join('');
    else if (!depth) go += ' movetime 1000';
    if (depth && !opts.stream) go += ` depth ${depth}`;
    const want = Math.min(multipv, pos.legal.length);
    const live = {};
    const out_ = opts.stream && throttle(opts.stream);
    const onInfo = out_ && ((i) => {
      if (!i.pv || i.bound) return;
      live[i.multipv || 1] = i;
      if ((i.multipv || 1) === want) out_.push(searchData(base, live, null, multipv));
    });
    let out;
    try {
      out = await searchLines(eng, [`setoption name MultiPV value ${multipv}`,
        `setoption name UCI_LimitStrength value ${elo ? 'true' : 'false'}`, ...(elo ? [`setoption name UCI_Elo value ${elo}`] : []),
        `setoption name Skill Level value ${skill === null ? 20 : skill}`, ...positionLines(b), go], signal, onInfo);
    } finally {
      if (out_) out_.drop();
    }
    const best = out[out.length - 1].split(' ')[1];
    const found = {};
    for (const l of out) {
      if (!l.startsWith('info ') || l.startsWith('info string')) continue;
      const i = parseInfo(l);
      if (i.pv && !i.bound) found[i.multipv || 1] = i;
    }
    const after = await legal(b, [best], eng);
    return answer(200, { ...searchData(base, found, best, multipv), obx: after.obx, result: after.result });
  }
  // /analysis: one MultiPV search over every legal move (the server's answer when no database
  // covers the position, tools/obx-server/README.md), in the same JSON: source "search", each
  // move's score from the deepest iteration that reached every move, best first, wdl and
  // distance only for a forced result. The worker has no databases: never "database".
  // With opts.stream as for /obx: each iteration that reached every move, as it ends.
  function rank(s) {
    if (!s) return -Infinity;
    return typeof s.mate === 'number' ? (s.mate > 0 ? 100000 - s.mate : -100000 - s.mate) : s.cp;
  }
  function analysisData(base, pos, byDepth, top) {
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
    return { ...base, source: 'search', depth: full !== undefined ? full : (depths[0] || 0), moves, result: null,
      nodes: top.nodes || 0, nps: top.nps || 0, time_ms: top.time || 0 };
  }
  async function analysis(b, signal, opts) {
    opts = opts || {};
    const eng = opts.stream ? every : game;
    const pos = await legal(b, null, eng);
    if (pos.err) return refused(pos.err);
    const base = { input: b.obx, position: pos.obx, turn: pos.turn };
    if (pos.result || !pos.legal.length) return answer(200, { ...base, source: 'none', depth: null, moves: [], result: pos.result });
    const depth = num(b.depth, 1, 127);
    const movetime = num(b.movetime, 1, 10000);
    let go = 'go';
    if (opts.stream) go += opts.time ? ` movetime ${opts.time}` : ' infinite';
    else {
      if (movetime || !depth) go += ` movetime ${movetime || 1000}`;
      if (depth) go += ` depth ${depth}`;
    }
    // Each iteration's line for each first move; the deepest iteration that reached them all
    // (else, move by move, the deepest line that reached it).
    const byDepth = new Map();
    let top = {};
    const add = (i) => {
      if (!i.pv || !i.pv.length || i.bound || !i.score) return false;
      if (!byDepth.has(i.depth)) byDepth.set(i.depth, new Map());
      byDepth.get(i.depth).set(i.pv[0], i.score);
      top = i;
      return byDepth.get(i.depth).size === pos.legal.length;
    };
    const out_ = opts.stream && throttle(opts.stream);
    const onInfo = out_ && ((i) => { if (add(i)) out_.push(analysisData(base, pos, byDepth, top)); });
    let out;
    try {
      out = await searchLines(eng, [`setoption name MultiPV value ${Math.min(64, pos.legal.length)}`,
        'setoption name UCI_LimitStrength value false', 'setoption name Skill Level value 20', ...positionLines(b), go],
      signal, onInfo);
    } finally {
      if (out_) out_.drop();
    }
    if (!opts.stream) {
      for (const l of out) if (l.startsWith('info ') && !l.startsWith('info string')) add(parseInfo(l));
    }
    return answer(200, analysisData(base, pos, byDepth, top));
  }

  let version = null;
  async function health() {
    if (!version) {
      const out = await run(['uci'], 'uciok');
      version = (field(out, 'id name baghchal ') || '?').trim();
    }
    return answer(200, { status: 'ok', version, workers: 1, busy: game.current ? 1 : 0, queued: game.jobs.length,
      threads: THREADED ? threadCount() : 1, movetime: 1000, max_movetime: 10000, repetition: 'forbid', tablebase: false, mode: 'local' });
  }

  // ---- a baghchal-server on another origin, for exact values ----------------------------------
  // The page's settings may name one (<html data-engine-server>, app.js's "Server for exact
  // values"; it must send CORS headers: baghchal-server --cors). The analysis, the review and the
  // hints ask it first, with its databases; when it does not answer (unreachable, busy, an
  // error, 5 s) the worker searches instead. Every answer says which one answered: "via"
  // "server" (with "server", its host) or "browser". <html data-remote> says how the last
  // request to it went: "ok" or "failed".
  function remoteBase() {
    const u = (document.documentElement.getAttribute('data-engine-server') || '').trim();
    try {
      const url = new URL(u);
      return /^https?:$/.test(url.protocol) ? url.href.replace(/\/+$/, '') : null;
    } catch (e) {
      return null;
    }
  }
  async function remote(path, b, signal) {
    const base = remoteBase();
    if (!base) return null;
    if (signal && signal.aborted) throw aborted();
    const ctrl = new AbortController();
    const timer = setTimeout(() => ctrl.abort(), 5000);
    const onAbort = () => ctrl.abort();
    if (signal) signal.addEventListener('abort', onAbort);
    const root = document.documentElement;
    try {
      const res = await realFetch(`${base}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(b), signal: ctrl.signal, cache: 'no-store' });
      const data = await res.json();
      if (!res.ok || !data || typeof data !== 'object') throw new Error(`HTTP ${res.status}`);
      root.setAttribute('data-remote', 'ok');
      return { ...data, via: 'server', server: new URL(base).host };
    } catch (e) {
      if (signal && signal.aborted) throw aborted();
      root.setAttribute('data-remote', 'failed');
      return null;
    } finally {
      clearTimeout(timer);
      if (signal) signal.removeEventListener('abort', onAbort);
    }
  }
  // An answer of the worker, said to be the browser's.
  async function browser(res) {
    if (!res.ok) return res;
    return answer(res.status, { ...(await res.json()), via: 'browser' });
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
    const signal = init && init.signal;
    if (path === '/analysis') {
      const r = await remote('/analysis', b, signal);
      return r ? answer(200, r) : browser(await analysis(b, signal));
    }
    // A hint (app.js names it so) asks the server first; the game's own moves stay the worker's.
    if (b.purpose === 'hint') {
      const r = await remote('/obx', b, signal);
      if (r) return answer(200, r);
      return browser(await search(b, signal));
    }
    return search(b, signal);
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

  // The engine lines and the analysis that search on (app.js's deepen): path /obx or /analysis
  // with the API's body, searched on the analysis's own engine for time ms (0: until the signal
  // stops it), each deeper iteration to onData (the answer's JSON as far as it went); resolves
  // with the last answer as fetch would (a Response), or throws AbortError when stopped.
  window.LocalEngine = {
    async stream(path, body, time, onData, signal) {
      // Not counted in <html data-pending>: a search until stopped would hold it for ever.
      // The analysis of every move: the server's database value when it has one (exact, no
      // deeper to go), else the worker's search.
      if (path === '/analysis') {
        const r = await remote('/analysis', { ...body, movetime: 1000 }, signal);
        if (r && r.source !== 'search') return answer(200, r);
      }
      const fn = path === '/analysis' ? analysis : search;
      return browser(await fn(body, signal, { stream: (d) => onData({ ...d, via: 'browser' }), time: num(time, 0, 3600000) || 0 }));
    },
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
