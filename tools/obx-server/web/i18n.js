// The board's languages: English and Nepali (नेपाली). Loaded before every other script of the
// board (index.html, `defer`), so the others find window.I18N when they run.
//
//   I18N.t(english, vars)   the text in the current language. The English is the key; `{name}` in
//                           it is replaced by vars.name. A text with no translation stays English.
//   I18N.t([one, other], vars)
//                           a text whose English has a singular and a plural: `one` when vars.n is
//                           1, else `other` ('{n} ply' / '{n} plies'); each form is its own key.
//   I18N.add(lang, dict)    registers translations, {english: translated, ...}; every feature file
//                           registers its own Nepali at load: I18N.add('ne', {...}).
//   I18N.lang               'en' or 'ne'.
//   I18N.setLang(lang)      switches: saved in localStorage, sets <html lang>, translates the static
//                           markup again and calls the listeners.
//   I18N.onChange(fn)       fn(lang) after every switch: re-render what the script wrote there.
//   I18N.apply(root)        translates the static markup under root (done by itself at load, on a
//                           switch and for elements added to the page later):
//                             data-i18n             the element's text, keyed by its English; an
//                                                   element with child elements has each of its own
//                                                   text pieces translated and its children kept;
//                             data-i18n-attrs="title,aria-label,placeholder"
//                                                   those attributes, keyed by their English.
//   I18N.missing            the keys asked for in Nepali that have no Nepali (for the tests).
//
// Moves (C3, A1B2), OBX strings, coordinates and PGN tags are the same in both languages. Numbers
// are written in international digits in both, like the moves and coordinates they sit beside.
// The default language: the one chosen before (localStorage), else Nepali when the browser's
// languages put Nepali before English, else English.
(function () {
  'use strict';
  const KEY = 'baghchal.lang';
  const LANGS = ['en', 'ne'];
  const dicts = { en: Object.create(null), ne: Object.create(null) };
  const listeners = [];
  const missing = new Set();
  // English of the translated attributes and text pieces, kept from the first visit.
  const attrKeys = new WeakMap();
  const textKeys = new WeakMap();

  function fill(s, vars) {
    return String(s).replace(/\{(\w+)\}/g, (m, k) => (vars && k in vars ? String(vars[k]) : m));
  }

  function t(english, vars) {
    let key = english;
    if (Array.isArray(english)) key = vars && Number(vars.n) === 1 ? english[0] : english[english.length - 1];
    key = String(key);
    let text = key;
    if (I18N.lang !== 'en') {
      const d = dicts[I18N.lang];
      if (d && key in d) text = d[key];
      else missing.add(key);
    }
    return fill(text, vars);
  }

  function add(lang, dict) {
    if (!dicts[lang] || !dict) return;
    for (const k of Object.keys(dict)) dicts[lang][k] = String(dict[k]);
  }

  function norm(s) { return s.replace(/\s+/g, ' ').trim(); }

  function applyText(el) {
    if (el.children.length === 0) {
      let key = el.getAttribute('data-i18n');
      if (!key) { key = norm(el.textContent); el.setAttribute('data-i18n', key); }
      if (key) el.textContent = t(key);
      return;
    }
    for (const node of el.childNodes) {
      if (node.nodeType !== 3) continue;
      let key = textKeys.get(node);
      if (key === undefined) {
        key = norm(node.nodeValue);
        textKeys.set(node, key);
      }
      if (!key) continue;
      // Keeps the spaces around the piece, which separate it from its neighbours.
      const lead = /^\s/.test(node.nodeValue) ? ' ' : '';
      const trail = /\s$/.test(node.nodeValue) ? ' ' : '';
      node.nodeValue = lead + t(key) + trail;
    }
  }

  function applyAttrs(el) {
    let keys = attrKeys.get(el);
    if (!keys) { keys = Object.create(null); attrKeys.set(el, keys); }
    for (const a of el.getAttribute('data-i18n-attrs').split(',').map((s) => s.trim()).filter(Boolean)) {
      if (!(a in keys)) {
        if (!el.hasAttribute(a)) continue;
        keys[a] = el.getAttribute(a);
      }
      el.setAttribute(a, t(keys[a]));
    }
  }

  function apply(root) {
    root = root || document;
    const all = (sel) => {
      const list = root.querySelectorAll ? Array.from(root.querySelectorAll(sel)) : [];
      if (root.matches && root.matches(sel)) list.unshift(root);
      return list;
    };
    for (const el of all('[data-i18n]')) applyText(el);
    for (const el of all('[data-i18n-attrs]')) applyAttrs(el);
  }

  function setLang(lang) {
    if (!LANGS.includes(lang)) return;
    const changed = lang !== I18N.lang;
    I18N.lang = lang;
    try { localStorage.setItem(KEY, lang); } catch (e) { /* private mode: the choice lasts the visit */ }
    document.documentElement.setAttribute('lang', lang);
    apply(document);
    if (!changed) return;
    for (const fn of listeners.slice()) {
      try { fn(lang); } catch (e) { console.error(e); }
    }
  }

  function onChange(fn) {
    if (typeof fn === 'function') listeners.push(fn);
  }

  function initial() {
    try {
      const saved = localStorage.getItem(KEY);
      if (LANGS.includes(saved)) return saved;
    } catch (e) { /* no storage: the browser's languages decide */ }
    const prefs = (navigator.languages && navigator.languages.length) ? navigator.languages : [navigator.language || 'en'];
    for (const p of prefs) {
      const primary = String(p).toLowerCase().split('-')[0];
      if (LANGS.includes(primary)) return primary;
    }
    return 'en';
  }

  const I18N = {
    lang: 'en',
    langs: LANGS.slice(),
    t, add, setLang, onChange, apply,
    missing,
    // A copy of one language's dictionary (for the tests).
    table(lang) { return Object.assign({}, dicts[lang] || {}); },
  };
  window.I18N = I18N;

  I18N.lang = initial();
  document.documentElement.setAttribute('lang', I18N.lang);

  function start() {
    apply(document);
    // Markup added later (panels built by the scripts) is translated as it arrives.
    new MutationObserver((records) => {
      for (const r of records) {
        for (const n of r.addedNodes) if (n.nodeType === 1) apply(n);
      }
    }).observe(document.documentElement, { childList: true, subtree: true });
    // The header's language switch.
    const sel = document.getElementById('lang');
    if (sel) {
      sel.value = I18N.lang;
      sel.addEventListener('change', () => setLang(sel.value));
      onChange((lang) => { sel.value = lang; });
    }
  }
  add('ne', boardNepali());
  // Deferred like the scripts after it: the page is parsed now. Once more when every script has
  // run, for the markup whose Nepali the later files register.
  if (document.readyState !== 'loading') apply(document);
  if (document.readyState === 'complete') start();
  else document.addEventListener('DOMContentLoaded', start);

  // The Nepali of the board's own texts (index.html, app.js, local.js). The game's own names:
  // बाघचाल, बाघ (tiger), बाख्रा (goat).
  function boardNepali() {
    return {
      'Language': 'भाषा',
    };
  }
})();
