// Annotations of the board: the control that gives the move shown a glyph (! ? !! ?? !? ?!) and
// a comment, and the Nepali of the premoves' and the annotations' texts. app.js keeps them on
// the game tree (node.glyph, node.comment; the start position's comment on the root), shows
// them in the move list, keeps them with the game and writes and reads them in PGN; this file
// only sets them, through window.Board (state, glyphs, annotated()).
'use strict';

(() => {
  const t = (s, v) => (window.I18N ? I18N.t(s, v) : s.replace(/\{(\w+)\}/g, (_, k) => (v && k in v ? v[k] : '')));
  const $ = (id) => document.getElementById(id);
  const OPEN_KEY = 'baghchal.annot.open';

  if (window.I18N) {
    I18N.add('ne', {
      // The premoves (app.js)
      'Cancel premove': 'अग्रिम चाल रद्द गर्नुहोस्',
      'Esc or a right click on the board cancels it too': 'Esc वा बोर्डमा दायाँ क्लिकले पनि रद्द हुन्छ',
      "Premove {move}: played after the engine's move.":
        'अग्रिम चाल {move}: इन्जिनको चालपछि खेलिन्छ।',
      'Premove: the piece on {point}; click where it goes.':
        'अग्रिम चाल: {point} को गोटी; त्यो जाने ठाउँमा क्लिक गर्नुहोस्।',
      'Premove {move} dropped: {why}': 'अग्रिम चाल {move} छाडियो: {why}',
      'the goat on {point} was captured': '{point} को बाख्रा समातियो',
      'the point is taken': 'त्यो बिन्दु ओगटिइसकेको छ',
      'the server refused it': 'सर्भरले अस्वीकार गर्‍यो',
      'it would repeat a position': 'यसले पहिलेको स्थिति दोहोर्‍याउँछ',
      // The annotations (index.html, this file)
      Annotate: 'टिप्पणी',
      'A glyph and a comment for the move shown': 'देखाइएको चालको चिह्न र टिप्पणी',
      'Glyph and comment of the move shown': 'देखाइएको चालको चिह्न र टिप्पणी',
      '! good move': '! राम्रो चाल',
      'Good move': 'राम्रो चाल',
      '? mistake': '? गल्ती',
      Mistake: 'गल्ती',
      '!! brilliant move': '!! उत्कृष्ट चाल',
      'Brilliant move': 'उत्कृष्ट चाल',
      '?? blunder': '?? ठूलो गल्ती',
      Blunder: 'ठूलो गल्ती',
      '!? interesting move': '!? रोचक चाल',
      'Interesting move': 'रोचक चाल',
      '?! dubious move': '?! शंकास्पद चाल',
      'Dubious move': 'शंकास्पद चाल',
      'Comment on the move shown': 'देखाइएको चालमा टिप्पणी',
      'Comment on this move': 'यो चालमा टिप्पणी',
      'Comment on the start position': 'सुरुको स्थितिमा टिप्पणी',
    });
  }

  // The node the comment field writes to: the move shown when the field took the focus, so a
  // move the engine plays meanwhile does not take the comment.
  let editing = null;
  let open = false;

  function board() { return window.Board && window.Board.state ? window.Board : null; }

  function render() {
    const B = board();
    if (!B) return;
    const node = B.state.cur;
    const panel = $('annot');
    const toggle = $('annot-open');
    toggle.hidden = Boolean(B.state.editor);
    toggle.setAttribute('aria-expanded', String(open));
    toggle.classList.toggle('active', open);
    panel.hidden = !open || Boolean(B.state.editor);
    // The start position has no move: a comment, no glyph.
    for (const b of panel.querySelectorAll('[data-glyph]')) {
      const g = b.getAttribute('data-glyph');
      b.disabled = !node.parent;
      b.setAttribute('aria-pressed', String(Boolean(node.parent) && node.glyph === g));
    }
    const field = $('annot-comment');
    if (document.activeElement !== field) {
      editing = node;
      field.value = node.comment || '';
      const ph = node.parent ? t('Comment on this move') : t('Comment on the start position');
      field.placeholder = ph;
    }
  }

  function setGlyph(g) {
    const B = board();
    const node = B && B.state.cur;
    if (!node || !node.parent) return;
    if (node.glyph === g) delete node.glyph; else node.glyph = g;
    B.annotated();
    render();
  }

  function setComment() {
    const B = board();
    if (!B || !editing) return;
    const text = $('annot-comment').value.replace(/\s+/g, ' ').trim().slice(0, B.commentMax || 2000);
    if (text) editing.comment = text; else delete editing.comment;
    B.annotated();
  }

  function init() {
    try { open = localStorage.getItem(OPEN_KEY) === '1'; } catch (e) { open = false; }
    window.Board = window.Board || {};
    (window.Board.onRender = window.Board.onRender || []).push(render);
    $('annot-open').addEventListener('click', () => {
      open = !open;
      try { localStorage.setItem(OPEN_KEY, open ? '1' : '0'); } catch (e) { /* not kept */ }
      render();
      if (open) $('annot-comment').focus();
    });
    for (const b of document.querySelectorAll('#annot [data-glyph]')) {
      b.addEventListener('click', () => setGlyph(b.getAttribute('data-glyph')));
    }
    const field = $('annot-comment');
    field.addEventListener('input', setComment);
    field.addEventListener('blur', render);
    if (window.I18N) I18N.onChange(render);
    render();
  }

  // After app.js's init has begun (its listener was added first): window.Board.state is there,
  // and every full render from now on calls render().
  document.addEventListener('DOMContentLoaded', init);
})();
