//! `fourkings config`: the effective configuration as TOML, safe to paste into a bug report. Values of
//! keys named like a secret (`*secret*`, `*token*`, `*password*`) and the password inside any URL
//! (`postgres://user:PASSWORD@host/db`) are replaced by `***`.

use serde::Serialize;
use toml::Value;

const MASK: &str = "***";

/// `value` (a whole configuration) as TOML with its secrets masked.
pub fn masked_toml(value: &impl Serialize) -> Result<String, toml::ser::Error> {
    let mut value = Value::try_from(value)?;
    mask(&mut value, false);
    toml::to_string_pretty(&value)
}

fn secret_key(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    ["secret", "token", "password"]
        .iter()
        .any(|word| key.contains(word))
}

fn mask(value: &mut Value, secret: bool) {
    match value {
        Value::Table(table) => {
            for (key, v) in table.iter_mut() {
                mask(v, secret || secret_key(key));
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| mask(v, secret)),
        Value::String(s) if secret => *s = MASK.to_owned(),
        Value::String(s) => {
            if let Some(masked) = mask_url_password(s) {
                *s = masked;
            }
        }
        _ if secret => *value = Value::String(MASK.to_owned()),
        _ => {}
    }
}

/// `scheme://user:password@rest` → `scheme://user:***@rest`; `None` when there is no password.
fn mask_url_password(s: &str) -> Option<String> {
    let (scheme, rest) = s.split_once("://")?;
    // The user info ends at the last `@` before the path.
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let at = rest[..authority_end].rfind('@')?;
    let (user, _password) = rest[..at].split_once(':')?;
    Some(format!("{scheme}://{user}:{MASK}{}", &rest[at..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_passwords_are_masked() {
        assert_eq!(
            mask_url_password("postgres://fk:s3cr%40t@db:5432/fourkings?sslmode=disable")
                .as_deref(),
            Some("postgres://fk:***@db:5432/fourkings?sslmode=disable")
        );
        assert_eq!(mask_url_password("postgres://fk@db/fourkings"), None);
        assert_eq!(mask_url_password("sqlite://data/fourkings.db"), None);
        assert_eq!(mask_url_password("http://127.0.0.1:8080"), None);
    }

    #[test]
    fn secret_keys_and_urls_are_masked_everywhere() {
        let config = serde_json::json!({
            "database": { "url": "postgres://fk:hunter2@db/fourkings", "pool": 5 },
            "admin": { "api_token": "abc", "Secret_Key": 42, "password_list": ["a", "b"] },
            "server": { "listen": "0.0.0.0:8080" }
        });
        let out = masked_toml(&config).unwrap();
        assert!(!out.contains("hunter2"), "{out}");
        assert!(!out.contains("abc"), "{out}");
        assert!(!out.contains("42"), "{out}");
        assert!(!out.contains("\"a\""), "{out}");
        assert!(out.contains("postgres://fk:***@db/fourkings"), "{out}");
        assert!(out.contains("listen = \"0.0.0.0:8080\""), "{out}");
        assert!(out.contains("pool = 5"), "{out}");
        // Still TOML.
        let back: toml::Table = out.parse().unwrap();
        assert_eq!(back["admin"]["api_token"].as_str(), Some("***"));
    }
}
