// The fourkings browser client: the lobby at `/`, a room at `/?room=<id>` (the server's invite
// link), the leaderboard at `/?leaderboard=<pool>`, a profile at `/?player=<id>` and the replay of a
// finished game at `/?game=<id>`. Each screen is
// its own module; this one picks the screen and redraws it when the language changes.
import { applyStatic, mountLangSelect, onLangChange } from './i18n.js';
import { lobbyView } from './lobby.js';
import { RoomPage } from './room.js';
import { storedPlayer } from './player.js';
import { leaderboardView, profileView, profileLink } from './ratings.js';
import { replayView } from './replay.js';

const app = document.getElementById('app');

/** "My ratings" in the header once this device has a player identity. */
function mountPlayerLink() {
  const a = document.getElementById('my-profile');
  const me = storedPlayer();
  if (!a || !me) return;
  a.href = profileLink(me.player_id);
  a.hidden = false;
}

function main() {
  mountLangSelect(document.getElementById('lang-select'));
  applyStatic();
  const params = new URLSearchParams(location.search);
  const room = params.get('room');
  mountPlayerLink();
  let page = null;
  if (params.has('leaderboard')) {
    page = leaderboardView(app, params.get('leaderboard'));
  } else if (params.get('player')) {
    page = profileView(app, params.get('player'));
  } else if (params.get('game')) {
    page = replayView(app, params.get('game'));
    window.fourkings = page; // what the browser tests read
  } else if (room) {
    page = new RoomPage(app, document.getElementById('banner'), room);
    page.start();
    window.fourkings = page; // for debugging in the console, and what the browser tests read
  } else {
    page = lobbyView(app);
  }
  onLangChange(() => page && page.relabel && page.relabel());
}

main();
