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
//   I18N.missing            the keys asked for in the current language that still have no
//                           translation (for the tests).
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
    for (const k of Object.keys(dict)) {
      dicts[lang][k] = String(dict[k]);
      if (lang === I18N.lang) missing.delete(k); // asked for before its file registered it
    }
  }

  function norm(s) { return s.replace(/\s+/g, ' ').trim(); }

  // True when a text is a key's English or one of its translations: markup a script has since
  // written something else into is left to that script.
  function isTextOf(text, key) {
    if (text === key) return true;
    for (const l of LANGS) if (dicts[l][key] !== undefined && norm(dicts[l][key]) === text) return true;
    return false;
  }

  function applyText(el) {
    if (el.children.length === 0) {
      let key = el.getAttribute('data-i18n');
      const now = norm(el.textContent);
      if (!key) { key = now; el.setAttribute('data-i18n', key); }
      if (key && isTextOf(now, key)) el.textContent = t(key);
      return;
    }
    for (const node of el.childNodes) {
      if (node.nodeType !== 3) continue;
      const now = norm(node.nodeValue);
      let key = textKeys.get(node);
      if (key === undefined) {
        key = now;
        textKeys.set(node, key);
      }
      if (!key || !isTextOf(now, key)) continue;
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
        keys[a] = norm(el.getAttribute(a));
      }
      if (!isTextOf(norm(el.getAttribute(a) || ''), norm(keys[a]))) continue;
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
      // index.html
      'Language': 'भाषा',
      'Bagh-Chal · Tigers and Goats': 'बाघचाल · बाघ र बाख्रा',
      'Bagh-Chal': 'बाघचाल',
      'Tigers and Goats': 'बाघ र बाख्रा',
      'connecting…': 'जोडिँदै…',
      'Sound on or off': 'आवाज खोल्ने वा बन्द गर्ने',
      'Light or dark theme': 'उज्यालो वा अँध्यारो रूप',
      'Keyboard shortcuts': 'किबोर्ड सर्टकट',
      'Keyboard shortcuts (?)': 'किबोर्ड सर्टकट (?)',
      'Bagh-Chal board: Tab to a point, arrows to move between points, Enter to play':
        'बाघचालको बोर्ड: बिन्दुमा जान Tab, बिन्दुहरूबीच सर्न तीर कुञ्जी, खेल्न Enter',
      'In hand': 'हातमा',
      'Captured': 'समातिएका',
      'Loading…': 'खुल्दैछ…',
      'New game': 'नयाँ खेल',
      'move {n}: {reason}': 'चाल {n}: {reason}',
      'Board and pieces': 'बोर्ड र गोटी',
      'Board': 'बोर्ड',
      'Pieces': 'गोटी',
      'Wood': 'काठ',
      'Stone slab': 'ढुङ्गाको पाटी',
      'Green cloth': 'हरियो कपडा',
      'Faces': 'अनुहार',
      'Stones and pebbles': 'ढुङ्गा र गिर्खा',
      'Flat tokens': 'चेप्टा गोटी',
      'The engine played {move}.': 'इन्जिनले {move} चाल चाल्यो।',
      'Retry now': 'अहिले फेरि प्रयास गर्नुहोस्',
      'thinking…': 'सोच्दै…',
      'Engine lines': 'इन्जिनका क्रम',
      'top': 'माथिका',
      // the engine lines and the analysis that search on
      'for': 'अवधि',
      'until stopped': 'नरोकेसम्म',
      'How long the lines and the analysis search': 'क्रम र विश्लेषणले कति बेर खोज्ने',
      'Go deeper': 'अझ गहिरो',
      'Search the lines on for twice as long': 'क्रमहरू दोब्बर समय खोज्ने',
      '{n} kn/s': '{n} हजार स्थिति/से',
      '{n} Mn/s': '{n} मिलियन स्थिति/से',
      "the server's longest search": 'सर्भरको सबैभन्दा लामो खोज',
      'Engine memory': 'इन्जिनको मेमोरी',
      'Engine threads': 'इन्जिनका थ्रेड',
      '1: this page is not cross-origin isolated': '1: यो पेज अरू साइटबाट अलग्याइएको (क्रस-ओरिजिन आइसोलेटेड) छैन',
      'the engine lines on or off': 'इन्जिनका क्रम खोल्ने वा बन्द गर्ने',
      'Server for exact values': 'सही मूल्यका लागि सर्भर',
      'A baghchal-server started with --cors: the analysis, the review and hints ask it first':
        '--cors सहित चलाइएको baghchal-server: विश्लेषण, समीक्षा र सङ्केतले पहिले यसैलाई सोध्छन्',
      'it answers': 'यसले जवाफ दिन्छ',
      'it did not answer: the engine in this browser searches': 'यसले जवाफ दिएन: यही ब्राउजरको इन्जिनले खोज्छ',
      'server {host}': 'सर्भर {host}',
      'this browser': 'यही ब्राउजर',
      'right-drag on the board': 'बोर्डमा दायाँ बटन थिचेर तान्ने',
      'an arrow; a right click: a circle (Shift red, Alt blue; the same again takes it off)':
        'एउटा तीर; दायाँ क्लिक: एउटा घेरा (Shift रातो, Alt निलो; फेरि उही गर्दा हट्छ)',
      'Lines shown': 'देखाइने क्रम',
      "The engine's best lines: click a move to play the line up to it":
        'इन्जिनका उत्तम क्रम: त्यहाँसम्मको क्रम खेल्न कुनै चालमा क्लिक गर्नुहोस्',
      'Moves': 'चालहरू',
      'Make this side line the main line at its branch': 'यो वैकल्पिक क्रमलाई यसको शाखामा मुख्य क्रम बनाउनुहोस्',
      'Promote': 'मुख्य बनाउ',
      'Delete this move and everything after it': 'यो चाल र यसपछिका सबै मेटाउनुहोस्',
      'Delete': 'मेटाउ',
      'Analyse position': 'स्थिति विश्लेषण',
      'Every move with its value for the side to move': 'पालो भएको पक्षका लागि हरेक चाल र त्यसको मूल्य',
      "Open: a draw only under the draw-by-repetition rule; under this game's no-repetition rule its value is not known.":
        'खुला: दोहोरिँदा बराबरी हुने नियममा मात्र बराबरी; यो खेलको दोहोर्‍याउन नपाइने नियममा यसको मूल्य थाहा छैन।',
      'First position': 'पहिलो स्थिति',
      'First position (Home)': 'पहिलो स्थिति (Home)',
      'Previous move': 'अघिल्लो चाल',
      'Previous move (←)': 'अघिल्लो चाल (←)',
      'Next move': 'अर्को चाल',
      'Next move (→)': 'अर्को चाल (→)',
      'Last position': 'अन्तिम स्थिति',
      'End of the line (End)': 'क्रमको अन्त्य (End)',
      'Flip the board (f)': 'बोर्ड घुमाउनुहोस् (f)',
      'Flip': 'घुमाउ',
      'Undo': 'फिर्ता',
      'Hint': 'सङ्केत',
      'Give up the game (click twice)': 'खेलमा हार मान्नुहोस् (दुई पटक क्लिक)',
      'Game': 'खेल',
      'Game and engine': 'खेल र इन्जिन',
      'Settings and tools': 'सेटिङ र साधनहरू',
      'Who plays': 'को खेल्छ',
      'Play goats': 'बाख्राले खेल्नुहोस्',
      'Play tigers': 'बाघले खेल्नुहोस्',
      'Engine vs engine': 'इन्जिन बनाम इन्जिन',
      'Two players': 'दुई खेलाडी',
      'Time control': 'समय नियन्त्रण',
      'Per move': 'प्रति चाल',
      'Custom': 'आफ्नै',
      'min': 'मिनेट',
      '+ s': '+ सेकेन्ड',
      'Engine time per move': 'प्रति चाल इन्जिनको समय',
      'Engine strength': 'इन्जिनको क्षमता',
      'Full strength': 'पूर्ण क्षमता',
      'Level 15': 'तह 15',
      'Level 10': 'तह 10',
      'Level 5': 'तह 5',
      'Level 0 (beginner)': 'तह 0 (सुरुआती)',
      'Elo (limit strength)': 'Elo (सीमित क्षमता)',
      'UCI_Elo': 'Elo रेटिङ',
      'Repetition': 'दोहोर्‍याइ',
      'Forbidden': 'निषेधित',
      '3rd time draws': 'तेस्रो पटकमा बराबरी',
      'Edit position': 'स्थिति सम्पादन',
      'Position editor': 'स्थिति सम्पादक',
      'drag or click pieces onto points': 'गोटीलाई बिन्दुमा तान्नुहोस् वा क्लिक गर्नुहोस्',
      'Piece to put on the board': 'बोर्डमा राख्ने गोटी',
      'Tiger': 'बाघ',
      'Goat': 'बाख्रा',
      'Empty the point': 'बिन्दु खाली गर्नुहोस्',
      'Goats in hand': 'हातका बाख्रा',
      'Goats captured': 'समातिएका बाख्रा',
      'To move': 'पालो',
      'Start position': 'सुरुको स्थिति',
      'Clear': 'खाली गर्नुहोस्',
      'Play from here': 'यहाँबाट खेल्नुहोस्',
      'Cancel': 'रद्द गर्नुहोस्',
      'Evaluation': 'मूल्याङ्कन',
      'Evaluation over the game, goats up: click to go to that move':
        'खेलभरिको मूल्याङ्कन, बाख्रा माथि: त्यो चालमा जान क्लिक गर्नुहोस्',
      'Position (OBX)': 'स्थिति (OBX)',
      'OBX of the position': 'स्थितिको OBX',
      'Copy': 'कपी',
      'Load': 'खोल',
      'Copy link': 'लिङ्क कपी',
      'Game record': 'खेलको अभिलेख',
      'The game as PGN, or the start OBX and its moves': 'PGN मा खेल, वा सुरुको OBX र यसका चाल',
      'Paste a PGN, or a start OBX with its moves on the next line': 'PGN टाँस्नुहोस्, वा सुरुको OBX र अर्को पङ्क्तिमा यसका चाल',
      'Export PGN': 'PGN निर्यात',
      "The start OBX on one line, the main line's moves on the next": 'एक पङ्क्तिमा सुरुको OBX, अर्कोमा मुख्य क्रमका चाल',
      'Export OBX': 'OBX निर्यात',
      'Import': 'आयात',
      'Goats place all 20, then move along the lines; tigers move one step or jump a goat to capture. Tigers win with five captures or when the goats cannot move; goats win by trapping every tiger. Under the no-repetition rule no move may recreate an earlier position once all goats are placed; under the draw rule a position seen for the third time draws. On the clock, a side whose time runs out loses.':
        'बाख्राले सबै 20 वटा राख्छन्, त्यसपछि रेखाहरूमा सर्छन्; बाघ एक पाइला सर्छ वा बाख्रामाथि उफ्रेर समात्छ। पाँच बाख्रा समातेमा वा बाख्रा चल्नै नसकेमा बाघ जित्छन्; सबै बाघलाई थुनेमा बाख्रा जित्छन्। दोहोर्‍याउन नपाइने नियममा सबै बाख्रा राखिसकेपछि कुनै पनि चालले पहिलेको स्थिति फेरि बनाउन पाउँदैन; बराबरीको नियममा तेस्रो पटक देखिएको स्थिति बराबरी हुन्छ। घडीमा, समय सकिने पक्ष हार्छ।',
      'previous / next move': 'अघिल्लो / अर्को चाल',
      'first position / end of the line': 'पहिलो स्थिति / क्रमको अन्त्य',
      'flip the board': 'बोर्ड घुमाउने',
      'to the board and every control': 'बोर्ड र हरेक नियन्त्रणमा',
      'arrows on the board': 'बोर्डमा तीर कुञ्जी',
      "in the moves, the engine's lines or the analysis: walk, play": 'चालहरू, इन्जिनका क्रम वा विश्लेषणमा: हिँड्ने, खेल्ने',
      'to the next point': 'अर्को बिन्दुमा',
      'on a point: place, pick up or put down': 'बिन्दुमा: राख्ने, उठाउने वा बिसाउने',
      'this list': 'यो सूची',
      'close it, leave the editor, cancel a premove': 'यसलाई बन्द गर्ने, सम्पादन छोड्ने, अग्रिम चाल रद्द गर्ने',
      'Close': 'बन्द गर्नुहोस्',

      // app.js: sides, results
      'Goats': 'बाख्रा',
      'Tigers': 'बाघ',
      "A draw only under the draw-by-repetition rule; under this game's no-repetition rule its value is not known":
        'दोहोरिँदा बराबरी हुने नियममा मात्र बराबरी; यो खेलको दोहोर्‍याउन नपाइने नियममा यसको मूल्य थाहा छैन',
      'Proven under the no-repetition rule': 'दोहोर्‍याउन नपाइने नियममा प्रमाणित',
      'Goats win': 'बाख्राको जित',
      'Tigers win': 'बाघको जित',
      'Draw': 'बराबरी',
      'five goats captured': 'पाँच बाख्रा समातिए',
      'the tigers cannot move': 'बाघहरू चल्न सक्दैनन्',
      'the goats cannot move': 'बाख्राहरू चल्न सक्दैनन्',
      'every tiger move would repeat a position': 'बाघको हरेक चालले कुनै स्थिति दोहोर्‍याउँछ',
      'every goat move would repeat a position': 'बाख्राको हरेक चालले कुनै स्थिति दोहोर्‍याउँछ',
      'the position occurred three times': 'एउटै स्थिति तीन पटक आयो',
      "the goats' time ran out": 'बाख्राको समय सकियो',
      "the tigers' time ran out": 'बाघको समय सकियो',
      'the goats resigned': 'बाख्राले हार माने',
      'the tigers resigned': 'बाघले हार माने',
      'Goats won': 'बाख्राले जिते',
      'Tigers won': 'बाघले जिते',
      'Drawn': 'बराबरी भयो',
      'game over': 'खेल सकियो',

      // app.js: the server's refusals and failures
      'the server cannot be reached': 'सर्भरसम्म पुग्न सकिएन',
      'the board has {n} tigers; it must have exactly 4': 'बोर्डमा {n} बाघ छन्; ठ्याक्कै 4 हुनुपर्छ',
      'goats on the board ({board}) + in hand ({hand}) + captured ({captured}) = {sum}: they must make 20':
        'बोर्डका बाख्रा ({board}) + हातका ({hand}) + समातिएका ({captured}) = {sum}: जम्मा 20 हुनुपर्छ',
      '{n} goats in hand: there can be 0 to 20': 'हातमा {n} बाख्रा: 0 देखि 20 सम्म मात्र हुन सक्छन्',
      '{n} goats captured: there can be 0 to 5': '{n} बाख्रा समातिएका: 0 देखि 5 सम्म मात्र हुन सक्छन्',
      'the tigers cannot be to move with all 20 goats in hand: the goats move first':
        'सबै 20 बाख्रा हातमै हुँदा बाघको पालो हुन सक्दैन: पहिले बाख्राले चाल्छन्',
      '{move} would repeat an earlier position (repetition is forbidden in this game)':
        '{move} ले पहिलेको स्थिति दोहोर्‍याउँछ (यो खेलमा दोहोर्‍याउन पाइँदैन)',
      'the move would repeat an earlier position (repetition is forbidden in this game)':
        'यो चालले पहिलेको स्थिति दोहोर्‍याउँछ (यो खेलमा दोहोर्‍याउन पाइँदैन)',
      'the game is over': 'खेल सकिएको छ',
      '{move} is not a legal move for the goats here': '{move} यहाँ बाख्राको नियमसम्मत चाल होइन',
      '{move} is not a legal move for the tigers here': '{move} यहाँ बाघको नियमसम्मत चाल होइन',
      'the move does not follow a line of the board': 'यो चाल बोर्डको रेखामा पर्दैन',
      'this is not a move: expected a point like C3, or two like A1B2': 'यो चाल होइन: C3 जस्तो एउटा बिन्दु, वा A1B2 जस्ता दुई बिन्दु चाहिन्छ',
      'exact analysis needs baghchal-server and its databases: this page plays with the engine in the browser':
        'सटीक विश्लेषणका लागि baghchal-server र यसका डाटाबेस चाहिन्छ: यो पेजले ब्राउजरभित्रको इन्जिनसँग खेल्छ',
      'the OBX is empty': 'OBX खाली छ',
      'this is not an OBX position: five rows of T, G and X, the side to move, goats in hand and goats captured':
        'यो OBX स्थिति होइन: T, G र X का पाँच पङ्क्ति, पालो, हातका बाख्रा र समातिएका बाख्रा चाहिन्छ',
      'the server is busy': 'सर्भर व्यस्त छ',
      'the server failed (HTTP {status})': 'सर्भरमा त्रुटि भयो (HTTP {status})',
      'the server refused the request (HTTP {status})': 'सर्भरले अनुरोध अस्वीकार गर्‍यो (HTTP {status})',

      // app.js: the status, the players, the controls
      'Confirm?': 'पक्का?',
      'Resign': 'हार मान',
      'Goats to move': 'बाख्राको पालो',
      'Tigers to move': 'बाघको पालो',
      'move {n} of the line: play a move for a side line, → or End to go on':
        'क्रमको चाल {n}: वैकल्पिक क्रमका लागि चाल चल्नुहोस्, अघि बढ्न → वा End',
      'waiting for the server': 'सर्भरको प्रतीक्षामा',
      'asking the server…': 'सर्भरलाई सोध्दै…',
      'waiting for the engine': 'इन्जिनको प्रतीक्षामा',
      'asking the engine…': 'इन्जिनलाई सोध्दै…',
      'the engine is thinking…': 'इन्जिन सोच्दैछ…',
      'click a point to place a goat': 'बाख्रा राख्न कुनै बिन्दुमा क्लिक गर्नुहोस्',
      'click a highlighted point': 'चम्किएको बिन्दुमा क्लिक गर्नुहोस्',
      'click a goat to move it': 'चाल्न कुनै बाख्रामा क्लिक गर्नुहोस्',
      'click a tiger to move it': 'चाल्न कुनै बाघमा क्लिक गर्नुहोस्',
      'paused': 'रोकिएको',
      '{message} Retrying in {n} s…': '{message} {n} सेकेन्डमा फेरि प्रयास हुँदैछ…',
      '{message} Retrying…': '{message} फेरि प्रयास हुँदैछ…',
      'full strength': 'पूर्ण क्षमता',
      'level {n}': 'तह {n}',
      'player': 'खेलाडी',
      'you': 'तपाईं',
      'engine · {strength}': 'इन्जिन · {strength}',
      'click a move to look back; a move there starts a side line':
        'पछाडि हेर्न कुनै चालमा क्लिक गर्नुहोस्; त्यहाँ चालेको चालले वैकल्पिक क्रम सुरु गर्छ',
      'side line': 'वैकल्पिक क्रम',
      'Resume': 'जारी राख',
      'Pause': 'रोक',

      // app.js: the engine card, the lines, the analysis
      'Goats win in {n} ply': 'बाख्रा {n} अर्धचालमा जित्छन्',
      'Goats win in {n} plies': 'बाख्रा {n} अर्धचालमा जित्छन्',
      'Tigers win in {n} ply': 'बाघ {n} अर्धचालमा जित्छन्',
      'Tigers win in {n} plies': 'बाघ {n} अर्धचालमा जित्छन्',
      'Even {v}': 'बराबर {v}',
      'Goats +{v}': 'बाख्रा +{v}',
      'Tigers +{v}': 'बाघ +{v}',
      'G #{n}': 'बाख्रा #{n}',
      'T #{n}': 'बाघ #{n}',
      'G win': 'बाख्रा जित',
      'T win': 'बाघ जित',
      'Evaluation: {text}': 'मूल्याङ्कन: {text}',
      'no score yet': 'अहिलेसम्म अङ्क छैन',
      'depth {d}': 'गहिराइ {d}',
      'hint': 'सङ्केत',
      'last engine move': 'इन्जिनको अन्तिम चाल',
      '{n} nodes': '{n} नोड',
      '{s} s': '{s} सेकेन्ड',
      'searching…': 'खोज्दै…',
      'The value from the database (the engine searched the moves above)': 'डाटाबेसको मूल्य (माथिका चाल इन्जिनले खोजेको)',
      'play the line up to this move': 'यो चालसम्मको क्रम खेल्नुहोस्',
      'rebuilding {done} / {total}…': 'फेरि बनाउँदै {done} / {total}…',
      'click to jump': 'जान क्लिक गर्नुहोस्',
      'Win': 'जित',
      'Win in {n}': '{n} मा जित',
      'Loss': 'हार',
      'Loss in {n}': '{n} मा हार',
      'Open': 'खुला',
      'analysing…': 'विश्लेषण हुँदैछ…',
      'from the database, plies to the end': 'डाटाबेसबाट, अन्त्यसम्मका अर्धचाल',
      'from the database': 'डाटाबेसबाट',
      'engine search, depth {d}': 'इन्जिनको खोज, गहिराइ {d}',
      'lines: {error}': 'क्रम: {error}',

      // app.js: the game record
      'Expected moves such as C3 (a placement), A1B2 (a step) or A1C3 (a capture).':
        'C3 (राख्ने), A1B2 (सार्ने) वा A1C3 (समात्ने) जस्ता चाल अपेक्षित छन्।',
      '"{word}" is not a Bagh-Chal move; this looks like a chess game. {expected}':
        '"{word}" बाघचालको चाल होइन; यो चेसको खेलजस्तो देखिन्छ। {expected}',
      '"{word}" is not a Bagh-Chal move. {expected}': '"{word}" बाघचालको चाल होइन। {expected}',
      'this PGN is a game of {variant}, not of Bagh-Chal.': 'यो PGN बाघचालको होइन, {variant} को खेल हो।',
      'its FEN "{fen}" is not a Bagh-Chal position (an OBX: five rows of T, G and X, e.g. {start}).':
        'यसको FEN "{fen}" बाघचालको स्थिति होइन (OBX: T, G र X का पाँच पङ्क्ति, जस्तै {start})।',
      'a side line before any move': 'कुनै चालअघि नै वैकल्पिक क्रम',
      'a ")" without its "("': '"(" बिनाको ")"',
      'a "(" without its ")"': '")" बिनाको "("',
      '"{first}" is neither a PGN (tags in [brackets], then moves) nor a start OBX with its moves on the next line.':
        '"{first}" न PGN हो ([कोष्ठक] मा ट्याग, त्यसपछि चाल), न अर्को पङ्क्तिमा चालसहितको सुरुको OBX।',
      'Import: {error}': 'आयात: {error}',
      '{n} move': '{n} चाल',
      '{n} moves': '{n} चाल',
      '{n} side line': '{n} वैकल्पिक क्रम',
      '{n} side lines': '{n} वैकल्पिक क्रम',
      'Game imported: {moves}, {lines}.': 'खेल आयात भयो: {moves}, {lines}।',
      'Game imported: {moves}.': 'खेल आयात भयो: {moves}।',
      'Game loaded: {n} move.': 'खेल खुल्यो: {n} चाल।',
      'Game loaded: {n} moves.': 'खेल खुल्यो: {n} चाल।',
      'Position loaded.': 'स्थिति खुल्यो।',
      'Position set up.': 'स्थिति तयार भयो।',
      'Link': 'लिङ्क',
      'OBX box': 'OBX बाकस',
      'game record': 'खेलको अभिलेख',
      '{what} copied.': '{what} कपी भयो।',
      '{what} not copied: this page may not use the clipboard here. It is selected in the {place}: copy it with Ctrl+C.':
        '{what} कपी भएन: यो पेजले यहाँ क्लिपबोर्ड चलाउन पाउँदैन। यो {place} मा छानिएको छ: Ctrl+C ले कपी गर्नुहोस्।',
      '{what} not copied: this page may not use the clipboard here. Copy it from the address bar.':
        '{what} कपी भएन: यो पेजले यहाँ क्लिपबोर्ड चलाउन पाउँदैन। ठेगाना पट्टीबाट कपी गर्नुहोस्।',
      'The game is too long for an address: use Export PGN or Export OBX.':
        'खेल ठेगानामा अटाउन धेरै लामो छ: "PGN निर्यात" वा "OBX निर्यात" प्रयोग गर्नुहोस्।',

      // app.js: messages of the server, the engine and the editor
      'Server: {error}': 'सर्भर: {error}',
      'Engine: {error}': 'इन्जिन: {error}',
      'Engine: {error}.': 'इन्जिन: {error}।',
      'Analysis: {error}': 'विश्लेषण: {error}',
      'Refused: {error}': 'अस्वीकृत: {error}',
      'no answer': 'जवाफ आएन',
      'The server did not answer.': 'सर्भरले जवाफ दिएन।',
      'The server did not answer ({error}).': 'सर्भरले जवाफ दिएन ({error})।',
      'The server did not answer; {move} was not played.': 'सर्भरले जवाफ दिएन; {move} चालिएन।',
      "The address's game was refused: {error}": 'ठेगानाको खेल अस्वीकृत भयो: {error}',
      'The game cannot go on under that rule: {error}': 'त्यो नियममा खेल अघि बढ्न सक्दैन: {error}',
      'The goat on {point} has no move.': '{point} को बाख्राको कुनै चाल छैन।',
      'The tiger on {point} has no move.': '{point} को बाघको कुनै चाल छैन।',
      'an earlier position': 'पहिलेको एउटा स्थिति',
      'the start position': 'सुरुको स्थिति',
      'the position after {move}': '{move} पछिको स्थिति',
      '{move} is forbidden: it would repeat {where} (repetition is forbidden in this game).':
        '{move} निषेधित छ: यसले {where} दोहोर्‍याउँछ (यो खेलमा दोहोर्‍याउन पाइँदैन)।',
      '{moves} are forbidden: each would repeat an earlier position (repetition is forbidden in this game).':
        '{moves} निषेधित छन्: प्रत्येकले पहिलेको स्थिति दोहोर्‍याउँछ (यो खेलमा दोहोर्‍याउन पाइँदैन)।',
      'server unreachable': 'सर्भरसम्म पुगिएन',
      'engine {version} · {n} worker': 'इन्जिन {version} · {n} प्रक्रिया',
      'engine {version} · {n} workers': 'इन्जिन {version} · {n} प्रक्रिया',
      '{text} · database': '{text} · डाटाबेस',

      // local.js (the static board)
      'engine {version} in this browser · no server: no databases': 'यही ब्राउजरमा इन्जिन {version} · सर्भर छैन: डाटाबेस छैन',
      'The engine runs in this page (WebAssembly). With baghchal-server the page uses it, and its databases.':
        'इन्जिन यही पेजमा चल्छ (WebAssembly)। baghchal-server हुँदा पेजले त्यसलाई र त्यसका डाटाबेस प्रयोग गर्छ।',
    };
  }
})();
