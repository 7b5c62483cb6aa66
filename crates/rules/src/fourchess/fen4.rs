//! chess.com FEN4 (spec section 7): `<turn>-<eliminated>-<castle short>-<castle long>-<points>-<ply
//! clock>[-{extras}]-<board>`.
//!
//! Reading accepts corners written as `x` or inside an empty run, grey pieces as `dP` or `drN` (the colour
//! it had is dropped: grey pieces have no owner), one-point queens `D`, and an `'enPassant'` extra with
//! `'M:T'` entries in R, B, Y, G order; other extras are ignored. Writing is canonical: corners as `x`,
//! grey pieces as `dP`, the extras block only when an en-passant entry exists. So `print(parse(x))` is
//! a fixed point, and the start position prints exactly as in the spec.

use std::fmt::Write as _;

use crate::Seat;

use super::geometry::Square;
use super::options::Mode;
use super::piece::{EMPTY, GREY, Kind, OFF, Owner, Piece};
use super::position::{EpEntry, Position};

/// A position with the FEN4 fields that live outside the position proper.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setup {
    pub position: Position,
    /// Points per seat (FFA), R, B, Y, G.
    pub points: [u32; 4],
    /// The fifty-move ply clock (F.24).
    pub ply_clock: u32,
}

impl Setup {
    /// The standard setup (F.3) with `first` to move.
    pub fn start(mode: Mode, first: Seat) -> Setup {
        Setup {
            position: Position::start(mode, first),
            points: [0; 4],
            ply_clock: 0,
        }
    }

    pub fn to_fen4(&self) -> String {
        to_fen4(&self.position, self.points, self.ply_clock)
    }

    /// A position holding only `pieces`, given as (square, FEN4 piece token), e.g. `("h1", "rK")`,
    /// with `to_move` to play, no castling rights and no en-passant entries. Handy for tests and puzzles.
    pub fn from_pieces(
        mode: Mode,
        to_move: Seat,
        pieces: &[(&str, &str)],
    ) -> Result<Setup, Fen4Error> {
        let mut pos = Position::empty(mode);
        for &(square, token) in pieces {
            let bad = || Fen4Error::Piece(format!("{token} on {square}"));
            let sq: Square = square.parse().map_err(|_| bad())?;
            let piece = parse_piece(token).ok_or_else(bad)?;
            if pos.board[sq.index()] != EMPTY {
                return Err(bad());
            }
            pos.put_piece(sq, piece);
        }
        pos.set_to_move(to_move);
        Ok(Setup {
            position: pos,
            points: [0; 4],
            ply_clock: 0,
        })
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Fen4Error {
    #[error("FEN4 needs 7 or 8 fields separated by `-`, found {0}")]
    FieldCount(usize),
    #[error("bad turn `{0}` (expected R, B, Y or G)")]
    Turn(String),
    #[error("bad {field} list `{text}` (expected four comma-separated numbers)")]
    List { field: &'static str, text: String },
    #[error("bad ply clock `{0}`")]
    Clock(String),
    #[error("bad extras `{0}`")]
    Extras(String),
    #[error("the board needs 14 ranks separated by `/`, found {0}")]
    RankCount(usize),
    #[error("rank {rank}: {problem}")]
    Rank { rank: u8, problem: String },
    #[error("bad piece placement `{0}`")]
    Piece(String),
    #[error("{0} has more than one king")]
    TwoKings(Seat),
}

/// Parses a FEN4 position for a game in `mode`.
pub fn parse_fen4(text: &str, mode: Mode) -> Result<Setup, Fen4Error> {
    let fields: Vec<&str> = text.trim().split('-').collect();
    if fields.len() != 7 && fields.len() != 8 {
        return Err(Fen4Error::FieldCount(fields.len()));
    }
    let turn = match fields[0] {
        "R" => Seat::Red,
        "B" => Seat::Blue,
        "Y" => Seat::Yellow,
        "G" => Seat::Green,
        other => return Err(Fen4Error::Turn(other.to_owned())),
    };
    let eliminated = four(fields[1], "eliminated")?;
    let short = four(fields[2], "castle short")?;
    let long = four(fields[3], "castle long")?;
    let points = four(fields[4], "points")?;
    let ply_clock = fields[5]
        .parse()
        .map_err(|_| Fen4Error::Clock(fields[5].to_owned()))?;
    let extras = if fields.len() == 8 {
        Some(fields[6])
    } else {
        None
    };
    let board = fields[fields.len() - 1];

    let mut pos = Position::empty(mode);
    let ranks: Vec<&str> = board.split('/').collect();
    if ranks.len() != 14 {
        return Err(Fen4Error::RankCount(ranks.len()));
    }
    for (row, text) in ranks.iter().enumerate() {
        let rank = 13 - row as u8;
        parse_rank(&mut pos, rank, text).map_err(|problem| Fen4Error::Rank {
            rank: rank + 1,
            problem,
        })?;
    }
    for seat in Seat::ALL {
        let kings = pos.occ[seat.index()]
            .iter()
            .filter(|&s| pos.board[s as usize] & 7 == Kind::King as u8)
            .count();
        if kings > 1 {
            return Err(Fen4Error::TwoKings(seat));
        }
    }
    let mut rights = 0u8;
    for seat in Seat::ALL {
        if short[seat.index()] != 0 {
            rights |= super::geometry::castle_bit(seat, 0);
        }
        if long[seat.index()] != 0 {
            rights |= super::geometry::castle_bit(seat, 1);
        }
    }
    pos.set_castling(rights);
    if let Some(extras) = extras {
        for (seat, entry) in parse_extras(extras)?.into_iter().enumerate() {
            if entry.is_some() {
                pos.set_ep(seat, entry);
            }
        }
    }
    for seat in Seat::ALL {
        if eliminated[seat.index()] != 0 {
            // An eliminated seat's pieces are grey (F.18), however the text coloured them.
            pos.eliminate(seat);
        }
    }
    pos.set_to_move(turn);
    Ok(Setup {
        position: pos,
        points,
        ply_clock,
    })
}

fn four(text: &str, field: &'static str) -> Result<[u32; 4], Fen4Error> {
    let bad = || Fen4Error::List {
        field,
        text: text.to_owned(),
    };
    let values: Vec<u32> = text
        .split(',')
        .map(|v| v.trim().parse::<u32>())
        .collect::<Result<_, _>>()
        .map_err(|_| bad())?;
    values.try_into().map_err(|_| bad())
}

fn parse_rank(pos: &mut Position, rank: u8, text: &str) -> Result<(), String> {
    let mut file = 0u8;
    for token in text.split(',') {
        let token = token.trim();
        if let Ok(run) = token.parse::<u8>() {
            if run == 0 {
                return Err("an empty run of 0 squares".to_owned());
            }
            file = file.saturating_add(run);
            continue;
        }
        if file >= 14 {
            return Err("more than 14 squares".to_owned());
        }
        let square = Square::new(file, rank);
        if token == "x" {
            if square.is_some() {
                return Err(format!("`x` on the board square {}", (b'a' + file) as char));
            }
        } else {
            let piece = parse_piece(token).ok_or_else(|| format!("unknown piece `{token}`"))?;
            let square =
                square.ok_or_else(|| format!("piece `{token}` on a missing corner square"))?;
            pos.put_piece(square, piece);
        }
        file += 1;
    }
    if file != 14 {
        return Err(format!("{file} squares instead of 14"));
    }
    Ok(())
}

fn parse_piece(token: &str) -> Option<Piece> {
    let mut chars = token.chars();
    let colour = chars.next()?;
    let rest = chars.as_str();
    let owner = match colour {
        'd' => Owner::Grey,
        c => Owner::Seat(Seat::from_letter(c).filter(|_| c.is_ascii_lowercase())?),
    };
    // Grey pieces may keep the colour they had: `drN`.
    let letter = match (owner, rest.len()) {
        (Owner::Grey, 2) if "rbyg".contains(&rest[..1]) => &rest[1..],
        (_, 1) => rest,
        _ => return None,
    };
    let kind = Kind::from_letter(letter.chars().next()?)?;
    Some(Piece::new(owner, kind))
}

fn parse_extras(text: &str) -> Result<[EpEntry; 4], Fen4Error> {
    let bad = || Fen4Error::Extras(text.to_owned());
    let inner = text
        .strip_prefix('{')
        .and_then(|t| t.strip_suffix('}'))
        .ok_or_else(bad)?;
    let mut entries = [EpEntry::NONE; 4];
    let Some(start) = inner.find("'enPassant'") else {
        return Ok(entries);
    };
    let after = inner[start + "'enPassant'".len()..].trim_start();
    let after = after.strip_prefix(':').ok_or_else(bad)?.trim_start();
    let after = after.strip_prefix('(').ok_or_else(bad)?;
    let end = after.find(')').ok_or_else(bad)?;
    let slots: Vec<&str> = after[..end].split(',').map(str::trim).collect();
    if slots.len() != 4 {
        return Err(bad());
    }
    for (seat, slot) in slots.iter().enumerate() {
        let slot = slot
            .strip_prefix('\'')
            .and_then(|s| s.strip_suffix('\''))
            .ok_or_else(bad)?;
        if slot.is_empty() {
            continue;
        }
        let (m, t) = slot.split_once(':').ok_or_else(bad)?;
        let m: Square = m.parse().map_err(|_| bad())?;
        let t: Square = t.parse().map_err(|_| bad())?;
        entries[seat] = EpEntry { m: m.0, t: t.0 };
    }
    Ok(entries)
}

/// Writes the canonical FEN4 of a position with its points and ply clock.
pub fn to_fen4(pos: &Position, points: [u32; 4], ply_clock: u32) -> String {
    let mut out = String::with_capacity(400);
    let flags =
        |f: &dyn Fn(Seat) -> bool| Seat::ALL.map(|s| if f(s) { "1" } else { "0" }).join(",");
    let _ = write!(
        out,
        "{}-{}-{}-{}-{}-{}-",
        pos.to_move.letter().to_ascii_uppercase(),
        flags(&|s| pos.is_eliminated(s)),
        flags(&|s| pos.can_castle(s, false)),
        flags(&|s| pos.can_castle(s, true)),
        points.map(|p| p.to_string()).join(","),
        ply_clock,
    );
    if pos.ep.iter().any(|e| e.is_some()) {
        let slots = pos.ep.map(|e| {
            if e.is_some() {
                format!("'{}:{}'", Square(e.m), Square(e.t))
            } else {
                "''".to_owned()
            }
        });
        let _ = write!(out, "{{'enPassant':({})}}-", slots.join(","));
    }
    for rank in (0..14u8).rev() {
        let mut tokens: Vec<String> = Vec::with_capacity(14);
        let mut run = 0;
        for file in 0..14u8 {
            let code = pos.board[((rank + 1) * 16 + file) as usize];
            if code == EMPTY {
                run += 1;
                continue;
            }
            if run > 0 {
                tokens.push(run.to_string());
                run = 0;
            }
            if code == OFF {
                tokens.push("x".to_owned());
            } else {
                let piece = Piece::from_code(code).expect("a piece code");
                let colour = if code >> 3 == GREY {
                    'd'
                } else {
                    (b"rbyg"[(code >> 3) as usize]) as char
                };
                tokens.push(format!("{colour}{}", piece.kind.letter()));
            }
        }
        if run > 0 {
            tokens.push(run.to_string());
        }
        out.push_str(&tokens.join(","));
        if rank > 0 {
            out.push('/');
        }
    }
    out
}
