//! The four seats both games share (C.2, F.2): Red ● bottom, Blue ▲ left, Yellow ■ top, Green ◆ right,
//! in clockwise turn order.

use std::fmt;
use std::str::FromStr;

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Seat {
    Red = 0,
    Blue = 1,
    Yellow = 2,
    Green = 3,
}

impl Seat {
    /// Clockwise turn order, starting from Red.
    pub const ALL: [Seat; 4] = [Seat::Red, Seat::Blue, Seat::Yellow, Seat::Green];

    pub const fn index(self) -> usize {
        self as usize
    }

    pub const fn from_index(i: usize) -> Seat {
        Seat::ALL[i % 4]
    }

    /// The seat that plays after this one (clockwise).
    pub const fn next(self) -> Seat {
        Seat::from_index(self.index() + 1)
    }

    /// The seat opposite this one (the partner in four-player chess Teams).
    pub const fn opposite(self) -> Seat {
        Seat::from_index(self.index() + 2)
    }

    /// Lower-case name used on the wire and in notations: `red`, `blue`, `yellow`, `green`.
    pub const fn name(self) -> &'static str {
        match self {
            Seat::Red => "red",
            Seat::Blue => "blue",
            Seat::Yellow => "yellow",
            Seat::Green => "green",
        }
    }

    /// One-letter code, lower case: `r`, `b`, `y`, `g`.
    pub const fn letter(self) -> char {
        match self {
            Seat::Red => 'r',
            Seat::Blue => 'b',
            Seat::Yellow => 'y',
            Seat::Green => 'g',
        }
    }

    pub fn from_letter(c: char) -> Option<Seat> {
        match c.to_ascii_lowercase() {
            'r' => Some(Seat::Red),
            'b' => Some(Seat::Blue),
            'y' => Some(Seat::Yellow),
            'g' => Some(Seat::Green),
            _ => None,
        }
    }

    /// The seat's symbol on the site: ● ▲ ■ ◆.
    pub const fn symbol(self) -> char {
        match self {
            Seat::Red => '●',
            Seat::Blue => '▲',
            Seat::Yellow => '■',
            Seat::Green => '◆',
        }
    }
}

impl fmt::Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown seat `{0}` (expected red, blue, yellow or green)")]
pub struct UnknownSeat(pub String);

impl FromStr for Seat {
    type Err = UnknownSeat;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "red" | "r" | "R" => Ok(Seat::Red),
            "blue" | "b" | "B" => Ok(Seat::Blue),
            "yellow" | "y" | "Y" => Ok(Seat::Yellow),
            "green" | "g" | "G" => Ok(Seat::Green),
            _ => Err(UnknownSeat(s.to_owned())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c3_f2_turns_go_clockwise() {
        assert_eq!(Seat::Red.next(), Seat::Blue);
        assert_eq!(Seat::Blue.next(), Seat::Yellow);
        assert_eq!(Seat::Yellow.next(), Seat::Green);
        assert_eq!(Seat::Green.next(), Seat::Red);
        assert_eq!(Seat::Red.opposite(), Seat::Yellow);
        assert_eq!(Seat::Blue.opposite(), Seat::Green);
    }

    #[test]
    fn names_round_trip() {
        for seat in Seat::ALL {
            assert_eq!(seat.name().parse::<Seat>(), Ok(seat));
            assert_eq!(Seat::from_letter(seat.letter()), Some(seat));
        }
        assert!("purple".parse::<Seat>().is_err());
    }
}
