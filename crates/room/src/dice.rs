//! Dice fairness (C.10): the room owns a ChaCha20 stream seeded from the OS. At game start it publishes
//! `sha256(seed)` (hex); at the end it reveals the seed, and anyone can recompute every throw:
//! `ChaCha20Rng::from_seed(seed)`, then each throw is two `rng.random_range(lo..=hi)` calls in order
//! (`cube`: 1..=6, `long`: 2..=5), one throw per turn that starts with a roll.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use sha2::{Digest, Sha256};

#[derive(Clone)]
pub struct DiceStream {
    seed: [u8; 32],
    rng: ChaCha20Rng,
}

impl std::fmt::Debug for DiceStream {
    // Never print the seed while the game runs: it would reveal the dice to come.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DiceStream")
            .field("commit", &self.commit())
            .finish()
    }
}

impl DiceStream {
    /// A fresh stream seeded from the operating system.
    pub fn from_os() -> DiceStream {
        let mut seed = [0u8; 32];
        rand::rng().fill(&mut seed);
        DiceStream::from_seed(seed)
    }

    pub fn from_seed(seed: [u8; 32]) -> DiceStream {
        DiceStream {
            seed,
            rng: ChaCha20Rng::from_seed(seed),
        }
    }

    /// Hex `sha256(seed)`, published at game start.
    pub fn commit(&self) -> String {
        hex::encode(Sha256::digest(self.seed))
    }

    /// Hex seed, revealed at game end.
    pub fn reveal(&self) -> String {
        hex::encode(self.seed)
    }

    /// The next throw of two dice with faces `lo..=hi`.
    pub fn throw(&mut self, lo: u8, hi: u8) -> [u8; 2] {
        let a = self.rng.random_range(lo..=hi);
        let b = self.rng.random_range(lo..=hi);
        [a, b]
    }
}

/// Recompute the throws of a revealed seed (what a player does to verify the dice).
pub fn verify(
    seed_hex: &str,
    commit_hex: &str,
    lo: u8,
    hi: u8,
    throws: usize,
) -> Option<Vec<[u8; 2]>> {
    let bytes = hex::decode(seed_hex).ok()?;
    let seed: [u8; 32] = bytes.try_into().ok()?;
    let mut stream = DiceStream::from_seed(seed);
    if stream.commit() != commit_hex {
        return None;
    }
    Some((0..throws).map(|_| stream.throw(lo, hi)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commit_matches_revealed_seed_and_throws_replay() {
        let mut stream = DiceStream::from_os();
        let commit = stream.commit();
        let throws: Vec<_> = (0..50).map(|_| stream.throw(1, 6)).collect();
        assert!(throws.iter().flatten().all(|f| (1..=6).contains(f)));
        let replay = verify(&stream.reveal(), &commit, 1, 6, 50).unwrap();
        assert_eq!(replay, throws);
        // A different commit is refused.
        assert!(verify(&stream.reveal(), &"0".repeat(64), 1, 6, 1).is_none());
    }

    #[test]
    fn long_dice_only_show_two_to_five() {
        let mut stream = DiceStream::from_seed([7; 32]);
        let faces: Vec<u8> = (0..400).flat_map(|_| stream.throw(2, 5)).collect();
        for f in 2..=5 {
            assert!(faces.contains(&f), "face {f} never came");
        }
        assert!(faces.iter().all(|f| (2..=5).contains(f)));
    }

    #[test]
    fn known_seed_gives_known_first_throws() {
        // Pins the documented derivation (docs/protocol.md): changing it breaks players' verifiers.
        let mut stream = DiceStream::from_seed([0; 32]);
        let mut rng = ChaCha20Rng::from_seed([0; 32]);
        let expected = [rng.random_range(1..=6u8), rng.random_range(1..=6u8)];
        assert_eq!(stream.throw(1, 6), expected);
        assert_eq!(
            stream.commit(),
            "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"
        );
    }
}
