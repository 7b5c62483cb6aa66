//! Validation errors for house rules, shared by both games: validation reports every problem at once
//! and never clamps a value silently.

use std::fmt;

/// One problem with a set of options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionError {
    /// The option's wire name, e.g. `round_limit`.
    pub option: &'static str,
    /// A stable machine-readable code, e.g. `out_of_range`, `unknown_value`.
    pub code: &'static str,
    /// A human-readable explanation naming the accepted values.
    pub message: String,
}

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} ({})", self.option, self.message, self.code)
    }
}

impl std::error::Error for OptionError {}
