// The anonymous player identity of this device, for rated games: created once with
// `POST /players` and kept in local storage (`fk.player`: {player_id, secret, display_name}). A
// seat joined with it counts toward that player's rating. A server without player identities
// (no `/players` route) is played as before: seats by name only.
import { api } from './api.js';

const KEY = 'fk.player';

export function storedPlayer() {
  try {
    const p = JSON.parse(localStorage.getItem(KEY));
    return p && p.player_id && p.secret ? p : null;
  } catch {
    return null;
  }
}

function forget() {
  localStorage.removeItem(KEY);
}

/** This device's player, created on first use; null when the server has no player identities. */
export async function ensurePlayer(displayName) {
  const have = storedPlayer();
  if (have) return have;
  try {
    const p = await api.createPlayer(displayName);
    if (!p || !p.player_id || !p.secret) return null;
    localStorage.setItem(KEY, JSON.stringify({ player_id: p.player_id, secret: p.secret, display_name: p.display_name }));
    return storedPlayer();
  } catch {
    return null; // no identities here (404) or not now: join as a guest
  }
}

/**
 * Take a seat in `room` as `name`, with this device's player identity when there is one. A secret
 * the server no longer knows (`bad_token`, e.g. a new database) gets a fresh identity; a server
 * that does not take identities in a join (`bad_json`/`bad_message` for the extra fields) gets a
 * plain join. Other errors are thrown as they are.
 */
export async function joinRoom(room, name) {
  let player = await ensurePlayer(name);
  if (!player) return api.join(room, name);
  try {
    return await api.join(room, name, player);
  } catch (e) {
    if (e.code === 'bad_token') {
      forget();
      player = await ensurePlayer(name);
      return api.join(room, name, player);
    }
    if (e.code === 'bad_json' || e.code === 'bad_message') return api.join(room, name);
    throw e;
  }
}
