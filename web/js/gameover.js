// The game-over panel: why the game ended, the standings with points and rating changes, the
// revealed dice seed with the in-browser check, and the links to the game's replay and record. The
// replay page draws its final standings with it too.
import { t } from './i18n.js';
import { esc, setHtml } from './util.js';
import { SYMBOL, COLOR } from './games.js';
import { TEAMS, isTeams, seatNames, teamLabel } from './seats.js';
import { reasonText } from './events.js';
import { changeForSeat, changeShort, changeText, gameLink, poolOf, profileLink } from './ratings.js';
import { replayLink } from './game-list.js';

/**
 * @param {HTMLElement} el @param {import('./room-state.js').RoomState} s @param {string} verify the dice check's result in words
 * @param {{replay?: boolean}} opts `replay: false` on the replay page itself: its title is "Result", no links
 */
export function renderGameOver(el, s, verify, { replay = true } = {}) {
  const g = s.game;
  if (!g || !g.outcome) {
    setHtml(el, '');
    return;
  }
  const names = seatNames(s.info);
  const rated = Array.isArray(g.ratings);
  const rows = [...g.outcome.standings].sort((a, b) => a.place - b.place).map((st) => {
    const change = rated ? changeForSeat(g.ratings, st.seat) : null;
    const rating = !rated ? '' : change
      ? `<td class="rating-change" data-player="${esc(change.player_id)}"><a href="${profileLink(change.player_id)}" title="${esc(changeText(change))}">${esc(changeShort(change))}</a></td>`
      : `<td class="rating-change muted">${esc(t('over.unrated_seat'))}</td>`;
    return `<tr data-seat="${st.seat}"><td class="num">${st.place}</td><td class="seat-cell"><span style="color:${COLOR[st.seat]}">${SYMBOL[st.seat]}</span> ${esc(t(`seat.${st.seat}`))}</td>
         <td class="name-cell">${esc(names[st.seat] || '')}</td><td class="num">${st.points}</td>${rating}</tr>`;
  }).join('');
  let seed = '';
  if (g.dice_seed) {
    seed = `<p class="seed">${esc(t('verify.seed'))} <code id="dice-seed">${esc(g.dice_seed)}</code><br>
          ${esc(t('verify.commit'))} <code>${esc(g.dice_commit || '')}</code><br>
          <button type="button" data-do="verify" id="verify">${esc(t('verify.button'))}</button> <span id="verify-result">${esc(verify)}</span></p>`;
  }
  setHtml(el, `<h2>${esc(t(replay ? 'over.title' : 'replay.result'))}</h2>${teamResult(s)}<p id="over-reason">${esc(reasonText(g.outcome.reason))}</p>
        <table id="standings"><thead><tr><th class="num">${esc(t('over.place'))}</th><th>${esc(t('over.seat'))}</th><th>${esc(t('over.player'))}</th><th class="num">${esc(t('over.points'))}</th>${rated ? `<th>${esc(t('over.rating'))}</th>` : ''}</tr></thead>
        <tbody>${rows}</tbody></table>${seed}${replay ? recordHtml(s) : ''}`);
}

/** Teams: which team won, or a draw (the standings give both partners the same place). */
function teamResult(s) {
  if (!isTeams(s)) return '';
  const place = (seat) => s.game.outcome.standings.find((x) => x.seat === seat)?.place;
  const won = TEAMS.filter((team) => team.some((seat) => place(seat) === 1));
  const text = won.length === 1 ? t('over.team_won', { team: teamLabel(won[0]) }) : t('over.draw');
  return `<p id="team-result" class="team-result">${esc(text)}</p>`;
}

/** The link to the game's record and how to check it independently. */
function recordHtml(s) {
  const g = s.game;
  if (!g.record) return '';
  const board = g.ratings ? ` · <a id="pool-link" href="/?leaderboard=${encodeURIComponent(poolOf(s.info.game, g.options))}">${esc(t('ratings.leaderboard'))}</a>` : '';
  return `<div class="record"><p><a id="replay-link" class="button primary" href="${replayLink(g.record)}">${esc(t('over.replay'))}</a></p>
      <p><a id="record-link" href="${gameLink(g.record)}" target="_blank" rel="noopener">${esc(t('over.record'))}</a>${board}</p>
      <details id="verify-howto"><summary>${esc(t('over.verify_title'))}</summary>
        <p>${esc(t('over.verify_steps'))}</p><pre><code>fourkings verify record.json</code></pre></details></div>`;
}
