// Game review and "learn from your mistakes". Review asks the server's /analysis for the
// position before every move of the line shown (with the game's history and repetition rule)
// and marks each move that changed the game's value: exactly where the database answers, as an
// engine estimate where a search does. The marks go on the tree's nodes (node.review, kept with
// the game); the panel shows them with the better moves and each side's accuracy, the
// evaluation graph marks their plies, and "Learn from your mistakes" replays those positions
// until a move that keeps the value is found. Every value is the server's (or, in the static
// board, the engine worker's): nothing here knows a rule.
'use strict';

(() => {
  const t = (s, v) => (window.I18N ? I18N.t(s, v)
    : String(Array.isArray(s) ? (v && Number(v.n) === 1 ? s[0] : s[s.length - 1]) : s)
      .replace(/\{(\w+)\}/g, (_, k) => (v && k in v ? v[k] : '')));
  const $ = (id) => document.getElementById(id);

  // A position the database does not cover is searched this long (ms), every move at once.
  const SEARCH_MS = 200;
  // Requests at once: the server has two engines by default; the static board's worker queues them.
  const AT_ONCE = 2;
  // Engine estimates: a move's loss of expected score for its side (the board's 1 / (1 + e^(-cp/250)),
  // a forced win 1, a forced loss 0) from 0.3 is "??", from 0.15 "?", from 0.075 "?!". A move
  // with no mark keeps the value as far as the search can tell; a marked one, "?!" too, does not,
  // so that the summary's count agrees with the marks.
  const EST = { '??': 0.3, '?': 0.15, '?!': 0.075 };
  const RANK = { win: 2, draw: 1, loss: 0 };

  let run = null;      // the review running: {ctrl, done, total, rule, root}
  let shown = null;    // the line the panel speaks of: its last node when reviewed, and its root
  let learn = null;    // {items: [{node, tries, result}], i, phase: 'try'|'right'|'shown'|'done', feedback}
  const answers = new Map(); // node id -> the /analysis answer of the position before it (this visit)

  const B = () => window.Board;
  const S = () => window.Board.state;

  // ---- judging one move from the /analysis answer of the position before it -----------------

  // What a database answer says a move is worth for its side: win, draw or loss, or open
  // (under forbid a database draw, and anything the history might change, is not known).
  function exactValue(m, rule) {
    if (m.wdl === 'win' || m.wdl === 'loss') return m.wdl;
    if (m.wdl === 'draw' && rule === 'draw') return 'draw';
    return 'open';
  }

  // A searched move's expected score for its side, or null when no line reached it.
  function expected(score) {
    if (!score) return null;
    if (typeof score.mate === 'number') return score.mate > 0 ? 1 : 0;
    return typeof score.cp === 'number' ? 1 / (1 + Math.exp(-score.cp / 250)) : null;
  }

  // A move that ends the game at once, won: a database win in 1 ply, a search's mate in 1.
  function winsAtOnce(m, exact) {
    if (exact) return m.wdl === 'win' && m.distance === 1;
    return Boolean(m.score) && m.score.mate === 1;
  }
  // A value's win chance for its side (0..1): exact win 1, draw 0.5 (draw rule), loss 0.
  const WIN_CHANCE = { win: 1, draw: 0.5, loss: 0 };

  // One move judged from the /analysis answer of the position before it. mark: '??', '?',
  // '?!' or null; why: 'win-in-1' (the game could have been won with this move: '??' as on
  // lichess), 'thrown-win' (a proven win given up for a value not known: '??' whatever that
  // value is), else the change of value; exact: from the database (or its prover, `proven`);
  // open: an exact value before or after the move is not known (under forbid), so it waits
  // for the engine's estimate (estimateOpen); wc: the win chances before and after for the
  // accuracy, where known.
  function judge(data, played, rule) {
    const moves = (data && data.moves) || [];
    const me = moves.find((m) => m.move === played);
    if (!me) return null;
    if (data.source === 'database') {
      const v = (m) => exactValue(m, rule);
      const val = (m) => ({ wdl: v(m), distance: typeof m.distance === 'number' ? m.distance : null, proven: Boolean(m.proven) });
      const before = v(moves[0]);
      const after = v(me);
      const known = before !== 'open' && after !== 'open';
      const drop = known ? RANK[before] - RANK[after] : 0;
      let mark = drop >= 2 ? '??' : drop === 1 ? '?' : null;
      let why = mark ? 'value' : null;
      let best = mark ? moves.filter((m) => v(m) === before).map((m) => m.move) : [];
      if (winsAtOnce(moves[0], true) && !winsAtOnce(me, true)) {
        mark = '??';
        why = 'win-in-1';
        best = moves.filter((m) => winsAtOnce(m, true)).map((m) => m.move);
      } else if (before === 'win' && after === 'open') {
        mark = '??';
        why = 'thrown-win';
        best = moves.filter((m) => v(m) === 'win').map((m) => m.move);
      }
      return { mark, why, exact: true, best, before: val(moves[0]), after: val(me), rule,
        kept: known || mark ? !mark : null, open: !known,
        counted: Boolean(mark) || (known && moves.some((m) => v(m) !== before)),
        wc: known ? { before: WIN_CHANCE[before], after: WIN_CHANCE[after] } : null };
    }
    const scored = moves.filter((m) => expected(m.score) !== null);
    const top = scored.length ? Math.max(...scored.map((m) => expected(m.score))) : null;
    const mine = expected(me.score);
    if (top === null || mine === null) {
      return { mark: null, exact: false, best: [], before: null, after: null, rule, kept: null, counted: false };
    }
    const drop = top - mine;
    let mark = drop >= EST['??'] ? '??' : drop >= EST['?'] ? '?' : drop >= EST['?!'] ? '?!' : null;
    let why = mark ? 'value' : null;
    const within = mark === '?!' ? EST['?!'] : EST['?'];
    let best = mark ? scored.filter((m) => top - expected(m.score) < within).map((m) => m.move) : [];
    if (scored.some((m) => winsAtOnce(m, false)) && !winsAtOnce(me, false)) {
      mark = '??';
      why = 'win-in-1';
      best = scored.filter((m) => winsAtOnce(m, false)).map((m) => m.move);
    }
    // A marked move never kept the value: the count beside the accuracy agrees with the marks.
    return { mark, why, exact: false, best, before: { score: scored.find((m) => expected(m.score) === top).score },
      after: { score: me.score }, rule, kept: !mark, counted: true, wc: { before: top, after: mine } };
  }

  // ---- the engine's estimate where the exact value is open ---------------------------------------
  // Under forbid a database draw is open. Such a move is judged by the engine: a search of the
  // position before it and of the one after it (/obx, SEARCH_MS each, with the game's history
  // and rule), their win chances for the side that moved against each other, as an estimate
  // (marked so): a loss from 0.3 is ??, from 0.15 ?, from 0.075 ?!. A mark the exact values
  // gave (a proven win thrown away) stays.
  function positionChance(data, side) {
    if (data.result) return data.result.winner === side ? 1 : data.result.winner ? 0 : 0.5;
    const e = expected(data.score);
    return e === null ? null : e;
  }
  async function estimateOpen(nodes, rule, signal) {
    const want = [];
    const seen = new Set();
    for (const n of nodes) {
      for (const x of [n.parent, n]) if (!seen.has(x.id)) { seen.add(x.id); want.push(x); }
    }
    const values = new Map();
    let k = 0;
    const one = async () => {
      while (k < want.length && !signal.aborted) {
        const x = want[k++];
        let data = null;
        for (let attempt = 0; attempt < 4 && !data; attempt++) {
          try {
            data = await B().api('/obx', { ...B().gameOf(x), movetime: SEARCH_MS, repetition: rule }, signal);
          } catch (e) {
            if (e.name === 'AbortError' || e.status !== 503) throw e;
            await new Promise((r) => setTimeout(r, 1000));
          }
        }
        if (data) values.set(x.id, data);
      }
    };
    await Promise.all(Array.from({ length: AT_ONCE }, one));
    for (const n of nodes) {
      const b = values.get(n.parent.id);
      const a = values.get(n.id);
      if (!b || !a || !n.review) continue;
      const before = positionChance(b, n.side);
      const opp = positionChance(a, n.side === 'goats' ? 'tigers' : 'goats');
      if (before === null || opp === null) continue;
      const after = 1 - opp;
      const r = n.review;
      const drop = before - after;
      if (!r.mark) {
        r.mark = drop >= EST['??'] ? '??' : drop >= EST['?'] ? '?' : drop >= EST['?!'] ? '?!' : null;
        if (r.mark) r.why = 'estimate';
      }
      r.est = { before, after };
      r.wc = { before, after };
      r.kept = !r.mark;
      r.counted = true;
    }
  }

  // The review's value after a move, for the graph (goats up), where the graph has none.
  function fillEval(node, r) {
    if (node.eval || !r.after) return;
    const sign = node.side === 'goats' ? 1 : -1;
    const a = r.after;
    if (a.score) {
      const wdl = a.score.wdl === 'win' ? 1 : a.score.wdl === 'loss' ? -1 : 0;
      node.eval = typeof a.score.mate === 'number' ? { mate: a.score.mate * sign } : wdl ? { mate: wdl * sign } : { cp: a.score.cp * sign };
    } else if (a.wdl === 'win' || a.wdl === 'loss') {
      node.eval = { mate: (a.wdl === 'win' ? 1 : -1) * sign };
      if (a.distance !== null) node.eval.plies = a.distance;
    } else if (a.wdl === 'draw') node.eval = { cp: 0 };
  }

  // ---- running a review ------------------------------------------------------------------------

  function lineEnd(n) { while (n.children.length) n = n.children[0]; return n; }
  function theLine() {
    const s = S();
    if (!shown || shown.root !== s.root || !B().inTree(shown.leaf)) return null;
    return [s.root, ...B().pathTo(lineEnd(shown.leaf))];
  }
  function reviewOf(n) { return n.review && n.review.rule === S().rule ? n.review : null; }

  async function startReview() {
    const s = S();
    if (run) return;
    const line = B().lineOf(s.cur);
    shown = { leaf: line[line.length - 1], root: s.root };
    stopLearn();
    // Moves already reviewed under this rule are kept: a review cancelled goes on where it stopped.
    const todo = line.slice(1).filter((n) => !reviewOf(n));
    const ctrl = new AbortController();
    run = { ctrl, done: line.length - 1 - todo.length, total: line.length - 1, rule: s.rule, root: s.root, error: null };
    openPanel();
    render();
    const t0 = performance.now();
    let k = 0;
    const one = async () => {
      while (k < todo.length && !ctrl.signal.aborted) {
        const n = todo[k++];
        let data = null;
        for (let attempt = 0; attempt < 4 && !data; attempt++) {
          try {
            data = await B().api('/analysis', { ...B().gameOf(n.parent), movetime: SEARCH_MS, repetition: run.rule }, ctrl.signal);
          } catch (e) {
            if (e.name === 'AbortError' || e.status !== 503) throw e;
            await new Promise((r) => setTimeout(r, 1000)); // the server's engines are busy: once more
          }
        }
        if (ctrl.signal.aborted || S().root !== run.root || !B().inTree(n)) return;
        if (!data) throw new Error(t('the server stayed busy'));
        const r = judge(data, n.move, run.rule);
        // Who answered (the static board: a server elsewhere, or the engine in this browser).
        if (r && data.via) r.via = data.via === 'server' ? data.server || '?' : 'browser';
        if (r) { n.review = r; answers.set(n.id, data); fillEval(n, r); }
        run.done++;
        render();
      }
    };
    let error = null;
    try {
      await Promise.all(Array.from({ length: AT_ONCE }, one));
      // The moves whose exact value is open: the engine's estimate.
      const open = line.slice(1).filter((n) => n.review && n.review.exact && n.review.open && !n.review.est);
      if (open.length && !ctrl.signal.aborted) {
        run.estimating = open.length;
        render();
        await estimateOpen(open, run.rule, ctrl.signal);
      }
    } catch (e) {
      if (e.name !== 'AbortError') { error = e.message; ctrl.abort(); }
    }
    const stopped = ctrl.signal.aborted;
    run = null;
    if (error) shown.error = error;
    else shown.error = null;
    shown.cancelled = stopped && !error;
    shown.took = { plies: todo.length, ms: performance.now() - t0 };
    B().save();
    B().renderAll();
  }

  function cancelReview() { if (run) run.ctrl.abort(); }

  // ---- the summary of a line -------------------------------------------------------------------

  // Plies as ranges: "1–12, 30".
  function ranges(list) {
    const out = [];
    for (const p of list) {
      const last = out[out.length - 1];
      if (last && last[1] === p - 1) last[1] = p; else out.push([p, p]);
    }
    return out.map(([a, b]) => (a === b ? String(a) : `${a}–${b}`)).join(', ');
  }

  // Accuracy as lichess computes it (lila's AccuracyPercent): a move's from the win chance its
  // side lost, in % (before − after): 103.1668 · e^(−0.04354 · loss) − 3.1669, +1 for the
  // analysis's uncertainty, within 0..100 (100 when nothing was lost); a side's is the mean of
  // the volatility-weighted mean of its moves' (each weighted by the standard deviation of the
  // goats' win chance over a window of the game around it, within 0.5..12) and their harmonic
  // mean. plies: [{side, before, after}] in order, win chances (0..1) of the side that moved.
  function moveAccuracy(before, after) {
    if (after >= before) return 100;
    const raw = 103.1668100711649 * Math.exp(-0.04354415386753951 * (before - after)) - 3.166924740191411 + 1;
    return Math.min(100, Math.max(0, raw));
  }
  function accuracy(plies) {
    const out = { goats: null, tigers: null };
    if (!plies.length) return out;
    const goatsPct = (p, v) => 100 * (p.side === 'goats' ? v : 1 - v);
    const series = [goatsPct(plies[0], plies[0].before), ...plies.map((p) => goatsPct(p, p.after))];
    const size = Math.min(8, Math.max(2, Math.floor(plies.length / 10)));
    const windows = [];
    for (let i = 0; i < Math.min(size, series.length) - 2; i++) windows.push(series.slice(0, size));
    for (let i = 0; i + size <= series.length; i++) windows.push(series.slice(i, i + size));
    const sd = (xs) => {
      const m = xs.reduce((a, b) => a + b, 0) / xs.length;
      return Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / xs.length);
    };
    const weights = windows.map((w) => Math.min(12, Math.max(0.5, sd(w))));
    for (const side of ['goats', 'tigers']) {
      const mine = [];
      plies.forEach((p, i) => { if (p.side === side) mine.push([moveAccuracy(100 * p.before, 100 * p.after), weights[i] || 0.5]); });
      if (!mine.length) continue;
      const weighted = mine.reduce((a, [v, w]) => a + v * w, 0) / mine.reduce((a, [, w]) => a + w, 0);
      const harmonic = mine.length / mine.reduce((a, [v]) => a + 1 / Math.max(1, v), 0);
      out[side] = (weighted + harmonic) / 2;
    }
    return out;
  }

  function summarise(line) {
    const sides = { goats: { counted: 0, kept: 0 }, tigers: { counted: 0, kept: 0 } };
    const chances = [];
    const openEstimated = [];
    const marks = [];
    const exact = [];
    const estimated = [];
    let open = 0;
    let reviewed = 0;
    line.forEach((n, i) => {
      if (!i) return;
      const r = reviewOf(n);
      if (!r) return;
      reviewed++;
      (r.exact ? exact : estimated).push(i);
      if (r.exact && r.open) { open++; if (r.est) openEstimated.push({ ply: i, side: n.side, mark: r.mark }); }
      if (r.wc) chances.push({ side: n.side, before: r.wc.before, after: r.wc.after });
      if (r.counted) { sides[n.side].counted++; if (r.kept) sides[n.side].kept++; }
      if (r.mark) marks.push({ node: n, ply: i, r });
    });
    const acc = accuracy(chances);
    sides.goats.accuracy = acc.goats;
    sides.tigers.accuracy = acc.tigers;
    return { sides, marks, exact, estimated, open, openEstimated, reviewed, plies: line.length - 1 };
  }

  function valueText(v) {
    if (!v) return '?';
    if (v.score) {
      if (typeof v.score.mate === 'number') return v.score.mate > 0 ? t('win') : t('loss');
      if (v.score.wdl === 'win' || v.score.wdl === 'loss') return t(v.score.wdl);
      const p = v.score.cp / 100;
      return `${p > 0 ? '+' : p < 0 ? '−' : ''}${Math.abs(p).toFixed(2)}`;
    }
    const word = { win: t('win'), draw: t('draw'), loss: t('loss'), open: t('open') }[v.wdl] || '?';
    const text = typeof v.distance === 'number' && v.wdl !== 'draw' ? t('{value} in {n}', { value: word, n: v.distance }) : word;
    // A value the prover settled (the database alone did not): said so.
    return v.proven && v.distance === null ? `${text} (${t('proven')})` : text;
  }

  function sideName(side) { return side === 'goats' ? t('Goats') : t('Tigers'); }

  // ---- the panel -------------------------------------------------------------------------------

  function openPanel() {
    const panel = $('review');
    const wasHidden = panel.hidden;
    panel.hidden = false;
    document.body.classList.add('reviewing');
    if (wasHidden && window.matchMedia('(max-width: 759px)').matches) {
      // A phone: the panel is right under the board (the rest is hidden meanwhile).
      window.scrollTo(0, 0);
    }
    // "Review" is disabled while it runs (and hidden on a phone): the focus goes into the panel.
    if (document.activeElement === $('review-open')) $('review-close').focus({ preventScroll: true });
  }

  function closePanel() {
    cancelReview();
    stopLearn();
    $('review').hidden = true;
    document.body.classList.remove('reviewing');
    B().renderAll();
    $('review-open').focus();
  }

  // The board's element maker (app.js), once the board has started.
  function html(tag, cls, text, parent) { return B().html(tag, cls, text, parent); }

  function render() {
    const panel = $('review');
    if (!panel || !window.Board || !S().root) return;
    const s = S();
    // A new game (or an imported one) has nothing of the old review.
    if (shown && shown.root !== s.root) {
      cancelReview();
      stopLearn();
      shown = null;
    }
    $('review-open').disabled = Boolean(run) || !B().lineOf(s.cur).slice(1).length;
    if (panel.hidden) return;
    const line = theLine();
    const sum = line ? summarise(line) : null;

    // Progress, while it runs.
    $('review-progress').hidden = !run;
    if (run) {
      $('review-bar').max = Math.max(1, run.total);
      $('review-bar').value = run.done;
      $('review-count').textContent = run.estimating ? t(['estimating {n} open move…', 'estimating {n} open moves…'], { n: run.estimating })
        : t('analysing {done} / {total}…', { done: run.done, total: run.total });
    }

    // Where the values come from.
    const src = $('review-source');
    const note = $('review-note');
    clear(note);
    if (!sum || !sum.reviewed) {
      src.textContent = '';
      src.removeAttribute('data-source');
    } else {
      const kind = !sum.estimated.length ? 'exact' : !sum.exact.length ? 'estimate' : 'mixed';
      src.setAttribute('data-source', kind);
      src.textContent = kind === 'exact' ? t('exact, from the solution') : kind === 'estimate' ? t('engine estimate') : t('exact and engine estimate');
      if (sum.estimated.length) {
        const p = html('p', 'review-estimate', t('Engine estimate for plies {plies}: no database covers them, so a {ms} ms search of every move judged them (a loss of expected score from 0.3 is ??, from 0.15 ?, from 0.075 ?!).',
          { plies: ranges(sum.estimated), ms: SEARCH_MS }), note);
        p.setAttribute('data-plies', sum.estimated.join(','));
      }
      if (sum.exact.length && sum.estimated.length) {
        html('p', 'review-exact', t('Exact for plies {plies}, from the database.', { plies: ranges(sum.exact) }), note)
          .setAttribute('data-plies', sum.exact.join(','));
      }
      if (s.rule === 'forbid' && sum.open > sum.openEstimated.length) {
        html('p', 'review-open-note', t(['Under the no-repetition rule a database draw is open: its value is not known, so {n} move with an open value before or after it is not judged (no mark).',
          'Under the no-repetition rule a database draw is open: its value is not known, so {n} moves with an open value before or after them are not judged (no mark).'], { n: sum.open - sum.openEstimated.length }), note);
      }
      if (sum.openEstimated.length) {
        html('p', 'review-open-estimate', t(['Under the no-repetition rule a database draw is open: its value is not known, so {n} move with an open value before or after it is judged by the engine\'s estimate ({ms} ms searches of the position before and after it), marked "estimate". A proven win given up is ?? all the same.',
          'Under the no-repetition rule a database draw is open: its value is not known, so {n} moves with an open value before or after them are judged by the engine\'s estimate ({ms} ms searches of the positions before and after them), marked "estimate". A proven win given up is ?? all the same.'],
        { n: sum.openEstimated.length, ms: SEARCH_MS }), note).setAttribute('data-plies', JSON.stringify(sum.openEstimated));
      }
      // The static board says who answered: the server named in its settings, or its own engine.
      const vias = line.slice(1).map((n) => reviewOf(n) && reviewOf(n).via).filter(Boolean);
      if (vias.length) {
        const served = vias.filter((v) => v !== 'browser');
        const host = served[0] || '';
        const p = html('p', 'review-via', served.length === vias.length ? t('Every ply answered by the server {host}.', { host })
          : served.length ? t('{n} plies answered by the server {host}, {m} by the engine in this browser.', { n: served.length, host, m: vias.length - served.length })
            : t('Every ply answered by the engine in this browser.'), note);
        p.setAttribute('data-server', String(served.length));
        p.setAttribute('data-browser', String(vias.length - served.length));
      }
      if (sum.reviewed < sum.plies && !run) {
        html('p', 'review-partial', t('{done} of {total} plies reviewed: Review goes on with the rest.', { done: sum.reviewed, total: sum.plies }), note);
      }
    }
    if (shown && shown.took && shown.took.plies && !run && !shown.error && !shown.cancelled) {
      html('p', 'review-time', t(['{n} ply analysed in {s} s.', '{n} plies analysed in {s} s.'],
        { n: shown.took.plies, s: (shown.took.ms / 1000).toFixed(1) }), note).setAttribute('data-ms', String(Math.round(shown.took.ms)));
    }
    if (shown && shown.error && !run) html('p', 'review-error', t('Review stopped: {reason}', { reason: shown.error }), note).setAttribute('role', 'alert');

    // Each side's accuracy.
    const acc = $('review-acc');
    clear(acc);
    if (sum && sum.reviewed) {
      for (const side of ['goats', 'tigers']) {
        const a = sum.sides[side];
        // lichess's accuracy, from the win chance lost per move; the exact count beside it.
        const pct = a.accuracy === null ? null : Math.round(a.accuracy);
        const row = html('div', 'acc-row', null, acc);
        row.setAttribute('data-side', side);
        row.setAttribute('data-accuracy', pct === null ? '' : String(pct));
        row.setAttribute('data-counted', String(a.counted));
        row.setAttribute('data-kept', String(a.kept));
        html('span', `dot ${side}`, null, row);
        html('strong', null, `${sideName(side)} ${pct === null ? '—' : `${pct}%`}`, row);
        html('span', 'acc-detail', a.counted ? t(['{kept} of {n} move kept the value', '{kept} of {n} moves kept the value'], { kept: a.kept, n: a.counted })
          : t('no move counted'), row);
      }
    }

    // The marked moves, each with the better ones.
    const list = $('review-list');
    clear(list);
    if (sum) {
      for (const { node, ply, r } of sum.marks) {
        const li = html('li', null, null, list);
        const b = html('button', `review-move mark-${r.mark === '??' ? 'qq' : r.mark === '?' ? 'q' : 'qi'}`, null, li);
        b.type = 'button';
        b.setAttribute('data-ply', String(ply));
        b.setAttribute('data-mark', r.mark);
        b.setAttribute('data-exact', String(r.exact));
        b.setAttribute('data-best', r.best.join(','));
        if (node === s.cur) b.classList.add('current');
        html('span', 'review-label', `${B().moveLabel(node)}${r.mark}`, b);
        // Each value with where it comes from: the database (as it is), the prover ("proven"),
        // the engine's estimate (the win chances it gives, for an open value); why a ?? is one.
        const pctOf = (x) => `${Math.round(100 * x)}%`;
        const est = r.est ? ` (${t('estimate')}: ${pctOf(r.est.before)} → ${pctOf(r.est.after)})` : r.exact ? '' : ` (${t('estimate')})`;
        const why = r.why === 'win-in-1' ? ` · ${t('a win in 1 missed')}` : r.why === 'thrown-win' ? ` · ${t('a proven win given up')}` : '';
        const change = html('span', 'review-change', `${valueText(r.before)} → ${valueText(r.after)}${est}${why}`, b);
        change.setAttribute('data-why', r.why || '');
        b.setAttribute('data-estimate', String(Boolean(r.est) || !r.exact));
        const better = r.best.slice(0, 4).map((m) => B().prettyMove(m)).join(', ') + (r.best.length > 4 ? ` +${r.best.length - 4}` : '');
        html('span', 'review-better', r.best.length ? t('better: {moves}', { moves: better }) : '', b);
        b.addEventListener('click', () => B().goTo(node));
      }
      if (!sum.marks.length && sum.reviewed && !run) html('li', 'review-none', t('No move changed the value.'), list);
    }

    // Learning.
    const items = sum ? learnItems(sum) : [];
    const ls = $('learn-start');
    ls.hidden = Boolean(learn) || Boolean(run) || !items.length;
    ls.textContent = t('Learn from the mistakes ({n})', { n: items.length });
    // Review again: for another line than the one reviewed, or for the plies not reviewed yet.
    const other = !line || line[line.length - 1] !== lineEnd(s.cur);
    $('review-run').hidden = Boolean(run) || Boolean(learn) || (!other && sum.reviewed === sum.plies);
    $('review-run').textContent = other ? t('Review this line') : t('Review the rest');
    renderLearn();
  }

  function clear(e) { while (e.firstChild) e.removeChild(e.firstChild); }

  // ---- learn from the mistakes -----------------------------------------------------------------

  // The side whose mistakes are replayed: the person's against the engine, both in a game of
  // two players (or of the engine against itself).
  function learnSide() { const m = S().mode; return m === 'goats' || m === 'tigers' ? m : null; }

  function learnItems(sum) {
    const side = learnSide();
    return sum.marks.filter(({ node, r }) => (r.mark === '?' || r.mark === '??') && r.best.length && (!side || node.side === side))
      .map(({ node }) => node);
  }

  function startLearn() {
    const line = theLine();
    if (!line) return;
    const items = learnItems(summarise(line)).map((node) => ({ node, tries: 0, result: null }));
    if (!items.length) return;
    learn = { items, i: 0, phase: 'try', feedback: null };
    showItem();
    keepFocus('learn-solution');
  }

  // A button that hides itself (Learn, Show solution, Finish, Stop) hands the keyboard's focus
  // to the panel's next control instead of dropping it to the page.
  function keepFocus(...ids) {
    const a = document.activeElement;
    if (a && a !== document.body && $('review').contains(a) && a.offsetParent) return;
    const to = ids.map($).find((e) => e && !e.hidden && e.offsetParent);
    if (to) to.focus({ preventScroll: true });
  }

  function showItem() {
    const it = learn.items[learn.i];
    learn.phase = 'try';
    learn.feedback = null;
    B().showArrow(it.node.parent, null);
    B().goTo(it.node.parent);
  }

  function stopLearn() {
    if (!learn) return;
    const at = learn.items[learn.i] && learn.items[learn.i].node.parent;
    learn = null;
    if (at && window.Board) B().showArrow(at, null);
  }

  function keptWord(r) {
    if (!r.exact || !r.before) return t('the value');
    return { win: t('the win'), draw: t('the draw'), loss: t('the value') }[r.before.wdl] || t('the value');
  }

  // A move tried at the position of the mistake: judged, never played.
  function guard(entry, at) {
    if (!learn || learn.phase === 'done') return true;
    const it = learn.items[learn.i];
    if (at !== it.node.parent) return true;
    const r = it.node.review;
    if (learn.phase !== 'try') {
      learn.feedback = { kind: 'info', text: t('Press Next for the next position.') };
      renderLearn();
      return false;
    }
    const move = B().prettyMove(entry.move);
    if (r.best.includes(entry.move)) {
      learn.phase = 'right';
      it.result = it.tries ? 'found' : 'first';
      learn.feedback = { kind: 'right', text: t('Right: {move} keeps {value}.', { move, value: keptWord(r) }) };
      B().showArrow(at, entry.move);
    } else {
      it.tries++;
      const data = answers.get(it.node.id);
      const m = data && data.moves.find((x) => x.move === entry.move);
      const gives = m ? judge(data, entry.move, r.rule) : null;
      learn.feedback = { kind: 'wrong', text: gives && gives.after
        ? t('{move} does not keep {value} (it gives {gives}). Try again.', { move, value: keptWord(r), gives: valueText(gives.after) })
        : t('{move} does not keep {value}. Try again.', { move, value: keptWord(r) }) };
    }
    B().renderAll(); // the board drops the piece picked up for the try
    return false;
  }

  function showSolution() {
    const it = learn.items[learn.i];
    if (learn.phase === 'try') it.result = 'shown';
    learn.phase = 'shown';
    const best = it.node.review.best;
    learn.feedback = { kind: 'solution', text: t(['The move that keeps {value}: {moves}.', 'Moves that keep {value}: {moves}.'],
      { n: best.length, value: keptWord(it.node.review), moves: best.map((m) => B().prettyMove(m)).join(', ') }) };
    B().showArrow(it.node.parent, best[0]);
    render();
    keepFocus('learn-next');
  }

  function nextItem() {
    const it = learn.items[learn.i];
    if (!it.result) it.result = 'skipped';
    B().showArrow(it.node.parent, null);
    learn.i++;
    if (learn.i >= learn.items.length) { learn.phase = 'done'; learn.feedback = null; render(); keepFocus('learn-stop'); return; }
    showItem();
    keepFocus('learn-solution', 'learn-next');
  }

  function renderLearn() {
    const box = $('learn');
    box.hidden = !learn;
    if (!learn) return;
    const prompt = $('learn-prompt');
    const fb = $('learn-feedback');
    box.setAttribute('data-phase', learn.phase);
    $('learn-solution').hidden = learn.phase !== 'try';
    $('learn-next').hidden = learn.phase === 'done';
    $('learn-next').textContent = learn.i + 1 >= learn.items.length ? t('Finish') : t('Next');
    $('learn-stop').textContent = learn.phase === 'done' ? t('Close') : t('Stop');
    if (learn.phase === 'done') {
      const n = learn.items.length;
      const count = (k) => learn.items.filter((x) => x.result === k).length;
      const first = count('first');
      const found = first + count('found');
      prompt.textContent = t('Done: {found} of {n} found ({first} at the first try), {shown} shown, {skipped} skipped.',
        { found, n, first, shown: count('shown'), skipped: count('skipped') });
      prompt.setAttribute('data-found', String(found));
      prompt.setAttribute('data-first', String(first));
      fb.textContent = '';
      fb.removeAttribute('data-kind');
      return;
    }
    const it = learn.items[learn.i];
    const r = it.node.review;
    prompt.removeAttribute('data-found');
    prompt.textContent = t('{i} of {n}: {side} played {move}{mark} here ({before} → {after}). Find a move that keeps {value}.', {
      i: learn.i + 1, n: learn.items.length, side: sideName(it.node.side), move: B().moveLabel(it.node), mark: r.mark,
      before: valueText(r.before), after: valueText(r.after), value: keptWord(r) });
    fb.textContent = learn.feedback ? learn.feedback.text : '';
    if (learn.feedback) fb.setAttribute('data-kind', learn.feedback.kind); else fb.removeAttribute('data-kind');
  }

  // ---- the graph: a mark at each ply whose move changed the value; a strip of exact and estimated plies

  function onGraph(svg, g) {
    if (!window.Board || $('review').hidden) return;
    const NS = 'http://www.w3.org/2000/svg';
    const add = (name, attrs) => {
      const e = document.createElementNS(NS, name);
      for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
      svg.appendChild(e);
      return e;
    };
    const w = g.line.length > 1 ? g.x(1) - g.x(0) : 4;
    g.line.forEach((n, i) => {
      const r = i ? reviewOf(n) : null;
      if (!r) return;
      add('rect', { x: (g.x(i) - w / 2).toFixed(1), y: g.H - 3, width: Math.max(0.5, w).toFixed(1), height: 3,
        class: r.exact ? 'review-strip exact' : 'review-strip estimate' });
    });
    g.line.forEach((n, i) => {
      const r = i ? reviewOf(n) : null;
      if (!r || !r.mark) return;
      const cls = r.mark === '??' ? 'qq' : r.mark === '?' ? 'q' : 'qi';
      add('line', { x1: g.x(i), y1: 0, x2: g.x(i), y2: g.H, class: `review-tick mark-${cls}` });
      const fy = n.eval ? g.y(n.eval.mate !== undefined ? (n.eval.mate > 0 ? 1 : 0) : 1 / (1 + Math.exp(-n.eval.cp / 250))) : g.H / 2;
      const c = add('circle', { cx: g.x(i), cy: fy.toFixed(1), r: 4.5, class: `review-marker mark-${cls}${r.exact ? '' : ' estimate'}`,
        'data-ply': String(i), 'data-mark': r.mark });
      c.addEventListener('click', (e) => { e.stopPropagation(); B().goTo(n); });
    });
  }

  // ---- start -----------------------------------------------------------------------------------

  if (window.I18N) {
    I18N.add('ne', {
      'Game review': 'खेलको समीक्षा',
      'Review': 'समीक्षा',
      "Mark every move that changed the game's value": 'खेलको मूल्य बदल्ने हरेक चालमा चिन्ह लगाउनुहोस्',
      'Close the review': 'समीक्षा बन्द गर्नुहोस्',
      'Review progress': 'समीक्षाको प्रगति',
      "The moves that changed the game's value: click one to go there": 'खेलको मूल्य बदल्ने चालहरू: त्यहाँ जान एउटा थिच्नुहोस्',
      'Show solution': 'समाधान देखाउनुहोस्',
      'the server stayed busy': 'सर्भर व्यस्त नै रह्यो',
      win: 'जित',
      draw: 'बराबरी',
      loss: 'हार',
      open: 'खुला',
      '{value} in {n}': '{n} अर्धचालमा {value}',
      'analysing {done} / {total}…': 'विश्लेषण हुँदै {done} / {total}…',
      'exact, from the solution': 'सही, समाधानबाट',
      'engine estimate': 'इन्जिनको अनुमान',
      'exact and engine estimate': 'सही र इन्जिनको अनुमान',
      'Engine estimate for plies {plies}: no database covers them, so a {ms} ms search of every move judged them (a loss of expected score from 0.3 is ??, from 0.15 ?, from 0.075 ?!).':
        'अर्धचाल {plies}: इन्जिनको अनुमान। कुनै डाटाबेसले यिनलाई समेट्दैन, त्यसैले हरेक चालको {ms} मिलिसेकेन्डको खोजले जाँच्यो (अपेक्षित अङ्क 0.3 वा बढी घटे ??, 0.15 बाट ?, 0.075 बाट ?!)।',
      'Exact for plies {plies}, from the database.': 'अर्धचाल {plies}: डाटाबेसबाट सही।',
      'Under the no-repetition rule a database draw is open: its value is not known, so {n} move with an open value before or after it is not judged (no mark).':
        'दोहोर्‍याउन नपाइने नियममा डाटाबेसको बराबरी खुला हुन्छ: यसको मूल्य थाहा छैन, त्यसैले अघि वा पछि खुला मूल्य भएको {n} चाल जाँचिएको छैन (चिन्ह छैन)।',
      'Under the no-repetition rule a database draw is open: its value is not known, so {n} moves with an open value before or after them are not judged (no mark).':
        'दोहोर्‍याउन नपाइने नियममा डाटाबेसको बराबरी खुला हुन्छ: यसको मूल्य थाहा छैन, त्यसैले अघि वा पछि खुला मूल्य भएका {n} चाल जाँचिएका छैनन् (चिन्ह छैन)।',
      '{done} of {total} plies reviewed: Review goes on with the rest.': '{total} मध्ये {done} अर्धचालको समीक्षा भयो: समीक्षाले बाँकी अघि बढाउँछ।',
      'Review stopped: {reason}': 'समीक्षा रोकियो: {reason}',
      '{n} ply analysed in {s} s.': '{n} अर्धचाल {s} सेकेन्डमा विश्लेषण भयो।',
      '{n} plies analysed in {s} s.': '{n} अर्धचाल {s} सेकेन्डमा विश्लेषण भए।',
      '{kept} of {n} move kept the value': '{n} मध्ये {kept} चालले मूल्य जोगायो',
      '{kept} of {n} moves kept the value': '{n} मध्ये {kept} चालले मूल्य जोगाए',
      'no move counted': 'कुनै चाल गनिएन',
      estimate: 'अनुमान',
      proven: 'प्रमाणित',
      'Every ply answered by the server {host}.': 'हरेक चालको जवाफ सर्भर {host} ले दियो।',
      '{n} plies answered by the server {host}, {m} by the engine in this browser.': '{n} चालको जवाफ सर्भर {host} ले, {m} को यही ब्राउजरको इन्जिनले दियो।',
      'Every ply answered by the engine in this browser.': 'हरेक चालको जवाफ यही ब्राउजरको इन्जिनले दियो।',
      'a win in 1 missed': '1 चालमा जित छुट्यो',
      'a proven win given up': 'प्रमाणित जित गुमाइयो',
      'estimating {n} open move…': '{n} खुला चालको अनुमान हुँदैछ…',
      'estimating {n} open moves…': '{n} खुला चालको अनुमान हुँदैछ…',
      'Under the no-repetition rule a database draw is open: its value is not known, so {n} move with an open value before or after it is judged by the engine\'s estimate ({ms} ms searches of the position before and after it), marked "estimate". A proven win given up is ?? all the same.':
        'दोहोर्‍याउन नपाइने नियममा डाटाबेसको बराबरी खुला हुन्छ: यसको मूल्य थाहा छैन, त्यसैले अघि वा पछि खुला मूल्य भएको {n} चाललाई इन्जिनको अनुमानले जाँचियो (अघि र पछिको स्थितिको {ms} मिलिसेकेन्डको खोज), "अनुमान" लेखिएको। प्रमाणित जित गुमाउने चाल जे भए पनि ?? हो।',
      'Under the no-repetition rule a database draw is open: its value is not known, so {n} moves with an open value before or after them are judged by the engine\'s estimate ({ms} ms searches of the positions before and after them), marked "estimate". A proven win given up is ?? all the same.':
        'दोहोर्‍याउन नपाइने नियममा डाटाबेसको बराबरी खुला हुन्छ: यसको मूल्य थाहा छैन, त्यसैले अघि वा पछि खुला मूल्य भएका {n} चाललाई इन्जिनको अनुमानले जाँचियो (अघि र पछिका स्थितिहरूको {ms} मिलिसेकेन्डको खोज), "अनुमान" लेखिएको। प्रमाणित जित गुमाउने चाल जे भए पनि ?? हो।',
      'better: {moves}': 'राम्रा: {moves}',
      'No move changed the value.': 'कुनै चालले मूल्य बदलेन।',
      'Learn from the mistakes ({n})': 'गल्तीबाट सिक्नुहोस् ({n})',
      'Review this line': 'यो क्रमको समीक्षा',
      'Review the rest': 'बाँकीको समीक्षा',
      'the value': 'मूल्य',
      'the win': 'जित',
      'the draw': 'बराबरी',
      'Press Next for the next position.': 'अर्को स्थितिका लागि "अर्को" थिच्नुहोस्।',
      'Right: {move} keeps {value}.': 'ठीक: {move} ले {value} जोगाउँछ।',
      '{move} does not keep {value} (it gives {gives}). Try again.': '{move} ले {value} जोगाउँदैन (यसले {gives} दिन्छ)। फेरि प्रयास गर्नुहोस्।',
      '{move} does not keep {value}. Try again.': '{move} ले {value} जोगाउँदैन। फेरि प्रयास गर्नुहोस्।',
      'The move that keeps {value}: {moves}.': '{value} जोगाउने चाल: {moves}।',
      'Moves that keep {value}: {moves}.': '{value} जोगाउने चालहरू: {moves}।',
      Finish: 'सकाउनुहोस्',
      Next: 'अर्को',
      Stop: 'रोक्नुहोस्',
      'Done: {found} of {n} found ({first} at the first try), {shown} shown, {skipped} skipped.':
        'सकियो: {n} मध्ये {found} भेटियो (पहिलो प्रयासमा {first}), {shown} देखाइयो, {skipped} छाडियो।',
      '{i} of {n}: {side} played {move}{mark} here ({before} → {after}). Find a move that keeps {value}.':
        '{n} मध्ये {i}: {side} ले यहाँ {move}{mark} खेले ({before} → {after})। {value} जोगाउने चाल खोज्नुहोस्।',
    });
  }

  window.Board = window.Board || {};
  (window.Board.playGuards = window.Board.playGuards || []).push(guard);
  (window.Board.onRender = window.Board.onRender || []).push(render);
  (window.Board.onGraph = window.Board.onGraph || []).push(onGraph);

  document.addEventListener('DOMContentLoaded', () => {
    $('review-open').addEventListener('click', () => {
      if ($('review').hidden) { openPanel(); startReview(); } else startReview();
    });
    // The result banner's Review: the review opens (and runs) and comes into view.
    $('banner-review').addEventListener('click', () => {
      if ($('review').hidden) openPanel();
      startReview();
      $('review').scrollIntoView({ block: 'nearest' });
      $('review-close').focus({ preventScroll: true });
    });
    $('review-run').addEventListener('click', startReview);
    $('review-cancel').addEventListener('click', cancelReview);
    $('review-close').addEventListener('click', closePanel);
    $('learn-start').addEventListener('click', startLearn);
    $('learn-solution').addEventListener('click', showSolution);
    $('learn-next').addEventListener('click', nextItem);
    $('learn-stop').addEventListener('click', () => { stopLearn(); render(); keepFocus('learn-start', 'review-close'); });
    if (window.I18N && I18N.onChange) I18N.onChange(() => { if (window.Board && window.Board.state) render(); });
  });
})();
