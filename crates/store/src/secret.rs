//! Random identifiers and secrets, and the SHA-256 hashes the store keeps instead of secrets.

use sha2::{Digest, Sha256};

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A new random player id: `p_` and 20 hex digits (80 random bits).
pub(crate) fn new_player_id() -> String {
    format!("p_{}", hex(&rand::random::<[u8; 10]>()))
}

/// A new device secret: 64 hex digits (256 random bits).
pub(crate) fn new_secret() -> String {
    hex(&rand::random::<[u8; 32]>())
}

/// The hex SHA-256 of a secret. The secrets are 256 random bits, so a fast unsalted hash is enough: there
/// is nothing to brute-force that is cheaper than guessing the secret itself.
pub fn hash_secret(secret: &str) -> String {
    hex(&Sha256::digest(secret.as_bytes()))
}

/// Compares a secret with a stored hash without an early exit on the first differing byte.
pub(crate) fn secret_matches(secret: &str, stored_hash: &str) -> bool {
    let computed = hash_secret(secret);
    computed.len() == stored_hash.len()
        && computed
            .bytes()
            .zip(stored_hash.bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
}

/// A display name as stored: trimmed, 1 to 32 characters, no control characters.
pub(crate) fn clean_display_name(name: &str) -> Result<String, crate::StoreError> {
    let name = name.trim();
    if name.is_empty() {
        return Err(crate::StoreError::InvalidName("empty"));
    }
    if name.chars().count() > 32 {
        return Err(crate::StoreError::InvalidName("longer than 32 characters"));
    }
    if name.chars().any(char::is_control) {
        return Err(crate::StoreError::InvalidName(
            "contains control characters",
        ));
    }
    Ok(name.to_owned())
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
    fn display_names_are_trimmed_and_bounded() {
        assert_eq!(clean_display_name("  Ann ").unwrap(), "Ann");
        assert!(clean_display_name("   ").is_err());
        assert!(clean_display_name(&"x".repeat(33)).is_err());
        assert!(clean_display_name("a\u{7}b").is_err());
        assert_eq!(
            clean_display_name(&"é".repeat(32)).unwrap().chars().count(),
            32
        );
    }
}
