// Puzzles: positions from the game's full solution where exactly one move keeps the win (or
// the draw), with the line that follows (puzzles.json, written by baghchal-puzzles; README,
// "Puzzles"). The person plays the side to move; a move is right when it is the line's, and
// the board answers with the line's reply; any other move ends the puzzle as failed and shows
// the solution. The solutions come with the page: nothing here knows a rule. The positions and
// their legal moves are the server's (/legal), or in the static board the engine worker's.
// A streak (puzzles solved in a row) and the best streak are kept in localStorage.
'use strict';

(() => {
  const t = (s, v) => (window.I18N ? I18N.t(s, v) : s.replace(/\{(\w+)\}/g, (_, k) => (v && k in v ? v[k] : '')));
  const $ = (id) => document.getElementById(id);
  const B = () => window.Board;
  const S = () => window.Board.state;
  const KEY = 'baghchal.puzzles';
  const LEVELS = ['any', 'easy', 'medium', 'hard'];

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
      return { streak: Number(s.streak) || 0, best: Number(s.best) || 0, level: LEVELS.includes(s.level) ? s.level : 'any',
        solved: s.solved && typeof s.solved === 'object' ? s.solved : {}, open: Boolean(s.open), current: Number(s.current) || 0,
        obx: typeof s.obx === 'string' ? s.obx : '' };
    } catch (e) {
      return { streak: 0, best: 0, level: 'any', solved: {}, open: false, current: 0, obx: '' };
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

  const entryText = (e) => e.text || e.move.replace(/^m/i, '').replace(/\(.*\)$/, '').toUpperCase();

  async function begin(p) {
    if (!p) { cur = null; render(); return; }
    if (S().mode !== 'human') { modeBefore = modeBefore || S().mode; B().setMode('human'); }
    // Puzzles are not played on the clock.
    S().tc = 'move';
    cur = { p, k: 0, at: null, root: null, phase: 'loading', feedback: null };
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

  function solved() {
    cur.phase = 'solved';
    saved.streak++;
    saved.best = Math.max(saved.best, saved.streak);
    saved.solved[cur.p.id] = 1;
    write();
    cur.feedback = { kind: 'right', text: t('Solved! The line: {line}.', { line: cur.p.line.join(', ') }) };
    render();
  }

  function failed(entry) {
    cur.phase = 'failed';
    saved.streak = 0;
    write();
    const goal = cur.p.goal === 'win' ? 'win' : 'draw';
    const text = goal === 'win' ? t('{move} lets the win go. The solution: {line}.', { move: entryText(entry), line: cur.p.line.slice(cur.k).join(', ') })
      : t('{move} lets the draw go. The solution: {line}.', { move: entryText(entry), line: cur.p.line.slice(cur.k).join(', ') });
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
    if (!reply) { c.phase = 'left'; c.feedback = { kind: 'wrong', text: t('The board does not know the reply {move}.', { move: c.p.line[c.k] }) }; render(); return; }
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
      meta.textContent = typeof cur.p.distance === 'number'
        ? t('Puzzle {id} · {level} · {phase} · the end in {n} plies', { id: cur.p.id, level: levelName(cur.p.level), phase, n: cur.p.distance })
        : t('Puzzle {id} · {level} · {phase}', { id: cur.p.id, level: levelName(cur.p.level), phase });
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
    write();
    cur = null;
    if (modeBefore && window.Board) { B().setMode(modeBefore); }
    modeBefore = null;
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
    if (saved.open && linked && linked.trim() !== saved.obx) { saved.open = false; write(); render(); }
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
    'Puzzle {id} · {level} · {phase} · the end in {n} plies': 'पहेली {id} · {level} · {phase} · {n} अर्धचालमा अन्त्य',
    'Puzzle {id} · {level} · {phase}': 'पहेली {id} · {level} · {phase}',
    'One move keeps it. Play it on the board.': 'एउटै चालले यो जोगाउँछ। बोर्डमा खेल्नुहोस्।',
    Skip: 'छाड्नुहोस्',
    'Next puzzle': 'अर्को पहेली',
  });
}
