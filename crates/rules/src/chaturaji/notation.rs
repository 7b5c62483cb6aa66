//! The position notation: one line, eleven space-separated fields (documented in the module docs of
//! [`crate::chaturaji`]). Printing then parsing gives back the identical [`Position`].

use super::board::Board;
use super::dice::{Die, DieState};
use super::outcome::EndReason;
use super::piece::{Kind, Piece};
use super::position::{Position, Waiting};
use super::square::Square;
use crate::Seat;
use std::fmt::{self, Write as _};
use std::str::FromStr;

/// The start position (C.5) with Red to move, awaiting the first throw.
pub const START: &str = "bSbP2yKyEyHyS/bHbP2yPyPyPyP/bEbP6/bKbP6/6gPgK/6gPgE/rPrPrPrP2gPgH/rSrHrErK2gPgS r - 0,0,0,0 - 0 0 - - - -";

/// Text that is not a valid position; says which field and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad position notation, {field}: {message}")]
pub struct NotationError {
    pub field: &'static str,
    pub message: String,
}

fn err<T>(field: &'static str, message: impl Into<String>) -> Result<T, NotationError> {
    Err(NotationError {
        field,
        message: message.into(),
    })
}

fn seat_list(f: &mut fmt::Formatter<'_>, pairs: &[(Seat, char, Seat)]) -> fmt::Result {
    if pairs.is_empty() {
        return f.write_char('-');
    }
    for (i, (a, sep, b)) in pairs.iter().enumerate() {
        if i > 0 {
            f.write_char(',')?;
        }
        write!(f, "{}{sep}{}", a.letter(), b.letter())?;
    }
    Ok(())
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // 1. board, rank 8 first
        for rank in (0..8).rev() {
            let mut empty = 0;
            for file in 0..8 {
                let sq = Square::new(file, rank).expect("on the board");
                match self.board.piece_at(sq) {
                    None => empty += 1,
                    Some(piece) => {
                        if empty > 0 {
                            write!(f, "{empty}")?;
                            empty = 0;
                        }
                        write!(f, "{piece}")?;
                    }
                }
            }
            if empty > 0 {
                write!(f, "{empty}")?;
            }
            if rank > 0 {
                f.write_char('/')?;
            }
        }
        // 2. seat to move
        write!(f, " {} ", self.to_move.letter())?;
        // 3. dice
        match self.dice {
            None => f.write_char('-')?,
            Some(dice) => {
                for die in dice {
                    write!(f, "{}{}", die.face, die.state.letter())?;
                }
                if self.captured_this_turn {
                    f.write_char('*')?;
                }
            }
        }
        // 4. points
        let p = self.points;
        write!(f, " {},{},{},{} ", p[0], p[1], p[2], p[3])?;
        // 5. waiting pawns
        let waiting: Vec<String> = Seat::ALL
            .iter()
            .flat_map(|&s| self.waiting_pawns(s).map(|sq| sq.to_string()))
            .collect();
        if waiting.is_empty() {
            f.write_char('-')?;
        } else {
            f.write_str(&waiting.join(","))?;
        }
        // 6, 7. counters
        write!(f, " {} {} ", self.no_capture_turns, self.turn)?;
        // 8. thrones scored
        let thrones: Vec<_> = Seat::ALL
            .iter()
            .flat_map(|&s| {
                Seat::ALL
                    .into_iter()
                    .filter(move |&t| self.throne_scored(s, t))
                    .map(move |t| (s, '@', t))
            })
            .collect();
        seat_list(f, &thrones)?;
        f.write_char(' ')?;
        // 9. king captors
        let captors: Vec<_> = Seat::ALL
            .iter()
            .filter_map(|&s| self.king_captor(s).map(|c| (s, '<', c)))
            .collect();
        seat_list(f, &captors)?;
        f.write_char(' ')?;
        // 10. resigned
        if self.resigned == 0 {
            f.write_char('-')?;
        } else {
            for s in Seat::ALL.into_iter().filter(|&s| self.is_resigned(s)) {
                f.write_char(s.letter())?;
            }
        }
        // 11. end
        match self.end {
            None => f.write_str(" -"),
            Some(reason) => write!(f, " {}", reason.code()),
        }
    }
}

fn parse_board(text: &str) -> Result<Board, NotationError> {
    const FIELD: &str = "board";
    let ranks: Vec<&str> = text.split('/').collect();
    if ranks.len() != 8 {
        return err(
            FIELD,
            format!("expected 8 ranks separated by `/`, got {}", ranks.len()),
        );
    }
    let mut board = Board::empty();
    for (i, rank_text) in ranks.iter().enumerate() {
        let rank = 7 - i as u8;
        let mut file = 0u8;
        let mut chars = rank_text.chars();
        while let Some(c) = chars.next() {
            if let Some(n) = c.to_digit(10) {
                if n == 0 {
                    return err(FIELD, format!("rank {}: empty count 0", rank + 1));
                }
                file += n as u8;
            } else {
                let seat = Seat::ALL
                    .into_iter()
                    .find(|s| s.letter() == c)
                    .ok_or_else(|| NotationError {
                        field: FIELD,
                        message: format!(
                            "rank {}: `{c}` is not a seat letter (r, b, y, g)",
                            rank + 1
                        ),
                    })?;
                let kind_char = chars.next().unwrap_or(' ');
                let kind = Kind::from_letter(kind_char).ok_or_else(|| NotationError {
                    field: FIELD,
                    message: format!(
                        "rank {}: `{c}{kind_char}`: piece letter must be one of P S H E K",
                        rank + 1
                    ),
                })?;
                let Some(sq) = Square::new(file, rank) else {
                    return err(FIELD, format!("rank {} has more than 8 squares", rank + 1));
                };
                board.put(sq, Piece { seat, kind });
                file += 1;
            }
            if file > 8 {
                return err(FIELD, format!("rank {} has more than 8 squares", rank + 1));
            }
        }
        if file != 8 {
            return err(
                FIELD,
                format!("rank {} has {file} squares, not 8", rank + 1),
            );
        }
    }
    Ok(board)
}

fn parse_seat(field: &'static str, text: &str) -> Result<Seat, NotationError> {
    let mut chars = text.chars();
    match (chars.next().and_then(Seat::from_letter), chars.next()) {
        (Some(seat), None) if text.chars().all(|c| c.is_ascii_lowercase()) => Ok(seat),
        _ => err(field, format!("`{text}` is not a seat letter (r, b, y, g)")),
    }
}

fn parse_number(field: &'static str, text: &str) -> Result<u16, NotationError> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return err(field, format!("`{text}` is not a whole number"));
    }
    text.parse()
        .or_else(|_| err(field, format!("`{text}` is too large")))
}

fn parse_dice(text: &str) -> Result<(Option<[Die; 2]>, bool), NotationError> {
    const FIELD: &str = "dice";
    if text == "-" {
        return Ok((None, false));
    }
    let (body, captured) = match text.strip_suffix('*') {
        Some(body) => (body, true),
        None => (text, false),
    };
    let chars: Vec<char> = body.chars().collect();
    if chars.len() != 4 {
        return err(
            FIELD,
            format!("expected `-` or two dice like `1u3x`, got `{text}`"),
        );
    }
    let die = |face: char, state: char| -> Result<Die, NotationError> {
        let face = face
            .to_digit(10)
            .filter(|f| (1..=6).contains(f))
            .ok_or_else(|| NotationError {
                field: FIELD,
                message: format!("`{face}` is not a die face 1-6"),
            })? as u8;
        let state = DieState::from_letter(state).ok_or_else(|| NotationError {
            field: FIELD,
            message: format!("`{state}` is not a die state (u unused, x used, d declined, v void)"),
        })?;
        Ok(Die { face, state })
    };
    Ok((
        Some([die(chars[0], chars[1])?, die(chars[2], chars[3])?]),
        captured,
    ))
}

fn parse_pairs(
    field: &'static str,
    text: &str,
    sep: char,
) -> Result<Vec<(Seat, Seat)>, NotationError> {
    if text == "-" {
        return Ok(Vec::new());
    }
    text.split(',')
        .map(|item| {
            let chars: Vec<char> = item.chars().collect();
            match chars.as_slice() {
                [a, s, b] if *s == sep => Ok((
                    parse_seat(field, &a.to_string())?,
                    parse_seat(field, &b.to_string())?,
                )),
                _ => err(field, format!("`{item}` is not like `r{sep}y`")),
            }
        })
        .collect()
}

impl FromStr for Position {
    type Err = NotationError;

    fn from_str(text: &str) -> Result<Position, NotationError> {
        let fields: Vec<&str> = text.split_whitespace().collect();
        if fields.len() != 11 {
            return err(
                "position",
                format!("expected 11 space-separated fields, got {}", fields.len()),
            );
        }
        let board = parse_board(fields[0])?;
        let to_move = parse_seat("seat to move", fields[1])?;
        let (dice, captured_this_turn) = parse_dice(fields[2])?;

        let points_text: Vec<&str> = fields[3].split(',').collect();
        if points_text.len() != 4 {
            return err("points", "expected four numbers like `0,3,0,5`");
        }
        let mut points = [0u16; 4];
        for (p, t) in points.iter_mut().zip(points_text) {
            *p = parse_number("points", t)?;
        }

        let mut waiting = [Waiting::default(); 4];
        if fields[4] != "-" {
            for item in fields[4].split(',') {
                let sq: Square =
                    item.parse()
                        .map_err(|e: super::square::BadSquare| NotationError {
                            field: "waiting pawns",
                            message: e.to_string(),
                        })?;
                let Some(Piece {
                    seat,
                    kind: Kind::Pawn,
                }) = board.piece_at(sq)
                else {
                    return err("waiting pawns", format!("no pawn on {sq}"));
                };
                if !Position::on_far_edge(seat, sq) {
                    return err("waiting pawns", format!("{sq} is not on {seat}'s far edge"));
                }
                if waiting[seat.index()].squares().any(|s| s == sq) {
                    return err("waiting pawns", format!("{sq} is listed twice"));
                }
                waiting[seat.index()].push(sq);
            }
        }
        for seat in Seat::ALL {
            let on_edge = board.pieces(seat, Kind::Pawn) & super::board::FAR_EDGE[seat.index()];
            if on_edge.count_ones() as usize != waiting[seat.index()].len() {
                return err(
                    "waiting pawns",
                    format!("every {seat} pawn on its far edge must be listed in arrival order"),
                );
            }
        }

        let no_capture_turns = parse_number("turns without capture", fields[5])?;
        let turn = parse_number("turn", fields[6])?;

        let mut thrones = [0u8; 4];
        for (s, t) in parse_pairs("thrones", fields[7], '@')? {
            if s == t {
                return err("thrones", "a seat scores only other seats' thrones");
            }
            thrones[s.index()] |= 1 << t.index();
        }
        let mut king_captor = [None; 4];
        for (victim, captor) in parse_pairs("king captors", fields[8], '<')? {
            if victim == captor {
                return err("king captors", "no seat captures its own king");
            }
            king_captor[victim.index()] = Some(captor);
        }

        let mut resigned = 0u8;
        if fields[9] != "-" {
            for c in fields[9].chars() {
                let seat = parse_seat("resigned", &c.to_string())?;
                resigned |= 1 << seat.index();
            }
        }

        let end = match fields[10] {
            "-" => None,
            "chaturaji" => Some(EndReason::Chaturaji { seat: to_move }),
            "kings_left" => Some(EndReason::KingsLeft),
            "no_capture" => Some(EndReason::NoCapture),
            "round_limit" => Some(EndReason::RoundLimit),
            "resignations" => Some(EndReason::Resignations),
            other => {
                return err(
                    "end",
                    format!(
                        "`{other}` is not `-`, chaturaji, kings_left, no_capture, round_limit or resignations"
                    ),
                );
            }
        };
        if captured_this_turn && dice.is_none() {
            return err("dice", "`*` (captured this turn) needs thrown dice");
        }
        Ok(Position {
            board,
            to_move,
            dice,
            captured_this_turn,
            points,
            waiting,
            no_capture_turns,
            turn,
            thrones,
            king_captor,
            resigned,
            end,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_constant_is_the_setup() {
        assert_eq!(Position::start(Seat::Red).to_string(), START);
        assert_eq!(START.parse::<Position>(), Ok(Position::start(Seat::Red)));
    }
}
