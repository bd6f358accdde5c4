// Puzzles: positions from the game's full solution where exactly one move keeps the win (or
// the draw), with the line that follows (puzzles.json, written by baghchal-puzzles; README,
// "Puzzles"). The person plays the side to move; a move is right when it is the line's, and
// the board answers with the line's reply; any other move ends the puzzle as failed and shows
// the solution. The solutions come with the page: nothing here knows a rule. The positions and
// their legal moves are the server's (/legal), or in the static board the engine worker's.
// A streak (puzzles solved in a row) and the best streak are kept in localStorage, with a
// puzzle rating for the person and one for each puzzle (Glicko-2, as lichess rates puzzles: a
// puzzle solved is a game won against it, one failed a game lost). The game in progress is
// kept aside while puzzles are played and comes back as it was when they close; meanwhile the
// board's hint, engine lines and analysis are off (the card's hint costs the streak and counts
// as a puzzle failed). A daily puzzle: the same for everyone on a day (UTC).
'use strict';

(() => {
  const t = (s, v) => (window.I18N ? I18N.t(s, v) : s.replace(/\{(\w+)\}/g, (_, k) => (v && k in v ? v[k] : '')));
  const $ = (id) => document.getElementById(id);
  const B = () => window.Board;
  const S = () => window.Board.state;
  const KEY = 'baghchal.puzzles';
  const LEVELS = ['any', 'easy', 'medium', 'hard'];
  // A puzzle's rating before anyone played it here: by its level.
  const LEVEL_RATING = { easy: 1200, medium: 1500, hard: 1800 };

  // ---- Glicko-2 (Glickman, "Example of the Glicko-2 system"; the server's room/glicko.c) -----
  // player {rating, rd, vol}; results [{rating, rd, score}] (score 1, 0.5, 0); tau the system
  // constant. Returns the player after the rating period. Checked against Glickman's worked
  // example (puzzles.test.js): 1500/200/0.06 against 1400/30 won, 1550/100 and 1700/300 lost
  // gives 1464.06 / 151.52 / 0.05999 with tau 0.5.
  function glicko2(player, results, tau) {
    const SCALE = 173.7178;
    const mu = (player.rating - 1500) / SCALE;
    const phi = player.rd / SCALE;
    const sigma = player.vol;
    if (!results.length) return { rating: player.rating, rd: SCALE * Math.sqrt(phi * phi + sigma * sigma), vol: sigma };
    const g = (p) => 1 / Math.sqrt(1 + (3 * p * p) / (Math.PI * Math.PI));
    let vinv = 0;
    let sum = 0;
    for (const r of results) {
      const muj = (r.rating - 1500) / SCALE;
      const gj = g(r.rd / SCALE);
      const e = 1 / (1 + Math.exp(-gj * (mu - muj)));
      vinv += gj * gj * e * (1 - e);
      sum += gj * (r.score - e);
    }
    const v = 1 / vinv;
    const delta = v * sum;
    const a = Math.log(sigma * sigma);
    const f = (x) => (Math.exp(x) * (delta * delta - phi * phi - v - Math.exp(x))) / (2 * (phi * phi + v + Math.exp(x)) ** 2) - (x - a) / (tau * tau);
    let A = a;
    let B;
    if (delta * delta > phi * phi + v) B = Math.log(delta * delta - phi * phi - v);
    else { let k = 1; while (f(a - k * tau) < 0 && k < 1000) k++; B = a - k * tau; }
    let fA = f(A);
    let fB = f(B);
    for (let i = 0; i < 100 && Math.abs(B - A) > 1e-6; i++) {
      const C = A + ((A - B) * fA) / (fB - fA);
      const fC = f(C);
      if (fC * fB <= 0) { A = B; fA = fB; } else fA /= 2;
      B = C;
      fB = fC;
    }
    const vol = Math.exp(A / 2);
    const phiStar = Math.sqrt(phi * phi + vol * vol);
    const phiNew = 1 / Math.sqrt(1 / (phiStar * phiStar) + 1 / v);
    return { rating: 1500 + SCALE * (mu + phiNew * phiNew * sum), rd: SCALE * phiNew, vol };
  }
  // One rated puzzle: the person and the puzzle, each against the other as they were, with
  // lichess's tau (0.75, as the server's room) and RD kept within 45..350.
  function rate(player, puzzle, score) {
    const clamp = (x) => ({ ...x, rd: Math.min(350, Math.max(45, x.rd)) });
    const p = clamp(glicko2(player, [{ rating: puzzle.rating, rd: puzzle.rd, score }], 0.75));
    const q = clamp(glicko2(puzzle, [{ rating: player.rating, rd: player.rd, score: 1 - score }], 0.75));
    return [p, q];
  }
  window.PuzzleRating = { glicko2, rate };
  const NEW_PLAYER = { rating: 1500, rd: 350, vol: 0.06 };
  function puzzleRating(p) {
    const r = saved.ratings[p.id];
    return r || { rating: LEVEL_RATING[p.level] || 1500, rd: 200, vol: 0.06 };
  }

  // Every puzzle of the file, and what the person did: {streak, best, level, solved: {id: 1},
  // open, current (its id), obx (its start)}.
  let all = null;
  let loadError = null;
  const saved = read();
  // The puzzle being played: {p, k (the line's next move), at (the node it is played at),
  // root, phase: 'try' | 'reply' | 'solved' | 'failed' | 'left', feedback: {kind, text}}.
  let cur = null;
  let replying = false;
  let modeBefore = null;

  function read() {
    try {
      const s = JSON.parse(localStorage.getItem(KEY) || '{}');
      const rating = (r) => r && [r.rating, r.rd, r.vol].every((x) => typeof x === 'number' && Number.isFinite(x)) ? r : null;
      const ratings = {};
      for (const [id, r] of Object.entries(s.ratings && typeof s.ratings === 'object' ? s.ratings : {})) if (rating(r)) ratings[id] = r;
      return { streak: Number(s.streak) || 0, best: Number(s.best) || 0, level: LEVELS.includes(s.level) ? s.level : 'any',
        solved: s.solved && typeof s.solved === 'object' ? s.solved : {}, open: Boolean(s.open), current: Number(s.current) || 0,
        obx: typeof s.obx === 'string' ? s.obx : '', rating: rating(s.rating) || { ...NEW_PLAYER }, ratings,
        game: s.game && typeof s.game === 'object' ? s.game : null, daily: typeof s.daily === 'string' ? s.daily : '' };
    } catch (e) {
      return { streak: 0, best: 0, level: 'any', solved: {}, open: false, current: 0, obx: '', rating: { ...NEW_PLAYER },
        ratings: {}, game: null, daily: '' };
    }
  }

  function write() {
    try { localStorage.setItem(KEY, JSON.stringify(saved)); } catch (e) { /* private mode: kept for this visit */ }
  }

  async function load() {
    if (all) return true;
    try {
      const res = await fetch('puzzles.json');
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const data = await res.json();
      all = Array.isArray(data.puzzles) ? data.puzzles : [];
      loadError = null;
      return true;
    } catch (e) {
      loadError = String(e.message || e);
      return false;
    }
  }

  // The next puzzle of the level chosen: one not solved yet when there is one, never the one
  // just played when there is another.
  function pick() {
    const pool = all.filter((p) => saved.level === 'any' || p.level === saved.level);
    if (!pool.length) return null;
    const fresh = pool.filter((p) => !saved.solved[p.id] && (!cur || p.id !== cur.p.id));
    const others = pool.filter((p) => !cur || p.id !== cur.p.id);
    const from = fresh.length ? fresh : others.length ? others : pool;
    return from[Math.floor(Math.random() * from.length)];
  }

  // The day's puzzle (UTC): the same for everyone, from the day's number.
  function today() { return new Date().toISOString().slice(0, 10); }
  function dailyPuzzle() {
    if (!all || !all.length) return null;
    const day = Math.floor(Date.parse(`${today()}T00:00:00Z`) / 86400000);
    return all[(day * 7919) % all.length];
  }

  // A move of the line as the board writes it (C2–D2, A1×C3); the line's moves joined.
  const pretty = (text) => (window.Board && B().entryOf ? B().prettyMove(B().entryOf(text).move) : text);
  const lineText = (moves) => moves.map(pretty).join(', ');

  const entryText = (e) => e.text || e.move.replace(/^m/i, '').replace(/\(.*\)$/, '').toUpperCase();

  async function begin(p, daily) {
    if (!p) { cur = null; render(); return; }
    // The game in progress, kept aside once (over a reload too) until the puzzles close.
    if (!saved.game && !cur) { saved.game = B().snapshot(); write(); }
    B().lock(true);
    if (S().mode !== 'human') { modeBefore = modeBefore || S().mode; B().setMode('human'); }
    // Puzzles are not played on the clock.
    S().tc = 'move';
    cur = { p, k: 0, at: null, root: null, phase: 'loading', feedback: null, hinted: false, rated: false, daily: Boolean(daily) };
    saved.current = p.id;
    saved.obx = p.obx.trim();
    write();
    render();
    await B().start(p.obx, [], 'draw');
    if (!cur || cur.p !== p) return;
    cur.root = S().root;
    cur.at = S().root;
    cur.phase = 'try';
    render();
  }

  function next() { if (all) begin(pick()); }

  // The puzzle's result for the ratings, once: 1 solved without a hint, 0 otherwise.
  function rated(score) {
    if (cur.rated) return;
    cur.rated = true;
    const before = saved.rating.rating;
    const [p, q] = rate(saved.rating, puzzleRating(cur.p), score);
    saved.rating = p;
    saved.ratings[cur.p.id] = q;
    cur.change = Math.round(p.rating) - Math.round(before);
  }

  function solved() {
    cur.phase = 'solved';
    // A hint costs the streak: the puzzle counts as failed.
    if (cur.hinted) saved.streak = 0;
    else { saved.streak++; saved.best = Math.max(saved.best, saved.streak); }
    saved.solved[cur.p.id] = 1;
    rated(cur.hinted ? 0 : 1);
    write();
    cur.feedback = { kind: 'right', text: cur.hinted ? t('Solved with a hint: the streak starts again. The line: {line}.', { line: lineText(cur.p.line) })
      : t('Solved! The line: {line}.', { line: lineText(cur.p.line) }) };
    render();
  }

  // The card's hint: the piece to move (or the point to place on) of the line's next move.
  function hint() {
    if (!cur || cur.phase !== 'try' || !cur.at || !cur.at.pos) return;
    cur.hinted = true;
    if (saved.streak) { saved.streak = 0; write(); }
    const e = (cur.at.pos.legal || []).find((x) => entryText(x) === cur.p.line[cur.k]);
    if (e) B().showArrow(cur.at, `m${e.from || e.to}`);
    cur.feedback = { kind: 'info', text: e && e.from ? t('The piece on {point} moves. A hint costs the streak.', { point: e.from })
      : t('A goat goes to {point}. A hint costs the streak.', { point: e ? e.to : '?' }) };
    render();
  }

  function failed(entry) {
    cur.phase = 'failed';
    saved.streak = 0;
    rated(0);
    write();
    const goal = cur.p.goal === 'win' ? 'win' : 'draw';
    const move = B().prettyMove(entry.move);
    const text = goal === 'win' ? t('{move} lets the win go. The solution: {line}.', { move, line: lineText(cur.p.line.slice(cur.k)) })
      : t('{move} lets the draw go. The solution: {line}.', { move, line: lineText(cur.p.line.slice(cur.k)) });
    cur.feedback = { kind: 'wrong', text };
    const right = (cur.at.pos.legal || []).find((e) => entryText(e) === cur.p.line[cur.k]);
    if (right) B().showArrow(cur.at, right.move);
    render();
  }

  // Waits until a node has its position from the server (or the worker).
  async function settled(node) {
    for (let i = 0; i < 400 && !node.pos && B().inTree(node); i++) await new Promise((r) => setTimeout(r, 25));
    return Boolean(node.pos) || B().ensurePos(node);
  }

  // After the person's right move: the line's reply, then the person's turn again or the end.
  async function answer(at, entry) {
    const c = cur;
    let child = null;
    for (let i = 0; i < 40 && !child; i++) {
      child = at.children.find((n) => n.move === entry.move) || null;
      if (!child) await new Promise((r) => setTimeout(r, 25));
    }
    if (!child || !(await settled(child)) || cur !== c) return;
    if (c.k >= c.p.line.length) { solved(); return; }
    const reply = (child.pos.legal || []).find((e) => entryText(e) === c.p.line[c.k]);
    if (!reply) { c.phase = 'left'; c.feedback = { kind: 'wrong', text: t('The board does not know the reply {move}.', { move: pretty(c.p.line[c.k]) }) }; render(); return; }
    replying = true;
    try { await B().play(reply, child); } finally { replying = false; }
    if (cur !== c) return;
    c.k++;
    const after = child.children.find((n) => n.move === reply.move);
    if (!after || !(await settled(after)) || cur !== c) return;
    if (c.k >= c.p.line.length) { solved(); return; }
    c.at = after;
    c.phase = 'try';
    c.feedback = { kind: 'right', text: t('Right. Find the next move.') };
    render();
  }

  // Board.playGuards: a move at the puzzle's position is judged against the line.
  function guard(entry, at) {
    if (!cur || !window.Board) return true;
    if (cur.root && S().root !== cur.root) { cur.phase = 'left'; render(); return true; }
    if (cur.phase === 'reply' || cur.phase === 'loading') return replying;
    if (cur.phase !== 'try') return true;
    if (at !== cur.at) return true;
    if (entryText(entry) !== cur.p.line[cur.k]) { failed(entry); B().renderAll(); return false; }
    cur.k++;
    cur.phase = 'reply';
    cur.feedback = null;
    answer(at, entry);
    return true;
  }

  function taskText(p) {
    const goats = p.side === 'goats';
    if (p.goal === 'win') return goats ? t('Goats to play and win') : t('Tigers to play and win');
    return goats ? t('Goats to play and draw') : t('Tigers to play and draw');
  }

  function levelName(l) { return { easy: t('easy'), medium: t('medium'), hard: t('hard') }[l] || l; }

  function render() {
    const card = $('puzzles');
    if (!card) return;
    card.hidden = !saved.open;
    document.body.classList.toggle('puzzling', saved.open);
    $('puzzles-open').setAttribute('aria-expanded', String(saved.open));
    if (!saved.open) return;
    $('puzzle-level').value = saved.level;
    $('puzzle-streak').textContent = t('Streak: {n} · best: {best}', { n: saved.streak, best: saved.best });
    const me = saved.rating;
    const ratingLine = $('puzzle-rating');
    ratingLine.textContent = t('Your puzzle rating: {r} (±{rd})', { r: Math.round(me.rating), rd: Math.round(me.rd) }) +
      (cur && cur.rated && cur.change !== undefined ? ` ${cur.change >= 0 ? '+' : '−'}${Math.abs(cur.change)}` : '');
    ratingLine.dataset.rating = String(Math.round(me.rating));
    ratingLine.dataset.rd = String(Math.round(me.rd));
    $('puzzle-hint').disabled = !cur || cur.phase !== 'try' || cur.hinted;
    const task = $('puzzle-task');
    const meta = $('puzzle-meta');
    const fb = $('puzzle-feedback');
    card.dataset.puzzleId = cur ? String(cur.p.id) : '';
    card.dataset.phase = cur ? cur.phase : loadError ? 'error' : 'none';
    card.dataset.step = cur ? String(cur.k) : '';
    if (loadError) {
      task.textContent = t('The puzzles could not be loaded: {error}', { error: loadError });
      meta.textContent = '';
    } else if (!cur) {
      task.textContent = all ? t('No puzzle of this difficulty.') : t('Loading…');
      meta.textContent = '';
    } else {
      task.textContent = taskText(cur.p);
      const phase = cur.p.phase === 'movement' ? t('movement phase') : t('placement phase');
      const rating = Math.round(puzzleRating(cur.p).rating);
      const head = cur.daily ? t('Daily puzzle {day}', { day: saved.daily }) : t('Puzzle {id}', { id: cur.p.id });
      meta.textContent = typeof cur.p.distance === 'number'
        ? t(['{head} · {level} · rating {rating} · {phase} · the end in {n} ply', '{head} · {level} · rating {rating} · {phase} · the end in {n} plies'],
          { head, level: levelName(cur.p.level), rating, phase, n: cur.p.distance })
        : t('{head} · {level} · rating {rating} · {phase}', { head, level: levelName(cur.p.level), rating, phase });
      meta.dataset.rating = String(rating);
    }
    const f = cur && cur.feedback;
    fb.textContent = f ? f.text : cur && cur.phase === 'try' && cur.k === 0 ? t('One move keeps it. Play it on the board.') : '';
    fb.className = `puzzle-feedback${f ? ` ${f.kind}` : ''}`;
    $('puzzle-next').textContent = cur && cur.phase === 'try' ? t('Skip') : t('Next puzzle');
  }

  async function open() {
    saved.open = true;
    write();
    render();
    if (!(await load())) { render(); return; }
    const again = all.find((p) => p.id === saved.current);
    if (cur && cur.phase !== 'left') { render(); return; }
    begin(again && !saved.solved[again.id] ? again : pick());
  }

  function close() {
    saved.open = false;
    cur = null;
    const game = saved.game;
    saved.game = null;
    write();
    modeBefore = null;
    if (window.Board && B().lock) {
      B().lock(false);
      // The game in progress, as it was (its mode and clock with it).
      if (game) B().restoreGame(game);
    }
    render();
  }

  function skip() {
    // Skipping a puzzle under way ends the streak, as a wrong move would.
    if (cur && cur.phase === 'try') { saved.streak = 0; write(); }
    next();
  }

  (window.Board = window.Board || {}).playGuards = window.Board.playGuards || [];
  window.Board.playGuards.push(guard);

  document.addEventListener('DOMContentLoaded', () => {
    if (!$('puzzles')) return;
    // The focus never drops to the page: into the card when it opens (a phone hides the button
    // meanwhile), back to the button when the card closes.
    const keepFocus = () => {
      const a = document.activeElement;
      if (!a || a === document.body || !a.getClientRects().length) $(saved.open ? 'puzzles-close' : 'puzzles-open').focus({ preventScroll: true });
    };
    $('puzzles-open').addEventListener('click', () => { if (saved.open) close(); else open(); keepFocus(); });
    $('puzzles-close').addEventListener('click', () => { close(); keepFocus(); });
    $('puzzle-next').addEventListener('click', skip);
    $('puzzle-hint').addEventListener('click', hint);
    $('puzzle-daily').addEventListener('click', async () => {
      if (!(await load())) return;
      if (cur && cur.phase === 'try') { saved.streak = 0; write(); }
      saved.daily = today();
      begin(dailyPuzzle(), true);
    });
    $('puzzle-level').addEventListener('change', (e) => {
      saved.level = LEVELS.includes(e.target.value) ? e.target.value : 'any';
      write();
      if (!cur || cur.phase !== 'try' || (saved.level !== 'any' && cur.p.level !== saved.level)) next();
      else render();
    });
    if (window.I18N && I18N.onChange) I18N.onChange(render);
    render();
    // Open at the last visit: the board's own start is done first (the page's game is restored),
    // then the puzzle played then starts again; an address with a position (a shared link) wins.
    // (The board keeps its own game in the address too: the puzzle's start there is a reload.)
    const linked = new URLSearchParams(location.search).get('obx');
    // The link's game is the board's now: the one kept aside is not given back over it.
    if (saved.open && linked && linked.trim() !== saved.obx) { saved.open = false; saved.game = null; write(); render(); }
    if (saved.open) {
      let tries = 0;
      const wait = () => (window.Board && window.Board.start && S().cur && (S().cur.pos || ++tries > 100) ? open()
        : setTimeout(wait, 50));
      setTimeout(wait, 0);
    }
  });
})();

if (window.I18N) {
  I18N.add('ne', {
    Puzzles: 'पहेलीहरू',
    'Close the puzzles': 'पहेलीहरू बन्द गर्नुहोस्',
    Difficulty: 'कठिनाइ',
    Any: 'जुनसुकै',
    Easy: 'सजिलो',
    Medium: 'मध्यम',
    Hard: 'कठिन',
    easy: 'सजिलो',
    medium: 'मध्यम',
    hard: 'कठिन',
    'The solutions come with the page, worked out from the game\'s full solution (draw rule); the board checks each move against them.':
      'समाधानहरू पृष्ठसँगै आउँछन्, खेलको पूर्ण समाधानबाट निकालिएका (बराबरी नियम); बोर्डले हरेक चाल तिनैसँग जाँच्छ।',
    'Goats to play and win': 'बाख्राको पालो: जित्नुहोस्',
    'Tigers to play and win': 'बाघको पालो: जित्नुहोस्',
    'Goats to play and draw': 'बाख्राको पालो: बराबरी गर्नुहोस्',
    'Tigers to play and draw': 'बाघको पालो: बराबरी गर्नुहोस्',
    'Streak: {n} · best: {best}': 'लगातार: {n} · उत्कृष्ट: {best}',
    'Solved! The line: {line}.': 'समाधान भयो! चालहरू: {line}।',
    '{move} lets the win go. The solution: {line}.': '{move} ले जित गुमायो। समाधान: {line}।',
    '{move} lets the draw go. The solution: {line}.': '{move} ले बराबरी गुमायो। समाधान: {line}।',
    'The board does not know the reply {move}.': 'बोर्डलाई जवाफ {move} थाहा छैन।',
    'Right. Find the next move.': 'ठीक। अर्को चाल खोज्नुहोस्।',
    'The puzzles could not be loaded: {error}': 'पहेलीहरू लोड हुन सकेनन्: {error}',
    'No puzzle of this difficulty.': 'यो कठिनाइको पहेली छैन।',
    'Loading…': 'लोड हुँदैछ…',
    'movement phase': 'चाल चरण',
    'placement phase': 'राख्ने चरण',
    'Puzzle {id}': 'पहेली {id}',
    'Daily puzzle {day}': 'आजको पहेली {day}',
    '{head} · {level} · rating {rating} · {phase} · the end in {n} ply': '{head} · {level} · रेटिङ {rating} · {phase} · {n} अर्धचालमा अन्त्य',
    '{head} · {level} · rating {rating} · {phase} · the end in {n} plies': '{head} · {level} · रेटिङ {rating} · {phase} · {n} अर्धचालमा अन्त्य',
    '{head} · {level} · rating {rating} · {phase}': '{head} · {level} · रेटिङ {rating} · {phase}',
    'Your puzzle rating: {r} (±{rd})': 'तपाईंको पहेली रेटिङ: {r} (±{rd})',
    'Solved with a hint: the streak starts again. The line: {line}.': 'सङ्केतसहित समाधान भयो: लगातार फेरि सुरु हुन्छ। चालहरू: {line}।',
    'The piece on {point} moves. A hint costs the streak.': '{point} को गोटी चल्छ। सङ्केतले लगातार गुमाउँछ।',
    'A goat goes to {point}. A hint costs the streak.': 'एउटा बाख्रा {point} मा जान्छ। सङ्केतले लगातार गुमाउँछ।',
    Hint: 'सङ्केत',
    'Daily puzzle': 'आजको पहेली',
    'The game in progress is kept aside and comes back when the puzzles close.': 'चलिरहेको खेल छुट्टै राखिन्छ र पहेलीहरू बन्द हुँदा फर्किन्छ।',
    'One move keeps it. Play it on the board.': 'एउटै चालले यो जोगाउँछ। बोर्डमा खेल्नुहोस्।',
    Skip: 'छाड्नुहोस्',
    'Next puzzle': 'अर्को पहेली',
  });
}
