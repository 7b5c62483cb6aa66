//! A whole game played by random legal moves and recorded exactly as a room records it: the room's
//! dice throws from a [`DiceStream`] (commit published, seed revealed), every action logged in order,
//! the rules' outcome at the end. Tests of the verifier, the store's REST read side and the
//! `fourkings verify` command use it to get real records without running a room.

use protocol::{Actor, GameKind, Seat};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::Value;

use crate::dice::DiceStream;
use crate::game::{TableGame, TableOptions};
use crate::record::{GameRecordDoc, RECORD_FORMAT, RecordSeat, RecordedAction};

/// Plays a `kind` game under `options` (any subset of the house rules; defaults fill the rest) from
/// seat `first` to its end. `dice_seed` seeds the room's dice (Chaturaji), `move_seed` the choice of
/// moves, so the same seeds give the same record. Seats are recorded as anonymous CPU players
/// (`CPU (random)`, no player id); callers put real players in.
pub fn play_record(
    kind: GameKind,
    options: &Value,
    first: Seat,
    dice_seed: [u8; 32],
    move_seed: u64,
) -> Result<GameRecordDoc, String> {
    let options = TableOptions::normalize(kind, options).map_err(|problems| {
        problems
            .iter()
            .map(|p| format!("{}: {}", p.option, p.message))
            .collect::<Vec<_>>()
            .join("; ")
    })?;
    let mut game = TableGame::new(&options, first).map_err(|p| format!("{p:?}"))?;
    let mut dice = game.dice_faces().map(|_| DiceStream::from_seed(dice_seed));
    let mut rng = ChaCha8Rng::seed_from_u64(move_seed);
    let mut actions = Vec::new();
    while let Some(seat) = game.to_act() {
        let (action, by) = match (game.wants_roll(), dice.as_mut()) {
            (Some((lo, hi)), Some(stream)) => (game.roll(stream.throw(lo, hi)), Actor::Room),
            (Some(_), None) => return Err("a game wants dice but has none".into()),
            (None, _) => {
                let mut legal = game.legal_actions();
                if legal.is_empty() {
                    return Err(format!("{seat} is to act but has no legal action"));
                }
                let pick = rng.random_range(0..legal.len());
                (legal.swap_remove(pick), Actor::Cpu)
            }
        };
        let json = action.to_json();
        game.apply(action)
            .map_err(|(code, message)| format!("the rules refused {json}: {code}: {message}"))?;
        actions.push(RecordedAction {
            seq: actions.len() as u64,
            seat,
            by,
            action: json,
        });
    }
    let outcome = game
        .outcome_json()
        .ok_or("nobody is to act but the game has no outcome")?;
    let seat = |seat: Seat| RecordSeat {
        seat,
        name: "CPU (random)".into(),
        player_id: None,
        cpu_level: None,
        cpu_finished: false,
    };
    Ok(GameRecordDoc {
        format: RECORD_FORMAT.into(),
        game_id: "selfplay-1".into(),
        room: "selfplay".into(),
        game_no: 1,
        game: kind,
        options: options.to_json(),
        first,
        rated: false,
        seats: Seat::ALL.map(seat),
        dice_commit: dice.as_ref().map(DiceStream::commit),
        dice_seed: dice.as_ref().map(DiceStream::reveal),
        actions,
        outcome,
        started_at: 0,
        finished_at: 0,
    })
}
