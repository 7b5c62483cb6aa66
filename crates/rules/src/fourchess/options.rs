//! House rules of a four-player chess table (spec section 6).

use crate::OptionError;

/// Teams (default: opposite seats are partners) or free-for-all for points.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    #[default]
    Teams,
    Ffa,
}

impl Mode {
    pub const fn name(self) -> &'static str {
        match self {
            Mode::Teams => "teams",
            Mode::Ffa => "ffa",
        }
    }
}

impl std::str::FromStr for Mode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "teams" => Ok(Mode::Teams),
            "ffa" => Ok(Mode::Ffa),
            other => Err(format!("unknown mode `{other}` (expected teams or ffa)")),
        }
    }
}

/// The options table of the spec, with its wire names and defaults.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    /// `teams` or `ffa` (F.10–F.22).
    pub mode: Mode,
    /// Total plies of all players after which the game ends (F.26); `None` (JSON `null`) for no limit.
    pub move_limit: Option<u32>,
    /// Client display only: mark the squares the selected piece can reach.
    pub show_legal_moves: bool,
    /// Move the first seat one place clockwise for each new game (F.2).
    pub rotate_starter: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            mode: Mode::Teams,
            move_limit: None,
            show_legal_moves: true,
            rotate_starter: true,
        }
    }
}

/// Options as a client sent them, before validation: every field optional and loosely typed, so that
/// [`RawOptions::validate`] can report every problem at once instead of stopping at the first one.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct RawOptions {
    pub mode: Option<String>,
    /// `null`/absent or `"none"` for no limit, else a positive number of plies.
    pub move_limit: Option<RawLimit>,
    pub show_legal_moves: Option<bool>,
    pub rotate_starter: Option<bool>,
}

/// A move limit as sent: a number or a word.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(untagged)]
pub enum RawLimit {
    Plies(i64),
    Word(String),
}

impl RawOptions {
    /// The options, or every problem with them (defaults fill absent fields).
    pub fn validate(&self) -> Result<Options, Vec<OptionError>> {
        let mut errors = Vec::new();
        let defaults = Options::default();
        let mode = match self.mode.as_deref() {
            None => defaults.mode,
            Some(text) => text.parse().unwrap_or_else(|message| {
                errors.push(OptionError {
                    option: "mode",
                    code: "unknown_value",
                    message,
                });
                defaults.mode
            }),
        };
        let move_limit = match &self.move_limit {
            None => None,
            Some(RawLimit::Word(w)) if w == "none" => None,
            Some(RawLimit::Plies(n)) if *n > 0 && *n <= i64::from(u32::MAX) => Some(*n as u32),
            Some(other) => {
                errors.push(OptionError {
                    option: "move_limit",
                    code: "out_of_range",
                    message: format!(
                        "move_limit must be none or a positive number of plies, not {other:?}"
                    ),
                });
                None
            }
        };
        let options = Options {
            mode,
            move_limit,
            show_legal_moves: self.show_legal_moves.unwrap_or(defaults.show_legal_moves),
            rotate_starter: self.rotate_starter.unwrap_or(defaults.rotate_starter),
        };
        if let Err(more) = options.validate() {
            errors.extend(more);
        }
        if errors.is_empty() {
            Ok(options)
        } else {
            Err(errors)
        }
    }
}

impl Options {
    /// Every problem with these options; never clamps.
    pub fn validate(&self) -> Result<(), Vec<OptionError>> {
        let mut errors = Vec::new();
        if self.move_limit == Some(0) {
            errors.push(OptionError {
                option: "move_limit",
                code: "out_of_range",
                message: "move_limit must be a positive number of plies, or null for none"
                    .to_owned(),
            });
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }

    /// The first seat of the next game at this table (F.2: rotate starter moves it one seat clockwise).
    pub fn next_first_seat(&self, previous_first: crate::Seat) -> crate::Seat {
        if self.rotate_starter {
            previous_first.next()
        } else {
            previous_first
        }
    }
}
