// A game played online (ONLINE.md) on the board: the page /?game=ID. The board (app.js) draws
// it and takes the person's clicks as in every game, through window.Board.online: the side the
// person plays (the cookie's player; anyone else watches), the clocks, the players' names and
// the result are the game stream's; a move is shown at once and sent to the server (POST
// .../move/MOVE?ply=N), and taken back with the server's reason when it is refused. The server
// is the truth: whenever its moves and the board's line differ, the board is set to its moves.
// Around the board: the players' actions (resign, abort, draw, takeback, rematch, claiming the
// win from a player who left), the chat, and after the end the review and the game's link.
// A reload, another tab or a phone waking opens the stream again and the game is as it is.
'use strict';

(() => {
  const t = (s, v) => (window.I18N ? I18N.t(s, v)
    : String(Array.isArray(s) ? s[v && Number(v.n) === 1 ? 0 : 1] : s).replace(/\{(\w+)\}/g, (m, k) => (v && k in v ? v[k] : m)));
  const $ = (id) => document.getElementById(id);
  const ID = new URLSearchParams(location.search).get('game');
  if (!ID) return;

  const B = () => window.Board;
  const O = () => window.Online;
  const other = (side) => (side === 'goats' ? 'tigers' : 'goats');
  const plain = (mv) => String(mv).replace(/^m/i, '').replace(/\(.*\)$/, '').toUpperCase();
  const gamePath = (action) => `/api/board/game/${encodeURIComponent(ID)}/${action}`;

  const game = {
    full: null,      // gameFull: the settings and the players
    state: null,     // the last gameState
    seat: null,      // 'goats' | 'tigers' for a player, null for a spectator
    error: null,     // the game could not be loaded
    gone: { goats: null, tigers: null }, // a player away: {at, seconds} (seconds 0: the win may be claimed)
    rematch: undefined, // the rematch the first state named (an old one is not followed)
    flipped: false,
  };
  let es = null;
  let pending = null;   // the person's move on its way: {ply, move}
  let applying = false; // the board plays the server's move (not the person's)
  let queue = Promise.resolve();
  let root = null;      // the board's root as this file last set it
  let resignAsked = 0;
  let hiddenAt = 0;
  const chat = [];

  // ---- what the board asks (app.js: window.Board.online) ---------------------------------------

  const online = {
    seat: null,
    live: false,
    clock: null,
    get result() { return resultOf(game.state); },
    who(side) {
      const p = game.full && game.full[side];
      if (!p) return '';
      const r = O() ? O().ratingText(p) : '';
      let s = r ? `${p.name} ${r}` : p.name;
      const d = game.state && game.state.ratingDiff;
      if (d && typeof d[side] === 'number') s += ` ${d[side] >= 0 ? '+' : '−'}${Math.abs(d[side])}`;
      if (side === game.seat) s += ` · ${t('you')}`;
      return s;
    },
    // The person's move at the end of the line on their turn: sent; anything else is not played.
    move(entry, at) {
      if (applying) return true;
      const st = game.state;
      if (!online.live || !game.seat || !st || st.turn !== game.seat || pending || at.children.length) return false;
      const S = B().state;
      if (B().lineOf(S.root).pop() !== at || B().plyOf(at) !== st.plies) return false;
      const mv = plain(entry.move);
      pending = { ply: st.plies, move: mv };
      // The clocks as the server will have them: the mover's stops (with its increment once they
      // run), the other one starts once each side has moved.
      const c = online.clock;
      if (c) {
        const now = performance.now();
        if (c.running === game.seat) c.left[game.seat] = Math.max(0, c.left[game.seat] - (now - c.since)) + c.inc;
        c.running = st.plies + 1 >= 2 ? other(game.seat) : null;
        c.since = now;
      }
      send(st.plies, mv);
      renderCard();
      return true;
    },
  };
  (window.Board = window.Board || {}).online = online;

  async function send(ply, mv) {
    try {
      await O().api('POST', `${gamePath('move')}/${encodeURIComponent(mv)}?ply=${ply}`);
      showError(null);
    } catch (e) {
      pending = null;
      showError(e);
      resync();
    }
  }

  // ---- the server's game -------------------------------------------------------------------------

  function resultOf(st) {
    if (!st || st.status === 'started') return null;
    const winner = st.winner || null;
    const loser = winner ? other(winner) : null;
    const keys = { captured: 'five-captured', trapped: 'tigers-trapped', stuck: 'goats-stuck', blocked: 'repetition-blocked',
      repetition: 'repetition-draw', resign: 'resign', outoftime: 'time' };
    if (keys[st.status]) return { winner, reason: keys[st.status], description: st.reason };
    const words = {
      timeout: () => (loser === 'goats' ? t('the goats left the game') : t('the tigers left the game')),
      draw: () => t('draw agreed'),
      aborted: () => t('the game was aborted'),
      noStart: () => t('a side did not make its first move'),
    };
    const aborted = st.status === 'aborted' || st.status === 'noStart';
    return { winner, reason: 'online', title: aborted ? t('Game aborted') : null,
      description: words[st.status] ? words[st.status]() : st.reason };
  }

  function clockOf(st) {
    const c = game.full && game.full.clock;
    if (!c || typeof st.gtime !== 'number') return null;
    return { base: c.initial, inc: c.increment, left: { goats: st.gtime, tigers: st.ttime },
      running: st.clockRunning && st.status === 'started' ? st.turn : null, since: performance.now(),
      flag: st.status === 'outoftime' ? other(st.winner) : null };
  }

  function onFull(full) {
    game.full = full;
    const me = O().me;
    game.seat = me && full.goats && full.goats.id === me.id ? 'goats' : me && full.tigers && full.tigers.id === me.id ? 'tigers' : null;
    online.seat = game.seat;
    // The person's side at the bottom, once (the Flip button turns it after).
    if (!game.flipped) {
      game.flipped = true;
      const want = game.seat === 'tigers';
      if (B().state.flipped !== want) B().flip();
    }
    onState(full.state);
  }

  function onState(st) {
    if (!game.full) return;
    game.state = st;
    game.stateAt = performance.now();
    if (pending && (st.plies > pending.ply || st.status !== 'started')) pending = null;
    online.live = st.status === 'started';
    online.clock = clockOf(st);
    if (game.rematch === undefined) game.rematch = st.rematch || null;
    else if (st.rematch && st.rematch !== game.rematch) { O().goToGame(st.rematch); return; }
    if (!online.live) { game.gone = { goats: null, tigers: null }; closeOffers(); }
    const moves = st.moves ? st.moves.split(' ').filter(Boolean) : [];
    enqueue(() => syncBoard(moves));
    renderCard();
  }

  function closeOffers() { resignAsked = 0; }

  // One change of the board at a time, in the order the stream sent them.
  function enqueue(f) {
    queue = queue.then(f).catch((e) => { console.error(e); });
    return queue;
  }

  async function restart(moves) {
    await B().start(game.full.initialObx, moves, game.full.rule, { online: true });
    root = B().state.root;
    B().renderAll();
  }

  // The board's main line made the server's: the moves it lacks are played on it (shown as
  // moves), a line that differs is set again whole.
  async function syncBoard(moves) {
    const S = B().state;
    if (root !== S.root || S.startObx !== game.full.initialObx.trim() || S.rule !== game.full.rule) { await restart(moves); return; }
    const line = B().lineOf(S.root);
    let k = 0;
    while (k + 1 < line.length && k < moves.length && plain(line[k + 1].move) === moves[k].toUpperCase()) k++;
    const extra = line.length - 1 - k;
    if (extra > 0) {
      // The person's move on its way is not in this state yet.
      if (extra === 1 && k === moves.length && pending && pending.ply === k) { B().renderAll(); return; }
      await restart(moves);
      return;
    }
    if (moves.length - k > 4) { await restart(moves); return; }
    for (let i = k; i < moves.length; i++) {
      const leaf = B().lineOf(S.root).pop();
      if (!(await B().ensurePos(leaf)) || root !== S.root) { await restart(moves); return; }
      const entry = (leaf.pos.legal || []).find((x) => plain(x.move) === moves[i].toUpperCase()) || B().entryOf(moves[i]);
      applying = true;
      let p;
      try { p = B().play(entry, leaf); } finally { applying = false; }
      await p;
    }
    B().renderAll();
  }

  async function resync() {
    try {
      onFull(await O().api('GET', `/api/game/${encodeURIComponent(ID)}`));
    } catch (e) {
      showError(e);
    }
  }

  // ---- the stream ------------------------------------------------------------------------------

  function onMessage(ev) {
    let m;
    try { m = JSON.parse(ev.data); } catch (e) { return; }
    if (m.type === 'gameFull') onFull(m);
    else if (m.type === 'gameState') onState(m);
    else if (m.type === 'chatLine') addChat(m);
    else if (m.type === 'opponentGone' && (m.side === 'goats' || m.side === 'tigers')) {
      game.gone[m.side] = m.gone ? { at: performance.now(), seconds: Number(m.claimWinInSeconds) || 0 } : null;
      renderCard();
    }
  }

  function openStream() {
    closeStream();
    const s = new EventSource(`/api/game/${encodeURIComponent(ID)}/stream`);
    es = s;
    s.onmessage = onMessage;
    s.onerror = () => {
      if (es !== s) return;
      // A finished game's stream ends after its record; a live one is opened again (the
      // browser does so by itself unless the server refused it).
      if (game.state && game.state.status !== 'started') { closeStream(); return; }
      if (s.readyState === EventSource.CLOSED) setTimeout(() => { if (es === s) openStream(); }, 3000);
    };
  }

  function closeStream() {
    if (es) es.close();
    es = null;
  }

  // ---- the players' actions --------------------------------------------------------------------

  async function act(action, after) {
    showError(null);
    try {
      const data = await O().api('POST', gamePath(action));
      if (after) after(data);
    } catch (e) {
      showError(e);
    }
  }

  function showError(e) {
    const el = $('online-error');
    if (!el) return;
    game.lastError = e;
    el.textContent = e ? O().errorText(e) : '';
  }

  function resign() {
    const now = Date.now();
    if (now - resignAsked > 3000) {
      resignAsked = now;
      renderCard();
      setTimeout(renderCard, 3100);
      return;
    }
    resignAsked = 0;
    act('resign');
  }

  function addChat(m) {
    chat.push({ name: String(m.username || ''), text: String(m.text || '') });
    if (chat.length > 200) chat.shift();
    renderChat();
  }

  async function sendChat() {
    const input = $('chat-text');
    const text = input.value.trim();
    if (!text) return;
    if (new TextEncoder().encode(text).length > 140) { $('chat-error').textContent = t('a message has 1 to 140 bytes of text'); return; }
    $('chat-error').textContent = '';
    try {
      await O().api('POST', gamePath('chat'), { text });
      input.value = '';
    } catch (e) {
      $('chat-error').textContent = O().errorText(e);
    }
  }

  // After the end: the board's own review of the game, as a game of the page's own.
  async function review() {
    const st = game.state;
    const full = game.full;
    closeStream();
    window.Board.online = null;
    document.body.classList.remove('online');
    $('online-card').hidden = true;
    $('online-chat').hidden = true;
    history.replaceState(null, '', location.pathname);
    await B().start(full.initialObx, st.moves ? st.moves.split(' ').filter(Boolean) : [], full.rule);
    B().setMode('human');
    const open = $('review-open');
    if (open) { open.click(); open.focus({ preventScroll: true }); }
  }

  async function copyLink() {
    const field = $('online-link');
    const ok = await window.Board.copy(field.value, field);
    game.copied = ok ? Date.now() + 2000 : 0;
    renderCard();
    setTimeout(renderCard, 2100);
  }

  // ---- drawing ---------------------------------------------------------------------------------

  function html(tag, cls, text, parent) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }

  function button(id, cls, parent, onClick) {
    const b = html('button', cls || null, null, parent);
    b.type = 'button';
    b.id = id;
    b.addEventListener('click', onClick);
    return b;
  }

  function build() {
    const card = html('section', 'card online-card');
    card.id = 'online-card';
    card.setAttribute('aria-labelledby', 'online-title');
    const head = html('div', 'card-title', null, card);
    html('h2', 'online-title', null, head).id = 'online-title';
    html('span', 'source', null, head).id = 'online-meta';
    const status = html('p', 'online-status', null, card);
    status.id = 'online-status';
    status.setAttribute('aria-live', 'polite');
    const offer = html('div', 'online-offer', null, card);
    offer.id = 'online-offer';
    const said = html('span', null, null, offer);
    said.id = 'online-offer-text';
    said.setAttribute('aria-live', 'polite');
    button('online-yes', 'small primary', offer, () => act(`${game.offer}/yes`, (d) => { if (d && d.game) O().goToGame(d.game); }));
    button('online-no', 'small', offer, () => act(`${game.offer}/no`));
    html('p', 'online-note', null, card).id = 'online-note';
    const bar = html('div', 'buttons online-actions', null, card);
    button('online-resign', null, bar, resign);
    button('online-abort', null, bar, () => act('abort'));
    button('online-draw', null, bar, () => act(game.state.drawOffer === game.seat ? 'draw/no' : 'draw/yes'));
    button('online-takeback', null, bar, () => act(game.state.takebackOffer === game.seat ? 'takeback/no' : 'takeback/yes'));
    button('online-claim', 'primary', bar, () => act('claim-victory'));
    button('online-rematch', 'primary', bar, () => act(game.state.rematchOffer === game.seat ? 'rematch/no' : 'rematch/yes',
      (d) => { if (d && d.game) O().goToGame(d.game); }));
    button('online-review', null, bar, review);
    button('online-lobby', null, bar, () => O().openLobby());
    const share = html('div', 'online-share', null, card);
    share.id = 'online-share';
    share.hidden = true;
    const link = html('input', null, null, share);
    link.id = 'online-link';
    link.readOnly = true;
    button('online-copy', 'small', share, copyLink);
    const err = html('p', 'obx-error', null, card);
    err.id = 'online-error';
    err.setAttribute('role', 'alert');
    const moves = $('moves-card');
    moves.parentNode.insertBefore(card, moves);

    const box = html('section', 'card chat-card');
    box.id = 'online-chat';
    box.setAttribute('aria-labelledby', 'chat-title');
    html('h2', 'card-title', null, box).id = 'chat-title';
    const lines = html('div', 'chat-lines', null, box);
    lines.id = 'chat-lines';
    lines.setAttribute('role', 'log');
    lines.tabIndex = 0;
    const form = html('form', 'chat-form', null, box);
    form.id = 'chat-form';
    const input = html('input', null, null, form);
    input.id = 'chat-text';
    input.maxLength = 140;
    input.autocomplete = 'off';
    const sendButton = html('button', null, null, form);
    sendButton.type = 'submit';
    sendButton.id = 'chat-send';
    html('p', 'lobby-hint', null, box).id = 'chat-note';
    const cerr = html('p', 'obx-error', null, box);
    cerr.id = 'chat-error';
    cerr.setAttribute('role', 'alert');
    form.addEventListener('submit', (e) => { e.preventDefault(); sendChat(); });
    const tools = document.querySelector('.tools');
    tools.insertBefore(box, tools.firstChild);
  }

  function nameOf(side) {
    const p = game.full && game.full[side];
    return p ? p.name : side === 'goats' ? t('Goats') : t('Tigers');
  }

  function statusText() {
    const st = game.state;
    if (!st) return game.error ? O().errorText(game.error) : t('Loading…');
    const r = online.result;
    if (r) {
      const w = B().resultWords(r);
      return w.reason ? `${w.title} · ${w.reason}` : w.title;
    }
    if (game.seat) return st.turn === game.seat ? t('Your turn') : t('Waiting for {name}', { name: nameOf(st.turn) });
    return st.turn === 'goats' ? t('{name} to move (goats)', { name: nameOf('goats') }) : t('{name} to move (tigers)', { name: nameOf('tigers') });
  }

  // The offer the person may answer (draw, takeback, rematch), or what the person offered.
  function offerOf(st) {
    if (!st) return null;
    const opp = game.seat ? other(game.seat) : null;
    for (const [what, key] of [['draw', 'drawOffer'], ['takeback', 'takebackOffer'], ['rematch', 'rematchOffer']]) {
      const by = st[key];
      if (!by) continue;
      const name = nameOf(by);
      const texts = {
        draw: by === game.seat ? t('You offered a draw.') : t('{name} offers a draw.', { name }),
        takeback: by === game.seat ? t('You asked to take your move back.') : t('{name} asks to take a move back.', { name }),
        rematch: by === game.seat ? t('You offered a rematch.') : t('{name} offers a rematch.', { name }),
      };
      return { what, text: texts[what], answer: Boolean(opp && by === opp) };
    }
    return null;
  }

  // What counts down: a player away, the time left for the first move.
  function noteText() {
    const st = game.state;
    if (!st) return '';
    if (st.status === 'started' && game.seat) {
      const opp = other(game.seat);
      const g = game.gone[opp];
      if (g) {
        const left = Math.max(0, Math.ceil(g.seconds - (performance.now() - g.at) / 1000));
        return g.seconds === 0 ? t('{name} left the game: you may claim the win.', { name: nameOf(opp) })
          : t('{name} left the game: you may claim the win in {n} s if they do not come back.', { name: nameOf(opp), n: left });
      }
    }
    if (st.status === 'started' && typeof st.firstMoveMs === 'number') {
      const left = Math.max(0, Math.ceil((st.firstMoveMs - (performance.now() - game.stateAt)) / 1000));
      if (game.seat === st.turn) return t('Your first move: {n} s left, or the game is aborted.', { n: left });
      return t('{name} has {n} s for the first move.', { name: nameOf(st.turn), n: left });
    }
    return '';
  }

  function renderCard() {
    const card = $('online-card');
    if (!card || card.hidden) return;
    const st = game.state;
    const full = game.full;
    const live = Boolean(st && st.status === 'started');
    const player = Boolean(game.seat);
    $('online-title').textContent = full ? (full.rated ? t('Rated game') : t('Casual game')) : t('Online game');
    $('online-meta').textContent = full ? `${O().tcText(full.clock)} · ${full.rule === 'draw' ? t('3rd repetition draws') : t('no repetition')}` : '';
    $('online-status').textContent = statusText();
    card.setAttribute('data-status', st ? st.status : 'loading');
    card.setAttribute('data-seat', game.seat || 'none');
    card.setAttribute('data-plies', st ? String(st.plies) : '');
    const offer = offerOf(st);
    game.offer = offer && offer.answer ? offer.what : null;
    $('online-offer').hidden = !offer;
    $('online-offer-text').textContent = offer ? offer.text : '';
    $('online-yes').hidden = !(offer && offer.answer);
    $('online-no').hidden = !(offer && offer.answer);
    $('online-yes').textContent = t('Accept');
    $('online-no').textContent = t('Decline');
    $('online-note').textContent = noteText();
    const plies = st ? st.plies : 0;
    const mine = player && st ? Math.floor(plies / 2) + (plies % 2 && game.seat === 'goats' ? 1 : 0) : 0;
    const confirming = Date.now() - resignAsked <= 3000;
    const rb = $('online-resign');
    rb.hidden = !(live && player && plies >= 2);
    rb.textContent = confirming ? t('Confirm resignation?') : t('Resign');
    rb.classList.toggle('confirm', confirming);
    $('online-abort').hidden = !(live && player && plies < 2);
    $('online-abort').textContent = t('Abort');
    const draw = $('online-draw');
    draw.hidden = !(live && player && full.rule === 'draw' && (!st.drawOffer || st.drawOffer === game.seat));
    draw.textContent = st && st.drawOffer === game.seat ? t('Withdraw the draw offer') : t('Offer a draw');
    const tb = $('online-takeback');
    tb.hidden = !(live && player && mine > 0 && (!st.takebackOffer || st.takebackOffer === game.seat));
    tb.textContent = st && st.takebackOffer === game.seat ? t('Withdraw the takeback') : t('Ask to take back');
    const g = game.seat ? game.gone[other(game.seat)] : null;
    $('online-claim').hidden = !(live && player && g && g.seconds === 0);
    $('online-claim').textContent = t('Claim the win');
    const rm = $('online-rematch');
    rm.hidden = !(st && !live && player && !st.rematch && (!st.rematchOffer || st.rematchOffer === game.seat));
    rm.textContent = st && st.rematchOffer === game.seat ? t('Withdraw the rematch offer') : t('Rematch');
    $('online-review').hidden = !(st && !live);
    $('online-review').textContent = t('Review');
    $('online-lobby').textContent = t('Lobby');
    $('online-share').hidden = !(st && !live);
    $('online-link').value = new URL(`/?game=${encodeURIComponent(ID)}`, location.origin).href;
    $('online-link').setAttribute('aria-label', t('Link to this game'));
    $('online-copy').textContent = game.copied && Date.now() < game.copied ? t('Copied') : t('Copy');
    if (game.lastError && $('online-error').textContent) $('online-error').textContent = O().errorText(game.lastError);
    renderChat();
    keepFocus();
  }

  function renderChat() {
    const box = $('online-chat');
    if (!box || box.hidden) return;
    $('chat-title').textContent = t('Chat');
    const lines = $('chat-lines');
    lines.setAttribute('aria-label', t('Chat messages'));
    while (lines.children.length > chat.length) lines.firstChild.remove();
    for (let i = lines.children.length; i < chat.length; i++) {
      const line = html('div', 'chat-line', null, lines);
      html('strong', null, chat[i].name, line);
      html('span', null, ` ${chat[i].text}`, line);
    }
    lines.scrollTop = lines.scrollHeight;
    const canWrite = Boolean(game.seat);
    $('chat-form').hidden = !canWrite;
    $('chat-text').setAttribute('aria-label', t('Message'));
    $('chat-text').placeholder = t('Say something to your opponent');
    $('chat-send').textContent = t('Send');
    $('chat-note').hidden = canWrite || !game.state;
    $('chat-note').textContent = t('Only the players write here.');
  }

  // A button of the card that goes while it has the focus (Resign at the end, Accept once
  // answered) leaves the focus on the card's next action, never on the page.
  let focused = null;
  function keepFocus() {
    if (!focused || focused.isConnected === false || !$('online-card').contains(focused)) return;
    if (!focused.hidden && focused.getClientRects().length) return;
    const next = [...$('online-card').querySelectorAll('button')].find((b) => !b.hidden && b.getClientRects().length);
    if (next) next.focus({ preventScroll: true });
  }

  // ---- start -----------------------------------------------------------------------------------

  async function load() {
    try { await O().account(false); } catch (e) { /* watched as a visitor */ }
    try {
      onFull(await O().api('GET', `/api/game/${encodeURIComponent(ID)}`));
    } catch (e) {
      game.error = e;
      renderCard();
      if (e.status === 404) return;
    }
    openStream();
  }

  document.addEventListener('DOMContentLoaded', () => {
    if (!$('moves-card')) return;
    document.body.classList.add('online');
    build();
    $('online-card').addEventListener('focusin', (e) => { focused = e.target; });
    renderCard();
    if (window.I18N && I18N.onChange) I18N.onChange(() => { renderCard(); });
    setInterval(() => {
      const n = $('online-note');
      if (n && !$('online-card').hidden) n.textContent = noteText();
    }, 500);
    document.addEventListener('visibilitychange', () => {
      if (document.hidden) { hiddenAt = performance.now(); return; }
      // Back after a while (a phone waking): the stream again, and with it the game as it is now.
      if (hiddenAt && performance.now() - hiddenAt > 3000 && window.Board.online && (!game.state || game.state.status === 'started')) openStream();
      hiddenAt = 0;
    });
    window.addEventListener('online', () => { if (window.Board.online && (!game.state || game.state.status === 'started')) openStream(); });
    load();
  });
})();

if (window.I18N) {
  I18N.add('ne', {
    'the goats left the game': 'बाख्रा खेल छोडेर गए',
    'the tigers left the game': 'बाघ खेल छोडेर गए',
    'draw agreed': 'बराबरीमा सहमति',
    'the game was aborted': 'खेल रद्द भयो',
    'a side did not make its first move': 'एक पक्षले पहिलो चाल चालेन',
    'Game aborted': 'खेल रद्द',
    'Your turn': 'तपाईंको पालो',
    'Waiting for {name}': '{name} को प्रतीक्षामा',
    '{name} to move (goats)': '{name} को पालो (बाख्रा)',
    '{name} to move (tigers)': '{name} को पालो (बाघ)',
    'You offered a draw.': 'तपाईंले बराबरीको प्रस्ताव गर्नुभयो।',
    '{name} offers a draw.': '{name} बराबरीको प्रस्ताव गर्छन्।',
    'You asked to take your move back.': 'तपाईंले आफ्नो चाल फिर्ता माग्नुभयो।',
    '{name} asks to take a move back.': '{name} एउटा चाल फिर्ता माग्छन्।',
    'You offered a rematch.': 'तपाईंले फेरि खेल्ने प्रस्ताव गर्नुभयो।',
    '{name} offers a rematch.': '{name} फेरि खेल्ने प्रस्ताव गर्छन्।',
    '{name} left the game: you may claim the win.': '{name} खेल छोडेर गए: तपाईं जित दाबी गर्न सक्नुहुन्छ।',
    '{name} left the game: you may claim the win in {n} s if they do not come back.':
      '{name} खेल छोडेर गए: उनी नफर्के {n} सेकेन्डमा तपाईं जित दाबी गर्न सक्नुहुन्छ।',
    'Your first move: {n} s left, or the game is aborted.': 'तपाईंको पहिलो चाल: {n} सेकेन्ड बाँकी, नत्र खेल रद्द हुन्छ।',
    '{name} has {n} s for the first move.': '{name} सँग पहिलो चालका लागि {n} सेकेन्ड छ।',
    'Rated game': 'रेटिङ हुने खेल',
    'Casual game': 'अनौपचारिक खेल',
    'Online game': 'अनलाइन खेल',
    Decline: 'अस्वीकार',
    'Confirm resignation?': 'हार मान्ने पक्का?',
    Abort: 'रद्द गर्नुहोस्',
    'Withdraw the draw offer': 'बराबरीको प्रस्ताव फिर्ता',
    'Offer a draw': 'बराबरीको प्रस्ताव',
    'Withdraw the takeback': 'चाल फिर्ताको माग फिर्ता',
    'Ask to take back': 'चाल फिर्ता माग्नुहोस्',
    'Claim the win': 'जित दाबी गर्नुहोस्',
    'Withdraw the rematch offer': 'फेरि खेल्ने प्रस्ताव फिर्ता',
    Rematch: 'फेरि खेल्नुहोस्',
    Lobby: 'लबी',
    'Link to this game': 'यो खेलको लिङ्क',
    Chat: 'कुराकानी',
    'Chat messages': 'कुराकानीका सन्देश',
    Message: 'सन्देश',
    'Say something to your opponent': 'प्रतिद्वन्द्वीलाई केही भन्नुहोस्',
    Send: 'पठाउनुहोस्',
    'Only the players write here.': 'यहाँ खेलाडीहरूले मात्र लेख्छन्।',
  });
}
