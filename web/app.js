// servitor at the table: the page around the engine of web/engine (the same library as
// `servitor play`, compiled to WebAssembly). Everything a rule decides comes from the engine;
// this file draws the board and the instructions, turns taps into command lines, asks for
// manual dice and the game's questions, and keeps the save in the browser's storage.

import init, { catalog, variant, Companion } from './pkg/servitor_web.js';

const $ = (id) => document.getElementById(id);
const SAVE = 'servitor.save';
const TICKS = 'servitor.ticks';
// A command (or a new game's setup) under way whose dice or answers are partly given: kept at
// each die, so a reload goes on from the next die.
const PENDING = 'servitor.pending';
// web/build.sh writes the build's version here (and in sw.js): the engine's address carries it.
const VERSION = 'dev';
const THEME = 'servitor.theme';
const CELL = 32;
const INFO = new Set(['help', 'status', 'why', 'odds']);

let packages = [];
const companions = new Map();
let comp = null;       // the Companion of the game being played
let view = null;       // its player view
let words = [];        // the command being built by taps
let shown = [];        // instruction lines on screen
let ticks = {};
// For the browser tests (web/tests): the session, and whether a command is under way.
const hooks = { busy: false, seen: [], typed: 0, typing: false, get comp() { return comp; }, view: () => comp.view() };
window.__servitor = hooks;

// ---------------------------------------------------------------- engine and storage

// A house-rule variant or own army picked as files: kept in the browser (its name and files),
// so a reload or a save of it plays on.
const VARIANT = 'servitor.variant';

function companionFor(name) {
  if (!companions.has(name)) {
    const kept = JSON.parse(localStorage.getItem(VARIANT) || 'null');
    companions.set(name, kept && kept.name === name ? Companion.fromFiles(kept.files) : new Companion(name));
  }
  return companions.get(name);
}

/// Adds a picked variant to the games offered (checked as `servitor check` checks it): its
/// entry, or its diagnostics in the start screen.
function addVariant(files, select) {
  const r = JSON.parse(variant(files));
  $('variant-error').textContent = r.ok ? '' : r.error;
  if (!r.ok) return false;
  const entry = { ...r.entry, variant: true };
  localStorage.setItem(VARIANT, JSON.stringify({ name: entry.package, files }));
  companions.delete(entry.package);
  packages = packages.filter((p) => p.package !== entry.package).concat([entry]);
  fillStart();
  if (select) {
    $('package').value = JSON.stringify([entry.package, entry.games[0].id]);
    pickPackage();
  }
  return true;
}

/// The picked files as the engine takes them: each by its path in the picked folder (its top
/// folder left out), or by its name.
async function pickedFiles(list) {
  const files = {};
  for (const f of list) {
    const path = f.webkitRelativePath ? f.webkitRelativePath.split('/').slice(1).join('/') : f.name;
    files[path] = await f.text();
  }
  return JSON.stringify(files);
}

function store(text) {
  // Every accepted command is kept before its answer is shown. An empty save (past the
  // engine's size limit) keeps the one before, as the command line does.
  if (text) localStorage.setItem(SAVE, text);
  else console.warn('the save is past MAX_SAVE_BYTES: the previous one is kept');
}

function call(f) {
  try {
    const text = f();
    hooks.seen.push(text);
    if (hooks.seen.length > 100) hooks.seen.shift();
    return JSON.parse(text);
  } catch (e) {
    // A fault in the engine: it is rebuilt from the last save.
    console.error(e);
    companions.clear();
    const saved = localStorage.getItem(SAVE);
    if (saved) {
      try {
        comp = companionFor(JSON.parse(saved).package);
        comp.resume(saved);
      } catch (again) { console.error(again); }
    }
    return { ok: false, note: `the engine failed: ${e.message || e}` };
  }
}

/// Sends a line; manual dice and the game's questions are asked one by one until the command
/// has them all. `given`: the dice and answers already given to it (a command going on after a
/// reload).
async function send(line, { quiet = false, given = null } = {}) {
  line = line.trim();
  if (!line || !comp) return null;
  // For the browser tests: commands sent from words typed rather than tapped.
  if (hooks.typing) hooks.typed++;
  hooks.typing = false;
  hooks.busy = true;
  try {
    return await sendNow(line, quiet, given);
  } finally {
    hooks.busy = false;
  }
}

/// A short fingerprint of a save's text (FNV-1a with its length): a pending command belongs to
/// the save it was begun on, and to no other.
function fingerprint(text) {
  if (!text) return '';
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return `${text.length}:${h.toString(16)}`;
}

/// Keeps what a command under way has been given (after each die or answer), with the save it
/// goes on from; dropped once the command is played or refused.
function keepPending(p) {
  localStorage.setItem(PENDING, JSON.stringify({ ...p, auto: autoRest, save: fingerprint(localStorage.getItem(SAVE)) }));
}

function dropPending() {
  localStorage.removeItem(PENDING);
}

/// The command (or setup) a reload interrupted, if it was begun on the save kept now.
function pendingNow() {
  let p = null;
  try {
    p = JSON.parse(localStorage.getItem(PENDING) || 'null');
  } catch (e) { p = null; }
  if (!p || p.save !== fingerprint(localStorage.getItem(SAVE))) {
    dropPending();
    return null;
  }
  return p;
}

/// Who rolls from the next command on (`dice auto|manual`, kept in the save as at `servitor
/// play`).
async function switchDice(mode) {
  const r = call(() => comp.send(`dice ${mode}`, '[]', '[]'));
  if (r.ok) store(comp.save());
  return r;
}

async function sendNow(line, quiet, given) {
  const answers = given ? [...given.answers] : [], choices = given ? [...given.choices] : [];
  for (;;) {
    const r = call(() => comp.send(line, JSON.stringify(answers), JSON.stringify(choices)));
    if (r.need) {
      if (!(await answerNeed(r.need, line, answers, choices))) return null; // nothing changed
      keepPending({ line, answers, choices });
      continue;
    }
    if (autoRest) {
      autoRest = false;
      if (r.ok) await switchDice('auto');
    }
    const first = line.split(/\s+/)[0];
    if (r.ok && first === 'next') {
      // A new mission's log starts again from its first event: the last mission's ticks go.
      ticks = {};
      localStorage.setItem(TICKS, '{}');
      shown = [];
    }
    if (r.ok && !INFO.has(first)) store(comp.save());
    dropPending();
    if (!quiet) answered(line, r);
    return r;
  }
}

// ---------------------------------------------------------------- the start screen

function fillStart() {
  const pk = $('package');
  pk.innerHTML = '';
  for (const p of packages) {
    for (const g of p.games) {
      const o = document.createElement('option');
      o.value = JSON.stringify([p.package, g.id]);
      o.textContent = `${p.title || p.package}${p.games.length > 1 ? ` · ${g.label || g.id}` : ''}${p.variant ? ' (your files)' : ''}`;
      pk.append(o);
    }
  }
  pickPackage();
}

function chosen() {
  const [name, game] = JSON.parse($('package').value);
  const p = packages.find((x) => x.package === name);
  return { p, g: p.games.find((x) => x.id === game) };
}

function pickPackage() {
  if (!$('package').value) return;
  const { p, g } = chosen();
  const m = $('mission');
  m.innerHTML = '';
  for (const x of p.missions) {
    const o = document.createElement('option');
    o.value = x.id;
    o.textContent = x.label ? `${x.label} (${x.id})` : x.id;
    m.append(o);
  }
  // A package with a campaign: played whole, mission after mission, instead of one mission.
  $('campaign-choice').hidden = !(p.campaigns && p.campaigns.length);
  if ($('campaign-choice').hidden) $('campaign').checked = false;
  $('mission-choice').hidden = $('campaign').checked;
  const s = $('side');
  s.innerHTML = '';
  for (const side of g.sides) {
    const o = document.createElement('option');
    o.value = o.textContent = side;
    s.append(o);
  }
  const opts = $('options');
  opts.innerHTML = '';
  for (const o of g.options) {
    const label = document.createElement('label');
    label.textContent = o.help ? `${o.name}: ${o.help}` : o.name;
    let input;
    if (o.choices.length) {
      input = document.createElement('select');
      for (const c of o.choices) {
        const opt = document.createElement('option');
        opt.value = opt.textContent = c;
        input.append(opt);
      }
    } else {
      input = document.createElement('input');
    }
    input.value = o.default;
    input.dataset.option = o.name;
    input.dataset.default = o.default;
    label.append(input);
    opts.append(label);
  }
  pickMission();
}

function pickMission() {
  const { p } = chosen();
  const m = p.missions.find((x) => x.id === $('mission').value);
  $('mission-text').textContent = (m && m.text) || '';
}

function randomSeed() {
  const a = new Uint32Array(2);
  crypto.getRandomValues(a);
  return (BigInt(a[0]) * 4294967296n + BigInt(a[1])).toString();
}

async function start() {
  const { p, g } = chosen();
  $('start-error').textContent = '';
  const options = [...document.querySelectorAll('[data-option]')]
    .filter((i) => i.value !== i.dataset.default)
    .map((i) => [i.dataset.option, i.value]);
  const setup = {
    mission: $('mission').value,
    seed: $('seed').value.trim() || randomSeed(),
    side: $('side').value,
    game: p.games.length > 1 ? g.id : null,
    options,
    manual_dice: document.querySelector('input[name=dice]:checked').value === 'manual',
  };
  if ($('campaign').checked) setup.campaign = '';
  hooks.busy = true;
  try {
    await begin(p.package, setup, null);
  } finally {
    hooks.busy = false;
  }
}

/// A new game of `name` set up as `setup` says, its setup's dice asked as a command's;
/// `given`: those already given (a setup going on after a reload).
async function begin(name, setup, given) {
  comp = companionFor(name);
  const answers = given ? [...given.answers] : [], choices = given ? [...given.choices] : [];
  for (;;) {
    const r = call(() => comp.begin(JSON.stringify(setup), JSON.stringify(answers), JSON.stringify(choices)));
    if (r.need) {
      if (!(await answerNeed(r.need, 'setup', answers, choices))) return;
      keepPending({ setup: { package: name, ...setup }, answers, choices });
      continue;
    }
    dropPending();
    if (!r.ok) {
      $('start-error').textContent = r.note;
      return;
    }
    store(comp.save());
    if (autoRest) {
      autoRest = false;
      await switchDice('auto');
    }
    ticks = {};
    localStorage.setItem(TICKS, '{}');
    shown = [];
    show('play');
    answered('start', r);
    return;
  }
}

function resume(text, label) {
  let name;
  try {
    name = JSON.parse(text).package;
  } catch (e) {
    return { ok: false, note: `${label} is not a servitor play save: ${e.message}` };
  }
  if (typeof name !== 'string') {
    return { ok: false, note: `${label} is not a servitor play save: it names no package` };
  }
  if (!packages.some((p) => p.package === name)) {
    return { ok: false, note: `${label} is a game of \`${name}\`, which this page does not hold` };
  }
  const c = companionFor(name);
  const r = call(() => c.resume(text));
  if (r.ok) {
    comp = c;
    store(comp.save());
    // Another game's ticks are not this one's.
    if (label !== 'the saved game') { ticks = {}; localStorage.setItem(TICKS, '{}'); }
    shown = [];
    show('play');
    answered('resume', r);
  }
  return r;
}

function show(screen) {
  for (const id of ['loading', 'start', 'play']) $(id).hidden = id !== screen;
  $('undo').hidden = $('redo').hidden = screen !== 'play';
}

// ---------------------------------------------------------------- answers

function answered(line, r) {
  const note = $('answer-note');
  if (r.command === 'info') {
    if (line.startsWith('why')) showWhy(line.split(/\s+/)[1], r.text);
    else if (line === 'help') {
      $('help-text').textContent = r.text;
      $('help').hidden = false;
      $('help').scrollIntoView({ block: 'start' });
    }
    return;
  }
  if (r.command === 'odds') return showOdds(r);
  note.textContent = r.ok ? (r.note || '') : `refused: ${r.note}`;
  note.className = r.ok ? '' : 'refused';
  // Refused: the line stays, and the words the session offers for it are chips.
  if (!r.ok) { if (words.length) drawWords(); return; }
  const first = line.split(/\s+/)[0];
  if (first === 'end') requestAnimationFrame(() => $('turn').scrollIntoView({ block: 'start' }));
  words = [];
  $('line').value = '';
  refresh();
}

function refresh() {
  view = JSON.parse(comp.view());
  const c = view.campaign;
  const mission = c ? `mission ${c.number} of ${c.total}` : view.mission_label || view.mission;
  $('where').textContent = [`Turn ${view.turn}`, ...Object.entries(view.scores).map(([s, p]) => `${s} ${p}`), mission].join(' · ');
  $('undo').disabled = !view.can_undo;
  $('dice-switch').textContent = view.manual_now ? 'Dice: servitor rolls from now on' : 'Dice: I roll real dice from now on';
  $('redo').disabled = !view.can_redo;
  drawBoard();
  drawWords();
  loadCards();
  drawCards();
  const st = call(() => comp.send('status', '[]', '[]'));
  $('status-text').textContent = st.text || '';
  const sel = $('odds-table');
  if (sel.dataset.package !== view.package) {
    sel.dataset.package = view.package;
    sel.innerHTML = '<option value="">a table…</option>';
    for (const t of view.tables) {
      const o = document.createElement('option');
      o.value = o.textContent = t;
      sel.append(o);
    }
    $('odds-rows').innerHTML = '';
  }
  $('final').hidden = !view.over;
  $('final-text').textContent = view.final ? view.final.trim() : '';
  // In a campaign: the missions played so far, and the next one a tap away (or how it ended).
  $('campaign-card').hidden = !c;
  $('next-mission').hidden = !(c && view.over && !c.ended);
  if (c) {
    const played = c.played.map((m) => `${m.number}. ${m.mission}: ${m.winner} (${m.reason})`);
    $('campaign-text').textContent = [`Campaign ${c.id}, seed ${c.seed}:`, ...played, c.ended || ''].filter(Boolean).join('\n');
  }
}

// ---------------------------------------------------------------- the board

function sq(text) {
  const [x, y] = text.split(',').map(Number);
  return { x: x - 1, y: y - 1 };
}

function el(name, attrs, parent) {
  const e = document.createElementNS('http://www.w3.org/2000/svg', name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.append(e);
  return e;
}

function short(id) {
  const m = id.match(/^([a-z]*)[a-z-]*?-(\d+)$/i);
  if (m) return (m[1][0] || '?').toUpperCase() + m[2];
  return id.slice(0, 2).toUpperCase();
}

const ARROW = { up: [0, -1], right: [1, 0], down: [0, 1], left: [-1, 0], n: [0, -1], e: [1, 0], s: [0, 1], w: [-1, 0], north: [0, -1], east: [1, 0], south: [0, 1], west: [-1, 0] };

function drawBoard() {
  if (view.battlefield) return drawField();
  const b = view.board;
  const svg = $('board');
  // The piece that had the keyboard's focus keeps it over the redraw.
  const focused = document.activeElement && svg.contains(document.activeElement) ? document.activeElement.dataset.piece : null;
  svg.innerHTML = '';
  svg.setAttribute('aria-label', 'The board');
  const left = 24, top = 18;
  const W = b.width * CELL, H = b.height * CELL;
  svg.setAttribute('viewBox', `${-left} ${-top} ${W + left + 4} ${H + top + 4}`);
  svg.dataset.width = W + left + 4;
  // Zoomed, a square is 32 × 1.4 ≈ 45 px: a tap target of 44 px or more.
  if (svg.classList.contains('big')) svg.style.width = `${(W + left + 4) * 1.4}px`;
  else svg.style.width = '';
  const solid = new Set(b.solid);
  // The ground — squares, coordinates, marks, walls and doors, what the game shows on it — is
  // drawn for the eye and the finger only: hidden from screen readers, which get the board's
  // summary (#board-summary) and reach each piece by Tab instead of 557 squares one by one.
  const ground = el('g', { class: 'ground', 'aria-hidden': 'true' }, svg);
  for (let x = 0; x < b.width; x++) {
    el('text', { x: x * CELL + CELL / 2, y: -6, 'text-anchor': 'middle', class: 'coord' }, ground).textContent = x + 1;
  }
  for (let y = 0; y < b.height; y++) {
    el('text', { x: -5, y: y * CELL + CELL / 2 + 4, 'text-anchor': 'end', class: 'coord' }, ground).textContent = y + 1;
  }
  const picked = new Set(words.filter((w) => /^\d+,\d+$/.test(w)));
  for (let y = 0; y < b.height; y++) {
    for (let x = 0; x < b.width; x++) {
      const name = `${x + 1},${y + 1}`;
      const r = el('rect', { x: x * CELL, y: y * CELL, width: CELL, height: CELL }, ground);
      if (solid.has(name)) { r.setAttribute('class', 'solid'); continue; }
      r.setAttribute('class', picked.has(name) ? 'floor sq picked' : 'floor sq');
      r.dataset.sq = name;
    }
  }
  drawVariables(ground);
  // A square's mark letter in its middle; where a count is drawn on the square (its top-right
  // corner, drawCounts), in its bottom-left corner, so that both read.
  const counted = new Set((view.variables || []).flatMap((v) => v.places.filter((p) => typeof p.value === 'number').map((p) => p.squares[0])));
  for (const m of b.marks) {
    const p = sq(m.at);
    const at = counted.has(m.at)
      ? { x: p.x * CELL + 3, y: p.y * CELL + CELL - 3 }
      : { x: p.x * CELL + CELL / 2, y: p.y * CELL + CELL / 2 + 4, 'text-anchor': 'middle' };
    el('text', { ...at, class: 'mark', 'data-at': m.at }, ground).textContent = m.letter;
  }
  for (const [x, y, dir, kind] of b.edges) {
    const [x1, y1, x2, y2] = dir === 'h'
      ? [x * CELL, y * CELL, (x + 1) * CELL, y * CELL]
      : [x * CELL, y * CELL, x * CELL, (y + 1) * CELL];
    el('line', { x1, y1, x2, y2, class: kind }, ground);
  }
  drawCounts(ground);
  const mine = view.side;
  const said = [];
  for (const p of view.pieces) {
    if (p.status !== 'board' || !p.at) continue;
    const at = sq(p.at);
    const size = p.size || 1;
    const cx = at.x * CELL + (size * CELL) / 2, cy = at.y * CELL + (size * CELL) / 2;
    const classes = ['piece', p.side === mine ? 'mine' : 'theirs'];
    if (p.face_down) classes.push('face-down');
    if (words.includes(p.id)) classes.push('picked');
    const g = el('g', { class: classes.join(' '), 'data-piece': p.id }, svg);
    el('circle', { cx, cy, r: (size * CELL) / 2 - 3 }, g);
    // Space Hulk's state of a face-up piece, from the view: its facing (a wedge on the rim it
    // faces), action points left (a number in its bottom right corner), watch (a ring and a
    // letter in its top left corner: O for overwatch), a jammed gun (a J in its bottom left
    // corner). None of them covers the piece's label, drawn last in the middle.
    const facingName = p.facing || (p.fields && typeof p.fields.facing === 'string' ? p.fields.facing : null);
    const facing = facingName ? ARROW[facingName.toLowerCase()] : null;
    const jammed = !!(p.fields && p.fields.jammed === true);
    const summary = [`${p.id}`, `${p.kind}`, `on ${p.at}`];
    if (p.face_down) summary.push('face down');
    if (p.life !== undefined) summary.push(`life ${p.life}`);
    if (facingName) { summary.push(`facing ${facingName}`); g.dataset.facing = facingName; }
    if (p.ap !== undefined) { summary.push(`${p.ap} AP left`); g.dataset.ap = p.ap; }
    if (p.watch) { summary.push(`on ${p.watch}`); g.dataset.watch = p.watch; }
    if (jammed) { summary.push('gun jammed'); g.dataset.jammed = '1'; }
    el('title', {}, g).textContent = summary.join(' · ');
    said.push(summary.join(', '));
    // Reachable by keyboard (Tab, then Enter or Space), named for screen readers.
    g.setAttribute('tabindex', '0');
    g.setAttribute('role', 'button');
    g.setAttribute('aria-label', summary.join(', '));
    if (facing) {
      // From the rim outwards: the label's letters stay clear of it.
      const [dx, dy] = facing;
      const tip = [cx + dx * (CELL / 2 - 0.5), cy + dy * (CELL / 2 - 0.5)];
      const side = [-dy * 5.5, dx * 5.5];
      const base = [cx + dx * (CELL / 2 - 6.5), cy + dy * (CELL / 2 - 6.5)];
      el('path', { class: 'facing', d: `M${tip[0]} ${tip[1]} L${base[0] + side[0]} ${base[1] + side[1]} L${base[0] - side[0]} ${base[1] - side[1]} Z` }, g);
    }
    const x0 = at.x * CELL, y0 = at.y * CELL, span = size * CELL;
    // A badge in a corner of the square, clear of the label's line in the middle.
    const badge = (x, y, text, cls) => {
      el('circle', { cx: x, cy: y, r: 6, class: `badge ${cls}` }, g);
      el('text', { x, y: y + 3.2, 'text-anchor': 'middle', class: `badge-text ${cls}` }, g).textContent = text;
    };
    if (p.ap !== undefined) badge(x0 + span - 6, y0 + span - 6, String(p.ap), 'ap');
    if (p.watch) {
      el('circle', { cx, cy, r: span / 2 - 1, class: `watch watch-${p.watch}` }, g);
      badge(x0 + 6, y0 + 6, p.watch[0].toUpperCase(), 'watch-mark');
    }
    if (jammed) badge(x0 + 6, y0 + span - 6, 'J', 'jam');
    const label = el('text', { x: cx, y: cy + 3.5, 'text-anchor': 'middle', class: 'label' }, g);
    label.textContent = short(p.id);
    if (focused === p.id) g.focus();
  }
  describeBoard(`${b.width} by ${b.height} squares`, said, b.marks.map((m) => [m.mark, m.at]));
}

// The game variables the package lets the player see (`show`/`draw`: the engine's view gives
// their places, never anything else of the game's variables): an area a variable names is
// hatched (Space Hulk's burning sections), a count on a square drawn as a number on it (the
// blips lurking at an entry area). The legend under the board says what each is.
function drawVariables(layer) {
  const vars = view.variables || [];
  const defs = el('defs', {}, layer);
  vars.forEach((v, i) => {
    const pat = el('pattern', { id: `hatch-${i}`, width: 8, height: 8, patternUnits: 'userSpaceOnUse', patternTransform: `rotate(${45 + 90 * (i % 2)})` }, defs);
    el('line', { x1: 0, y1: 0, x2: 0, y2: 8, class: `hatch hatch-${i % 3}` }, pat);
    for (const place of v.places) {
      if (typeof place.value === 'number') continue;
      for (const s of place.squares) {
        const p = sq(s);
        el('rect', { x: p.x * CELL, y: p.y * CELL, width: CELL, height: CELL, fill: `url(#hatch-${i})`, class: 'var-area', 'data-var': v.name, 'data-place': place.name }, layer);
      }
    }
  });
}

function drawCounts(layer) {
  for (const v of view.variables || []) {
    for (const place of v.places) {
      if (typeof place.value !== 'number') continue;
      const p = sq(place.squares[0]);
      // In the square's top-right corner, clear of its mark letter (bottom left).
      const x = p.x * CELL + CELL - 8, y = p.y * CELL + 8;
      const g = el('g', { class: 'var-count', 'data-var': v.name, 'data-place': place.name, 'data-at': place.squares[0] }, layer);
      el('rect', { x: x - 7, y: y - 7, width: 14, height: 14, rx: 3 }, g);
      el('text', { x, y: y + 4, 'text-anchor': 'middle' }, g).textContent = String(place.value);
    }
  }
}

/// What a variable the game shows says, in words: `blips lurking: 2 at 3,4`.
function variableText(v) {
  const places = v.places.map((p) => (typeof p.value === 'number' ? `${p.value} at ${p.name}` : p.name));
  const value = typeof v.value === 'string' || typeof v.value === 'number' ? String(v.value) : (places.length ? places.join(', ') : 'none');
  return `${v.label}: ${value}`;
}

// The legend under the board (what the game shows on it), and the board's summary for screen
// readers: its size, every piece as the page draws it, the marked squares, the legend.
function describeBoard(size, pieces, marks) {
  const legend = $('board-legend');
  legend.innerHTML = '';
  const lines = [];
  (view.variables || []).forEach((v, i) => {
    const li = document.createElement('li');
    li.dataset.var = v.name;
    const key = document.createElement('span');
    // A count's key for a count (and for a variable only drawn, `draw`, while it has none on
    // the board): the hatching only for areas.
    const counts = v.places.some((p) => typeof p.value === 'number') || (!v.places.length && !v.status);
    key.className = counts ? 'key count' : `key hatch-${i % 3}`;
    key.setAttribute('aria-hidden', 'true');
    li.append(key, variableText(v));
    legend.append(li);
    lines.push(variableText(v));
  });
  legend.hidden = !legend.children.length;
  const byMark = {};
  for (const [m, at] of marks) (byMark[m] = byMark[m] || []).push(at);
  const marked = Object.entries(byMark).map(([m, at]) => `${m} on ${at.join(' ')}`);
  $('board-summary').textContent = [
    `The board, ${size}.`,
    pieces.length ? `Pieces: ${pieces.join('; ')}.` : 'No piece on it.',
    marked.length ? `Marked squares: ${marked.join('; ')}.` : '',
    ...lines.map((l) => `${l}.`),
    'Tab reaches each piece; type a square in the command line.',
  ].filter(Boolean).join(' ');
}

// A battlefield in inches (Solo Heresy's kind): drawn to scale, INCH pixels to the inch, with
// a line every 6 inches; units as circles their base across; a tap on the ground is a point
// (to the half inch) for the command being built.
const INCH = 12;

/// A point as commands take it: `24.5,30`.
function pointWord(x, y) {
  const half = (v) => Math.round(v * 2) / 2;
  return `${half(x)},${half(y)}`;
}

function drawField() {
  const b = view.battlefield;
  const svg = $('board');
  svg.innerHTML = '';
  const left = 22, top = 16;
  const W = b.width * INCH, H = b.height * INCH;
  svg.setAttribute('viewBox', `${-left} ${-top} ${W + left + 4} ${H + top + 4}`);
  svg.dataset.width = W + left + 4;
  if (svg.classList.contains('big')) svg.setAttribute('width', (W + left + 4) * 1.25);
  else svg.removeAttribute('width');
  svg.setAttribute('aria-label', `The battlefield ${b.label || b.id}, ${b.width} by ${b.height} inches`);
  const ground = el('rect', { x: 0, y: 0, width: W, height: H, class: 'floor ground', 'data-ground': '1' }, svg);
  el('title', {}, ground).textContent = `${b.label || b.id}: tap for a point`;
  for (let x = 6; x < b.width; x += 6) el('line', { x1: x * INCH, y1: 0, x2: x * INCH, y2: H, class: 'inch-line' }, svg);
  for (let y = 6; y < b.height; y += 6) el('line', { x1: 0, y1: y * INCH, x2: W, y2: y * INCH, class: 'inch-line' }, svg);
  for (let x = 0; x <= b.width; x += 12) {
    el('text', { x: x * INCH, y: -5, 'text-anchor': 'middle', class: 'coord' }, svg).textContent = x;
  }
  for (let y = 0; y <= b.height; y += 12) {
    el('text', { x: -4, y: y * INCH + 4, 'text-anchor': 'end', class: 'coord' }, svg).textContent = y;
  }
  const poly = (corners) => corners.map(([x, y]) => `${x * INCH},${y * INCH}`).join(' ');
  for (const z of b.zones) {
    const kind = z.hides ? 'zone hides' : z.avoid ? 'zone avoid' : 'zone';
    const g = el('polygon', { points: poly(z.corners), class: kind, 'data-ground': '1' }, svg);
    el('title', {}, g).textContent = `${z.name}${z.hides ? ' (hides)' : ''}${z.avoid ? ' (moves go round)' : ''}`;
  }
  for (const t of b.terrain) {
    // A tap here is a point too: the engine says why no unit may stand in it.
    const g = el('polygon', { points: poly(t.corners), class: t.see_through ? 'terrain see-through' : 'terrain', 'data-ground': '1' }, svg);
    el('title', {}, g).textContent = `${t.name}${t.see_through ? ' (blocks moves, not sight)' : ' (impassable)'}`;
  }
  for (const m of b.markers) {
    const [x, y] = m.at;
    const number = (m.name.match(/(\d+)$/) || [])[1] || '';
    const g = el('g', { class: m.mark ? 'marker mark' : 'marker' }, svg);
    el('circle', { cx: x * INCH, cy: y * INCH, r: m.mark ? 5 : 7 }, g);
    el('text', { x: x * INCH, y: y * INCH + 3.5, 'text-anchor': 'middle' }, g).textContent = number;
    el('title', {}, g).textContent = `${m.name} at ${x}, ${y}`;
  }
  for (const w of words.filter((w) => /^[\d.]+,[\d.]+$/.test(w))) {
    const [x, y] = w.split(',').map(Number);
    el('path', { class: 'picked-point', d: `M${x * INCH - 6} ${y * INCH - 6} L${x * INCH + 6} ${y * INCH + 6} M${x * INCH - 6} ${y * INCH + 6} L${x * INCH + 6} ${y * INCH - 6}` }, svg);
  }
  const mine = view.side;
  const said = [];
  for (const p of view.pieces) {
    if (p.status !== 'board' || !p.point) continue;
    const [x, y] = p.point;
    const r = Math.max((p.base || 1) / 2, 0.6) * INCH;
    const classes = ['piece', p.side === mine ? 'mine' : 'theirs'];
    if (words.includes(p.id)) classes.push('picked');
    const g = el('g', { class: classes.join(' '), 'data-piece': p.id }, svg);
    el('circle', { cx: x * INCH, cy: y * INCH, r }, g);
    el('text', { x: x * INCH, y: y * INCH + 3.5, 'text-anchor': 'middle', class: 'label' }, g).textContent = short(p.id);
    const deg = fieldFacing(p);
    let faces = '';
    if (deg !== null) {
      // A wedge on the base's edge the way the unit faces (0° up the table, 90° to the right).
      const a = (deg * Math.PI) / 180, dx = Math.sin(a), dy = -Math.cos(a);
      const tip = [x * INCH + dx * (r + 5), y * INCH + dy * (r + 5)];
      const foot = [x * INCH + dx * (r - 3), y * INCH + dy * (r - 3)];
      const side = [-dy * 5, dx * 5];
      el('path', { class: 'facing', d: `M${tip[0]} ${tip[1]} L${foot[0] + side[0]} ${foot[1] + side[1]} L${foot[0] - side[0]} ${foot[1] - side[1]} Z` }, g);
      g.dataset.facing = String(Math.round(deg));
      faces = ` · facing ${Math.round(deg)}°`;
    }
    el('title', {}, g).textContent = `${p.id} (${p.kind}) at ${x}, ${y}${p.life !== undefined ? ` · life ${p.life}` : ''}${faces}`;
    said.push(`${p.id} (${p.kind}) at ${x}, ${y}`);
  }
  describeBoard(`${b.width} by ${b.height} inches`, said, []);
}

/// The way a unit on the battlefield faces, in degrees (0 up the table, 90 to the right):
/// its `facing` field, a bearing (a vehicle's) or the unit it turned to face; null for none.
function fieldFacing(p) {
  const f = p.fields && p.fields.facing;
  if (typeof f === 'number') return f;
  if (typeof f !== 'string') return null;
  const other = view.pieces.find((q) => q.id === f && q.point);
  if (!other || !p.point) return null;
  const [dx, dy] = [other.point[0] - p.point[0], other.point[1] - p.point[1]];
  if (!dx && !dy) return null;
  return ((Math.atan2(dx, -dy) * 180) / Math.PI + 360) % 360;
}

/// The point in inches under a tap on the battlefield.
function fieldPoint(ev) {
  const svg = $('board');
  const m = svg.getScreenCTM();
  if (!m) return null;
  const pt = new DOMPoint(ev.clientX, ev.clientY).matrixTransform(m.inverse());
  const b = view.battlefield;
  const x = Math.min(Math.max(pt.x / INCH, 0), b.width), y = Math.min(Math.max(pt.y / INCH, 0), b.height);
  return pointWord(x, y);
}

function tapBoard(ev) {
  const piece = ev.target.closest('[data-piece]');
  if (!piece && view && view.battlefield && ev.target.closest('[data-ground]')) {
    const point = fieldPoint(ev);
    if (!point) return;
    if (words.length) addWord(point);
    else $('tapped').textContent = `point ${point}`;
    return;
  }
  const square = ev.target.closest('[data-sq]');
  if (piece) return tapPiece(piece.dataset.piece);
  if (square) {
    if (words.length) addWord(square.dataset.sq);
    else $('tapped').textContent = `square ${square.dataset.sq}`;
  }
}

async function tapPiece(id) {
  if (words.length) return addWord(id);
  $('tapped').textContent = id;
  await send(`why ${id}`);
}

function showWhy(id, text) {
  $('why-piece').textContent = id || '';
  $('why-text').textContent = text;
  $('why').hidden = false;
  const p = view && view.pieces.find((x) => x.id === id);
  if (p && p.side === view.side) {
    // Ready to build a command for one's own piece.
    $('why').dataset.piece = id;
  }
}

// ---------------------------------------------------------------- the command builder

function drawWords() {
  const box = $('command-words');
  box.innerHTML = '';
  const over = !!view.over;
  for (const c of view.commands.concat([{ word: 'end', help: 'end your turn: servitor plays the other side' }])) {
    const b = document.createElement('button');
    b.textContent = c.word === 'end' ? 'End turn' : c.word;
    b.title = c.help || '';
    b.dataset.word = c.word;
    b.disabled = over;
    if (words[0] === c.word) b.classList.add('on');
    b.onclick = () => {
      if (c.word === 'end') { words = []; return send('end'); }
      const own = $('why').hidden ? null : $('why').dataset.piece;
      words = own ? [c.word, own] : [c.word];
      syncLine();
    };
    box.append(b);
  }
  // The words that may come next, from the command's usage and the session (`words`): only
  // those it takes there; a refused line's replacements for its last word; Confirm lit when
  // the line as it is would be accepted.
  const sug = $('suggest');
  sug.innerHTML = '';
  $('send').classList.remove('ready');
  $('hint').textContent = '';
  if (!words.length || over) return;
  const w = JSON.parse(comp.words(words.join(' ')));
  hooks.offered = w;
  if (!w) return;
  if (w.complete) $('send').classList.add('ready');
  const chip = (word, what, act) => {
    const b = document.createElement('button');
    b.textContent = word;
    b.title = what;
    b.dataset.word = word;
    b.dataset.kind = what;
    b.onclick = act;
    sug.append(b);
  };
  for (const o of w.words || []) chip(o.word, o.kind, () => addWord(o.word));
  for (const o of w.instead || []) chip(o, 'instead', () => { words[words.length - 1] = o; syncLine(); });
  const wants = (w.slots || []).map((s) => s.name).join(' or ');
  $('hint').textContent = w.note || [
    wants && `next: ${wants}`,
    w.square && (view.battlefield ? 'tap a point on the battlefield' : 'tap a square on the board'),
    w.complete && 'Confirm plays it',
  ].filter(Boolean).join(' · ');
}

function addWord(w) {
  words.push(w);
  syncLine();
}

function syncLine() {
  $('line').value = words.join(' ');
  drawBoard();
  drawWords();
}

// ---------------------------------------------------------------- instructions

// The card list is the engine's: rebuilt from the session's log, so a reload shows the same
// cards, numbers and headings. A tick is keyed by the event the card shows (its index in the
// game's log), so no two cards share one; ticks past the log's end (an undo) are dropped.
let earlierCount = 0;
function loadCards() {
  const c = JSON.parse(comp.cards(false));
  if (!c) { shown = []; return; }
  shown = c.lines;
  earlierCount = c.from;
  let pruned = false;
  for (const k of Object.keys(ticks)) {
    if (!/^e\d+$/.test(k) || Number(k.slice(1)) >= c.total) { delete ticks[k]; pruned = true; }
  }
  if (pruned) localStorage.setItem(TICKS, JSON.stringify(ticks));
}

function tickKey(l) {
  return `e${l.event}`;
}

function drawLines(box, lines, tickable) {
  let numbered = 0, done = 0;
  for (const l of lines) {
    if (l.line === 'setup') {
      const h = document.createElement('div');
      h.className = 'turn-head';
      h.textContent = 'Setup';
      box.append(h);
    } else if (l.line === 'turn') {
      const h = document.createElement('div');
      h.className = 'turn-head';
      h.textContent = `Turn ${l.turn} · ${l.side} · ${l.phase}`;
      box.append(h);
    } else if (l.number && tickable) {
      numbered++;
      const key = tickKey(l);
      const card = document.createElement('label');
      card.className = 'step numbered';
      card.dataset.event = l.event;
      const check = document.createElement('input');
      check.type = 'checkbox';
      check.checked = !!ticks[key];
      if (check.checked) { card.classList.add('done'); done++; }
      check.onchange = () => {
        if (check.checked) ticks[key] = true; else delete ticks[key];
        localStorage.setItem(TICKS, JSON.stringify(ticks));
        drawCards();
      };
      const n = document.createElement('span');
      n.className = 'n';
      n.textContent = l.number;
      const body = document.createElement('span');
      body.className = 'body';
      const text = document.createElement('span');
      text.className = 'text';
      text.textContent = l.text;
      body.append(text);
      if (l.source) {
        const c = document.createElement('span');
        c.className = 'cite';
        c.textContent = l.source;
        body.append(c);
      }
      card.append(check, n, body);
      box.append(card);
    } else {
      const row = document.createElement('div');
      row.className = `note ${l.kind}`;
      const icon = document.createElement('span');
      icon.className = 'icon';
      icon.textContent = l.number ? `${l.number}.` : l.kind === 'decision' ? '→' : l.kind === 'roll' || l.kind === 'table' ? '⚄' : '·';
      const body = document.createElement('span');
      body.textContent = l.text;
      if (l.source) {
        const c = document.createElement('span');
        c.className = 'cite';
        c.textContent = l.source;
        body.append(c);
      }
      row.append(icon, body);
      box.append(row);
    }
  }
  return [numbered, done];
}

function drawCards() {
  const box = $('cards');
  box.innerHTML = '';
  if (earlierCount) {
    // The turns before, folded: drawn only when opened.
    const fold = document.createElement('details');
    fold.id = 'earlier';
    const sum = document.createElement('summary');
    sum.textContent = 'Earlier turns';
    fold.append(sum);
    fold.ontoggle = () => {
      if (!fold.open || fold.dataset.drawn) return;
      fold.dataset.drawn = '1';
      drawLines(fold, JSON.parse(comp.cards(true)).earlier, false);
    };
    box.append(fold);
  }
  const [numbered, done] = drawLines(box, shown, true);
  $('progress').textContent = numbered ? `${done} of ${numbered} done` : '';
  if (!shown.length) box.append('Your move: tap a command, then your pieces and squares.');
}

// ---------------------------------------------------------------- manual dice and questions

/// What a run needs before it can be played: a die (manual dice) or an answer to one of the
/// game's questions. The answer joins its list (the command is sent again with it); false if
/// none was given.
// "servitor rolls from now on", tapped in the dice sheet: the rest of this command's dice are
// servitor's, then `dice auto` switches the game for the commands after it.
let autoRest = false;

async function answerNeed(need, line, answers, choices) {
  if (need.question === undefined && autoRest) {
    answers.push(null);
    return true;
  }
  if (need.question !== undefined) {
    const pick = await askQuestion(need, line);
    if (pick === undefined) return false;
    choices.push(pick);
  } else {
    const face = await askDie(need, line);
    if (face === undefined) return false;
    answers.push(face);
  }
  return true;
}

/// Shows a sheet (a modal dialog): focus goes to `first`, Tab stays inside, and comes back
/// to where it was when the sheet closes.
function openSheet(id, first) {
  const sheet = $(id);
  const back = document.activeElement;
  sheet.hidden = false;
  first.focus();
  sheet.onkeydown = (e) => {
    if (e.key !== 'Tab') return;
    const buttons = [...sheet.querySelectorAll('button')];
    const i = buttons.indexOf(document.activeElement);
    const next = (i + (e.shiftKey ? -1 : 1) + buttons.length) % buttons.length;
    buttons[next].focus();
    e.preventDefault();
  };
  return () => {
    sheet.hidden = true;
    sheet.onkeydown = null;
    if (back && back.focus && document.contains(back)) back.focus();
  };
}

let answerDie = null;

function askDie(need, line) {
  const plain = /^d\d+$/.test(need.die);
  $('dice-title').textContent = plain ? `Roll a ${need.die}` : `Roll 1 ${need.die} die`;
  const which = `die ${need.given + 1}`;
  $('dice-why').textContent = line === 'setup' ? `for the setup (${which})` : `for \`${line}\` (${which})`;
  const faces = $('faces');
  faces.innerHTML = '';
  const seen = new Set();
  need.faces.forEach((f, i) => {
    // A die by faces may repeat a face: one button for each face it has.
    if (seen.has(f)) return;
    seen.add(f);
    const b = document.createElement('button');
    b.textContent = f;
    b.dataset.face = i + 1;
    b.onclick = () => answerDie(i + 1);
    faces.append(b);
  });
  const close = openSheet('dice', faces.querySelector('button'));
  return new Promise((resolve) => {
    answerDie = (v) => {
      close();
      answerDie = null;
      resolve(v);
    };
  });
}

let answerQuestion = null;

/// One of the game's questions (`game.ask`): the script's words, one button per choice (a
/// digit key picks by number, as at the terminal), and servitor's answer offered as `auto` is.
/// The answer: the choice's position from 1, or 0 for servitor's.
function askQuestion(need, line) {
  $('question-text').textContent = need.question;
  $('question-why').textContent = line === 'setup' ? 'for the setup' : `for \`${line}\``;
  const box = $('question-choices');
  box.innerHTML = '';
  need.choices.forEach((c, i) => {
    const b = document.createElement('button');
    const n = document.createElement('span');
    n.className = 'n';
    n.textContent = i + 1;
    b.append(n, document.createTextNode(c));
    b.dataset.choice = i + 1;
    b.onclick = () => answerQuestion(i + 1);
    box.append(b);
  });
  $('question-auto').textContent = `Let servitor choose (${need.choices[need.default - 1]})`;
  const close = openSheet('question', box.querySelector('button'));
  const digits = (e) => {
    const k = Number(e.key);
    if (k >= 1 && k <= need.choices.length) { e.preventDefault(); answerQuestion(k); }
  };
  $('question').addEventListener('keydown', digits);
  return new Promise((resolve) => {
    answerQuestion = (v) => {
      $('question').removeEventListener('keydown', digits);
      close();
      answerQuestion = null;
      resolve(v);
    };
  });
}

// ---------------------------------------------------------------- odds

function showOdds(r) {
  const box = $('odds-rows');
  box.innerHTML = '';
  if (!r.ok) { box.textContent = r.note; return; }
  if (!r.rows) return;
  const head = document.createElement('p');
  head.className = 'muted';
  head.textContent = `${r.label || r.table} · ${r.dice}`;
  box.append(head);
  for (const row of r.rows) {
    const d = document.createElement('div');
    d.className = 'odds-row';
    const name = document.createElement('span');
    name.textContent = row.label;
    const pct = document.createElement('span');
    pct.textContent = `${(row.p * 100).toFixed(1)}%`;
    pct.title = row.exact;
    const bar = document.createElement('span');
    bar.className = 'bar';
    bar.style.width = `${Math.max(row.p * 100, 0.5)}%`;
    d.append(name, pct, bar);
    box.append(d);
  }
}

// ---------------------------------------------------------------- wiring

function exportSave() {
  const text = comp ? comp.save() : localStorage.getItem(SAVE);
  if (!text) return;
  const v = JSON.parse(comp.view());
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  a.download = `servitor-${v.package}-${v.mission}.json`;
  document.body.append(a);
  a.click();
  a.remove();
}

function setTheme(t) {
  document.documentElement.dataset.theme = t;
  localStorage.setItem(THEME, t);
}

function wire() {
  $('package').onchange = pickPackage;
  for (const id of ['variant-files', 'variant-folder']) {
    $(id).onchange = async (e) => { if (e.target.files.length) addVariant(await pickedFiles(e.target.files), true); };
  }
  $('campaign').onchange = () => { $('mission-choice').hidden = $('campaign').checked; };
  $('next-mission').onclick = () => send('next');
  $('mission').onchange = pickMission;
  $('start-button').onclick = start;
  $('board').addEventListener('click', tapBoard);
  $('board').addEventListener('keydown', (e) => {
    if ((e.key === 'Enter' || e.key === ' ') && e.target.closest('[data-piece]')) { e.preventDefault(); tapBoard(e); }
  });
  $('send').onclick = () => send($('line').value);
  $('line').addEventListener('keydown', (e) => { if (e.key === 'Enter') send($('line').value); });
  $('line').addEventListener('input', () => { hooks.typing = true; words = $('line').value.split(/\s+/).filter(Boolean); drawWords(); });
  $('clear').onclick = () => { words = []; syncLine(); };
  $('undo').onclick = () => send('undo');
  $('redo').onclick = () => send('redo');
  $('why-close').onclick = () => { $('why').hidden = true; delete $('why').dataset.piece; };
  $('help-close').onclick = () => { $('help').hidden = true; };
  $('zoom').onclick = () => { $('board').classList.toggle('big'); drawBoard(); };
  $('dice-auto').onclick = () => answerDie && answerDie(null);
  $('dice-auto-all').onclick = () => { if (answerDie) { autoRest = true; answerDie(null); } };
  $('dice-switch').onclick = async () => {
    if (!comp || !view) return;
    await switchDice(view.manual_now ? 'auto' : 'manual');
    refresh();
  };
  $('question-auto').onclick = () => answerQuestion && answerQuestion(0);
  $('odds-table').onchange = () => { if ($('odds-table').value) send(`odds ${$('odds-table').value}`); };
  const menu = $('menu');
  $('menu-button').onclick = () => {
    menu.hidden = !menu.hidden;
    $('menu-button').setAttribute('aria-expanded', String(!menu.hidden));
  };
  menu.addEventListener('click', () => { setTimeout(() => { menu.hidden = true; }, 0); });
  $('new-game').onclick = () => { show('start'); };
  $('export').onclick = exportSave;
  $('theme').onclick = () => setTheme(document.documentElement.dataset.theme === 'dark' ? 'light' : 'dark');
  $('help-button').onclick = () => {
    if (comp && view) send('help');
    else { $('help-text').textContent = 'Start a game to see its commands.'; $('help').hidden = false; }
  };
  $('import').onchange = async () => {
    const file = $('import').files[0];
    if (!file) return;
    const r = resume(await file.text(), file.name);
    $('import').value = '';
    if (!r.ok) {
      show(comp ? 'play' : 'start');
      $(comp ? 'answer-note' : 'start-error').textContent = r.note;
    }
  };
}

async function main() {
  const theme = localStorage.getItem(THEME)
    || (matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light');
  setTheme(theme);
  wire();
  // On a phone the squares start finger-sized (the board scrolls); Zoom shows it whole.
  if (matchMedia('(max-width: 600px)').matches) $('board').classList.add('big');
  const t0 = performance.now();
  await init({ module_or_path: `pkg/servitor_web_bg.wasm?v=${VERSION}` });
  // Registered once the engine is loaded: the worker takes it from the browser's cache.
  if ('serviceWorker' in navigator) {
    navigator.serviceWorker.register('sw.js').catch((e) => console.warn('no offline copy:', e));
  }
  // A new build since the last visit: say so.
  const last = localStorage.getItem('servitor.version');
  if (last && last !== VERSION) {
    $('updated').textContent = `updated to version ${VERSION}`;
    $('updated').hidden = false;
  }
  localStorage.setItem('servitor.version', VERSION);
  // The games on squares first, then those on a battlefield in inches.
  packages = JSON.parse(catalog()).filter((p) => p.games.length);
  packages.sort((a, b) => Number(!!a.battlefield) - Number(!!b.battlefield));
  document.body.dataset.engineMs = Math.round(performance.now() - t0);
  fillStart();
  const kept = JSON.parse(localStorage.getItem(VARIANT) || 'null');
  if (kept) addVariant(kept.files, false);
  ticks = JSON.parse(localStorage.getItem(TICKS) || '{}');
  // A command or a new game's setup the reload interrupted goes on from its next die.
  const pending = pendingNow();
  const saved = localStorage.getItem(SAVE);
  if (pending && pending.setup && packages.some((p) => p.package === pending.setup.package)) {
    show('start');
    const { package: name, ...setup } = pending.setup;
    autoRest = !!pending.auto;
    hooks.busy = true;
    const going = begin(name, setup, pending).finally(() => { hooks.busy = false; });
    document.body.dataset.ready = '1';
    await going;
    return;
  }
  if (saved) {
    const r = resume(saved, 'the saved game');
    if (r.ok) {
      ticks = JSON.parse(localStorage.getItem(TICKS) || '{}');
      drawCards();
      if (pending && pending.line) {
        autoRest = !!pending.auto;
        send(pending.line, { given: pending });
      }
      document.body.dataset.ready = '1';
      return;
    }
    $('start-error').textContent = r.note;
  }
  dropPending();
  show('start');
  document.body.dataset.ready = '1';
}

main();
