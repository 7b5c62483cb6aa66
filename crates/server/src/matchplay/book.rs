//! Openings: where the games of a match start. A line of a book file is a list of moves from the start
//! (`h2-h3 b7-c7 …`) or `fen <FEN4> [moves …]`; `#` starts a comment. A move may carry the `+` of a
//! check, as a PGN4 writes it (the runner's own games can be a book); engines are sent it without.
//! Without a file the book is the start position followed by seeded openings of random pawn moves
//! (quiet, and different every time).

use anyhow::Context;
use bots::rng::Rng;
use rules::fourchess::{Game, Kind, MoveText, Options};
use std::path::Path;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opening {
    /// The FEN4 the engines are sent (`None`: the standard start).
    fen: Option<String>,
    moves: Vec<String>,
}

impl Opening {
    /// The game after the opening, the FEN4 it started from, and its moves as the engines are sent them.
    pub fn setup(&self, options: Options) -> anyhow::Result<(Game, String, Vec<String>)> {
        let mut game = match &self.fen {
            Some(fen) => {
                Game::from_fen4(options, fen).with_context(|| format!("book FEN4 {fen}"))?
            }
            None => Game::new(options, rules::Seat::Red).map_err(|e| anyhow::anyhow!("{e:?}"))?,
        };
        let start = game.fen4();
        for text in &self.moves {
            let m: MoveText = text.parse().with_context(|| format!("book move {text}"))?;
            game.apply(m.into())
                .with_context(|| format!("book move {text} in {}", game.fen4()))?;
        }
        if game.outcome().is_some() {
            anyhow::bail!("the opening {:?} ends the game", self.moves);
        }
        Ok((game, start, self.moves.clone()))
    }
}

fn parse_line(line: &str) -> Option<Opening> {
    let line = line.split('#').next().unwrap_or("").trim();
    if line.is_empty() {
        return None;
    }
    let mut words = line.split_whitespace().peekable();
    let mut fen = None;
    if words.peek() == Some(&"fen") {
        words.next();
        fen = words.next().map(str::to_owned);
        if words.peek() == Some(&"moves") {
            words.next();
        }
    }
    Some(Opening {
        fen,
        moves: words.map(|w| w.trim_end_matches('+').to_owned()).collect(),
    })
}

/// Reads a book file; every opening is checked against the rules.
pub fn read(path: &Path, options: &Options) -> anyhow::Result<Vec<Opening>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let book: Vec<Opening> = text.lines().filter_map(parse_line).collect();
    for (i, opening) in book.iter().enumerate() {
        opening
            .setup(options.clone())
            .with_context(|| format!("{} opening {}", path.display(), i + 1))?;
    }
    anyhow::ensure!(!book.is_empty(), "{} holds no opening", path.display());
    Ok(book)
}

/// `count` openings: the start position, then `plies` random pawn moves each (seeded).
pub fn generated(options: &Options, count: usize, plies: usize, seed: u64) -> Vec<Opening> {
    let mut rng = Rng::new(seed ^ 0x600C_B00C);
    let mut book = vec![Opening {
        fen: None,
        moves: Vec::new(),
    }];
    while book.len() < count.max(1) {
        let mut game = Game::new(options.clone(), rules::Seat::Red).expect("valid options");
        let mut moves = Vec::new();
        for _ in 0..plies {
            let pawn_moves: Vec<_> = game
                .legal_moves()
                .into_iter()
                .filter(|m| {
                    game.position()
                        .piece_at(m.from())
                        .is_some_and(|p| p.kind == Kind::Pawn)
                })
                .collect();
            if pawn_moves.is_empty() || game.outcome().is_some() {
                break;
            }
            let m = pawn_moves[rng.below(pawn_moves.len())];
            game.apply(m.into()).expect("a legal move");
            moves.push(m.to_string());
        }
        let opening = Opening { fen: None, moves };
        if !book.contains(&opening) {
            book.push(opening);
        }
    }
    book
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line copied from a PGN4 (`m8-l8+`) is an opening; the engines get the move as 4pchess reads
    /// it, without the check sign.
    #[test]
    fn a_book_move_may_carry_a_check_sign() {
        let opening = parse_line("d2-d4 b4-c4 e13-e11 m8-l8+ # from game 24").unwrap();
        assert_eq!(opening.moves, ["d2-d4", "b4-c4", "e13-e11", "m8-l8"]);
        let (game, _, moves) = opening.setup(Options::default()).unwrap();
        assert_eq!(moves.len(), 4);
        assert_eq!(game.actions().len(), 4);
    }
}
