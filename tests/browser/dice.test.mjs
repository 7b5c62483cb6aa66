// The in-browser dice check (web/js/dice-verify.js) against known values: the ChaCha20 keystream of
// the all-zero key (the djb/rand_chacha layout), and the shape of rand's u8 range sampling. The
// browser suite then checks it against a real game's throws from the real server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChaCha20, randomRange, throwsFromSeed } from '../../web/js/dice-verify.js';

test('ChaCha20 keystream of the zero key and nonce (first block, as rand_chacha reads it)', () => {
  const rng = new ChaCha20(new Uint8Array(32));
  const words = Array.from({ length: 16 }, () => rng.nextU32().toString(16).padStart(8, '0'));
  // 76b8e0ad a0f13d90 405d6ae5 5386bd28 ... read as little-endian words.
  assert.deepEqual(words.slice(0, 4), ['ade0b876', '903df1a0', 'e56a5d40', '28bd8653']);
  // The second block follows from counter 1 (9f07e7be 5551387a ...).
  const next = Array.from({ length: 2 }, () => rng.nextU32().toString(16).padStart(8, '0'));
  assert.deepEqual(next, ['bee7079f', '7a385155']);
});

test('range sampling stays in range and uses every face', () => {
  const rng = new ChaCha20(new Uint8Array(32).fill(7));
  const seen = new Set();
  for (let i = 0; i < 600; i++) {
    const f = randomRange(rng, 1, 6);
    assert.ok(f >= 1 && f <= 6);
    seen.add(f);
  }
  assert.equal(seen.size, 6);
  const long = throwsFromSeed('ab'.repeat(32), 2, 5, 200).flat();
  assert.ok(long.every((f) => f >= 2 && f <= 5));
  assert.equal(new Set(long).size, 4);
});
