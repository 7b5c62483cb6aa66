//! House rules (section 9) with the spec's defaults, validated with every problem listed.

use super::dice::DiceKind;
use crate::{OptionError, Seat};
use serde::{Deserialize, Serialize};

/// Option `promotion` (C.14–C.17).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Promotion {
    /// Promote only to a type the seat no longer has (waiting pawns promote when it is lost).
    #[default]
    LostTypeOnly,
    /// Promote at once, except on king squares where the pawn stays a pawn for good.
    Always,
}

/// Option `dice_use` (C.9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DiceUse {
    /// The player may end the turn while a die is still usable.
    #[default]
    Optional,
    /// The turn ends only when no remaining die is usable.
    Forced,
}

/// Option `first_seat_next_game` (C.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FirstSeatNextGame {
    #[default]
    Rotate,
    Fixed,
}

pub const ROUND_LIMIT_RANGE: std::ops::RangeInclusive<u32> = 1..=200;

/// The house rules of one Chaturaji game. Wire names are the spec's (section 9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    pub dice: DiceKind,
    pub promotion: Promotion,
    pub boat_triumph: bool,
    pub throne_points: bool,
    pub dice_use: DiceUse,
    /// Whole rounds, 1..=200 (validated, never clamped).
    pub round_limit: u32,
    pub first_seat_next_game: FirstSeatNextGame,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            dice: DiceKind::Cube,
            promotion: Promotion::LostTypeOnly,
            boat_triumph: true,
            throne_points: false,
            dice_use: DiceUse::Optional,
            round_limit: 30,
            first_seat_next_game: FirstSeatNextGame::Rotate,
        }
    }
}

/// The value named `value` among `choices`, or an `unknown_value` problem naming the accepted ones.
fn pick<T: Copy>(
    option: &'static str,
    value: &str,
    choices: &[(&str, T)],
) -> Result<T, OptionError> {
    choices
        .iter()
        .find(|(name, _)| *name == value)
        .map(|&(_, v)| v)
        .ok_or_else(|| OptionError {
            option,
            code: "unknown_value",
            message: format!(
                "`{value}` is not one of {}",
                choices.iter().map(|c| c.0).collect::<Vec<_>>().join(", ")
            ),
        })
}

impl Options {
    /// Every problem with these options (the typed fields leave only the round limit to check).
    pub fn validate(&self) -> Result<(), Vec<OptionError>> {
        let mut problems = Vec::new();
        if !ROUND_LIMIT_RANGE.contains(&self.round_limit) {
            problems.push(OptionError {
                option: "round_limit",
                code: "out_of_range",
                message: format!(
                    "round_limit must be a whole number from 1 to 200, got {}",
                    self.round_limit
                ),
            });
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems)
        }
    }

    /// Options from `name=value` text settings (as a host types them), starting from the defaults.
    /// Every unknown name, unknown value and out-of-range number is reported, not just the first.
    pub fn from_settings<'a>(
        settings: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Options, Vec<OptionError>> {
        let mut options = Options::default();
        let mut problems = Vec::new();
        for (name, value) in settings {
            const ON_OFF: [(&str, bool); 4] = [
                ("on", true),
                ("off", false),
                ("true", true),
                ("false", false),
            ];
            let result = match name {
                "dice" => pick(
                    "dice",
                    value,
                    &[("cube", DiceKind::Cube), ("long", DiceKind::Long)],
                )
                .map(|v| options.dice = v),
                "promotion" => pick(
                    "promotion",
                    value,
                    &[
                        ("lost_type_only", Promotion::LostTypeOnly),
                        ("always", Promotion::Always),
                    ],
                )
                .map(|v| options.promotion = v),
                "boat_triumph" => {
                    pick("boat_triumph", value, &ON_OFF).map(|v| options.boat_triumph = v)
                }
                "throne_points" => {
                    pick("throne_points", value, &ON_OFF).map(|v| options.throne_points = v)
                }
                "dice_use" => pick(
                    "dice_use",
                    value,
                    &[("optional", DiceUse::Optional), ("forced", DiceUse::Forced)],
                )
                .map(|v| options.dice_use = v),
                "round_limit" => value
                    .parse::<u32>()
                    .map(|n| options.round_limit = n)
                    .map_err(|_| OptionError {
                        option: "round_limit",
                        code: "not_a_number",
                        message: format!("round_limit must be a whole number, got `{value}`"),
                    }),
                "first_seat_next_game" => pick(
                    "first_seat_next_game",
                    value,
                    &[
                        ("rotate", FirstSeatNextGame::Rotate),
                        ("fixed", FirstSeatNextGame::Fixed),
                    ],
                )
                .map(|v| options.first_seat_next_game = v),
                _ => Err(OptionError {
                    option: "unknown",
                    code: "unknown_option",
                    message: format!("`{name}` is not a Chaturaji option"),
                }),
            };
            if let Err(problem) = result {
                problems.push(problem);
            }
        }
        if let Err(more) = options.validate() {
            problems.extend(more);
        }
        if problems.is_empty() {
            Ok(options)
        } else {
            Err(problems)
        }
    }

    /// The first seat of the next game (C.3): one seat clockwise under `rotate`, the same under `fixed`.
    pub fn next_first_seat(&self, this_game_first: Seat) -> Seat {
        match self.first_seat_next_game {
            FirstSeatNextGame::Rotate => this_game_first.next(),
            FirstSeatNextGame::Fixed => this_game_first,
        }
    }
}
