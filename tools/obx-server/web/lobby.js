// Playing online (ONLINE.md): the person's account and the lobby. The account is a guest made
// at the first visit of the lobby (POST /api/account/anonymous); a name (and a password) may be
// picked, and a named player signs in from another browser. The token comes back as the cookie
// `bc`, which every request and stream of the page sends, and is kept in localStorage too (sent
// as "Authorization: Bearer" with the page's own requests). The lobby shows the open seeks, a
// form to create one or a link for a friend, the games being played with their clocks and the
// players online, all kept up to date by the lobby's stream; a seek of the person's own that is
// accepted (the player's event stream says gameStart) takes the page to the game (/?game=ID),
// which online.js shows. Nothing here knows a rule: the server is the referee.
'use strict';

(() => {
  const t = (s, v) => (window.I18N ? I18N.t(s, v)
    : String(Array.isArray(s) ? s[v && Number(v.n) === 1 ? 0 : 1] : s).replace(/\{(\w+)\}/g, (m, k) => (v && k in v ? v[k] : m)));
  const $ = (id) => document.getElementById(id);
  const KEY = 'baghchal.online';
  // The address as the page opened: app.js may rewrite it once the page's own game is restored.
  const query = new URLSearchParams(location.search);

  function html(tag, cls, text, parent) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }

  // Text written only when it changes (an open list of options is left alone).
  function setText(el, text) { if (el.textContent !== text) el.textContent = text; }

  function button(id, text, cls, parent) {
    const b = html('button', cls || null, text, parent);
    b.type = 'button';
    if (id) b.id = id;
    return b;
  }

  // ---- what the page keeps: the token, the lobby open or not, the last settings of a seek -----

  function kept() {
    try {
      const s = JSON.parse(localStorage.getItem(KEY) || '{}');
      return s && typeof s === 'object' ? s : {};
    } catch (e) {
      return {};
    }
  }

  function keep(patch) {
    try { localStorage.setItem(KEY, JSON.stringify({ ...kept(), ...patch })); } catch (e) { /* private mode: kept for this visit */ }
  }

  // ---- requests -------------------------------------------------------------------------------

  async function request(method, path, body, token) {
    const headers = {};
    if (token) headers.Authorization = `Bearer ${token}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let res;
    try {
      res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'same-origin' });
    } catch (e) {
      const err = new Error('the server cannot be reached');
      err.status = 0;
      throw err;
    }
    let data = null;
    try { data = await res.json(); } catch (e) { data = null; }
    if (!res.ok) {
      const err = new Error(data && data.error ? data.error : `HTTP ${res.status}`);
      err.status = res.status;
      err.code = data && data.code ? data.code : '';
      throw err;
    }
    return data;
  }

  // A request for the person: with the kept token, and once more with the cookie alone when the
  // server no longer knows that token (the room's database was replaced).
  async function api(method, path, body) {
    const token = kept().token;
    try {
      return await request(method, path, body, token);
    } catch (e) {
      if (e.status !== 401 || !token) throw e;
      keep({ token: null });
      return request(method, path, body, null);
    }
  }

  // A refusal in the page's language: in English the server's own words, in another language
  // what kind of refusal it is (ONLINE.md's codes).
  function errorText(e) {
    if (!e) return '';
    if (!e.status) return t('the server cannot be reached');
    if (!window.I18N || I18N.lang === 'en') return e.message;
    const said = {
      'name-taken': () => t('this name is taken'),
      name: () => t('a name has 3 to 20 letters, digits, _ or -, starting with a letter; a password has 8 to 128 characters'),
      login: () => t('wrong name or password'),
      rate: () => t('too many requests: wait a moment'),
      rated: () => t('rated games are between named players: pick a name first'),
      self: () => t('this is your own game: someone else accepts it'),
      'no-challenge': () => t('this game is no longer open: it was taken or cancelled'),
      'too-many-seeks': () => t('at most 5 open games at once: cancel one'),
      'not-your-turn': () => t('it is not your turn'),
      stale: () => t('the game had moved on'),
      illegal: () => t('the server refused the move'),
      flag: () => t('your time ran out before the move arrived'),
      over: () => t('the game is over'),
      'too-late': () => t('a game is aborted before its second move only: resign instead'),
      'no-draws': () => t('under this rule no game is drawn'),
      'no-move': () => t('you have no move to take back'),
      'not-gone': () => t('your opponent has not been away long enough'),
      chat: () => t('a message has 1 to 140 bytes of text'),
      'not-a-player': () => t('you are not a player of this game'),
      'no-game': () => t('there is no such game'),
      'shutting-down': () => t('the server is stopping'),
      storage: () => t('the server could not store it: try again'),
    };
    if (said[e.code]) return said[e.code]();
    if (e.status === 503) return t('the server is busy');
    return t('the server refused the request (HTTP {status})', { status: e.status });
  }

  // ---- the account ----------------------------------------------------------------------------

  let me = null; // the player: {id, name, kind, ratings}
  const listeners = [];

  function signedIn(data) {
    if (data && data.token) keep({ token: data.token });
    me = data ? { id: data.id, name: data.name, kind: data.kind, ratings: data.ratings || null } : null;
    for (const f of listeners) f(me);
    return me;
  }

  // The person's account: the cookie's (or the kept token's); with create, a new guest when there
  // is none. Null when there is none and none is made (a visitor who only watches).
  async function account(create) {
    if (me) return me;
    try {
      return signedIn(await api('GET', '/api/account'));
    } catch (e) {
      if (e.status !== 401) throw e;
    }
    return create ? signedIn(await request('POST', '/api/account/anonymous')) : null;
  }

  // "3+2", "½+0", or "∞" without a clock (times in ms, as the server gives them).
  function tcText(clock) {
    if (!clock) return '∞';
    const m = clock.initial / 60000;
    const part = { 0.25: '¼', 0.5: '½', 0.75: '¾' }[m];
    const min = part || String(Math.round(m * 100) / 100);
    return `${min}+${Math.round(clock.increment / 1000)}`;
  }

  // A player's rating as the server shows it ("1500?" while provisional), or "guest".
  function ratingText(p) {
    if (!p) return '';
    if (typeof p.rating === 'number') return `${p.rating}${p.provisional ? '?' : ''}`;
    return p.kind === 'anon' ? t('guest') : '';
  }

  function fmtClock(ms) {
    if (ms === null || ms === undefined) return '';
    ms = Math.max(0, ms);
    if (ms < 10000) return `0:0${(Math.floor(ms / 100) / 10).toFixed(1)}`;
    const s = Math.ceil(ms / 1000);
    const h = Math.floor(s / 3600);
    const m = Math.floor((s % 3600) / 60);
    const sec = String(s % 60).padStart(2, '0');
    return h ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
  }

  function goToGame(id) {
    keep({ lobby: false });
    location.assign(`/?game=${encodeURIComponent(id)}`);
  }

  // What online.js shares.
  window.Online = { api, account, errorText, tcText, ratingText, fmtClock, goToGame, keep, kept, get me() { return me; },
    onAccount(f) { listeners.push(f); },
    // The lobby from anywhere: from a game's page by a new page (the board's own game comes back).
    openLobby() { keep({ lobby: true }); if (query.get('game')) location.assign('/'); else open(); } };

  // ---- the lobby's page -------------------------------------------------------------------------

  const SIDES = ['goats', 'random', 'tigers'];
  const TCS = ['1+0', '1+1', '2+1', '3+0', '3+2', '5+0', '5+3', '10+0', '10+5', '15+10', '30+0', 'custom', 'none'];

  let built = false;
  let shown = false;
  let lobbyEs = null;
  let eventEs = null;
  let eventsOpened = 0;
  let ticker = null;
  const seeks = new Map();     // id -> seek
  let games = [];              // the games being played, each with `at` (when its clocks were sent)
  let players = [];
  let counts = { online: 0, playing: 0 };
  let friend = null;           // the person's link for a friend: {id, url}
  const mine = new Map();      // games the person plays now (their gameStart): id -> summary
  const busy = new Set();      // seeks whose Accept or Cancel is on its way

  function label(text, control, parent, cls) {
    const l = html('label', cls || 'row', null, parent);
    html('span', null, text, l);
    l.appendChild(control);
    return l;
  }

  function select(id, options) {
    const s = document.createElement('select');
    s.id = id;
    for (const [value] of options) {
      const o = html('option', null, null, s);
      o.value = value;
    }
    return s;
  }

  // The page's parts, made once; their words are written by render (and again on a switch of
  // language).
  function build() {
    if (built) return;
    built = true;
    const sec = html('section', 'lobby');
    sec.id = 'lobby';
    sec.hidden = true;
    sec.setAttribute('aria-labelledby', 'lobby-title');
    const head = html('div', 'lobby-head', null, sec);
    html('h2', null, null, head).id = 'lobby-title';
    html('span', 'source', null, head).id = 'lobby-count';
    button('lobby-close', null, 'small', head);

    const grid = html('div', 'lobby-grid', null, sec);
    const left = html('div', 'lobby-col', null, grid);

    // The account: who the person is; a name, a password, a sign-in.
    const acct = html('section', 'card account-card', null, left);
    acct.setAttribute('aria-labelledby', 'acct-title');
    html('h3', 'card-title', null, acct).id = 'acct-title';
    html('p', 'acct-who', null, acct).id = 'acct-who';
    const ab = html('div', 'buttons', null, acct);
    button('acct-name', null, null, ab);
    button('acct-login', null, null, ab);
    button('acct-out', null, null, ab);
    const form = html('form', 'acct-form', null, acct);
    form.id = 'acct-form';
    form.hidden = true;
    const user = html('input');
    user.id = 'acct-user';
    user.autocomplete = 'username';
    user.maxLength = 20;
    user.required = true;
    user.spellcheck = false;
    label('', user, form).id = 'acct-user-label';
    const pass = html('input');
    pass.id = 'acct-pass';
    pass.type = 'password';
    pass.maxLength = 128;
    label('', pass, form).id = 'acct-pass-label';
    html('p', 'lobby-hint', null, form).id = 'acct-hint';
    const fb = html('div', 'buttons', null, form);
    const submit = html('button', 'primary', null, fb);
    submit.type = 'submit';
    submit.id = 'acct-submit';
    button('acct-cancel', null, null, fb);
    const aerr = html('p', 'obx-error', null, acct);
    aerr.id = 'acct-error';
    aerr.setAttribute('role', 'alert');

    // A new game: the side, the clock, the rule, rated or not; in the lobby or for a friend.
    const create = html('section', 'card create-card', null, left);
    create.setAttribute('aria-labelledby', 'create-title');
    html('h3', 'card-title', null, create).id = 'create-title';
    label('', select('seek-side', SIDES.map((s) => [s])), create).id = 'seek-side-label';
    label('', select('seek-tc', TCS.map((s) => [s])), create).id = 'seek-tc-label';
    const custom = html('div', 'row custom-tc', null, create);
    custom.id = 'seek-custom';
    custom.hidden = true;
    const min = html('input');
    min.id = 'seek-min';
    min.type = 'number';
    min.min = '0';
    min.max = '180';
    min.step = 'any';
    label('', min, custom, 'seek-num').id = 'seek-min-label';
    const inc = html('input');
    inc.id = 'seek-inc';
    inc.type = 'number';
    inc.min = '0';
    inc.max = '180';
    inc.step = '1';
    label('', inc, custom, 'seek-num').id = 'seek-inc-label';
    label('', select('seek-rule', [['forbid'], ['draw']]), create).id = 'seek-rule-label';
    const rated = html('input');
    rated.type = 'checkbox';
    rated.id = 'seek-rated';
    const rl = html('label', 'check row', null, create);
    rl.appendChild(rated);
    html('span', null, null, rl).id = 'seek-rated-text';
    html('p', 'lobby-hint', null, create).id = 'seek-rated-hint';
    const cb = html('div', 'buttons', null, create);
    button('seek-create', null, 'primary', cb);
    button('seek-friend', null, null, cb);
    const box = html('div', 'friend-box', null, create);
    box.id = 'friend-box';
    box.hidden = true;
    html('p', 'lobby-hint', null, box).id = 'friend-text';
    const url = html('input');
    url.id = 'friend-url';
    url.readOnly = true;
    box.appendChild(url);
    const fbb = html('div', 'buttons', null, box);
    button('friend-copy', null, null, fbb);
    button('friend-cancel', null, null, fbb);
    const serr = html('p', 'obx-error', null, create);
    serr.id = 'seek-error';
    serr.setAttribute('role', 'alert');

    // The open seeks.
    const sk = html('section', 'card seeks-card', null, grid);
    sk.setAttribute('aria-labelledby', 'seeks-title');
    html('h3', 'card-title', null, sk).id = 'seeks-title';
    const playing = html('p', 'lobby-mine', null, sk);
    playing.id = 'lobby-mine';
    playing.hidden = true;
    html('ul', 'seeks', null, sk).id = 'seeks';
    html('p', 'lobby-empty', null, sk).id = 'seeks-empty';
    const lerr = html('p', 'obx-error', null, sk);
    lerr.id = 'lobby-error';
    lerr.setAttribute('role', 'alert');

    const right = html('div', 'lobby-col', null, grid);
    const gs = html('section', 'card games-card', null, right);
    gs.setAttribute('aria-labelledby', 'games-title');
    html('h3', 'card-title', null, gs).id = 'games-title';
    html('ul', 'lobby-games', null, gs).id = 'lobby-games';
    html('p', 'lobby-empty', null, gs).id = 'games-empty';
    const ps = html('section', 'card players-card', null, right);
    ps.setAttribute('aria-labelledby', 'players-title');
    html('h3', 'card-title', null, ps).id = 'players-title';
    html('ul', 'lobby-players', null, ps).id = 'lobby-players';

    // In the page's main landmark, whose board is hidden meanwhile.
    const main = document.querySelector('main');
    main.insertBefore(sec, main.firstChild);

    const saved = kept().seek || {};
    $('seek-side').value = SIDES.includes(saved.side) ? saved.side : 'random';
    $('seek-tc').value = TCS.includes(saved.tc) ? saved.tc : '5+3';
    $('seek-min').value = String(typeof saved.min === 'number' ? saved.min : 5);
    $('seek-inc').value = String(typeof saved.inc === 'number' ? saved.inc : 3);
    $('seek-rule').value = saved.rule === 'draw' ? 'draw' : 'forbid';

    $('lobby-close').addEventListener('click', close);
    $('acct-name').addEventListener('click', () => openForm('name'));
    $('acct-login').addEventListener('click', () => openForm('login'));
    $('acct-out').addEventListener('click', signOut);
    $('acct-cancel').addEventListener('click', closeForm);
    form.addEventListener('submit', (e) => { e.preventDefault(); submitForm(); });
    for (const id of ['seek-side', 'seek-tc', 'seek-min', 'seek-inc', 'seek-rule']) $(id).addEventListener('change', () => { keepSettings(); render(); });
    $('seek-create').addEventListener('click', () => create_(true));
    $('seek-friend').addEventListener('click', () => create_(false));
    $('friend-copy').addEventListener('click', copyFriend);
    $('friend-cancel').addEventListener('click', cancelFriend);
    $('seeks').addEventListener('click', onSeekClick);
  }

  let formKind = null; // 'name' (a guest picks a name) or 'login'

  function openForm(kind) {
    formKind = kind;
    $('acct-form').hidden = false;
    $('acct-error').textContent = '';
    $('acct-pass').autocomplete = kind === 'login' ? 'current-password' : 'new-password';
    $('acct-pass').required = kind === 'login';
    render();
    $('acct-user').focus();
  }

  function closeForm() {
    formKind = null;
    $('acct-form').hidden = true;
    $('acct-user').value = '';
    $('acct-pass').value = '';
    render();
  }

  async function submitForm() {
    const name = $('acct-user').value.trim();
    const password = $('acct-pass').value;
    $('acct-error').textContent = '';
    try {
      let data;
      if (formKind === 'login') data = await request('POST', '/api/account/login', { name, password });
      else data = await api('POST', '/api/account/register', password ? { name, password } : { name });
      me = null;
      signedIn(data);
      const focusBack = formKind === 'login' ? 'acct-login' : 'acct-out';
      closeForm();
      reconnect();
      const b = $(focusBack);
      if (b && !b.hidden) b.focus();
      else $('acct-out').focus();
    } catch (e) {
      $('acct-error').textContent = errorText(e);
    }
  }

  // Signing out leaves a new guest: the page always plays as someone.
  async function signOut() {
    $('acct-error').textContent = '';
    try {
      keep({ token: null });
      me = null;
      signedIn(await request('POST', '/api/account/anonymous'));
      reconnect();
      $('acct-name').focus();
    } catch (e) {
      $('acct-error').textContent = errorText(e);
    }
  }

  function settings() {
    const tc = $('seek-tc').value;
    let clock = null;
    if (tc === 'custom') {
      const m = Math.max(0, Math.min(180, Number($('seek-min').value) || 0));
      const i = Math.max(0, Math.min(180, Math.round(Number($('seek-inc').value) || 0)));
      clock = { initial: Math.round(m * 60), increment: i };
    } else if (tc !== 'none') {
      const [m, i] = tc.split('+').map(Number);
      clock = { initial: m * 60, increment: i };
    }
    return { side: $('seek-side').value, clock, rule: $('seek-rule').value, rated: !$('seek-rated').disabled && $('seek-rated').checked };
  }

  function keepSettings() {
    keep({ seek: { side: $('seek-side').value, tc: $('seek-tc').value, min: Number($('seek-min').value) || 0,
      inc: Number($('seek-inc').value) || 0, rule: $('seek-rule').value } });
  }

  // A seek in the lobby (lobby) or a link for a friend.
  async function create_(lobby) {
    $('seek-error').textContent = '';
    try {
      await account(true);
      const data = await api('POST', lobby ? '/api/seek' : '/api/challenge', settings());
      if (lobby) {
        seeks.set(data.id, data);
      } else {
        friend = { id: data.id, url: new URL(data.url, location.origin).href };
        keep({ friend: data.id });
      }
      render();
    } catch (e) {
      $('seek-error').textContent = errorText(e);
    }
  }

  let copiedUntil = 0;

  async function copyFriend() {
    const field = $('friend-url');
    const ok = await window.Board.copy(field.value, field);
    copiedUntil = ok ? Date.now() + 2000 : 0;
    render();
    setTimeout(render, 2100);
  }

  async function cancelFriend() {
    if (!friend) return;
    const id = friend.id;
    friend = null;
    keep({ friend: null });
    connect();
    render();
    $('seek-friend').focus();
    try { await api('POST', `/api/challenge/${encodeURIComponent(id)}/cancel`); } catch (e) { /* gone already */ }
  }

  async function onSeekClick(e) {
    const b = e.target.closest('button[data-action]');
    if (!b) return;
    const id = b.getAttribute('data-seek');
    const action = b.getAttribute('data-action');
    $('lobby-error').textContent = '';
    busy.add(id);
    render();
    try {
      await account(true);
      const data = await api('POST', `/api/seek/${encodeURIComponent(id)}/${action}`);
      if (action === 'accept' && data && data.game) { goToGame(data.game); return; }
      if (action === 'cancel') { seeks.delete(id); $('seek-create').focus(); }
    } catch (err) {
      $('lobby-error').textContent = errorText(err);
      if (err.code === 'no-challenge') seeks.delete(id);
    }
    busy.delete(id);
    render();
  }

  // ---- the streams ----------------------------------------------------------------------------

  function onLobby(ev) {
    let m;
    try { m = JSON.parse(ev.data); } catch (e) { return; }
    const at = performance.now();
    if (m.type === 'lobby') {
      seeks.clear();
      for (const s of m.seeks || []) seeks.set(s.id, s);
      games = (m.games || []).map((g) => ({ ...g, at }));
      players = m.players || [];
      counts = { online: m.online || 0, playing: m.playing || 0 };
    } else if (m.type === 'seekAdded' && m.seek) {
      seeks.set(m.seek.id, m.seek);
    } else if (m.type === 'seekRemoved') {
      const s = seeks.get(m.id);
      seeks.delete(m.id);
      // The person's own seek, taken: to the game (the event stream says so too).
      if (s && me && s.from && s.from.id === me.id && m.reason === 'accepted' && m.game) { goToGame(m.game); return; }
    } else if (m.type === 'lobbyUpdate') {
      if (m.games) { games = m.games.map((g) => ({ ...g, at })); counts.playing = m.games.length; }
      if (m.players) players = m.players;
      if (typeof m.online === 'number') counts.online = m.online;
    }
    render();
  }

  function onEvent(ev) {
    let m;
    try { m = JSON.parse(ev.data); } catch (e) { return; }
    if (m.type === 'gameStart' && m.game) {
      // A game the person's seek or link started goes on at once; one that was already under
      // way when the stream opened is offered.
      const waiting = friend || [...seeks.values()].some((s) => me && s.from && s.from.id === me.id);
      if (waiting || performance.now() - eventsOpened > 2000) { goToGame(m.game.id); return; }
      mine.set(m.game.id, m.game);
      render();
    } else if (m.type === 'gameFinish' && m.game) {
      mine.delete(m.game.id);
      render();
    }
  }

  // The lobby's stream while it is shown; the player's event stream while it is shown or a link
  // for a friend waits (the game it starts is joined from the board too).
  function connect() {
    if (shown && !lobbyEs) {
      lobbyEs = new EventSource('/api/lobby/stream');
      lobbyEs.onmessage = onLobby;
    } else if (!shown && lobbyEs) {
      lobbyEs.close();
      lobbyEs = null;
    }
    const events = Boolean(me) && (shown || Boolean(friend));
    if (events && !eventEs) {
      eventsOpened = performance.now();
      eventEs = new EventSource('/api/stream/event');
      eventEs.onmessage = onEvent;
      eventEs.onopen = () => { eventsOpened = performance.now(); };
    } else if (!events && eventEs) {
      eventEs.close();
      eventEs = null;
    }
  }

  // A new account: its streams (the lobby counts the person online by the cookie).
  function reconnect() {
    if (lobbyEs) { lobbyEs.close(); lobbyEs = null; }
    if (eventEs) { eventEs.close(); eventEs = null; }
    mine.clear();
    connect();
    render();
  }

  // ---- open and close -------------------------------------------------------------------------

  async function open() {
    build();
    shown = true;
    keep({ lobby: true });
    document.body.classList.add('in-lobby');
    $('lobby').hidden = false;
    $('online-open').setAttribute('aria-expanded', 'true');
    render();
    $('lobby-title').tabIndex = -1;
    $('lobby-title').focus({ preventScroll: true });
    window.scrollTo(0, 0);
    try {
      await account(true);
    } catch (e) {
      $('lobby-error').textContent = errorText(e);
    }
    if (!shown) return;
    const f = kept().friend;
    if (f && !friend) {
      try {
        const c = await api('GET', `/api/challenge/${encodeURIComponent(f)}`);
        if (me && c.from && c.from.id === me.id) friend = { id: c.id, url: new URL(c.url, location.origin).href };
        else keep({ friend: null });
      } catch (e) {
        if (e.status === 404) keep({ friend: null });
      }
    }
    connect();
    clearInterval(ticker);
    ticker = setInterval(tickClocks, 200);
    render();
  }

  // Leaving the lobby takes the person's seeks back, as nobody would be there to play them; a
  // link for a friend stays (its game is joined from the board).
  function close() {
    shown = false;
    keep({ lobby: false });
    for (const s of seeks.values()) {
      if (me && s.from && s.from.id === me.id) api('POST', `/api/seek/${encodeURIComponent(s.id)}/cancel`).catch(() => {});
    }
    connect();
    clearInterval(ticker);
    document.body.classList.remove('in-lobby');
    if ($('lobby')) $('lobby').hidden = true;
    $('online-open').setAttribute('aria-expanded', 'false');
    $('online-open').focus({ preventScroll: true });
  }

  // The board's page with a link for a friend waiting: its game is joined when it starts.
  async function waitForFriend(id) {
    try {
      if (!(await account(false))) return;
      const c = await api('GET', `/api/challenge/${encodeURIComponent(id)}`);
      if (c.from && c.from.id === me.id && !c.listed) { friend = { id: c.id, url: new URL(c.url, location.origin).href }; connect(); return; }
    } catch (e) {
      if (e.status !== 404) return;
    }
    keep({ friend: null });
  }

  // /?challenge=ID: the link a friend sent. Its game starts for whoever opens it first; the one
  // who made it waits in the lobby with the link shown.
  async function followLink(id) {
    history.replaceState(null, '', location.pathname);
    await open();
    try {
      await account(true);
      const c = await api('GET', `/api/challenge/${encodeURIComponent(id)}`);
      if (me && c.from && c.from.id === me.id) {
        if (!c.listed) { friend = { id: c.id, url: new URL(c.url, location.origin).href }; keep({ friend: c.id }); }
        render();
        return;
      }
      const data = await api('POST', `/api/challenge/${encodeURIComponent(id)}/accept`);
      if (data && data.game) goToGame(data.game);
    } catch (e) {
      $('lobby-error').textContent = e.code === 'no-challenge' ? t('This link\'s game is no longer open: it was taken or cancelled.') : errorText(e);
    }
  }

  // ---- drawing ------------------------------------------------------------------------------

  function sideText(side) { return side === 'goats' ? t('Goats') : side === 'tigers' ? t('Tigers') : t('Random side'); }

  // The seek's side as the person would play it.
  function seekSide(s) {
    const own = me && s.from && s.from.id === me.id;
    if (s.side === 'random') return { side: 'random', text: t('random side') };
    const side = own ? s.side : s.side === 'goats' ? 'tigers' : 'goats';
    return { side, text: side === 'goats' ? t('you play goats') : t('you play tigers') };
  }

  function ruleText(rule) { return rule === 'draw' ? t('3rd repetition draws') : t('no repetition'); }

  function playerLine(p, parent) {
    const w = html('span', 'lobby-who', null, parent);
    html('span', 'lobby-name', p ? p.name : '?', w);
    const r = ratingText(p);
    if (r) html('small', null, r, w);
    return w;
  }

  function renderSeeks() {
    const list = $('seeks');
    const items = [...seeks.values()].sort((a, b) => a.createdAt - b.createdAt);
    const want = new Set(items.map((s) => s.id));
    for (const li of [...list.children]) if (!want.has(li.getAttribute('data-seek'))) li.remove();
    for (const s of items) {
      let li = list.querySelector(`li[data-seek="${CSS.escape(s.id)}"]`);
      if (!li) {
        li = html('li', 'seek', null, list);
        li.setAttribute('data-seek', s.id);
        html('span', 'seek-player', null, li);
        html('span', 'seek-side', null, li);
        html('span', 'seek-tc', null, li);
        html('span', 'seek-rule', null, li);
        html('span', 'seek-mode', null, li);
        const b = button(null, null, 'small', li);
        b.setAttribute('data-seek', s.id);
      }
      const own = Boolean(me && s.from && s.from.id === me.id);
      li.classList.toggle('own', own);
      const who = li.querySelector('.seek-player');
      who.textContent = '';
      playerLine(s.from, who);
      const side = seekSide(s);
      const sp = li.querySelector('.seek-side');
      sp.textContent = '';
      html('span', `dot ${side.side}`, null, sp).setAttribute('aria-hidden', 'true');
      html('span', null, side.text, sp);
      li.querySelector('.seek-tc').textContent = tcText(s.clock);
      li.querySelector('.seek-rule').textContent = ruleText(s.rule);
      li.querySelector('.seek-mode').textContent = s.rated ? t('rated') : t('casual');
      const b = li.querySelector('button');
      b.setAttribute('data-action', own ? 'cancel' : 'accept');
      b.classList.toggle('primary', !own);
      b.textContent = own ? t('Cancel') : t('Accept');
      b.disabled = busy.has(s.id) || (!own && s.rated && me && me.kind === 'anon');
    }
    $('seeks-empty').hidden = items.length > 0;
    $('seeks-empty').textContent = t('No open game: create one.');
    const waiting = items.some((s) => me && s.from && s.from.id === me.id);
    $('seeks-title').textContent = waiting ? t('Open games · waiting for an opponent…') : t('Open games');
  }

  function gameClock(g, side) {
    if (typeof g.gtime !== 'number') return null;
    let ms = side === 'goats' ? g.gtime : g.ttime;
    if (g.clockRunning && g.turn === side) ms -= performance.now() - g.at;
    return Math.max(0, ms);
  }

  function renderGames() {
    const list = $('lobby-games');
    const want = new Set(games.map((g) => g.id));
    for (const li of [...list.children]) if (!want.has(li.getAttribute('data-game'))) li.remove();
    let prev = null;
    for (const g of games) {
      let li = list.querySelector(`li[data-game="${CSS.escape(g.id)}"]`);
      if (!li) {
        li = html('li');
        li.setAttribute('data-game', g.id);
        const a = html('a', 'lobby-game', null, li);
        a.href = `/?game=${encodeURIComponent(g.id)}`;
        for (const side of ['goats', 'tigers']) {
          const row = html('span', `lg-row ${side}`, null, a);
          html('span', `dot ${side}`, null, row).setAttribute('aria-hidden', 'true');
          html('span', 'lg-name', null, row);
          html('span', 'lg-clock', null, row).setAttribute('data-side', side);
        }
        html('span', 'lg-tc', null, a);
        if (prev && prev.nextSibling) list.insertBefore(li, prev.nextSibling);
        else if (!prev) list.insertBefore(li, list.firstChild);
        else list.appendChild(li);
      }
      prev = li;
      for (const side of ['goats', 'tigers']) {
        const p = g[side];
        const name = li.querySelector(`.lg-row.${side} .lg-name`);
        const r = ratingText(p);
        name.textContent = p ? (r ? `${p.name} ${r}` : p.name) : '?';
        li.querySelector(`.lg-row.${side}`).classList.toggle('to-move', g.turn === side);
      }
      li.querySelector('.lg-tc').textContent = `${tcText(g.clock)} · ${ruleText(g.rule)}`;
      li.gameData = g;
    }
    $('games-empty').hidden = games.length > 0;
    $('games-empty').textContent = t('No game is being played.');
    tickClocks();
  }

  function tickClocks() {
    if (!shown || !built) return;
    for (const li of $('lobby-games').children) {
      const g = li.gameData;
      if (!g) continue;
      for (const c of li.querySelectorAll('.lg-clock')) {
        const ms = gameClock(g, c.getAttribute('data-side'));
        c.textContent = ms === null ? '∞' : fmtClock(ms);
        c.classList.toggle('running', Boolean(g.clockRunning && g.turn === c.getAttribute('data-side')));
      }
    }
  }

  function renderPlayers() {
    const list = $('lobby-players');
    list.textContent = '';
    const sorted = [...players].sort((a, b) => (b.rating || 0) - (a.rating || 0) || a.name.localeCompare(b.name));
    for (const p of sorted) {
      const li = html('li', null, null, list);
      playerLine(p, li);
      if (me && p.id === me.id) li.classList.add('me');
    }
  }

  function renderAccount() {
    const anon = !me || me.kind === 'anon';
    const who = $('acct-who');
    who.textContent = '';
    if (me) {
      html('strong', null, me.name, who);
      const r = me.ratings && me.ratings.blitz;
      html('span', 'source', anon ? ` · ${t('guest')}` : r ? ` · ${t('blitz {rating}', { rating: `${r.rating}${r.provisional ? '?' : ''}` })}` : '', who);
    } else {
      who.textContent = t('Connecting…');
    }
    $('acct-name').hidden = !anon || formKind !== null;
    $('acct-login').hidden = formKind !== null;
    $('acct-out').hidden = anon || formKind !== null;
    $('acct-name').textContent = t('Pick a name');
    $('acct-login').textContent = t('Sign in');
    $('acct-out').textContent = t('Sign out');
    $('acct-user-label').firstChild.textContent = t('Name');
    $('acct-pass-label').firstChild.textContent = formKind === 'login' ? t('Password') : t('Password (optional)');
    $('acct-hint').textContent = formKind === 'login' ? ''
      : t('3 to 20 letters, digits, _ or -, from a letter. Without a password this browser is the only key to the name.');
    $('acct-hint').hidden = formKind === 'login';
    $('acct-submit').textContent = formKind === 'login' ? t('Sign in') : t('Save the name');
    $('acct-cancel').textContent = t('Cancel');
  }

  function renderCreate() {
    const anon = !me || me.kind === 'anon';
    const side = $('seek-side');
    for (const o of side.options) setText(o, o.value === 'random' ? t('Random side') : o.value === 'goats' ? t('Goats') : t('Tigers'));
    for (const o of $('seek-tc').options) setText(o, o.value === 'custom' ? t('Custom') : o.value === 'none' ? t('No clock (∞)') : o.value.replace('+', ' + '));
    const rule = $('seek-rule');
    for (const o of rule.options) setText(o, o.value === 'draw' ? t('3rd time draws') : t('Forbidden'));
    $('seek-side-label').firstChild.textContent = t('Your side');
    $('seek-tc-label').firstChild.textContent = t('Time control');
    $('seek-min-label').firstChild.textContent = t('minutes');
    $('seek-inc-label').firstChild.textContent = t('+ seconds a move');
    $('seek-rule-label').firstChild.textContent = t('Repetition');
    $('seek-custom').hidden = $('seek-tc').value !== 'custom';
    $('seek-rated').disabled = anon;
    if (anon) $('seek-rated').checked = false;
    $('seek-rated-text').textContent = t('Rated');
    $('seek-rated-hint').textContent = t('Rated games are between named players: pick a name to play them.');
    $('seek-rated-hint').hidden = !anon;
    $('seek-create').textContent = t('Create a game');
    $('seek-friend').textContent = t('Challenge a friend');
    $('create-title').textContent = t('Create a game');
    const box = $('friend-box');
    box.hidden = !friend;
    $('seek-friend').hidden = Boolean(friend);
    if (friend) {
      $('friend-url').value = friend.url;
      $('friend-text').textContent = t('Send this link to a friend: the game starts when they open it.');
    }
    $('friend-url').setAttribute('aria-label', t('Link for a friend'));
    $('friend-copy').textContent = Date.now() < copiedUntil ? t('Copied') : t('Copy');
    $('friend-cancel').textContent = t('Cancel');
  }

  function renderMine() {
    const p = $('lobby-mine');
    p.textContent = '';
    p.hidden = mine.size === 0;
    for (const g of mine.values()) {
      html('span', null, t('You are playing a game.'), p);
      const a = html('a', null, t('Go to the game'), p);
      a.href = `/?game=${encodeURIComponent(g.id)}`;
      break;
    }
  }

  function render() {
    if (!built) return;
    $('lobby-title').textContent = t('Play online');
    $('lobby-close').textContent = t('Back to the board');
    $('lobby-count').textContent = `${t(['{n} player online', '{n} players online'], { n: counts.online })} · ${t(['{n} game in play', '{n} games in play'], { n: counts.playing })}`;
    $('acct-title').textContent = t('You');
    $('games-title').textContent = t('Games being played');
    $('players-title').textContent = t('Players online');
    renderAccount();
    renderCreate();
    renderSeeks();
    renderGames();
    renderPlayers();
    renderMine();
  }

  document.addEventListener('DOMContentLoaded', () => {
    const b = $('online-open');
    if (!b) return;
    if (!query.get('game')) {
      b.setAttribute('aria-expanded', 'false');
      b.setAttribute('aria-controls', 'lobby');
    }
    b.addEventListener('click', () => {
      if (query.get('game')) { window.Online.openLobby(); return; }
      if (shown) close(); else open();
    });
    if (window.I18N && I18N.onChange) I18N.onChange(() => { render(); });
    // Esc leaves the lobby as its button does (the board's keys are not the lobby's).
    document.addEventListener('keydown', (e) => {
      if (e.key !== 'Escape' || !shown || ($('keys') && $('keys').open)) return;
      if (document.activeElement && document.activeElement.closest('#acct-form')) return;
      close();
    }, true);
    const challenge = query.get('challenge');
    if (challenge && !query.get('game')) followLink(challenge);
    else if (kept().lobby && !query.get('game') && !query.get('obx')) open();
    else if (kept().friend && !query.get('game')) waitForFriend(kept().friend);
  });
})();

if (window.I18N) {
  I18N.add('ne', {
    'Play online': 'अनलाइन खेल्नुहोस्',
    'Back to the board': 'बोर्डमा फर्किनुहोस्',
    '{n} player online': '{n} खेलाडी अनलाइन',
    '{n} players online': '{n} खेलाडी अनलाइन',
    '{n} game in play': '{n} खेल चलिरहेको',
    '{n} games in play': '{n} खेल चलिरहेका',
    You: 'तपाईं',
    'Connecting…': 'जोडिँदै…',
    guest: 'अतिथि',
    'blitz {rating}': 'ब्लिट्ज {rating}',
    'Pick a name': 'नाम छान्नुहोस्',
    'Sign in': 'साइन इन',
    'Sign out': 'साइन आउट',
    Name: 'नाम',
    Password: 'पासवर्ड',
    'Password (optional)': 'पासवर्ड (ऐच्छिक)',
    '3 to 20 letters, digits, _ or -, from a letter. Without a password this browser is the only key to the name.':
      'अक्षरबाट सुरु हुने 3 देखि 20 वटा अक्षर, अङ्क, _ वा -। पासवर्ड नभए यो ब्राउजर मात्र नामको साँचो हो।',
    'Save the name': 'नाम राख्नुहोस्',
    'Create a game': 'खेल बनाउनुहोस्',
    'Your side': 'तपाईंको पक्ष',
    'Random side': 'जुनसुकै पक्ष',
    'No clock (∞)': 'घडी बिना (∞)',
    minutes: 'मिनेट',
    '+ seconds a move': '+ प्रति चाल सेकेन्ड',
    Rated: 'रेटिङ हुने',
    'Rated games are between named players: pick a name to play them.': 'रेटिङ हुने खेल नाम भएका खेलाडीबीच हुन्छन्: खेल्न नाम छान्नुहोस्।',
    'Challenge a friend': 'साथीलाई बोलाउनुहोस्',
    'Send this link to a friend: the game starts when they open it.': 'यो लिङ्क साथीलाई पठाउनुहोस्: उनले खोलेपछि खेल सुरु हुन्छ।',
    'Link for a friend': 'साथीका लागि लिङ्क',
    Copied: 'कपी भयो',
    'Open games': 'खुला खेलहरू',
    'Open games · waiting for an opponent…': 'खुला खेलहरू · प्रतिद्वन्द्वीको प्रतीक्षामा…',
    'No open game: create one.': 'कुनै खुला खेल छैन: एउटा बनाउनुहोस्।',
    'Games being played': 'चलिरहेका खेलहरू',
    'No game is being played.': 'अहिले कुनै खेल चलिरहेको छैन।',
    'Players online': 'अनलाइन खेलाडीहरू',
    Accept: 'स्वीकार',
    'random side': 'जुनसुकै पक्ष',
    'you play goats': 'तपाईं बाख्रा',
    'you play tigers': 'तपाईं बाघ',
    '3rd repetition draws': 'तेस्रो दोहोर्‍याइमा बराबरी',
    'no repetition': 'दोहोर्‍याउन नपाइने',
    rated: 'रेटिङ हुने',
    casual: 'अनौपचारिक',
    'You are playing a game.': 'तपाईं एउटा खेल खेल्दै हुनुहुन्छ।',
    'Go to the game': 'खेलमा जानुहोस्',
    "This link's game is no longer open: it was taken or cancelled.": 'यो लिङ्कको खेल अब खुला छैन: कसैले लियो वा रद्द भयो।',
    // the server's refusals
    'this name is taken': 'यो नाम कसैले लिइसक्यो',
    'a name has 3 to 20 letters, digits, _ or -, starting with a letter; a password has 8 to 128 characters':
      'नाममा अक्षरबाट सुरु हुने 3 देखि 20 वटा अक्षर, अङ्क, _ वा - हुन्छन्; पासवर्डमा 8 देखि 128 वटा अक्षर',
    'wrong name or password': 'नाम वा पासवर्ड मिलेन',
    'too many requests: wait a moment': 'धेरै अनुरोध भए: केही बेर पर्खनुहोस्',
    'rated games are between named players: pick a name first': 'रेटिङ हुने खेल नाम भएका खेलाडीबीच हुन्छन्: पहिले नाम छान्नुहोस्',
    'this is your own game: someone else accepts it': 'यो तपाईंकै खेल हो: अरू कसैले स्वीकार्छ',
    'this game is no longer open: it was taken or cancelled': 'यो खेल अब खुला छैन: कसैले लियो वा रद्द भयो',
    'at most 5 open games at once: cancel one': 'एकै पटक बढीमा 5 खुला खेल: एउटा रद्द गर्नुहोस्',
    'it is not your turn': 'तपाईंको पालो होइन',
    'the game had moved on': 'खेल अघि बढिसकेको थियो',
    'the server refused the move': 'सर्भरले चाल अस्वीकार गर्‍यो',
    'your time ran out before the move arrived': 'चाल पुग्नुअघि नै तपाईंको समय सकियो',
    'a game is aborted before its second move only: resign instead': 'दोस्रो चालअघि मात्र खेल रद्द हुन्छ: बरु हार मान्नुहोस्',
    'under this rule no game is drawn': 'यो नियममा कुनै खेल बराबरी हुँदैन',
    'you have no move to take back': 'फिर्ता लिने तपाईंको कुनै चाल छैन',
    'your opponent has not been away long enough': 'तपाईंको प्रतिद्वन्द्वी अझै धेरै बेर टाढा भएका छैनन्',
    'a message has 1 to 140 bytes of text': 'सन्देशमा 1 देखि 140 बाइटसम्मको पाठ हुन्छ',
    'you are not a player of this game': 'तपाईं यो खेलको खेलाडी हुनुहुन्न',
    'there is no such game': 'यस्तो खेल छैन',
    'the server is stopping': 'सर्भर बन्द हुँदैछ',
    'the server could not store it: try again': 'सर्भरले यसलाई राख्न सकेन: फेरि प्रयास गर्नुहोस्',
  });
}
