// Every translation key exists in all five languages, with the same placeholders, and every key the
// client asks for exists: literal t('…') calls in web/js, and the families built from wire values
// (error codes read from crates/protocol, end reasons read from the rules crates, house rules).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const js = path.join(root, 'web/js');
const LANGS = ['en', 'sw', 'id', 'ru', 'pt'];
const dicts = {};
for (const l of LANGS) dicts[l] = (await import(pathToFileURL(path.join(js, 'i18n', `${l}.js`)))).default;
// A set: a text with plural forms names `{n}` once per form.
const placeholders = (s) => [...new Set([...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]))].sort().join(',');

test('every key exists in all five languages with the same placeholders', () => {
  const keys = Object.keys(dicts.en).sort();
  assert.ok(keys.length > 150, `only ${keys.length} English keys`);
  for (const l of LANGS) {
    const own = Object.keys(dicts[l]).sort();
    const missing = keys.filter((k) => !(k in dicts[l]));
    const extra = own.filter((k) => !(k in dicts.en));
    assert.deepEqual(missing, [], `${l} lacks keys`);
    assert.deepEqual(extra, [], `${l} has keys English lacks`);
    for (const k of keys) {
      assert.equal(typeof dicts[l][k], 'string', `${l}.${k}`);
      assert.ok(dicts[l][k].trim().length > 0, `${l}.${k} is empty`);
      assert.equal(placeholders(dicts[l][k]), placeholders(dicts.en[k]), `${l}.${k} placeholders`);
    }
  }
});

test('the language names differ, so the switch shows five choices', () => {
  const names = new Set(LANGS.map((l) => dicts[l]['lang.name']));
  assert.equal(names.size, 5);
});

test('every literal key used by the client exists', () => {
  const used = new Set();
  for (const f of readdirSync(js).filter((f) => f.endsWith('.js'))) {
    const src = readFileSync(path.join(js, f), 'utf8');
    for (const m of src.matchAll(/\bt\('([a-z_]+\.[a-z_0-9]+)'/g)) used.add(m[1]);
    for (const m of src.matchAll(/data-i18n="([a-z_]+\.[a-z_0-9]+)"/g)) used.add(m[1]);
  }
  for (const f of ['index.html', 'howto.html']) {
    const src = readFileSync(path.join(root, 'web', f), 'utf8');
    for (const m of src.matchAll(/data-i18n="([a-z_]+\.[a-z_0-9]+)"/g)) used.add(m[1]);
  }
  assert.ok(used.size > 50, `found only ${used.size} literal keys`);
  const missing = [...used].filter((k) => !(k in dicts.en));
  assert.deepEqual(missing, []);
});

test('every error code of the protocol has words', () => {
  const src = readFileSync(path.join(root, 'crates/protocol/src/lib.rs'), 'utf8');
  const block = src.slice(src.indexOf('pub fn as_str'));
  const codes = [...block.matchAll(/ErrorCode::\w+ => "(\w+)"/g)].map((m) => m[1]);
  assert.ok(codes.length >= 15, `found ${codes.length} codes`);
  const missing = codes.filter((c) => !(`error.${c}` in dicts.en));
  assert.deepEqual(missing, []);
});

test('every end reason of both rules engines has words', () => {
  const reasons = [];
  for (const game of ['chaturaji', 'fourchess']) {
    const src = readFileSync(path.join(root, `crates/rules/src/${game}/outcome.rs`), 'utf8');
    const body = src.slice(src.indexOf('pub enum EndReason'), src.indexOf('}\n', src.indexOf('pub enum EndReason')));
    for (const m of body.matchAll(/^\s+([A-Z]\w*)\b/gm)) reasons.push(m[1].replace(/[A-Z]/g, (c, i) => (i ? '_' : '') + c.toLowerCase()));
  }
  assert.ok(reasons.length >= 12, `found ${reasons.length} reasons`);
  const missing = reasons.filter((r) => !(`reason.${r}` in dicts.en));
  assert.deepEqual(missing, []);
});

test('every house rule and value offered in the lobby and the host settings has words', async () => {
  // options.js imports browser-only modules through util.js -> i18n.js (localStorage), so read the
  // table from its source instead of importing it.
  const src = readFileSync(path.join(js, 'options.js'), 'utf8');
  const names = [...src.matchAll(/name: '(\w+)'/g)].map((m) => m[1]);
  const values = [...src.matchAll(/values: \[([^\]]*)\]/g)].flatMap((m) => [...m[1].matchAll(/'(\w+)'/g)].map((v) => v[1]));
  assert.ok(names.length === 11, `found ${names.length} options`);
  const missing = [...names.map((n) => `opt.${n}`), ...values.map((v) => `value.${v}`)].filter((k) => !(k in dicts.en));
  assert.deepEqual(missing, []);
});

test('every piece, seat, die state and class has words', () => {
  const keys = [
    ...['red', 'blue', 'yellow', 'green', 'grey'].map((s) => `seat.${s}`),
    ...['king', 'elephant', 'horse', 'boat', 'pawn', 'queen', 'rook', 'bishop', 'knight', 'one_point_queen'].map((p) => `piece.${p}`),
    ...['unused', 'used', 'declined', 'void', 'usable'].map((d) => `die.${d}`),
    ...['no_piece_of_class', 'no_legal_move'].map((d) => `unusable.${d}`),
    ...['pawn_or_king', 'boat', 'horse', 'elephant'].map((c) => `class.${c}`),
    ...['checkmate', 'king_captured', 'stalemate', 'resigned'].map((c) => `cause.${c}`),
    ...['none', '30s', '60s'].map((v) => `turn_time.${v}`),
    ...['lobby', 'playing', 'finished'].map((v) => `phase.${v}`),
    ...['chaturaji', 'fourchess_teams', 'fourchess_ffa'].map((p) => `pool.${p}`),
    ...[1, 2, 3].map((l) => `cpu.level_${l}`),
  ];
  assert.deepEqual(keys.filter((k) => !(k in dicts.en)), []);
});

test('every house-rule problem code of both rules engines has words', () => {
  const codes = new Set();
  for (const f of ['crates/rules/src/chaturaji/options.rs', 'crates/rules/src/fourchess/options.rs', 'crates/room/src/game.rs']) {
    const src = readFileSync(path.join(root, f), 'utf8');
    for (const m of src.matchAll(/code: "(\w+)"(?:\.into\(\))?,/g)) codes.add(m[1]);
  }
  assert.ok(codes.size >= 4, `found only ${[...codes]}`);
  assert.deepEqual([...codes].filter((c) => !(`problem.${c}` in dicts.en)), []);
});

test('a how-to-play page exists for each game in each language', () => {
  for (const game of ['chaturaji', 'fourchess']) {
    for (const l of LANGS) {
      const text = readFileSync(path.join(root, 'web/howto', `${game}.${l}.txt`), 'utf8');
      assert.ok(text.split('\n').length > 30, `${game}.${l} is too short`);
    }
  }
});

test('texts with plural forms name only plural categories, always with `other`, and read "1 pt" in English', () => {
  const PLURAL = /^(zero|one|two|few|many|other):/;
  let seen = 0;
  for (const l of LANGS) {
    for (const [k, v] of Object.entries(dicts[l])) {
      if (!PLURAL.test(v)) continue;
      seen += 1;
      const cats = v.split('|').map((f) => f.slice(0, f.indexOf(':')));
      assert.ok(cats.includes('other'), `${l}.${k} has no other form`);
      const known = new Intl.PluralRules(l).resolvedOptions().pluralCategories;
      for (const c of cats) assert.ok(known.includes(c), `${l}.${k}: ${c} is not a plural category of ${l}`);
    }
  }
  assert.ok(seen >= 5, `only ${seen} plural texts`);
  assert.equal(dicts.en['seat.points'], 'one:{n} pt|other:{n} pts');
});
