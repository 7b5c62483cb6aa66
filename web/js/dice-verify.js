// Recompute a Chaturaji game's dice from its revealed seed, exactly as the server threw them
// (docs/protocol.md, "Dice fairness"): ChaCha20Rng::from_seed(seed) of rand_chacha 0.9, then per
// throw two `random_range(lo..=hi)` draws of rand 0.9 (a u32 widening multiply with one bias fix-up
// step). Together with sha256(seed) == the commitment published at the start, this proves the dice
// were fixed before the first throw.

const MASK = 0xffffffff;

function rotl(v, n) {
  return ((v << n) | (v >>> (32 - n))) >>> 0;
}

function quarter(s, a, b, c, d) {
  s[a] = (s[a] + s[b]) >>> 0; s[d] = rotl(s[d] ^ s[a], 16);
  s[c] = (s[c] + s[d]) >>> 0; s[b] = rotl(s[b] ^ s[c], 12);
  s[a] = (s[a] + s[b]) >>> 0; s[d] = rotl(s[d] ^ s[a], 8);
  s[c] = (s[c] + s[d]) >>> 0; s[b] = rotl(s[b] ^ s[c], 7);
}

/** The ChaCha20 keystream as u32 words: 256-bit key, 64-bit block counter from 0, stream 0. */
export class ChaCha20 {
  constructor(seed) {
    this.key = [];
    for (let i = 0; i < 8; i++) {
      this.key.push((seed[4 * i] | (seed[4 * i + 1] << 8) | (seed[4 * i + 2] << 16) | (seed[4 * i + 3] << 24)) >>> 0);
    }
    this.counter = 0;
    this.buf = [];
    this.pos = 0;
  }

  block() {
    const init = [0x61707865, 0x3320646e, 0x79622d32, 0x6b206574, ...this.key,
      this.counter % 2 ** 32, Math.floor(this.counter / 2 ** 32), 0, 0];
    const s = init.slice();
    for (let i = 0; i < 10; i++) {
      quarter(s, 0, 4, 8, 12); quarter(s, 1, 5, 9, 13); quarter(s, 2, 6, 10, 14); quarter(s, 3, 7, 11, 15);
      quarter(s, 0, 5, 10, 15); quarter(s, 1, 6, 11, 12); quarter(s, 2, 7, 8, 13); quarter(s, 3, 4, 9, 14);
    }
    this.buf = s.map((w, i) => (w + init[i]) >>> 0);
    this.pos = 0;
    this.counter += 1;
  }

  nextU32() {
    if (this.pos >= this.buf.length) this.block();
    return this.buf[this.pos++];
  }
}

/** rand 0.9 `random_range(lo..=hi)` for u8: sampled through u32. */
export function randomRange(rng, lo, hi) {
  const range = BigInt(hi - lo + 1);
  const m = BigInt(rng.nextU32()) * range;
  let result = Number(m >> 32n);
  const loOrder = m & BigInt(MASK);
  const threshold = (2n ** 32n - range) & BigInt(MASK); // range.wrapping_neg()
  if (loOrder > threshold) {
    const newHi = (BigInt(rng.nextU32()) * range) >> 32n;
    if (loOrder + newHi > BigInt(MASK)) result += 1;
  }
  return lo + result;
}

export function hexToBytes(hex) {
  return new Uint8Array((hex.match(/../g) || []).map((h) => parseInt(h, 16)));
}

/** The first `n` throws of the seed, each [die 0, die 1], faces lo..=hi. */
export function throwsFromSeed(seedHex, lo, hi, n) {
  const rng = new ChaCha20(hexToBytes(seedHex));
  const out = [];
  for (let i = 0; i < n; i++) out.push([randomRange(rng, lo, hi), randomRange(rng, lo, hi)]);
  return out;
}

/**
 * Check a finished game's dice in the browser: sha256(seed) against the commitment published at the
 * start, then every throw of the game (`rolls`, each [die 0, die 1]) against the seed's stream.
 * `dice` is the house rule (`long` dice have faces 2..5). Resolves to the words' key and params.
 */
export async function checkDice(seedHex, commit, dice, rolls) {
  let hex = '';
  try {
    const digest = await crypto.subtle.digest('SHA-256', hexToBytes(seedHex));
    hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
  } catch {
    return { key: 'verify.unavailable' };
  }
  if (hex !== commit) return { key: 'verify.bad' };
  const [lo, hi] = dice === 'long' ? [2, 5] : [1, 6];
  const again = throwsFromSeed(seedHex, lo, hi, rolls.length);
  const same = again.every((d, i) => d[0] === rolls[i][0] && d[1] === rolls[i][1]);
  return same ? { key: 'verify.ok', params: { n: rolls.length } } : { key: 'verify.throws_differ' };
}
