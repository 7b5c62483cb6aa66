//! The one rule for every display name people see (a seat's name, a player's name): what
//! `POST /rooms/{id}/join` and `POST /players` both accept.
//!
//! Trimmed, 1 to [`MAX_NAME_CHARS`] characters, and nothing that is not shown as itself: no control
//! characters (NUL, ESC, BEL, newline…), no bidirectional overrides or isolates (which reorder the
//! text around a name, e.g. to make it read as someone else's), no zero-width or other invisible
//! formatting characters (which make two different names look the same).

/// Longest display name, in characters.
pub const MAX_NAME_CHARS: usize = 32;

/// Why a display name was refused; `Display` is the message sent with `bad_message`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameProblem {
    Empty,
    TooLong,
    Control,
    Bidi,
    Invisible,
}

impl std::fmt::Display for NameProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            NameProblem::Empty => "a display name cannot be empty",
            NameProblem::TooLong => "a display name has at most 32 characters",
            NameProblem::Control => "a display name cannot contain control characters",
            NameProblem::Bidi => {
                "a display name cannot contain bidirectional override or isolate characters"
            }
            NameProblem::Invisible => {
                "a display name cannot contain zero-width or invisible formatting characters"
            }
        })
    }
}

impl std::error::Error for NameProblem {}

/// Bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069) and the marks
/// (U+200E, U+200F, U+061C).
pub(crate) fn is_bidi(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

/// Zero-width and invisible formatting characters: U+200B–U+200D, the word joiner and invisible
/// operators (U+2060–U+2064), the BOM (U+FEFF), the soft hyphen, the Mongolian vowel separator,
/// the Hangul fillers, and the interlinear annotation and tag characters.
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{200B}'..='\u{200D}'
            | '\u{2060}'..='\u{2064}'
            | '\u{FEFF}'
            | '\u{00AD}'
            | '\u{180E}'
            | '\u{115F}'
            | '\u{1160}'
            | '\u{3164}'
            | '\u{FFA0}'
            | '\u{FFF9}'..='\u{FFFB}'
            | '\u{E0000}'..='\u{E007F}'
    )
}

/// The name as kept and shown (trimmed), or why it is refused.
pub fn display_name(name: &str) -> Result<String, NameProblem> {
    let name = name.trim();
    if name.is_empty() {
        return Err(NameProblem::Empty);
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(NameProblem::TooLong);
    }
    for c in name.chars() {
        if c.is_control() {
            return Err(NameProblem::Control);
        }
        if is_bidi(c) {
            return Err(NameProblem::Bidi);
        }
        if is_invisible(c) {
            return Err(NameProblem::Invisible);
        }
    }
    Ok(name.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_trimmed_bounded_and_shown_as_themselves() {
        assert_eq!(display_name("  Ann ").unwrap(), "Ann");
        assert_eq!(display_name("Zoë 李 Ωmega").unwrap(), "Zoë 李 Ωmega");
        assert_eq!(display_name(&"é".repeat(32)).unwrap().chars().count(), 32);
        assert_eq!(display_name("   "), Err(NameProblem::Empty));
        assert_eq!(display_name(&"x".repeat(33)), Err(NameProblem::TooLong));
        for bad in ["a\0b", "a\u{1b}[31mb", "a\u{7}b", "a\nb", "a\u{7f}b"] {
            assert_eq!(display_name(bad), Err(NameProblem::Control), "{bad:?}");
        }
        for bad in ["a\u{202E}nnA", "a\u{2066}b", "a\u{200F}b"] {
            assert_eq!(display_name(bad), Err(NameProblem::Bidi), "{bad:?}");
        }
        for bad in ["An\u{200B}n", "A\u{FEFF}nn", "A\u{2060}nn", "A\u{E0041}nn"] {
            assert_eq!(display_name(bad), Err(NameProblem::Invisible), "{bad:?}");
        }
    }
}
