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
