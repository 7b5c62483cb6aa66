//! Chaturaji turns as engine text. A turn in `position … moves` is `A,B:<actions>`: the throw, then the
//! seat's actions separated by commas, each `from-to/die` (die 0 or 1) or `end`; `-` when the throw left
//! nothing to do. `bestmove` prints the actions part only (the dice came with `go dice A,B`).

use rules::chaturaji::{Action, Game, Phase};

/// The actions of a turn in which nothing could be played.
pub const NOTHING: &str = "-";

pub fn parse_dice(text: &str) -> Result<[u8; 2], String> {
    let bad = || format!("dice are `A,B` (two faces), not `{text}`");
    let (a, b) = text.split_once(',').ok_or_else(bad)?;
    Ok([a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?])
}

fn parse_action(text: &str) -> Result<Action, String> {
    if text == "end" {
        return Ok(Action::EndTurn);
    }
    let bad = || format!("`{text}` is not `from-to/die` or `end`");
    let (squares, die) = text.split_once('/').ok_or_else(bad)?;
    let (from, to) = squares.split_once('-').ok_or_else(bad)?;
    Ok(Action::Move {
        die: die.parse().map_err(|_| bad())?,
        from: square(from)?,
        to: square(to)?,
    })
}

fn square(text: &str) -> Result<rules::chaturaji::Square, String> {
    text.parse()
        .map_err(|_| format!("`{text}` is not a square (a1..h8)"))
}

/// Plays one whole turn (`A,B:actions`) on `game`; on error `game` is unchanged.
pub fn play(game: &mut Game, token: &str) -> Result<(), String> {
    let (dice, actions) = token
        .split_once(':')
        .ok_or_else(|| "a Chaturaji turn is `A,B:actions`".to_owned())?;
    let mut next = game.clone();
    let seat = match next.phase() {
        Phase::AwaitingRoll(seat) => seat,
        Phase::Moving(_) => return Err("a turn is under way: its dice are thrown".into()),
        Phase::Over => return Err("the game is over".into()),
    };
    next.apply(Action::Roll {
        dice: parse_dice(dice)?,
    })
    .map_err(|e| e.to_string())?;
    if actions != NOTHING {
        for text in actions.split(',') {
            next.apply(parse_action(text)?)
                .map_err(|e| format!("`{text}`: {e}"))?;
        }
    }
    if next.phase() == Phase::Moving(seat) {
        return Err("the turn is not finished (add `end`)".into());
    }
    *game = next;
    Ok(())
}

/// The actions of a turn as `bestmove` prints them.
pub fn print(actions: &[Action]) -> String {
    if actions.is_empty() {
        return NOTHING.into();
    }
    let texts: Vec<String> = actions
        .iter()
        .map(|a| match a {
            Action::EndTurn => "end".to_owned(),
            other => other.to_string(),
        })
        .collect();
    texts.join(",")
}
