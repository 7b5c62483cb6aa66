// The game's sounds, synthesized with WebAudio (no files to fetch): your turn, a move, a capture,
// a check, the end of the game, and the last ten seconds of your turn. Mute is remembered on this
// device (`fk.mute`). Browsers start audio only after a first click or key press: the context is
// created or resumed then.
const KEY = 'fk.mute';

/** Each sound: notes of [frequency Hz, start s, length s, type, volume]. */
const SOUNDS = {
  turn: [[660, 0, 0.12, 'sine', 0.25], [880, 0.13, 0.18, 'sine', 0.25]],
  move: [[180, 0, 0.06, 'triangle', 0.35]],
  capture: [[140, 0, 0.05, 'square', 0.18], [90, 0.05, 0.1, 'triangle', 0.35]],
  check: [[988, 0, 0.09, 'square', 0.12], [988, 0.12, 0.09, 'square', 0.12]],
  end: [[523, 0, 0.18, 'sine', 0.25], [659, 0.18, 0.18, 'sine', 0.25], [784, 0.36, 0.35, 'sine', 0.25]],
  tick: [[1200, 0, 0.04, 'sine', 0.2]],
};

export class Sounds {
  constructor() {
    this.muted = localStorage.getItem(KEY) === '1';
    this.ctx = null;
    this.played = []; // what was played, newest last (the browser tests read it)
    const wake = () => this.context();
    addEventListener('pointerdown', wake, { capture: true });
    addEventListener('keydown', wake, { capture: true });
  }

  context() {
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return null;
    if (!this.ctx) this.ctx = new Ctx();
    if (this.ctx.state === 'suspended') this.ctx.resume().catch(() => {});
    return this.ctx;
  }

  setMuted(m) {
    this.muted = m;
    localStorage.setItem(KEY, m ? '1' : '0');
  }

  play(name) {
    const notes = SOUNDS[name];
    if (!notes || this.muted) return;
    const ctx = this.context();
    if (!ctx) return;
    this.played.push(name);
    if (this.played.length > 50) this.played.shift();
    const now = ctx.currentTime;
    for (const [freq, at, len, type, vol] of notes) {
      const osc = ctx.createOscillator();
      const gain = ctx.createGain();
      osc.type = type;
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(vol, now + at);
      gain.gain.exponentialRampToValueAtTime(0.001, now + at + len);
      osc.connect(gain).connect(ctx.destination);
      osc.start(now + at);
      osc.stop(now + at + len + 0.02);
    }
  }
}
