//! Random secrets (seat, host and player tokens) and identifiers, and the hashes kept instead of them.
//! A leaf: it may depend on no fourkings crate, so the room, the store and the server all use it
//! without depending on each other.
//!
//! Every secret is random enough (128 or 256 bits) that a fast unsalted SHA-256 is the right hash:
//! there is nothing to brute-force that is cheaper than guessing the secret itself. The room's log
//! and the database keep only [`hash_secret`] of a token; [`secret_matches`] checks one.

#![forbid(unsafe_code)]

use rand::Rng;
use sha2::{Digest, Sha256};

/// A fresh seat or host token: 128 random bits, hex (32 digits).
pub fn new_token() -> String {
    let bytes: [u8; 16] = rand::rng().random();
    hex::encode(bytes)
}

/// A new device secret of a player identity: 256 random bits, hex (64 digits).
pub fn new_secret() -> String {
    hex::encode(rand::random::<[u8; 32]>())
}

/// A new random player id: `p_` and 20 hex digits (80 random bits).
pub fn new_player_id() -> String {
    format!("p_{}", hex::encode(rand::random::<[u8; 10]>()))
}

/// The hex SHA-256 of a secret.
pub fn hash_secret(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}

/// Compares a secret with a stored hash without an early exit on the first differing byte.
pub fn secret_matches(secret: &str, stored_hash: &str) -> bool {
    let computed = hash_secret(secret);
    computed.len() == stored_hash.len()
        && computed
            .bytes()
            .zip(stored_hash.bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_random_and_checked_against_their_hash() {
        let a = new_secret();
        let b = new_secret();
        assert_ne!(a, b);
        assert_eq!(a.len(), 64);
        let h = hash_secret(&a);
        assert_ne!(h, a);
        assert!(secret_matches(&a, &h));
        assert!(!secret_matches(&b, &h));
        assert!(!secret_matches(&a, &h[..10]));
    }

    #[test]
    fn tokens_and_ids_have_their_sizes_in_lower_case_hex() {
        let token = new_token();
        assert_eq!(token.len(), 32);
        assert_ne!(token, new_token());
        let id = new_player_id();
        assert_eq!(id.len(), 22);
        assert!(id.starts_with("p_"));
        for s in [token, id[2..].to_owned(), hash_secret("x")] {
            assert!(
                s.bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)),
                "{s}"
            );
        }
    }

    #[test]
    fn the_hash_is_sha256_in_hex() {
        assert_eq!(
            hash_secret("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
