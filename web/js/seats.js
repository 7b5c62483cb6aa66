// The seat panels: each seat's colour and symbol, who holds it ("CPU · medium" for a CPU), tags
// (you, away, out, resigned, checkmated), its points with the pieces it captured, and a lit panel
// with the countdown for the seat to act. In Teams the partners are named above the panels.
import { t } from './i18n.js';
import { esc, setHtml } from './util.js';
import { SEATS, SYMBOL, COLOR, KIND_LETTER, parseFen4 } from './games.js';
import { figurine } from './movelist.js';

/** The two teams of four-player chess Teams (F.2): Red & Yellow, Blue & Green. */
export const TEAMS = [['red', 'yellow'], ['blue', 'green']];

export function isTeams(s) {
  const opts = (s.game && s.game.options) || s.info.options || {};
  return s.info.game === 'fourchess' && (opts.mode || 'teams') === 'teams';
}

export function seatLabel(seat) {
  return `${SYMBOL[seat]} ${t(`seat.${seat}`)}`;
}

export function teamLabel(team) {
  return t('team.pair', { a: seatLabel(team[0]), b: seatLabel(team[1]) });
}

/** What a CPU seat is called: "CPU · medium". */
export function cpuName(level) {
  return t('seat.cpu', { level: t(`cpu.level_${level}`) });
}

/** Who holds each seat, in words (a human's name, a CPU's level, or empty). */
export function seatNames(info) {
  const out = {};
  info.seats.forEach((o, i) => {
    out[SEATS[i]] = o.kind === 'human' ? o.name : o.kind === 'cpu' ? cpuName(o.level) : '';
  });
  return out;
}

/** The pieces each seat captured, from the game's steps: seat → [{kind letter, owner}]. */
export function capturedBy(game, steps) {
  const out = { red: [], blue: [], yellow: [], green: [] };
  for (const step of steps) {
    if (!step || !step.applied) continue;
    if (game === 'fourchess') {
      const r = step.applied.move;
      for (const c of (r && r.captures) || []) {
        out[r.seat].push({ kind: KIND_LETTER[c.piece.kind], owner: (c.piece.owner && c.piece.owner.seat) || 'grey' });
      }
    } else {
      for (const e of step.applied) {
        if (e.type === 'captured') out[e.by].push({ kind: KIND_LETTER[e.piece.kind], owner: e.piece.seat });
      }
    }
  }
  return out;
}

/** Seats that resigned in the game so far. */
export function resignedSeats(steps) {
  const out = new Set();
  for (const step of steps) if (step && step.action && step.action.type === 'resign') out.add(step.action.seat || step.seat);
  return out;
}

/** Seconds the turn timer gives ('30s' → 30), or null without a limit. */
export function turnSeconds(info) {
  const m = /^(\d+)s$/.exec(info.turn_time || '');
  return m ? Number(m[1]) : null;
}

/** @param {HTMLElement} el  the seats' <ol> @param {import('./room-state.js').RoomState} s */
export function renderSeats(el, s) {
  const g = s.game;
  const kind = s.info.game;
  const pts = g?.state?.points || [0, 0, 0, 0];
  const elim = g?.state?.fen4 ? parseFen4(g.state.fen4).eliminated : [];
  const steps = s.history.steps;
  const captured = capturedBy(kind, steps);
  const resigned = resignedSeats(steps);
  const over = !!(g && g.outcome);
  const teams = isTeams(s);
  const head = teams
    ? `<li class="teams" id="teams">${esc(t('team.vs', { a: teamLabel(TEAMS[0]), b: teamLabel(TEAMS[1]) }))}</li>`
    : '';
  setHtml(el, head + SEATS.map((seat, i) => {
    const o = s.info.seats[i];
    let who;
    const tags = [];
    if (o.kind === 'empty') who = t('seat.empty');
    else if (o.kind === 'cpu') who = cpuName(o.level);
    else {
      who = o.name;
      // After the game these would only be stale: who is away matters while it is played.
      if (!over && !o.connected) tags.push(t('tag.away'));
      if (!over && o.handed_over) tags.push(t('tag.handed_over'));
      else if (!over && o.cpu_playing) tags.push(t('tag.cpu_playing'));
      if (o.muted) tags.push(t('tag.muted'));
    }
    if (seat === s.mySeat) tags.push(t('tag.you'));
    const standing = g?.outcome?.standings?.find((x) => x.seat === seat);
    if (resigned.has(seat) || standing?.resigned) tags.push(t('tag.resigned'));
    else if (elim[i]) tags.push(t('tag.out'));
    const toAct = g && !over && g.to_act === seat;
    const caps = captured[seat].map((c) => figurine(kind, c.kind, c.owner)).join('');
    const team = teams ? TEAMS.findIndex((tm) => tm.includes(seat)) : -1;
    return `<li class="seat seat-${seat}${toAct ? ' to-act' : ''}${team >= 0 ? ` team-${team}` : ''}${resigned.has(seat) || elim[i] ? ' gone' : ''}" data-seat="${seat}" style="--seat:${COLOR[seat]}">
        <span class="sym" aria-hidden="true">${SYMBOL[seat]}</span>
        <span class="seat-name">${esc(t(`seat.${seat}`))}</span>
        <span class="who" title="${esc(who)}">${esc(who)}</span>
        <span class="points" data-points="${pts[i]}">${esc(t('seat.points', { n: pts[i] }))}</span>
        <span class="tags">${tags.map((x) => `<em class="tag">${esc(x)}</em>`).join(' ')}</span>
        <span class="captured" aria-label="${esc(t('seat.captured'))}">${caps}</span>
        ${toAct ? `<span class="turn-mark">${esc(t('seat.to_act'))}</span><span class="clock" aria-hidden="true"><span class="clock-bar"></span></span>` : ''}
      </li>`;
  }).join(''));
}

/** The countdown in the lit panel (every quarter second). */
export function renderSeatClock(el, s) {
  const bar = el && el.querySelector('.seat.to-act .clock-bar');
  if (!bar) return;
  const total = turnSeconds(s.info);
  const g = s.game;
  if (!total || !g || !g.deadline) {
    bar.parentElement.hidden = true;
    return;
  }
  const left = Math.max(0, (g.deadline - Date.now()) / 1000);
  bar.parentElement.hidden = false;
  bar.style.width = `${Math.min(100, (100 * left) / total)}%`;
  bar.classList.toggle('low', left <= 10);
}
