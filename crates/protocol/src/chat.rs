//! Chat in a room: the quick phrases (sent as an id, shown to each reader in the reader's own
//! language, so players without a common language can still greet each other), the two channels,
//! one line as every reader gets it, and the one rule for free text.
//!
//! Free text is trimmed, its control characters (newlines, escapes…) and bidirectional embeddings,
//! overrides and isolates removed (they would reorder the text around the message, e.g. to make it
//! read as someone else's), and it is at most `max_chars` characters long after that. Zero-width
//! joiners stay: emoji sequences need them. Clients render it as text, never as HTML.

use serde::{Deserialize, Serialize};

use crate::Seat;
use crate::name::is_bidi;

/// The quick phrases, by their wire id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phrase {
    Hello,
    GoodLuck,
    GoodGame,
    Thanks,
    Oops,
    WellPlayed,
    YourTurn,
    OneMoment,
}

impl Phrase {
    pub const ALL: [Phrase; 8] = [
        Phrase::Hello,
        Phrase::GoodLuck,
        Phrase::GoodGame,
        Phrase::Thanks,
        Phrase::Oops,
        Phrase::WellPlayed,
        Phrase::YourTurn,
        Phrase::OneMoment,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Phrase::Hello => "hello",
            Phrase::GoodLuck => "good_luck",
            Phrase::GoodGame => "good_game",
            Phrase::Thanks => "thanks",
            Phrase::Oops => "oops",
            Phrase::WellPlayed => "well_played",
            Phrase::YourTurn => "your_turn",
            Phrase::OneMoment => "one_moment",
        }
    }

    pub fn from_id(id: &str) -> Option<Phrase> {
        Phrase::ALL.into_iter().find(|p| p.id() == id)
    }
}

/// Who reads a line: the players' channel (everyone in the room), or the spectators' own channel
/// (spectators only, so that nobody watching can coach a player), open when the room allows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChatChannel {
    Players,
    Spectators,
}

/// One chat line as readers get it (`chat` message, and the snapshot's recent lines).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatLine {
    /// Increasing per room; the host hides a line by it.
    pub id: u64,
    pub channel: ChatChannel,
    /// The writer's seat (players' channel); none for a spectator.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat: Option<Seat>,
    /// The seat's display name when it wrote.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Free text (already cleaned), or …
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// … a quick phrase, shown in the reader's language.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phrase: Option<Phrase>,
    /// Unix milliseconds.
    pub at: u64,
}

/// Why a free-text message was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextProblem {
    Empty,
    TooLong,
}

/// The text as kept and shown, or why it is refused: control and bidirectional formatting
/// characters removed (a line break or tab becomes a space), trimmed, at most `max_chars` characters.
pub fn clean_text(text: &str, max_chars: usize) -> Result<String, TextProblem> {
    let cleaned: String = text
        .chars()
        .filter(|&c| !is_bidi(c))
        .filter_map(|c| match c {
            '\n' | '\r' | '\t' => Some(' '),
            c if c.is_control() => None,
            c => Some(c),
        })
        .collect();
    let cleaned = cleaned.trim();
    if cleaned.is_empty() {
        return Err(TextProblem::Empty);
    }
    if cleaned.chars().count() > max_chars {
        return Err(TextProblem::TooLong);
    }
    Ok(cleaned.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_cleaned_trimmed_and_bounded() {
        assert_eq!(clean_text("  hi all ", 200).unwrap(), "hi all");
        assert_eq!(
            clean_text("a\u{202E}b\u{2066}c\u{1b}d\0e", 200).unwrap(),
            "abcde"
        );
        assert_eq!(clean_text("two\nlines", 200).unwrap(), "two lines");
        assert_eq!(clean_text("👨\u{200D}👩", 200).unwrap(), "👨\u{200D}👩");
        assert_eq!(clean_text(" \u{202E}\u{7} ", 200), Err(TextProblem::Empty));
        assert_eq!(
            clean_text(&"é".repeat(200), 200).unwrap().chars().count(),
            200
        );
        assert_eq!(clean_text(&"é".repeat(201), 200), Err(TextProblem::TooLong));
        // Trimming comes first: padding does not count.
        assert!(clean_text(&format!("  {}  ", "x".repeat(200)), 200).is_ok());
    }

    #[test]
    fn phrases_go_by_their_ids() {
        for p in Phrase::ALL {
            assert_eq!(Phrase::from_id(p.id()), Some(p));
            assert_eq!(serde_json::to_value(p).unwrap(), p.id());
        }
        assert_eq!(Phrase::from_id("gg_ez"), None);
    }
}
