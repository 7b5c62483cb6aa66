//! chess.com PGN4 (spec section 7): export any game, import a game and replay it through the rules.
//!
//! Export writes the tags `Variant`, `StartFen4`, `Result`, `Termination`, then quarter-moves ` .. `
//! apart, a numbered line per round (a round starts again whenever the turn comes back round past the
//! first seat). Moves are long algebraic with the piece letter and the captured piece's letter (pawns have
//! none): `Qg1xQn8+`, `Nj1-i3`, `d4xc5`, `=Q` / `=D` for promotion, `O-O` / `O-O-O`, one `+` per king
//! checked, `#` when the move mates. Standalone `R` is the player to move resigning and `S` a player
//! stalemated on its turn (FFA). A resignation out of turn, which chess.com has no token for, is written
//! as a comment `{Blue resigns}` and read back as one.
//!
//! Import reads the tags it knows (others are ignored), ignores move numbers, `..`, check marks and a final
//! result token, and replays every move through [`Game::apply`]; `S` tokens are checked against the game
//! and `T` (timeout) is a resignation of the player to move.

use std::fmt::Write as _;

use crate::Seat;

use super::game::{Action, Game, NewGameError};
use super::geometry::Square;
use super::moves::MoveText;
use super::options::{Mode, Options};
use super::outcome::EndReason;
use super::piece::Kind;
use super::state::ElimCause;

/// Writes `game` as PGN4.
pub fn export_pgn4(game: &Game) -> String {
    let mut out = String::new();
    let variant = match game.mode() {
        Mode::Teams => "Teams",
        Mode::Ffa => "FFA",
    };
    let _ = writeln!(out, "[Variant \"{variant}\"]");
    let _ = writeln!(out, "[StartFen4 \"{}\"]", game.start().to_fen4());
    let _ = writeln!(out, "[Result \"{}\"]", result_tag(game));
    if let Some(outcome) = game.outcome() {
        let _ = writeln!(out, "[Termination \"{}\"]", termination(outcome.reason));
    }
    out.push('\n');

    let first = game.start().position.to_move();
    let order = |s: Seat| (s.index() + 4 - first.index()) % 4;
    let mut round = 0;
    let mut last: Option<usize> = None;
    let mut line = String::new();
    let mut push = |seat: Seat, token: String, out: &mut String, line: &mut String| {
        let o = order(seat);
        if last.is_none_or(|l| o <= l) {
            if !line.is_empty() {
                out.push_str(line);
                out.push('\n');
                line.clear();
            }
            round += 1;
            let _ = write!(line, "{round}. {token}");
        } else {
            let _ = write!(line, " .. {token}");
        }
        last = Some(o);
    };
    let record = game.record();
    for (i, applied) in record.iter().enumerate() {
        let turn_before = if i == 0 {
            Some(first)
        } else {
            record[i - 1].to_act
        };
        match (&applied.action, &applied.report) {
            (Action::Resign { seat }, _) => {
                if Some(*seat) == turn_before {
                    push(*seat, "R".to_owned(), &mut out, &mut line);
                } else {
                    // Out-of-turn resignation: a comment on the current line.
                    let _ = write!(line, " {{{} resigns}}", capitalised(*seat));
                }
            }
            (Action::Move { .. }, Some(report)) => {
                push(report.seat, move_token(report), &mut out, &mut line);
            }
            (Action::Move { .. }, None) => {}
        }
        for e in &applied.eliminations {
            if e.cause == ElimCause::Stalemate {
                push(e.seat, "S".to_owned(), &mut out, &mut line);
            }
        }
    }
    if !line.is_empty() {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

fn capitalised(seat: Seat) -> String {
    let name = seat.name();
    name[..1].to_uppercase() + &name[1..]
}

fn move_token(report: &super::state::MoveReport) -> String {
    let mut t = String::new();
    match report.castling_long {
        Some(false) => t.push_str("O-O"),
        Some(true) => t.push_str("O-O-O"),
        None => {
            if report.piece != Kind::Pawn {
                t.push(report.piece.letter());
            }
            let _ = write!(t, "{}", report.mv.from);
            // The piece on the target square (the one on M for an en-passant double capture) or, for a
            // plain en passant, the pawn.
            match report
                .captures
                .iter()
                .find(|c| c.square == report.mv.to)
                .or(report.captures.first())
            {
                Some(c) => {
                    t.push('x');
                    if c.piece.kind != Kind::Pawn {
                        t.push(c.piece.kind.letter());
                    }
                }
                None => t.push('-'),
            }
            let _ = write!(t, "{}", report.mv.to);
            if let Some(kind) = report.mv.promotion {
                let _ = write!(t, "={}", kind.letter());
            }
        }
    }
    if report.mated.is_empty() {
        for _ in &report.checks {
            t.push('+');
        }
    } else {
        t.push('#');
    }
    t
}

fn result_tag(game: &Game) -> String {
    let Some(outcome) = game.outcome() else {
        return "*".to_owned();
    };
    match game.mode() {
        Mode::Teams => match outcome.winners().first() {
            None => "1/2-1/2".to_owned(),
            Some(Seat::Red | Seat::Yellow) => "1-0".to_owned(),
            Some(_) => "0-1".to_owned(),
        },
        Mode::Ffa => outcome.standings.map(|s| s.points.to_string()).join("-"),
    }
}

fn termination(reason: EndReason) -> String {
    match reason {
        EndReason::KingCaptured { by, king_of } => {
            format!(
                "{} captured {}'s king",
                capitalised(by),
                capitalised(king_of)
            )
        }
        EndReason::Checkmate { seat } => format!("{} checkmated", capitalised(seat)),
        EndReason::Stalemate { seat } => format!("{} stalemated: draw", capitalised(seat)),
        EndReason::Resignation { seat } => format!("{} resigned", capitalised(seat)),
        EndReason::ThreePlayersOut => "three players out".to_owned(),
        EndReason::PointsLead { leader } => format!("{} leads by 21 or more", capitalised(leader)),
        EndReason::Repetition => "threefold repetition".to_owned(),
        EndReason::FiftyMoves => "fifty-move rule".to_owned(),
        EndReason::MoveLimit => "move limit".to_owned(),
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Pgn4Error {
    #[error("unknown variant `{0}` (expected Teams or FFA)")]
    Variant(String),
    #[error("bad tag line `{0}`")]
    Tag(String),
    #[error(transparent)]
    Start(#[from] NewGameError),
    #[error("move {number} (`{token}`): {reason}")]
    IllegalMove {
        number: u32,
        token: String,
        reason: String,
    },
}

/// Reads a PGN4 game and replays it. `options` supplies what PGN4 does not carry (move limit …); the
/// `Variant` tag, when present, sets the mode.
pub fn import_pgn4(text: &str, mut options: Options) -> Result<Game, Pgn4Error> {
    let mut start_fen: Option<String> = None;
    let mut movetext = String::new();
    for line in text.lines() {
        let trimmed = line.trim();
        if let Some(tag) = trimmed.strip_prefix('[') {
            let tag = tag
                .strip_suffix(']')
                .ok_or_else(|| Pgn4Error::Tag(line.to_owned()))?;
            let (name, value) = tag
                .split_once(' ')
                .ok_or_else(|| Pgn4Error::Tag(line.to_owned()))?;
            let value = value.trim().trim_matches('"');
            match name {
                "Variant" => {
                    options.mode = match value {
                        "Teams" => Mode::Teams,
                        "FFA" | "Free-for-all" | "FreeForAll" => Mode::Ffa,
                        other => return Err(Pgn4Error::Variant(other.to_owned())),
                    }
                }
                "StartFen4" => start_fen = Some(value.to_owned()),
                _ => {}
            }
        } else {
            movetext.push_str(trimmed);
            movetext.push(' ');
        }
    }
    let mut game = match start_fen {
        Some(fen) => Game::from_fen4(options, &fen)?,
        None => Game::new(options, Seat::Red).map_err(NewGameError::Options)?,
    };

    let mut number = 0;
    let mut rest = movetext.as_str();
    while let Some(token) = next_token(&mut rest) {
        let illegal = |reason: String| Pgn4Error::IllegalMove {
            number,
            token: token.to_owned(),
            reason,
        };
        if let Some(comment) = token.strip_prefix('{') {
            let comment = comment.trim_end_matches('}').trim();
            if let Some(name) = comment.strip_suffix(" resigns") {
                let seat: Seat = name
                    .to_lowercase()
                    .parse()
                    .map_err(|e: crate::seat::UnknownSeat| illegal(e.to_string()))?;
                game.apply(Action::Resign { seat })
                    .map_err(|e| illegal(e.to_string()))?;
            }
            continue;
        }
        if let Some(n) = token.strip_suffix('.') {
            if let Ok(n) = n.parse() {
                number = n;
                continue;
            }
        }
        match token {
            ".." => continue,
            "1-0" | "0-1" | "1/2-1/2" | "*" => continue,
            _ if token.contains('-') && token.split('-').all(|p| p.parse::<u32>().is_ok()) => {
                continue;
            }
            "R" | "T" => {
                let seat = game
                    .to_act()
                    .ok_or_else(|| illegal("the game is over".to_owned()))?;
                game.apply(Action::Resign { seat })
                    .map_err(|e| illegal(e.to_string()))?;
            }
            "S" => {
                // Stalemate eliminations happen by themselves; the token only has to agree.
                let stalemated = game.last_applied().is_some_and(|a| {
                    a.eliminations
                        .iter()
                        .any(|e| e.cause == ElimCause::Stalemate)
                });
                if !stalemated {
                    return Err(illegal("no player is stalemated here".to_owned()));
                }
            }
            _ => {
                let action = parse_move_token(&game, token).map_err(illegal)?;
                game.apply(action).map_err(|e| illegal(e.to_string()))?;
            }
        }
    }
    Ok(game)
}

fn next_token<'a>(rest: &mut &'a str) -> Option<&'a str> {
    let text = rest.trim_start();
    if text.is_empty() {
        return None;
    }
    let end = if text.starts_with('{') {
        text.find('}').map_or(text.len(), |i| i + 1)
    } else {
        text.find(char::is_whitespace).unwrap_or(text.len())
    };
    let (token, tail) = text.split_at(end);
    *rest = tail;
    Some(token)
}

/// Turns `Qg1xQn8+`, `h2-h3`, `d10-d11=Q`, `O-O` into a move action of the seat to act.
fn parse_move_token(game: &Game, token: &str) -> Result<Action, String> {
    let body = token.trim_end_matches(['+', '#']);
    let seat = game.to_act().ok_or("the game is over")?;
    if body == "O-O" || body == "O-O-O" {
        let long = body == "O-O-O";
        let m = game
            .legal_moves()
            .into_iter()
            .find(|m| m.castling_long() == Some(long))
            .ok_or_else(|| {
                format!(
                    "{seat} cannot castle {}",
                    if long { "long" } else { "short" }
                )
            })?;
        return Ok(m.into());
    }
    let (body, promotion) = match body.split_once('=') {
        Some((b, p)) => {
            let kind = p
                .chars()
                .next()
                .and_then(Kind::from_letter)
                .ok_or("bad promotion piece")?;
            (b, Some(kind))
        }
        None => (body, None),
    };
    let mut chars = body.chars().peekable();
    let piece = match chars.peek() {
        Some(c) if c.is_ascii_uppercase() => {
            let kind = Kind::from_letter(*c).ok_or("unknown piece letter")?;
            chars.next();
            kind
        }
        _ => Kind::Pawn,
    };
    let rest: String = chars.collect();
    let sep = rest
        .find(['-', 'x'])
        .ok_or("expected `-` or `x` between the squares")?;
    let from: Square = rest[..sep]
        .parse()
        .map_err(|e: super::geometry::BadSquare| e.to_string())?;
    let to_text = rest[sep + 1..].trim_start_matches(|c: char| c.is_ascii_uppercase());
    let to: Square = to_text
        .parse()
        .map_err(|e: super::geometry::BadSquare| e.to_string())?;
    let actual = game.position().piece_at(from).map(|p| p.kind);
    if actual != Some(piece) {
        return Err(format!("no {piece:?} on {from}"));
    }
    Ok(MoveText {
        from,
        to,
        promotion,
    }
    .into())
}
