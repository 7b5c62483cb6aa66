// The event log in words: every room event and every effect of a game action as one line of text
// in the current language.
import { t } from './i18n.js';
import { KIND_LETTER, KINDS } from './games.js';

const seat = (s) => t(`seat.${s}`);
const piece = (game, kind) => t(`piece.${KINDS[game][KIND_LETTER[kind]] || kind}`);

export function reasonText(reason) {
  if (!reason) return '';
  const key = `reason.${reason.reason}`;
  const who = reason.seat || reason.leader || reason.by;
  return t(key, { seat: who ? seat(who) : '', victim: reason.king_of ? seat(reason.king_of) : '' });
}

/** Lines for one event envelope's payload. `game` is the room's game kind. */
export function describe(ev, game, names) {
  const name = (s) => names[s] || seat(s);
  switch (ev.e) {
    case 'seat_taken': return [t('log.seat_taken', { name: ev.name, seat: seat(ev.seat) })];
    case 'cpu_seated': return [t('log.cpu_seated', { seat: seat(ev.seat), level: t(`cpu.level_${ev.level}`) })];
    case 'connection': return [t(ev.connected ? 'log.connected' : 'log.disconnected', { name: name(ev.seat) })];
    case 'control': return [t(ev.reason === 'host' ? 'log.handed_over' : ev.cpu ? 'log.cpu_took_over' : 'log.returned', { name: name(ev.seat) })];
    case 'unseated': return [t('log.unseated', { seat: seat(ev.seat) })];
    case 'locked': return [t(ev.locked ? 'log.locked' : 'log.unlocked')];
    case 'muted': return [t(ev.muted ? 'log.muted' : 'log.unmuted', { name: name(ev.seat) })];
    case 'settings_changed': return [t('log.settings_changed')];
    case 'game_started': return [t('log.game_started', { n: ev.game_no, seat: seat(ev.first) })];
    case 'game_over': return [t('log.game_over', { reason: reasonText(ev.outcome && ev.outcome.reason) })];
    case 'rated': return [t('log.rated')];
    case 'acted': {
      const prefix = ev.by === 'cpu' ? `${t('log.cpu_prefix')} ` : '';
      const lines = game === 'chaturaji' ? chaturajiLines(ev.applied) : fourchessLines(ev.applied);
      return lines.map((l) => prefix + l);
    }
    default: return [];
  }
}

function dieText(d) {
  return `${d.face} (${t(`class.${d.class}`)})`;
}

function chaturajiLines(applied) {
  const out = [];
  for (const e of applied || []) {
    switch (e.type) {
      case 'rolled': out.push(t('log.rolled', { seat: seat(e.seat), a: dieText(e.dice[0]), b: dieText(e.dice[1]) })); break;
      case 'moved': out.push(t('log.moved', { seat: seat(e.seat), piece: piece('chaturaji', e.piece), from: e.from, to: e.to })); break;
      case 'captured': out.push(t('log.captured', { seat: seat(e.by), owner: seat(e.piece.seat), piece: piece('chaturaji', e.piece.kind), at: e.at, points: e.points })); break;
      case 'throne_points': out.push(t('log.throne', { seat: seat(e.seat), throne: seat(e.throne), points: e.points })); break;
      case 'boat_triumph': out.push(t('log.boat_triumph', { seat: seat(e.seat), at: e.at, points: e.points })); break;
      case 'chaturaji': out.push(t('log.chaturaji', { seat: seat(e.seat), before: e.points_before, after: e.points_after })); break;
      case 'promoted': out.push(t('log.promoted', { seat: seat(e.seat), at: e.at, piece: piece('chaturaji', e.to) })); break;
      case 'turn_ended': out.push(t('log.turn_ended', { seat: seat(e.seat) })); break;
      case 'resigned': out.push(t('log.resigned', { seat: seat(e.seat) })); break;
      case 'game_over': break; // the room's game_over event says it with the standings
      default: break;
    }
  }
  return out;
}

function fourchessLines(applied) {
  const out = [];
  if (!applied) return out;
  const r = applied.move;
  if (r) {
    out.push(t('log.moved', { seat: seat(r.seat), piece: piece('fourchess', r.piece), from: r.mv.from, to: r.mv.to }));
    if (r.castling_long !== null && r.castling_long !== undefined) out.push(t(r.castling_long ? 'log.castled_long' : 'log.castled_short', { seat: seat(r.seat) }));
    if (r.en_passant) out.push(t('log.en_passant', { seat: seat(r.seat) }));
    for (const c of r.captures || []) {
      // The rules serialize an owner as {"seat":"red"} or "grey".
      const owner = c.piece.owner && c.piece.owner.seat ? c.piece.owner.seat : 'grey';
      out.push(t('log.captured', { seat: seat(r.seat), owner: seat(owner), piece: piece('fourchess', c.piece.kind), at: c.square, points: c.points }));
    }
    if (r.mv.promotion) out.push(t('log.promoted', { seat: seat(r.seat), at: r.mv.to, piece: piece('fourchess', r.mv.promotion) }));
    if ((r.checks || []).length) out.push(t('log.check', { seat: seat(r.seat), kings: r.checks.map(seat).join(', ') }));
    if (r.check_bonus) out.push(t('log.check_bonus', { seat: seat(r.seat), points: r.check_bonus }));
    for (const m of r.mated || []) out.push(t('log.mated', { seat: seat(m) }));
  } else if (applied.action && applied.action.type === 'resign') {
    out.push(t('log.resigned', { seat: seat(applied.seat) }));
  }
  for (const e of applied.eliminations || []) out.push(t('log.eliminated', { seat: seat(e.seat), cause: t(`cause.${e.cause}`) }));
  return out;
}
