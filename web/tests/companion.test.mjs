// The web companion in a real headless Chromium (Debian's, at /usr/bin/chromium), driven by
// playwright-core: served by web/serve.mjs from web/dist (web/build.sh builds it), played by
// taps as a person at the table would. Screenshots of the key screens go to web/screenshots/.
//
// node --test web/tests/        (SERVITOR: the servitor binary; default target/debug/servitor)

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync, existsSync, cpSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const web = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const checkout = resolve(web, '..');
const shots = join(web, 'screenshots');
const SERVITOR = process.env.SERVITOR || join(checkout, 'target/debug/servitor');
const PHONE = { viewport: { width: 360, height: 740 }, hasTouch: true, isMobile: true, deviceScaleFactor: 2 };
const DESKTOP = { viewport: { width: 1280, height: 860 } };
// Reactor strike's claw airlock squares (the bundled mission's map, not the page's knowledge).
const CLAW = ['7,1', '6,1'];

let server, base;

function serve() {
  return new Promise((ok, fail) => {
    const s = spawn(process.execPath, [join(web, 'serve.mjs'), '0', join(web, 'dist')], { stdio: ['ignore', 'pipe', 'inherit'] });
    s.stdout.once('data', (d) => {
      const m = String(d).match(/http:\/\/[\d.:]+\//);
      if (m) ok({ s, url: m[0] }); else fail(new Error(`serve said ${d}`));
    });
    s.once('error', fail);
  });
}

before(async () => {
  assert.ok(existsSync(join(web, 'dist/pkg/servitor_web_bg.wasm')), 'web/dist is built (web/build.sh)');
  mkdirSync(shots, { recursive: true });
  ({ s: server, url: base } = await serve());
});

after(() => server && server.kill());

async function browser(kind = PHONE) {
  const dir = mkdtempSync(join(tmpdir(), 'servitor-chromium-'));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    acceptDownloads: true,
    ...kind,
  });
  const page = context.pages()[0] || await context.newPage();
  page.on('pageerror', (e) => { throw e; });
  if (kind.hasTouch) touch.add(page);
  return { context, page };
}

const touch = new WeakSet();

/// A tap on a phone, a click on a desktop.
async function press(locator) {
  if (touch.has(locator.page())) await locator.tap();
  else await locator.click();
}

async function ready(page) {
  await page.waitForSelector('body[data-ready="1"]', { timeout: 60000 });
}

async function shot(page, name) {
  await page.screenshot({ path: join(shots, `${name}.png`) });
}

const view = (page) => page.evaluate(() => JSON.parse(window.__servitor.view()));

/// Taps through the dice sheet until it is gone: faces chosen from `faces` in turn.
async function answerDice(page, faces, counter) {
  for (;;) {
    const open = await page.locator('#dice:not([hidden])').count();
    if (!open) return;
    const buttons = page.locator('#faces button');
    const n = await buttons.count();
    const pick = faces[counter.n++ % faces.length] % n;
    if (counter.n === 3 && counter.shot) await shot(page, counter.shot);
    if (counter.n % 7 === 0) await press(page.locator('#dice-auto'));
    else await press(buttons.nth(pick));
  }
}

async function settle(page, counter) {
  // A command answers at once, or asks for a die first (or a question of the game: servitor's
  // answer is taken here; the Space Hulk test answers its questions itself).
  for (let i = 0; i < 200; i++) {
    await page.waitForTimeout(10);
    if (await page.locator('#dice:not([hidden])').count()) await answerDice(page, [5, 2, 0, 3, 1, 4], counter);
    if (await page.locator('#question:not([hidden])').count()) await press(page.locator('#question-auto'));
    const busy = await page.evaluate(() => window.__servitor.busy);
    if (!busy && !(await page.locator('#dice:not([hidden]), #question:not([hidden])').count())) return;
  }
}

async function tapCommand(page, word, taps, counter) {
  await press(page.locator(`#command-words button[data-word="${word}"]`));
  for (const t of taps) {
    if (/^\d+,\d+$/.test(t)) await press(page.locator(`#board [data-sq="${t}"]`));
    else if (await page.locator(`#board [data-piece="${t}"]`).count()) await press(page.locator(`#board [data-piece="${t}"]`));
    else await press(page.locator('#suggest button', { hasText: new RegExp(`^${t}$`) }));
  }
  if (word !== 'end') await press(page.locator('#send'));
  await settle(page, counter);
}

async function newGame(page, { pkg, mission = 'reactor-strike', seed, manual = false }) {
  if (pkg) await page.locator('#package').selectOption(JSON.stringify(pkg));
  await page.locator('#mission').selectOption(mission);
  await page.locator(`input[name=dice][value=${manual ? 'manual' : 'auto'}]`).check();
  await page.locator('#seed').fill(String(seed));
  await press(page.locator('#start-button'));
}

// The CLI plays the bundled package, as the page does: run away from the checkout (whose
// rulesets/ it would find first, and name in its save as `found_at`).
function cli(args, input) {
  const env = { ...process.env, NO_COLOR: '1' };
  delete env.SERVITOR_RULESETS;
  const r = spawnSync(SERVITOR, ['play', ...args], { input, encoding: 'utf8', cwd: tmpdir(), env });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

test('load, start, three turns by taps, undo, reload and resume, offline, export to the CLI and back', async (t) => {
  const { context, page } = await browser(PHONE);
  // This test stops the server to go offline: the next tests get a new one, and the browser
  // is closed, whatever happens here.
  t.after(async () => {
    await context.close().catch(() => {});
    if (server.exitCode !== null || server.killed) ({ s: server, url: base } = await serve());
  });
  const t0 = Date.now();
  await page.goto(base);
  await ready(page);
  console.log(`# first load to a ready page: ${Date.now() - t0} ms (engine ${await page.evaluate(() => document.body.dataset.engineMs)} ms)`);
  await shot(page, 'phone-start');
  // Every playable game of the bundle is offered; the engine names none of them.
  const offered = await page.locator('#package option').allTextContents();
  assert.ok(offered.length >= 1, `${offered}`);
  await newGame(page, { seed: 1 });
  await page.waitForSelector('#play:not([hidden])');
  const counter = { n: 0 };
  // Turn 1: a Marine boards at a claw airlock; turn 2: it walks two squares; turn 3: another
  // boards. Each turn ends with the Alien's instructions.
  await tapCommand(page, 'enter', ['marine-1', CLAW[0]], counter);
  assert.match(await page.locator('#cards').innerText(), /marine-1 enters the board on 7,1/);
  await tapCommand(page, 'end', [], counter);
  await shot(page, 'phone-alien-turn');
  const cards = page.locator('.step.numbered');
  assert.ok(await cards.count() > 0, 'the Alien turn has numbered instructions');
  await press(cards.first());
  assert.equal(await page.locator('.step.numbered.done').count(), 1, 'a card ticks off');
  await tapCommand(page, 'move', ['marine-1', '7,2', '7,3'], counter);
  assert.match(await page.locator('#cards').innerText(), /marine-1 moves 2 squares/);
  await tapCommand(page, 'end', [], counter);
  await tapCommand(page, 'enter', ['marine-2', CLAW[1]], counter);
  await tapCommand(page, 'end', [], counter);
  let v = await view(page);
  assert.equal(v.turn, 4);
  assert.equal(v.commands_played, 6);
  // The page holds only the player's view: face-down pieces keep what they hide to the
  // engine (no identity, no life), and no answer carries the log's actions.
  const faceDown = v.pieces.filter((p) => p.face_down);
  assert.ok(faceDown.length > 0, 'some blips are on the board');
  for (const p of faceDown) assert.ok(!('life' in p) && !('fields' in p) && !('hidden' in p), JSON.stringify(p));
  const said = await page.evaluate(() => window.__servitor.seen.join('\n') + window.__servitor.view());
  assert.ok(said.includes('blip') && !/"hidden"|"action"|"cards"/.test(said), 'no secrets in what the engine said');
  await shot(page, 'phone-turn-4');
  // Tapping a piece says why it did what it did.
  await press(page.locator('#board [data-piece="marine-1"]'));
  await page.waitForSelector('#why:not([hidden])');
  assert.match(await page.locator('#why-text').innerText(), /marine-1/);
  await press(page.locator('#why-close'));
  // Undo takes back the last command (the Alien's third turn with it); redo is offered.
  await press(page.locator('#undo'));
  await settle(page, counter);
  v = await view(page);
  assert.equal(v.commands_played, 5);
  assert.equal(v.turn, 3);
  assert.ok(v.can_redo);
  const saved = await page.evaluate(() => localStorage.getItem('servitor.save'));
  assert.equal(JSON.parse(saved).entries.length, 5, 'the undo is saved before it is shown');
  // Reload: the game resumes where it was.
  await page.reload();
  await ready(page);
  await page.waitForSelector('#play:not([hidden])');
  v = await view(page);
  assert.equal(v.commands_played, 5);
  assert.equal(await page.evaluate(() => window.__servitor.comp.save()), saved);
  // Offline: the server is gone and the network cut; the page reloads from its offline copy
  // and the game goes on.
  await context.setOffline(true);
  server.kill();
  await page.reload();
  await ready(page);
  await page.waitForSelector('#play:not([hidden])');
  await tapCommand(page, 'end', [], counter);
  v = await view(page);
  assert.equal(v.turn, 4);
  await shot(page, 'phone-offline');
  // Export: the file is the save; the CLI goes on from it, and both play the next command the
  // same way, byte for byte.
  const dir = mkdtempSync(join(tmpdir(), 'servitor-export-'));
  const [download] = await Promise.all([page.waitForEvent('download'), (async () => {
    await press(page.locator('#menu-button'));
    await press(page.locator('#export'));
  })()]);
  const file = join(dir, 'page.json');
  await download.saveAs(file);
  const exported = readFileSync(file, 'utf8');
  assert.equal(exported, await page.evaluate(() => localStorage.getItem('servitor.save')));
  cli(['space-crusade-solo', '--resume', file], 'move marine-1 7,4\nend\n');
  await tapCommand(page, 'move', ['marine-1', '7,4'], counter);
  await tapCommand(page, 'end', [], counter);
  assert.equal(readFileSync(file, 'utf8'), await page.evaluate(() => localStorage.getItem('servitor.save')),
    'the CLI and the page give the same save');
  // And back: the CLI plays on, the page imports its save and goes on from there.
  cli(['space-crusade-solo', '--resume', file], 'move marine-2 6,2\nend\n');
  await press(page.locator('#menu-button'));
  await page.locator('#import').setInputFiles(file);
  await page.waitForFunction(() => JSON.parse(window.__servitor.comp.save()).entries.length === 10);
  assert.equal(await page.evaluate(() => window.__servitor.comp.save()), readFileSync(file, 'utf8'));
  await tapCommand(page, 'end', [], counter);
  v = await view(page);
  assert.equal(v.commands_played, 11);
});

// The games on squares whose whole missions wholeMission plays: the package and game to pick
// (none: the first offered), the mission, the seed for automatic and for manual dice, and the
// package the CLI resumes the page's save with.
const SPACE_CRUSADE = { pkg: null, mission: 'reactor-strike', seeds: [3, 7], cli: 'space-crusade-solo' };
const STARQUEST = { pkg: ['starquest-solitaire', 'starquest'], mission: 'mission-1', seeds: [5, 5], cli: 'starquest-solitaire' };

/// A whole mission, by taps: Marines board and walk in, and every turn ends until the game is
/// over. With `reloads`: after every Alien turn a card ticked (no other changing) and a reload
/// showing every card, number, tick and piece as before (a reload mid-dice: the card-list test
/// and the whole Space Hulk mission).
async function wholeMission(kind, manual, name, reloads = false, game = SPACE_CRUSADE) {
  const { context, page } = await browser(kind);
  await page.goto(base);
  await ready(page);
  await newGame(page, { pkg: game.pkg, mission: game.mission, seed: game.seeds[manual ? 1 : 0], manual });
  const counter = { n: 0, shot: manual ? `${name}-dice` : null };
  await settle(page, counter);
  await page.waitForSelector('#play:not([hidden])');
  const plan = [['enter', ['marine-1', '7,1']], ['enter', ['marine-2', '6,1']], ['move', ['marine-1', '7,2']]];
  let turns = 0;
  for (; turns < 60; turns++) {
    const v = await view(page);
    if (v.over) break;
    // Each planned step while it still can be played: a Marine killed is not moved.
    const step = plan[turns];
    const piece = step && v.pieces.find((p) => p.id === step[1][0]);
    const free = (sq) => !v.pieces.some((p) => p.at === sq && p.status === 'board');
    const playable = step && piece && (step[0] === 'enter'
      ? piece.status === 'off' && free(step[1][1])
      : piece.status === 'board' && free(step[1][1]));
    if (playable) await tapCommand(page, ...step, counter);
    if ((await view(page)).over) break;
    await tapCommand(page, 'end', [], counter);
    if (turns === 1) await shot(page, `${name}-alien-turn`);
    if (reloads && !(await view(page)).over) {
      await tickOne(page, turns);
      await reloadSame(page, `after Alien turn ${turns + 1}`);
      counter.reloads = (counter.reloads || 0) + 1;
    }
  }
  const v = await view(page);
  assert.ok(v.over, `the game ends (after ${turns} turns)`);
  const final = await page.locator('#final-text').innerText();
  assert.match(final, /The game is over: .*Scores: /);
  await page.locator('#final').scrollIntoViewIfNeeded();
  await shot(page, `${name}-final`);
  // The page's save replays in the CLI to the same final state.
  const dir = mkdtempSync(join(tmpdir(), 'servitor-whole-'));
  const file = join(dir, 'whole.json');
  writeFileSync(file, await page.evaluate(() => window.__servitor.comp.save()));
  const out = cli([game.cli, '--resume', file], 'status\n');
  assert.ok(out.includes(final.trim()), `the CLI ends the same way:\n${out}\n---\n${final}`);
  assert.equal(await page.evaluate(() => window.__servitor.typed), 0, 'no command was typed');
  await context.close();
  return { turns, dice: counter.n, reloads: counter.reloads || 0 };
}

test('a whole Space Crusade mission by taps with automatic dice, on a desktop: a reload after every Alien turn keeps every card, number, tick and piece', async () => {
  const t = Date.now();
  const r = await wholeMission(DESKTOP, false, 'desktop-auto', true);
  console.log(`# auto dice: ${r.turns} turns, ${r.reloads} reloads, in ${Date.now() - t} ms`);
});

test('a whole StarQuest mission by taps with automatic dice, on a phone: a reload after every Alien turn keeps every card, number, tick and piece', async () => {
  const t = Date.now();
  const r = await wholeMission(PHONE, false, 'phone-starquest', true, STARQUEST);
  assert.ok(r.reloads > 0, 'some Alien turns were reloaded');
  console.log(`# StarQuest, auto dice: ${r.turns} turns, ${r.reloads} reloads, in ${Date.now() - t} ms`);
});

test('a whole mission to the final score with manual dice, on a phone', async () => {
  const t = Date.now();
  const r = await wholeMission(PHONE, true, 'phone-manual');
  console.log(`# manual dice: ${r.turns} turns, ${r.dice} dice tapped, in ${Date.now() - t} ms`);
});

test('dark theme on a desktop and a phone', async () => {
  for (const [kind, name] of [[DESKTOP, 'desktop-dark'], [PHONE, 'phone-dark']]) {
    const { context, page } = await browser(kind);
    await page.goto(base);
    await ready(page);
    await page.evaluate(() => localStorage.setItem('servitor.theme', 'dark'));
    await page.reload();
    await ready(page);
    await newGame(page, { seed: 1 });
    await tapCommand(page, 'enter', ['marine-1', '7,1'], { n: 0 });
    await tapCommand(page, 'end', [], { n: 0 });
    await press(page.locator('#board [data-piece="marine-1"]'));
    await shot(page, name);
    if (kind === PHONE) await axeClean(page, 'a game, dark');
    await context.close();
  }
});

/// axe-core (WCAG 2 A and AA, best practice) finds no violation on the screen as it is.
async function axeClean(page, screen) {
  await page.addScriptTag({ path: join(web, 'tests/node_modules/axe-core/axe.min.js') });
  const r = await page.evaluate(() => window.axe.run(document, { runOnly: ['wcag2a', 'wcag2aa', 'best-practice'] }));
  const found = r.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  assert.deepEqual(found, [], `axe-core on ${screen}`);
}

/// Ends turns until the game asks a question (`game.ask`): the question sheet, open.
async function endUntilAsked(page, most) {
  for (let i = 0; i < most; i++) {
    await press(page.locator('#command-words button[data-word="end"]'));
    const asked = page.locator('#question:not([hidden])');
    await page.waitForFunction(() => !window.__servitor.busy || !document.getElementById('question').hidden);
    if (await asked.count()) return i + 1;
  }
  return 0;
}

const save = (page) => page.evaluate(() => JSON.parse(localStorage.getItem('servitor.save')));

test('Space Hulk solo: the game asks, a button per choice, the answer kept in the save and replayed', async () => {
  const { context, page } = await browser(PHONE);
  await page.goto(base);
  await ready(page);
  // Breach run, seed 7: the first Genestealer turn rolls a 6 for a blip's placement, and the
  // player chooses its entry area (seed 004, Reinforcement Blips).
  await newGame(page, { pkg: ['space-hulk-solo', 'hulk'], mission: 'breach-run', seed: 7 });
  await page.waitForSelector('#play:not([hidden])');
  assert.equal(await endUntilAsked(page, 1), 1, 'the first end asks');
  assert.match(await page.locator('#question-text').innerText(), /placement roll lets you choose/);
  const choices = page.locator('#question-choices button');
  const offered = await choices.allInnerTexts();
  assert.ok(offered.length >= 2, `${offered}`);
  // The sheet is a dialog whose first choice has the focus; the other choices are real buttons.
  assert.equal(await page.evaluate(() => document.activeElement.dataset.choice), '1');
  assert.equal(await page.locator('#question').getAttribute('role'), 'dialog');
  assert.match(await page.locator('#question-auto').innerText(), /Let servitor choose/);
  await shot(page, 'phone-question');
  await axeClean(page, 'a question of the game');
  // The legend's key says what is drawn: a count's key for the blips lurking even while none
  // lurk (never the hatching of a burning section).
  const keys = await page.evaluate(() => [...document.querySelectorAll('#board-legend li')].map((li) => `${li.dataset.var}: ${li.querySelector('.key').className}`));
  assert.ok(keys.includes('lurking: key count'), `${keys}`);
  // Nothing is saved while the question waits.
  assert.equal((await save(page)).entries.length, 0);
  const third = offered[2].replace(/^\d+\s*/, '');
  await press(choices.nth(2));
  await settle(page, { n: 0 });
  const cards = await page.locator('#cards').innerText();
  assert.ok(cards.includes(`${third} (the player's answer`), `the answer is played:\n${cards}`);
  let s = await save(page);
  assert.deepEqual(s.entries.map((e) => [e.line, e.choices]), [['end', [3]]]);
  // Undo and redo, reload: the answer is replayed, never asked again.
  await press(page.locator('#undo'));
  await settle(page, { n: 0 });
  await press(page.locator('#redo'));
  await settle(page, { n: 0 });
  assert.equal(await page.locator('#question:not([hidden])').count(), 0);
  assert.deepEqual(await save(page), s);
  await page.reload();
  await ready(page);
  await page.waitForSelector('#play:not([hidden])');
  assert.deepEqual(JSON.parse(await page.evaluate(() => window.__servitor.comp.save())), s);
  // The next question, answered from the keyboard: its number picks it, as at the terminal.
  const ends = await endUntilAsked(page, 8);
  assert.ok(ends > 0, 'another question within eight turns');
  const question = await page.locator('#question-text').innerText();
  await page.keyboard.press('2');
  await settle(page, { n: 0 });
  s = await save(page);
  const last = s.entries[s.entries.length - 1];
  assert.equal(last.choices[0], 2, `${question}: ${JSON.stringify(last)}`);
  // The page says nothing secret: the question is the script's, meant for the player.
  const said = await page.evaluate(() => window.__servitor.seen.join('\n'));
  assert.ok(said.includes('"question"') && !/"hidden"|"action"|"cards"/.test(said), 'no secrets in what the engine said');
  // The CLI replays the page's save with its answers (a save whose answers did not fit its
  // questions is refused), and its undo and redo give the same save back, byte for byte.
  const dir = mkdtempSync(join(tmpdir(), 'servitor-ask-'));
  const file = join(dir, 'ask.json');
  const text = await page.evaluate(() => window.__servitor.comp.save());
  writeFileSync(file, text);
  cli(['space-hulk-solo', '--resume', file], 'undo\nredo\n');
  assert.equal(readFileSync(file, 'utf8'), text, 'the CLI replays the answers');
  await hulkStateDrawn(page);
  await context.close();
});

/// Each face-up piece on the board carries what the view says of it (facing, AP left, watch,
/// a jammed gun) in its attributes and its name for screen readers; a Terminator turned by
/// taps points the new way, his AP one less; one put on overwatch is marked so.
async function hulkStateDrawn(page) {
  const drawn = async () => {
    const v = await view(page);
    for (const p of v.pieces.filter((q) => q.status === 'board' && !q.face_down)) {
      const g = page.locator(`#board [data-piece="${p.id}"]`);
      assert.equal(await g.getAttribute('data-facing'), p.facing ?? null, `${p.id} facing`);
      assert.equal(await g.getAttribute('data-ap'), p.ap === undefined ? null : String(p.ap), `${p.id} AP`);
      assert.equal(await g.getAttribute('data-watch'), p.watch ?? null, `${p.id} watch`);
      if (p.facing) assert.match(await g.getAttribute('aria-label'), new RegExp(`facing ${p.facing}`));
    }
    return v;
  };
  let v = await drawn();
  const m = v.pieces.find((p) => p.side === v.side && p.status === 'board' && p.ap >= 3);
  assert.ok(m, 'a Terminator with AP to turn and go on overwatch');
  await press(page.locator('#command-words button[data-word="turn"]'));
  await press(page.locator(`#board [data-piece="${m.id}"]`));
  const way = (await page.locator('#suggest button').allTextContents())[0];
  assert.ok(way && way !== m.facing, `a way to turn: ${way}`);
  await press(page.locator('#suggest button', { hasText: new RegExp(`^${way}$`) }));
  await press(page.locator('#send'));
  await settle(page, { n: 0 });
  v = await drawn();
  const turned = v.pieces.find((p) => p.id === m.id);
  assert.equal(turned.facing, way, 'the engine turned him');
  assert.equal(await page.locator(`#board [data-piece="${m.id}"]`).getAttribute('data-facing'), way, 'the wedge points the new way');
  assert.ok(turned.ap < m.ap, 'the turn cost AP');
  await tapCommand(page, 'overwatch', [m.id], { n: 0 });
  v = await drawn();
  assert.equal(v.pieces.find((p) => p.id === m.id).watch, 'overwatch');
  assert.equal(await page.locator(`#board [data-piece="${m.id}"] circle.watch-mark`).count(), 1, 'overwatch marked');
  await shot(page, 'phone-hulk-state');
}

test('Space Hulk solo with real dice: dice and questions asked in turn within one command', async () => {
  const { context, page } = await browser(DESKTOP);
  await page.goto(base);
  await ready(page);
  await newGame(page, { pkg: ['space-hulk-solo', 'hulk'], mission: 'breach-run', seed: 7, manual: true });
  // Every die the setup rolls is tapped as its highest face.
  const highest = async () => {
    const faces = page.locator('#faces button');
    await press(faces.nth((await faces.count()) - 1));
  };
  for (let i = 0; i < 50 && await page.locator('#dice:not([hidden])').count(); i++) await highest();
  await page.waitForSelector('#play:not([hidden])');
  // End the turn: the Genestealer phase rolls its dice (a 6 for every placement roll, which
  // lets the player choose the entry area), and asks; dice and answers go in one command.
  await press(page.locator('#command-words button[data-word="end"]'));
  let dice = 0, asked = 0;
  for (let i = 0; i < 400; i++) {
    if (await page.locator('#dice:not([hidden])').count()) { await highest(); dice++; continue; }
    if (await page.locator('#question:not([hidden])').count()) {
      asked++;
      await press(page.locator('#question-choices button').last());
      continue;
    }
    if (!(await page.evaluate(() => window.__servitor.busy))) break;
    await page.waitForTimeout(10);
  }
  assert.ok(dice > 0 && asked > 0, `dice ${dice}, questions ${asked}`);
  console.log(`# one end of turn: ${dice} dice tapped, ${asked} questions answered`);
  const s = await save(page);
  assert.equal(s.entries.length, 1);
  assert.equal(s.entries[0].dice.length, dice, 'every die tapped is kept');
  assert.equal(s.entries[0].choices.length, asked, 'every answer is kept');
  assert.ok(s.entries[0].choices.every((c) => c > 1), `the last choice each time: ${s.entries[0].choices}`);
  // The CLI replays it to the same save.
  const dir = mkdtempSync(join(tmpdir(), 'servitor-ask-dice-'));
  const file = join(dir, 'ask.json');
  const text = await page.evaluate(() => window.__servitor.comp.save());
  writeFileSync(file, text);
  cli(['space-hulk-solo', '--resume', file], 'undo\nredo\n');
  assert.equal(readFileSync(file, 'utf8'), text);
  await context.close();
});

/// Every card of the card list as the player sees it: heading, number, text, tick.
const cardList = (page) => page.evaluate(() => [...document.querySelectorAll('#cards > *')].map((e) => {
  const box = e.querySelector('input[type=checkbox]');
  return `${e.className}|${e.innerText.replace(/\s+/g, ' ').trim()}|${box ? (box.checked ? 'ticked' : 'open') : '-'}`;
}));

/// Each end, the card list; a card ticked (and nothing else changing); a reload showing the
/// same cards, numbers and ticks.
async function cardsSurviveReloads(page, turns, counter) {
  for (let turn = 0; turn < turns; turn++) {
    await tapCommand(page, 'end', [], counter);
    const before = await cardList(page);
    const open = page.locator('.step.numbered:not(.done)');
    const n = await open.count();
    assert.ok(n > 0, `turn ${turn}: the enemy's turn has cards`);
    await press(open.nth((turn * 3) % n).locator('input'));
    const ticked = await cardList(page);
    const changed = before.map((c, i) => (c === ticked[i] ? null : i)).filter((i) => i !== null);
    assert.equal(ticked.length, before.length);
    assert.equal(changed.length, 1, `one tap changes one card:\n${changed.map((i) => `${before[i]}\n→ ${ticked[i]}`).join('\n')}`);
    await page.reload();
    await ready(page);
    await page.waitForSelector('#play:not([hidden])');
    assert.deepEqual(await cardList(page), ticked, `turn ${turn}: the reload shows every card, number and tick as before`);
  }
}

test('the card list is part of the saved session: reloads after every enemy turn and mid-dice keep every card, number and tick', async () => {
  const { context, page } = await browser(PHONE);
  try {
    await page.goto(base);
    await ready(page);
    // Space Crusade: a command of the player after the enemy's turn adds to the list.
    await newGame(page, { seed: 3 });
    await page.waitForSelector('#play:not([hidden])');
    const counter = { n: 0 };
    await tapCommand(page, 'enter', ['marine-1', CLAW[0]], counter);
    await cardsSurviveReloads(page, 2, counter);
    const m1 = (await view(page)).pieces.find((p) => p.id === 'marine-1');
    if (m1 && m1.status === 'board') await tapCommand(page, 'move', ['marine-1', '7,2'], counter);
    const moved = await cardList(page);
    await page.reload();
    await ready(page);
    assert.deepEqual(await cardList(page), moved, 'a command after the enemy turn: the list with it survives');
    // Earlier turns are folded, there to open.
    assert.equal(await page.locator('#earlier:not([open])').count(), 1);
    await page.locator('#earlier summary').click();
    // The fold is drawn by its toggle event, which fires after the click returns.
    await page.waitForSelector('#earlier[data-drawn]');
    assert.match(await page.locator('#earlier').innerText(), /Turn 1/);
    // StarQuest numbers each phase from 1: a tick is still its own card's.
    await page.evaluate(() => localStorage.clear());
    await page.reload();
    await ready(page);
    await newGame(page, { pkg: ['starquest-solitaire', 'starquest'], mission: 'mission-1', seed: 2 });
    await page.waitForSelector('#play:not([hidden])');
    await cardsSurviveReloads(page, 3, counter);
    // Manual dice: a reload while the enemy's dice are asked shows the list as it was.
    await page.evaluate(() => localStorage.clear());
    await page.reload();
    await ready(page);
    await newGame(page, { seed: 3, manual: true });
    await settle(page, counter);
    await page.waitForSelector('#play:not([hidden])');
    await tapCommand(page, 'enter', ['marine-1', CLAW[0]], counter);
    await cardsSurviveReloads(page, 1, counter);
    const mid = await cardList(page);
    const turn = (await view(page)).turn;
    await press(page.locator('#command-words button[data-word="end"]'));
    const tapped = await tapDice(page, 2);
    await page.reload();
    await ready(page);
    assert.deepEqual(await cardList(page), mid, 'mid-dice: the list as before the command');
    // The dice already entered survive the reload: the command goes on from the next die.
    await diceGoOn(page, 'for `end` (die 3)', tapped, (s) => s.entries.filter((e) => e.line === 'end').pop().dice);
    assert.equal((await view(page)).turn, turn + 1, 'the Alien turn was played once');
  } finally {
    await context.close();
  }
});

/// Taps `n` dice of the sheet open (or about to open): the lowest face, then the highest, in
/// turn; the faces tapped (positions from 1, as the save keeps them).
async function tapDice(page, n) {
  const tapped = [];
  for (let i = 0; i < n; i++) {
    await page.waitForSelector('#dice:not([hidden])');
    const faces = page.locator('#faces button');
    const b = faces.nth(i % 2 ? (await faces.count()) - 1 : 0);
    tapped.push(Number(await b.getAttribute('data-face')));
    await press(b);
  }
  await page.waitForSelector('#dice:not([hidden])');
  return tapped;
}

/// After a reload mid-dice: the dice sheet asks the next die (`why` says which), the rest are
/// left to servitor ("servitor rolls from now on"), and the dice tapped before the reload are
/// the first the save keeps (`kept` picks them from the save).
async function diceGoOn(page, why, tapped, kept) {
  await page.waitForSelector('#dice:not([hidden])');
  assert.equal(await page.locator('#dice-why').innerText(), why, 'the dice sheet asks the next die');
  await press(page.locator('#dice-auto-all'));
  await rollAndAnswer(page, () => -1);
  await page.waitForSelector('#play:not([hidden])');
  const s = await save(page);
  assert.deepEqual(kept(s).slice(0, tapped.length), tapped, `the dice tapped before the reload are kept: ${JSON.stringify(kept(s))}`);
}

test('dice already entered for a new game\'s setup survive a reload: the setup goes on from the next die', async () => {
  const { context, page } = await browser(PHONE);
  try {
    await page.goto(base);
    await ready(page);
    // Solo Heresy's set-up rolls many dice (the battlefield's events, the enemy's cards...).
    await newGame(page, { pkg: ['solo-heresy', 'heresy'], mission: 'raid', seed: 3, manual: true });
    const tapped = await tapDice(page, 2);
    await page.reload();
    await ready(page);
    await page.waitForSelector('#dice:not([hidden])');
    await axeClean(page, 'the dice sheet');
    await diceGoOn(page, 'for the setup (die 3)', tapped, (s) => s.start_dice);
    assert.deepEqual((await save(page)).entries.map((e) => e.line), ['dice auto'], 'the rest rolled by servitor, from then on');
  } finally {
    await context.close();
  }
});

/// web/serve.mjs with `args`, its first line's address; `env` added to its environment.
function serveWith(args, env = {}) {
  return new Promise((ok, fail) => {
    const s = spawn(process.execPath, [join(web, 'serve.mjs'), ...args], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
    s.stdout.once('data', (d) => {
      const m = String(d).match(/https?:\/\/[\d.:]+\//);
      if (m) ok({ s, url: m[0] }); else fail(new Error(`serve said ${d}`));
    });
    s.once('error', fail);
  });
}

test('the bytes over the wire: a first visit ≤ 2.5 MB (the engine fetched once, compressed), a second ≤ 50 kB', async () => {
  // A copy of the build: a new build is made in it below.
  const dist = mkdtempSync(join(tmpdir(), 'servitor-dist-'));
  cpSync(join(web, 'dist'), dist, { recursive: true });
  const { s, url } = await serveWith(['0', dist], { SERVITOR_COUNT_BYTES: '1' });
  const { context, page } = await browser(PHONE);
  try {
    const bytes = async () => Number(await (await fetch(`${url}__bytes`)).text());
    const b0 = await bytes();
    await page.goto(url);
    await ready(page);
    // The offline copy made: the worker installed and active.
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => true));
    await page.waitForTimeout(300);
    const b1 = await bytes();
    await page.goto('about:blank');
    await page.goto(url);
    await ready(page);
    await page.waitForTimeout(300);
    const b2 = await bytes();
    const first = b1 - b0, second = b2 - b1;
    console.log(`# first visit ${first} bytes over the wire, second ${second} bytes`);
    assert.ok(first <= 2.5e6, `first visit: ${first} bytes`);
    assert.ok(second <= 50e3, `second visit: ${second} bytes`);
    assert.equal(await page.locator('#updated').isHidden(), true, 'the same build: nothing said');
    // A new build (another version in the page's script): the next visit runs it, and says so.
    const app = join(dist, 'app.js');
    writeFileSync(app, readFileSync(app, 'utf8').replace(/^const VERSION = '[^']*';/m, "const VERSION = 'next-build';"));
    rmSync(`${app}.br`);
    rmSync(`${app}.gz`);
    await page.goto('about:blank');
    await page.goto(url);
    await ready(page);
    assert.equal(await page.locator('#updated').innerText(), 'updated to version next-build');
  } finally {
    await context.close();
    s.kill();
    rmSync(dist, { recursive: true, force: true });
  }
});

test('from another machine (a non-loopback origin over --lan HTTPS): the worker registers and the page plays offline after one visit', async () => {
  const certs = mkdtempSync(join(tmpdir(), 'servitor-certs-'));
  const { s, url } = await serveWith(['--lan', '0', join(web, 'dist')], { SERVITOR_CERTS: certs });
  const port = new URL(url).port;
  // The machine's own address when it has one; else a name mapped to it.
  const host = new URL(url).hostname === '127.0.0.1' ? 'servitor-table.test' : new URL(url).hostname;
  const spki = spawnSync('sh', ['-c',
    `openssl x509 -in ${join(certs, 'cert.pem')} -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64`],
  { encoding: 'utf8' }).stdout.trim();
  const dir = mkdtempSync(join(tmpdir(), 'servitor-chromium-'));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
      // The phone trusts the authority (README); here the certificate's key is trusted.
      `--ignore-certificate-errors-spki-list=${spki}`,
      `--host-resolver-rules=MAP servitor-table.test 127.0.0.1`],
    ...PHONE,
  });
  const page = context.pages()[0] || await context.newPage();
  touch.add(page);
  try {
    const origin = `https://${host}:${port}/`;
    await page.goto(origin);
    await ready(page);
    assert.equal(await page.evaluate(() => window.isSecureContext), true);
    assert.ok(!['127.0.0.1', 'localhost'].includes(await page.evaluate(() => location.hostname)));
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => true));
    assert.match(await page.evaluate(() => navigator.serviceWorker.controller ? 'controlled' : 'registered'), /controlled|registered/);
    // The CA the phone installs is served.
    assert.match(await page.evaluate(async () => (await fetch('servitor-ca.pem')).text()), /BEGIN CERTIFICATE/);
    s.kill();
    await context.setOffline(true);
    await page.reload();
    await ready(page);
    await newGame(page, { seed: 1 });
    await page.waitForSelector('#play:not([hidden])');
    const counter = { n: 0 };
    await tapCommand(page, 'enter', ['marine-1', CLAW[0]], counter);
    await tapCommand(page, 'end', [], counter);
    assert.ok(await page.locator('.step.numbered').count() > 0, 'offline, the enemy plays its turn');
  } finally {
    await context.close();
    s.kill();
  }
});

test('importing a JSON file that is not a save says so', async () => {
  const { context, page } = await browser(PHONE);
  try {
    await page.goto(base);
    await ready(page);
    await page.setInputFiles('#import', { name: 'notes.json', mimeType: 'application/json', buffer: Buffer.from('{"notes": [1, 2]}') });
    await page.waitForFunction(() => document.getElementById('start-error').textContent !== '');
    assert.equal(await page.locator('#start-error').innerText(), 'notes.json is not a servitor play save: it names no package');
  } finally {
    await context.close();
  }
});

/// The chips offered while a command is built by taps (issue 36): the words the command
/// takes there, from its usage and the session — the Marines still off the board for `enter`,
/// for `fire` none with nothing in sight (and the hint says so), after `fire marine-1` only
/// that Marine's weapons — and Confirm lit once the line would be taken. Nothing is typed.
test('commands built by taps alone: the chips offer only the words each command takes there', async () => {
  const { context, page } = await browser(PHONE);
  try {
    await page.goto(base);
    await ready(page);
    await axeClean(page, 'the start');
    await newGame(page, { seed: 1 });
    await page.waitForSelector('#play:not([hidden])');
    await axeClean(page, 'a game');
    await press(page.locator('#menu-button'));
    await axeClean(page, 'the menu');
    await press(page.locator('#menu-button'));
    // Text of 16 px or more outside the board; at a phone's default zoom, a square is a tap
    // target of 44 px or more.
    const small = await page.evaluate(() => [...document.querySelectorAll('body *:not(svg *)')]
      .filter((e) => e.offsetParent && [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim()))
      .filter((e) => parseFloat(getComputedStyle(e).fontSize) < 16).map((e) => `${e.id || e.className || e.tagName}: ${getComputedStyle(e).fontSize}`));
    assert.deepEqual(small, [], 'text under 16 px');
    const box = await page.locator(`#board [data-sq="${CLAW[0]}"]`).boundingBox();
    assert.ok(box.width >= 44 && box.height >= 44, `a square: ${box.width} × ${box.height}`);
    const counter = { n: 0 };
    const chips = () => page.locator('#suggest button').allTextContents();
    const chip = (w) => page.locator('#suggest button', { hasText: new RegExp(`^${w}$`) });
    await press(page.locator('#command-words button[data-word="enter"]'));
    let offered = await chips();
    for (const m of ['marine-1', 'marine-2']) assert.ok(offered.includes(m), `enter offers ${offered}`);
    assert.ok(!offered.some((w) => /^(blip|ork|gretchin)/.test(w)), `enter offers no alien: ${offered}`);
    await press(chip('marine-1'));
    assert.equal(await page.locator('#send.ready').count(), 0, 'enter marine-1 is not a whole command yet');
    await press(page.locator(`#board [data-sq="${CLAW[0]}"]`));
    assert.equal(await page.locator('#send.ready').count(), 1, 'enter marine-1 7,1 is a whole command');
    await press(page.locator('#send'));
    await settle(page, counter);
    assert.match(await page.locator('#cards').innerText(), /marine-1 enters the board on 7,1/);
    // fire: nothing is in sight of marine-1 on the airlock, so no Marine is offered (none off
    // the board, and not he), and the hint says why.
    await press(page.locator('#command-words button[data-word="fire"]'));
    offered = await chips();
    assert.deepEqual(offered, [], `fire offers nothing with nothing in sight: ${offered}`);
    assert.match(await page.locator('#hint').innerText(), /nothing in sight/);
    // After `fire marine-1` by a tap on him, only his weapons (if any lead to a shot).
    await press(page.locator('#board [data-piece="marine-1"]'));
    const v = await view(page);
    const weapons = v.pieces.find((p) => p.id === 'marine-1').fields.weapons;
    offered = await chips();
    assert.ok(offered.every((w) => weapons.includes(w)), 'after `fire marine-1`, his weapons and nothing else');
    await press(page.locator('#clear'));
    assert.equal(await page.evaluate(() => window.__servitor.typed), 0, 'no command was typed');
  } finally {
    await context.close();
  }
});

test('Space Crusade: the plasma gun fired towards a square by taps only; enter offers only Marines still off the board', async () => {
  const { context, page } = await browser(PHONE);
  try {
    await page.goto(base);
    await ready(page);
    await newGame(page, { seed: 1 });
    await page.waitForSelector('#play:not([hidden])');
    const counter = { n: 0 };
    const chips = () => page.locator('#suggest button').allTextContents();
    const chip = (w) => page.locator('#suggest button', { hasText: new RegExp(`^${w}$`) });
    const v = await view(page);
    const gunner = v.pieces.find((p) => p.fields && (p.fields.weapons || []).includes('plasma-gun')).id;
    await tapCommand(page, 'event', ['quiet'], counter);
    await tapCommand(page, 'enter', [gunner, CLAW[0]], counter);
    // He is aboard: `enter` no longer offers him.
    await press(page.locator('#command-words button[data-word="enter"]'));
    const enter = await chips();
    assert.ok(!enter.includes(gunner) && enter.length > 0, `enter offers ${enter}`);
    await press(page.locator('#clear'));
    // Turns go by until an alien is in his sight: its square is the one to fire towards.
    let target = null;
    for (let i = 0; i < 8 && !target; i++) {
      await tapCommand(page, 'end', [], counter);
      const refusal = JSON.parse(await page.evaluate((g) => window.__servitor.comp.words(`fire ${g} plasma-gun`), gunner)).refusal || '';
      const m = refusal.match(/in sight: \[([a-z0-9-]+)/);
      if (m) target = m[1];
    }
    assert.ok(target, 'an alien in sight within eight turns');
    await press(page.locator('#command-words button[data-word="fire"]'));
    await press(page.locator(`#board [data-piece="${gunner}"]`));
    await press(chip('plasma-gun'));
    assert.ok((await chips()).includes('towards'), `after the plasma gun: ${await chips()}`);
    await press(chip('towards'));
    assert.match(await page.locator('#hint').innerText(), /tap a square on the board/);
    assert.equal(await page.locator('#send.ready').count(), 0, 'not whole before the square');
    // A tap on the alien: the line runs towards its square.
    await press(page.locator(`#board [data-piece="${target}"]`));
    assert.equal(await page.locator('#line').inputValue(), `fire ${gunner} plasma-gun towards ${target}`);
    assert.equal(await page.locator('#send.ready').count(), 1, 'whole with the square');
    await press(page.locator('#send'));
    await settle(page, counter);
    assert.doesNotMatch(await page.locator('#answer-note').innerText(), /refused/);
    const s = await save(page);
    assert.equal(s.entries[s.entries.length - 1].line, `fire ${gunner} plasma-gun towards ${target}`);
    assert.equal(await page.evaluate(() => window.__servitor.typed), 0, 'no command was typed');
  } finally {
    await context.close();
  }
});

/// The contrast ratio (WCAG 2) of two CSS colours as the browser computes them.
const CONTRAST = `(a, b) => {
  const rgb = (c) => c.match(/[\\d.]+/g).slice(0, 3).map(Number);
  const lum = (c) => {
    const [r, g, b] = rgb(c).map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}`;

/// The board's contrasts in the theme shown: each piece's label on its disc (text, 4.5:1),
/// walls, doors and open doors on the floor and a count on its badge (map features, 3:1).
async function boardContrast(page) {
  return page.evaluate((src) => {
    const ratio = eval(src);
    const css = (sel, prop) => { const e = document.querySelector(sel); return e && getComputedStyle(e)[prop]; };
    const floor = css('#board .floor', 'fill');
    const out = [];
    for (const g of document.querySelectorAll('#board .piece')) {
      const disc = getComputedStyle(g.querySelector('circle')).fill;
      const label = getComputedStyle(g.querySelector('text.label')).fill;
      out.push({ what: `label of ${g.dataset.piece}`, ratio: ratio(label, disc), need: 4.5 });
    }
    // Walls and doors as the theme draws them, whether or not this board has one open yet.
    const probe = document.createElementNS('http://www.w3.org/2000/svg', 'line');
    document.getElementById('board').append(probe);
    for (const kind of ['wall', 'door', 'open-door']) {
      probe.setAttribute('class', kind);
      out.push({ what: `${kind} on the floor`, ratio: ratio(getComputedStyle(probe).stroke, floor), need: 3 });
    }
    probe.remove();
    const badge = document.querySelector('#board .var-count');
    if (badge) {
      out.push({ what: 'a count on its badge', ratio: ratio(getComputedStyle(badge.querySelector('text')).fill, getComputedStyle(badge.querySelector('rect')).fill), need: 4.5 });
      out.push({ what: 'a count badge on the floor', ratio: ratio(getComputedStyle(badge.querySelector('rect')).fill, floor), need: 3 });
    }
    return out;
  }, CONTRAST);
}

test('what the table shows besides pieces: blips lurking drawn on their entry squares with a legend; the board one labelled group for screen readers; contrast in both themes', async () => {
  const { context, page } = await browser(PHONE);
  try {
    await page.goto(base);
    await ready(page);
    await newGame(page, { pkg: ['space-hulk-solo', 'hulk'], mission: 'breach-run', seed: 3 });
    await page.waitForSelector('#play:not([hidden])');
    const counter = { n: 0 };
    let lurking = null;
    for (let i = 0; i < 10 && !lurking; i++) {
      await tapCommand(page, 'end', [], counter);
      const v = await view(page);
      lurking = (v.variables || []).find((x) => x.name === 'lurking' && x.places.length);
    }
    assert.ok(lurking, 'a blip lurks within ten turns');
    // Each entry area with blips lurking: its count on its square, and the legend says it as
    // status does.
    for (const place of lurking.places) {
      const badge = page.locator(`#board .var-count[data-var="lurking"][data-place="${place.name}"]`);
      assert.equal(await badge.locator('text').textContent(), String(place.value));
    }
    assert.equal(await page.locator('#board .var-count').count(), lurking.places.length);
    // A count and its square's mark letter (E, the entry area) both read: their boxes on the
    // screen do not meet.
    const overlaps = await page.evaluate(() => [...document.querySelectorAll('#board .var-count')].map((g) => {
      const mark = document.querySelector(`#board .mark[data-at="${g.dataset.at}"]`);
      if (!mark) return `${g.dataset.at}: no mark letter under the count`;
      const a = g.getBoundingClientRect(), b = mark.getBoundingClientRect();
      const meet = a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
      return meet ? `${g.dataset.at}: the count ${JSON.stringify(a)} meets the letter ${JSON.stringify(b)}` : null;
    }).filter(Boolean));
    assert.deepEqual(overlaps, [], 'a count badge clear of its square\'s mark letter');
    const legend = await page.locator('#board-legend').innerText();
    const said = lurking.places.map((p) => `${p.value} at ${p.name}`).join(', ');
    assert.equal(legend.trim(), `blips lurking: ${said}`);
    const status = JSON.parse(await page.evaluate(() => window.__servitor.comp.send('status', '[]', '[]'))).text;
    assert.ok(status.includes(`lurking blips: ${said}`), status);
    await page.evaluate(() => {
      window.scrollTo(0, 0);
      document.querySelector('#board .var-count').scrollIntoView({ block: 'center', inline: 'center' });
      window.scrollTo(0, 0);
    });
    await shot(page, 'phone-hulk-lurking');
    // Screen readers: one board, named and described (its pieces, marked squares, legend); no
    // square read out one by one; each piece a named button Tab reaches.
    const a11y = await page.evaluate(() => {
      const svg = document.getElementById('board');
      const exposed = [...svg.querySelectorAll('[data-sq]')].filter((e) => !e.closest('[aria-hidden="true"]'));
      const titled = [...svg.querySelectorAll('[data-sq] title, .ground title')];
      const summary = document.getElementById(svg.getAttribute('aria-describedby')).textContent;
      const pieces = [...svg.querySelectorAll('[data-piece]')];
      return {
        role: svg.getAttribute('role'), label: svg.getAttribute('aria-label'), summary,
        exposed: exposed.length, titled: titled.length, squares: svg.querySelectorAll('[data-sq]').length,
        pieces: pieces.map((p) => [p.dataset.piece, p.getAttribute('role'), p.getAttribute('tabindex'), p.getAttribute('aria-label')]),
      };
    });
    assert.equal(a11y.role, 'group');
    assert.equal(a11y.label, 'The board');
    assert.ok(a11y.squares > 20, `${a11y.squares} squares drawn`);
    assert.equal(a11y.exposed, 0, 'no square exposed to screen readers');
    assert.equal(a11y.titled, 0, 'no square titled');
    assert.ok(a11y.pieces.length > 0);
    for (const [id, role, tab, label] of a11y.pieces) {
      assert.equal(role, 'button', id);
      assert.equal(tab, '0', id);
      assert.ok(label.startsWith(id), `${id}: ${label}`);
      assert.ok(a11y.summary.includes(label), `the summary names ${id}`);
    }
    assert.match(a11y.summary, /Marked squares: entry on /);
    assert.ok(a11y.summary.includes(`blips lurking: ${said}`), a11y.summary);
    // Tab from the board's scroller reaches the first piece.
    await page.locator('#board-scroll').focus();
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement.dataset.piece), a11y.pieces[0][0]);
    await axeClean(page, 'Space Hulk with blips lurking');
    // Contrast, computed from the page as drawn: light, then dark.
    for (const theme of ['light', 'dark']) {
      await page.evaluate((t) => { document.documentElement.dataset.theme = t; }, theme);
      const found = await boardContrast(page);
      assert.ok(found.some((c) => c.what.startsWith('label of')) && found.some((c) => c.what === 'a count on its badge'), JSON.stringify(found));
      const poor = found.filter((c) => c.ratio < c.need).map((c) => `${c.what}: ${c.ratio.toFixed(2)} < ${c.need}`);
      assert.deepEqual(poor, [], `contrast in the ${theme} theme`);
    }
  } finally {
    await context.close();
  }
});

/// A tap on the battlefield at a point in inches (the page draws it to scale): the board
/// scrolled to bring the point up, as a player would, then tapped there.
async function tapField(page, x, y) {
  const at = await page.evaluate(([x, y]) => {
    const svg = document.getElementById('board');
    const scroll = document.getElementById('board-scroll');
    const screen = () => new DOMPoint(x * 12, y * 12).matrixTransform(svg.getScreenCTM());
    let p = screen();
    const r = scroll.getBoundingClientRect();
    scroll.scrollLeft += p.x - (r.left + r.width / 2);
    scroll.scrollTop += p.y - (r.top + r.height / 2);
    p = screen();
    window.scrollBy(0, p.y - window.innerHeight / 3);
    p = screen();
    const hit = document.elementFromPoint(p.x, p.y);
    return { x: p.x, y: p.y, onBoard: !!(hit && hit.closest('#board')) };
  }, [x, y]);
  assert.ok(at.onBoard, `the point ${x},${y} is on screen to tap (${at.x}, ${at.y})`);
  if (touch.has(page)) await page.touchscreen.tap(at.x, at.y);
  else await page.mouse.click(at.x, at.y);
}

test('a whole Solo Heresy mission on the page by taps: the battlefield to scale, units deployed and moved by taps on it, a reload after every enemy turn, to the game\'s end', async () => {
  const t0 = Date.now();
  const { context, page } = await browser(PHONE);
  try {
    await page.goto(base);
    await ready(page);
    await newGame(page, { pkg: ['solo-heresy', 'heresy'], mission: 'raid', seed: 3 });
    await page.waitForSelector('#play:not([hidden])');
    let v = await view(page);
    assert.equal(v.battlefield.width, 72);
    assert.equal(await page.locator('#board polygon.terrain').count(), v.battlefield.terrain.length);
    assert.ok(await page.locator('#board g.marker').count() >= 6, 'the objectives and spawn markers are drawn');
    const counter = { n: 0 };
    const chip = (w) => page.locator('#suggest button', { hasText: new RegExp(`^${w}$`) });
    // Deploy every unit by taps: the command, the unit offered, a point in the zone.
    const xs = [18, 28, 38, 48, 58, 68];
    for (const x of xs) {
      await press(page.locator('#command-words button[data-word="deploy"]'));
      const offered = await page.locator('#suggest button').allTextContents();
      const unit = offered.find((w) => v.pieces.some((p) => p.id === w && p.side === v.side && p.status !== 'board'));
      assert.ok(unit, `deploy offers a unit to set down: ${offered}`);
      await press(chip(unit));
      await tapField(page, x, 44);
      assert.equal(await page.locator('#line').inputValue(), `deploy ${unit} ${x},44`);
      await press(page.locator('#send'));
      await settle(page, counter);
      v = await view(page);
      const placed = v.pieces.find((p) => p.id === unit);
      assert.equal(placed.status, 'board', `${unit} stands`);
      assert.deepEqual(placed.point, [x, 44]);
      if (!v.pieces.some((p) => p.side === v.side && p.status !== 'board')) break;
    }
    assert.equal(await page.locator('#board g.piece.mine').count(), v.pieces.filter((p) => p.side === v.side && p.status === 'board').length);
    // Deployment ends: the rest of the set-up, then the battle.
    await press(page.locator('#command-words button[data-word="end"]'));
    await settle(page, counter);
    v = await view(page);
    // Move one unit: tap the command, the unit on the battlefield, the point 5 inches up.
    const mover = v.pieces.find((p) => p.side === v.side && p.status === 'board');
    await press(page.locator('#command-words button[data-word="move"]'));
    await press(page.locator(`#board [data-piece="${mover.id}"]`));
    await tapField(page, mover.point[0], mover.point[1] - 5);
    assert.equal(await page.locator('#board .picked-point').count(), 1, 'the point tapped is marked');
    await press(page.locator('#send'));
    assert.equal(await page.locator('#answer-note.refused').count(), 0, await page.locator('#answer-note').innerText());
    await settle(page, counter);
    v = await view(page);
    assert.deepEqual(v.pieces.find((p) => p.id === mover.id).point, [mover.point[0], mover.point[1] - 5]);
    await page.locator('#board-scroll').evaluate((e) => { e.scrollLeft = 0; e.scrollTop = 0; e.scrollIntoView({ block: 'start' }); });
    await shot(page, 'phone-solo-heresy-battlefield');
    await axeClean(page, 'the Solo Heresy battlefield');
    // The enemy's turn, then a reload: the same battlefield, the same cards.
    await press(page.locator('#command-words button[data-word="end"]'));
    await settle(page, counter);
    const cards = await page.locator('#cards').innerText();
    assert.match(cards, /rust-/, 'the enemy turn is on the cards');
    // A unit that turned to face another (or a vehicle's bearing) shows which way it faces.
    v = await view(page);
    const facing = v.pieces.filter((p) => p.point && p.fields && p.fields.facing !== undefined);
    assert.ok(facing.length, 'after the enemy turn some unit faces a way (seed 3)');
    for (const p of facing) {
      const drawn = await page.locator(`#board [data-piece="${p.id}"]`).getAttribute('data-facing');
      if (typeof p.fields.facing === 'number') assert.equal(drawn, String(Math.round(p.fields.facing)), p.id);
      else if (v.pieces.some((q) => q.id === p.fields.facing && q.point)) assert.ok(drawn !== null, `${p.id} faces ${p.fields.facing}`);
    }
    const before = JSON.stringify((await view(page)).pieces);
    await page.reload();
    await ready(page);
    await page.waitForSelector('#play:not([hidden])');
    assert.equal(JSON.stringify((await view(page)).pieces), before);
    assert.equal(await page.locator('#cards').innerText(), cards);
    // On to the game's end by taps: each turn of the Legion ends (the squad holding its
    // ground), and after every enemy turn a card ticked (no other changing) and a reload
    // showing every card, number, tick and unit as before.
    let turns = 1, reloads = 1;
    for (; turns < 12 && !(await view(page)).over; turns++) {
      await tickOne(page, turns);
      await reloadSame(page, `after enemy turn ${turns}`);
      reloads++;
      await press(page.locator('#command-words button[data-word="end"]'));
      await settle(page, counter);
    }
    v = await view(page);
    assert.ok(v.over, `the game ends (after ${turns} enemy turns)`);
    const final = await page.locator('#final-text').innerText();
    assert.match(final, /The game is over: .*Scores: /);
    await axeClean(page, 'the game over');
    assert.equal(await page.evaluate(() => window.__servitor.typed), 0, 'no command was typed');
    // The page's save replays in the CLI to the same end.
    const dir = mkdtempSync(join(tmpdir(), 'servitor-heresy-whole-'));
    const file = join(dir, 'heresy.json');
    writeFileSync(file, await page.evaluate(() => window.__servitor.comp.save()));
    const out = cli(['solo-heresy', '--resume', file], 'status\n');
    assert.ok(out.includes(final.trim()), `the CLI ends the same way:\n${out}\n---\n${final}`);
    console.log(`# Solo Heresy by taps: ${turns} enemy turns, ${reloads} reloads, in ${Date.now() - t0} ms`);
  } finally {
    await context.close();
  }
});

test("StarQuest's campaign on the page: a mission to its end, the next by a tap, a reload, the command line going on from the page's file", async () => {
  const { context, page } = await browser(PHONE);
  try {
    await page.goto(base);
    await ready(page);
    const pkg = await page.evaluate(() => [...document.querySelectorAll('#package option')].map((o) => o.value)
      .find((v) => JSON.parse(v)[0] === 'starquest-solitaire'));
    await page.locator('#package').selectOption(pkg);
    assert.equal(await page.locator('#campaign-choice:not([hidden])').count(), 1, 'StarQuest offers its campaign');
    await page.locator('#campaign').check();
    assert.equal(await page.locator('#mission-choice[hidden]').count(), 1, 'the campaign chooses the missions');
    await page.locator('#seed').fill('4');
    await press(page.locator('#start-button'));
    await page.waitForSelector('#play:not([hidden])');
    assert.match(await page.locator('#where').innerText(), /mission 1 of 12/);
    const counter = { n: 0 };
    for (let i = 0; i < 60 && !(await view(page)).over; i++) await tapCommand(page, 'end', [], counter);
    assert.ok((await view(page)).over, 'the first mission ends');
    await page.waitForSelector('#next-mission:not([hidden])');
    await press(page.locator('#next-mission'));
    await settle(page, counter);
    await press(page.locator('#campaign-card summary'));
    assert.match(await page.locator('#campaign-text').innerText(), /1\. mission-1: /, 'the mission played is listed');
    let v = await view(page);
    assert.equal(v.campaign.number, 2);
    assert.equal(v.over, null);
    assert.match(await page.locator('#where').innerText(), /mission 2 of 12/);
    assert.equal(await page.locator('#next-mission[hidden]').count(), 1);
    await page.reload();
    await ready(page);
    await page.waitForSelector('#play:not([hidden])');
    assert.deepEqual((await view(page)).campaign, v.campaign, 'the reload keeps the campaign');
    await shot(page, 'phone-starquest-campaign');
    // The page's save is a campaign file: `servitor play --campaign` goes on with it.
    const dir = mkdtempSync(join(tmpdir(), 'servitor-campaign-'));
    const file = join(dir, 'campaign.json');
    writeFileSync(file, await page.evaluate(() => window.__servitor.comp.save()));
    assert.match(cli(['--campaign', file], 'quit\n'), /mission 2 of 12/);
    assert.equal(await page.evaluate(() => window.__servitor.typed), 0, 'no command was typed');
  } finally {
    await context.close();
  }
});

test('a house rule picked as files: checked with its diagnostics, offered, played, and played on after a reload', async () => {
  const { context, page } = await browser(PHONE);
  try {
    await page.goto(base);
    await ready(page);
    await press(page.locator('#variant-pick summary'));
    // A broken file: the diagnostic names it, its line and column; nothing is offered.
    await page.locator('#variant-files').setInputFiles({
      name: 'house.rules', mimeType: 'text/plain', buffer: Buffer.from('package house "x" {\n  version 0.1.0\n'),
    });
    await page.waitForFunction(() => document.getElementById('variant-error').textContent.length > 0);
    assert.match(await page.locator('#variant-error').innerText(), /house\.rules:2:\d+/);
    // The folder of a variant with a script: offered and chosen.
    await page.locator('#variant-folder').setInputFiles(join(checkout, 'examples/variants/commander-hunters'));
    await page.waitForFunction(() => JSON.parse(document.getElementById('package').value)[0] === 'commander-hunters');
    assert.equal(await page.locator('#variant-error').innerText(), '');
    assert.match(await page.locator('#package option:checked').innerText(), /your files/);
    await page.locator('#mission').selectOption('purge');
    await page.locator('#seed').fill('7');
    await press(page.locator('#start-button'));
    await page.waitForSelector('#play:not([hidden])');
    const counter = { n: 0 };
    await tapCommand(page, 'end', [], counter);
    const before = await view(page);
    assert.equal(before.package, 'commander-hunters');
    await page.reload();
    await ready(page);
    await page.waitForSelector('#play:not([hidden])');
    assert.deepEqual((await view(page)).pieces, before.pieces, 'the variant plays on after a reload');
  } finally {
    await context.close();
  }
});

test('real dice to servitor\'s and back mid-game: from the dice sheet for the rest, and from the menu', async () => {
  const { context, page } = await browser(PHONE);
  try {
    await page.goto(base);
    await ready(page);
    await newGame(page, { seed: 6, manual: true });
    await page.waitForSelector('#play:not([hidden])');
    // The Alien's turn asks its first die: "servitor rolls from now on" rolls the rest.
    await press(page.locator('#command-words button[data-word="end"]'));
    await page.waitForSelector('#dice:not([hidden])');
    await press(page.locator('#dice-auto-all'));
    await page.waitForFunction(() => !window.__servitor.busy);
    assert.equal(await page.locator('#dice:not([hidden])').count(), 0, 'no die asked after the switch');
    let v = await view(page);
    assert.equal(v.manual_now, false);
    assert.equal(v.turn, 2, 'the Alien turn was played');
    const entries = JSON.parse(await page.evaluate(() => window.__servitor.comp.save())).entries.map((e) => e.line);
    assert.deepEqual(entries.slice(-2), ['end', 'dice auto'], 'the switch is kept in the save after the turn it came in');
    await press(page.locator('#command-words button[data-word="end"]'));
    await page.waitForFunction(() => !window.__servitor.busy);
    assert.equal(await page.locator('#dice:not([hidden])').count(), 0, 'servitor rolls the next turn');
    // And back to real dice from the menu.
    await press(page.locator('#menu-button'));
    assert.match(await page.locator('#dice-switch').innerText(), /I roll real dice/);
    await press(page.locator('#dice-switch'));
    v = await view(page);
    assert.equal(v.manual_now, true);
    await press(page.locator('#command-words button[data-word="end"]'));
    await page.waitForSelector('#dice:not([hidden])');
  } finally {
    await context.close();
  }
});

/// A reload: the page comes back with every card, number and tick, and every piece, as before.
async function reloadSame(page, what) {
  const cards = await cardList(page);
  const pieces = JSON.stringify((await view(page)).pieces);
  await page.reload();
  await ready(page);
  await page.waitForSelector('#play:not([hidden])');
  assert.deepEqual(await cardList(page), cards, `${what}: every card, number and tick as before the reload`);
  assert.equal(JSON.stringify((await view(page)).pieces), pieces, `${what}: the board as before the reload`);
}

/// One card of the enemy's turn ticked by a tap: that card changes, no other.
async function tickOne(page, k) {
  const before = await cardList(page);
  const open = page.locator('.step.numbered:not(.done)');
  const n = await open.count();
  if (!n) return;
  await press(open.nth(k % n).locator('input'));
  const after = await cardList(page);
  const changed = before.map((c, i) => (c === after[i] ? null : i)).filter((i) => i !== null);
  assert.equal(after.length, before.length);
  assert.equal(changed.length, 1, `one tap changes one card:\n${changed.map((i) => `${before[i]}\n→ ${after[i]}`).join('\n')}`);
}

/// Real dice, each die left to servitor by its button ("Let servitor roll this one"), and each
/// of the game's questions answered by a tap on the choice `choose` picks (servitor's when none).
async function rollAndAnswer(page, choose) {
  for (let i = 0; i < 600; i++) {
    if (await page.locator('#dice:not([hidden])').count()) { await press(page.locator('#dice-auto')); continue; }
    if (await page.locator('#question:not([hidden])').count()) {
      const offered = (await page.locator('#question-choices button').allInnerTexts()).map((t) => t.replace(/^\d+\s*/, ''));
      const pick = choose(offered);
      await press(pick < 0 ? page.locator('#question-auto') : page.locator('#question-choices button').nth(pick));
      continue;
    }
    if (!(await page.evaluate(() => window.__servitor.busy))) return;
    await page.waitForTimeout(10);
  }
}

// Purge the nest's heavy flamer, the nest's squares and the way there (the bundled mission's
// map and set-up, not the page's knowledge).
const FLAMER = 'marine-3';
const NEST = (at) => { const [x, y] = at.split(',').map(Number); return x >= 10 && x <= 13 && y >= 3 && y <= 6; };
const TO_NEST = ['4,5', '5,5', '6,5', '7,5', '8,5', '9,5', '10,5', '11,5'];

test('a whole Space Hulk mission by taps with real dice: the heavy flamer burns a section (hatched, in the legend), reloads after every Genestealer turn and mid-dice keep every card, number and tick', async () => {
  const t0 = Date.now();
  const { context, page } = await browser(PHONE);
  try {
    await page.goto(base);
    await ready(page);
    await newGame(page, { pkg: ['space-hulk-solo', 'hulk'], mission: 'purge-the-nest', seed: 3, manual: true });
    await rollAndAnswer(page, () => -1);
    await page.waitForSelector('#play:not([hidden])');
    const chips = () => page.locator('#suggest button').allTextContents();
    const chip = (w) => page.locator('#suggest button', { hasText: new RegExp(`^${w}$`) });
    const complete = (line) => page.evaluate((l) => JSON.parse(window.__servitor.comp.words(l)).complete === true, line);
    let burnt = null, turns = 0, reloads = 0;
    for (; turns < 14; turns++) {
      let v = await view(page);
      if (v.over) break;
      const flamer = v.pieces.find((p) => p.id === FLAMER && p.status === 'board');
      if (flamer) {
        // Fire first (none after a move): the flamer at whatever the chips offer in his sight.
        await press(page.locator('#command-words button[data-word="fire"]'));
        await press(page.locator(`#board [data-piece="${FLAMER}"]`));
        const targets = await chips();
        if (targets.length) {
          await press(chip(targets[0]));
          assert.equal(await page.locator('#send.ready').count(), 1, `fire ${FLAMER} ${targets[0]} is whole`);
          await press(page.locator('#send'));
          await rollAndAnswer(page, () => -1);
          v = await view(page);
          const burning = (v.variables || []).find((x) => x.name === 'burning' && x.places.length);
          if (burning && !burnt) {
            // The section burns: every square of it hatched on the board, named in the legend.
            burnt = burning.places[0].name;
            const squares = burning.places[0].squares.length;
            assert.equal(await page.locator(`#board .var-area[data-var="burning"][data-place="${burnt}"]`).count(), squares);
            assert.match(await page.locator('#board-legend').innerText(), new RegExp(`burning sections: ${burnt}`));
            await page.evaluate(() => {
              window.scrollTo(0, 0);
              document.querySelector('#board .var-area[data-var="burning"]').scrollIntoView({ block: 'center', inline: 'center' });
              document.getElementById('board-legend').scrollIntoView({ block: 'end' });
            });
            await shot(page, 'phone-hulk-burning');
            await reloadSame(page, 'a section burning');
            reloads++;
            assert.equal(await page.locator(`#board .var-area[data-var="burning"][data-place="${burnt}"]`).count(), squares, 'still hatched after the reload');
          }
        } else await press(page.locator('#clear'));
        v = await view(page);
        const at = v.pieces.find((p) => p.id === FLAMER);
        if (at && at.status === 'board' && NEST(at.at) && await complete(`task ${FLAMER}`)) {
          // In the nest: the mission's task, by taps.
          await tapCommand(page, 'task', [FLAMER], { n: 0 });
          await rollAndAnswer(page, () => -1);
        } else if (at && at.status === 'board' && !NEST(at.at)) {
          // On towards the nest, four squares at the most (his own AP, the squad's command
          // points kept): the farthest square of the way he can reach.
          let to = null;
          const from = TO_NEST.indexOf(at.at);
          for (let i = Math.min(from + 4, TO_NEST.length - 1); i > from && !to; i--) {
            if (await complete(`move ${FLAMER} ${TO_NEST[i]}`)) to = TO_NEST[i];
          }
          if (to) {
            await tapCommand(page, 'move', [FLAMER, to], { n: 0 });
            await rollAndAnswer(page, () => -1);
          }
        }
      }
      if ((await view(page)).over) break;
      // The Genestealers' turn: the first die left to servitor, then a reload mid-dice (the
      // command not yet played: the cards as before it), then the whole turn. Their reactions
      // offered to the squad (burn, shoot) are declined, so the mission goes on.
      const before = await cardList(page);
      await press(page.locator('#command-words button[data-word="end"]'));
      await page.waitForFunction(() => !window.__servitor.busy || !document.getElementById('dice').hidden || !document.getElementById('question').hidden);
      if (await page.locator('#dice:not([hidden])').count()) {
        await press(page.locator('#dice-auto'));
        await page.reload();
        await ready(page);
        await page.waitForSelector('#play:not([hidden])');
        reloads++;
        assert.deepEqual(await cardList(page), before, `turn ${turns}: a reload mid-dice shows the cards as before the command`);
        // The die given before the reload is kept: the command goes on from its second die
        // (or its next question).
        if (await page.locator('#dice:not([hidden])').count()) assert.match(await page.locator('#dice-why').innerText(), /^for `end` \(die 2\)$/);
        else assert.equal(await page.locator('#question:not([hidden])').count(), 1, `turn ${turns}: the command goes on after the reload`);
      }
      await rollAndAnswer(page, (offered) => offered.indexOf('no'));
      if ((await view(page)).over) break;
      assert.ok(await page.locator('.step.numbered').count() > 0, `turn ${turns}: the Genestealers' turn has cards`);
      await tickOne(page, turns);
      await reloadSame(page, `after Genestealer turn ${turns + 1}`);
      reloads++;
    }
    const v = await view(page);
    assert.ok(v.over, `the mission ends (after ${turns} turns)`);
    assert.ok(burnt, 'the heavy flamer burnt a section');
    const final = await page.locator('#final-text').innerText();
    assert.match(final, /The game is over: .*Scores: /);
    assert.equal(await page.evaluate(() => window.__servitor.typed), 0, 'no command was typed');
    // The page's save replays in the CLI to the same end.
    const dir = mkdtempSync(join(tmpdir(), 'servitor-hulk-whole-'));
    const file = join(dir, 'hulk.json');
    writeFileSync(file, await page.evaluate(() => window.__servitor.comp.save()));
    const out = cli(['space-hulk-solo', '--resume', file], 'status\n');
    assert.ok(out.includes(final.trim()), `the CLI ends the same way:\n${out}\n---\n${final}`);
    console.log(`# Space Hulk by taps: ${turns + 1} Marine turns, ${reloads} reloads, burnt ${burnt}, in ${Date.now() - t0} ms`);
  } finally {
    await context.close();
  }
});
