//! The room's view of a game: one enum over the two rules engines, so the actor drives either the
//! same way. Actions, their effects and the standings cross this boundary as the engines' own serde
//! JSON, so the wire shows exactly the rules crate's types.

use protocol::{GameKind, OptionProblem, Seat};
use rules::{chaturaji, fourchess};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One game of either kind.
#[derive(Debug, Clone)]
pub enum TableGame {
    Chaturaji(Box<chaturaji::Game>),
    Fourchess {
        game: Box<fourchess::Game>,
        /// Moves applied so far: a four-player chess turn is one move, so this numbers the turns.
        moves: u64,
    },
}

/// One action of either kind.
#[derive(Debug, Clone, PartialEq)]
pub enum TableAction {
    Chaturaji(chaturaji::Action),
    Fourchess(fourchess::Action),
}

impl TableAction {
    /// Read back any action of a `kind` game as `to_json` wrote it, dice throws and resignations
    /// included (a replayed log holds both; clients may send neither, see
    /// [`TableGame::parse_action`]).
    pub fn from_json(kind: GameKind, value: &Value) -> Result<TableAction, String> {
        Ok(match kind {
            GameKind::Chaturaji => TableAction::Chaturaji(
                serde_json::from_value(value.clone()).map_err(|e| e.to_string())?,
            ),
            GameKind::Fourchess => TableAction::Fourchess(
                serde_json::from_value(value.clone()).map_err(|e| e.to_string())?,
            ),
        })
    }

    /// The room's dice throw, if this is one.
    pub fn as_roll(&self) -> Option<[u8; 2]> {
        match self {
            TableAction::Chaturaji(chaturaji::Action::Roll { dice }) => Some(*dice),
            _ => None,
        }
    }

    /// The resigning seat, if this is a resignation.
    pub fn resigning(&self) -> Option<Seat> {
        match self {
            TableAction::Chaturaji(chaturaji::Action::Resign { seat })
            | TableAction::Fourchess(fourchess::Action::Resign { seat }) => Some(*seat),
            _ => None,
        }
    }

    pub fn to_json(&self) -> Value {
        to_json(self)
    }

    /// Resigning is offered by its own message, not among the legal moves.
    fn is_resign(&self) -> bool {
        self.resigning().is_some()
    }
}

/// An action serializes as its rules engine's action (the wire shows the rules crate's types).
impl Serialize for TableAction {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            TableAction::Chaturaji(a) => a.serialize(serializer),
            TableAction::Fourchess(a) => a.serialize(serializer),
        }
    }
}

fn to_json<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).expect("rules types serialize to JSON")
}

/// Validate house rules given as a JSON object (any subset of the options table): every unknown name
/// and every bad value is reported, then the engine's own `validate` adds its problems. On success
/// the complete options (defaults filled in) come back.
fn normalize<O>(
    input: &Value,
    validate: impl Fn(&O) -> Result<(), Vec<rules::OptionError>>,
) -> Result<O, Vec<OptionProblem>>
where
    O: Default + Serialize + DeserializeOwned,
{
    let Value::Object(given) = input else {
        return Err(vec![OptionProblem {
            option: String::new(),
            code: "not_an_object".into(),
            message: "house rules are a JSON object of option names to values".into(),
        }]);
    };
    let Value::Object(defaults) = to_json(&O::default()) else {
        unreachable!("options serialize as an object");
    };
    let mut problems = Vec::new();
    let mut merged: Map<String, Value> = defaults.clone();
    for (name, value) in given {
        if !defaults.contains_key(name) {
            problems.push(OptionProblem {
                option: name.clone(),
                code: "unknown_option".into(),
                message: format!(
                    "`{name}` is not an option here (options: {})",
                    defaults.keys().cloned().collect::<Vec<_>>().join(", ")
                ),
            });
            continue;
        }
        // Judge each value alone against the defaults, so that every bad value is reported.
        let mut alone = defaults.clone();
        alone.insert(name.clone(), value.clone());
        match serde_json::from_value::<O>(Value::Object(alone)) {
            Ok(_) => {
                merged.insert(name.clone(), value.clone());
            }
            Err(e) => problems.push(OptionProblem {
                option: name.clone(),
                code: "bad_value".into(),
                message: e.to_string(),
            }),
        }
    }
    let options: O =
        serde_json::from_value(Value::Object(merged)).map_err(whole_options_problem)?;
    if let Err(errors) = validate(&options) {
        problems.extend(rules_problems(errors));
    }
    if problems.is_empty() {
        Ok(options)
    } else {
        Err(problems)
    }
}

/// The options as a whole do not read (no single option to blame).
fn whole_options_problem(e: serde_json::Error) -> Vec<OptionProblem> {
    vec![OptionProblem {
        option: String::new(),
        code: "bad_value".into(),
        message: e.to_string(),
    }]
}

/// The rules engine's own objections, in the wire's form.
fn rules_problems(errors: Vec<rules::OptionError>) -> Vec<OptionProblem> {
    errors
        .into_iter()
        .map(|e| OptionProblem {
            option: e.option.to_owned(),
            code: e.code.to_owned(),
            message: e.message,
        })
        .collect()
}

/// The complete, validated house rules of a game of either kind: the kind is the variant, so a
/// room's game and its options cannot disagree.
#[derive(Debug, Clone, PartialEq)]
pub enum TableOptions {
    Chaturaji(chaturaji::Options),
    Fourchess(fourchess::Options),
}

impl TableOptions {
    /// Check house rules (a JSON object, any subset of the options table) for a game kind: the
    /// complete options on success, every problem otherwise.
    pub fn normalize(kind: GameKind, options: &Value) -> Result<TableOptions, Vec<OptionProblem>> {
        Ok(match kind {
            GameKind::Chaturaji => {
                TableOptions::Chaturaji(normalize(options, chaturaji::Options::validate)?)
            }
            GameKind::Fourchess => {
                TableOptions::Fourchess(normalize(options, fourchess::Options::validate)?)
            }
        })
    }

    /// Read back complete options as `to_json` wrote them (a stored room or game record).
    pub fn from_json(kind: GameKind, options: &Value) -> Result<TableOptions, Vec<OptionProblem>> {
        Ok(match kind {
            GameKind::Chaturaji => TableOptions::Chaturaji(
                chaturaji::Options::deserialize(options).map_err(whole_options_problem)?,
            ),
            GameKind::Fourchess => TableOptions::Fourchess(
                fourchess::Options::deserialize(options).map_err(whole_options_problem)?,
            ),
        })
    }

    pub fn kind(&self) -> GameKind {
        match self {
            TableOptions::Chaturaji(_) => GameKind::Chaturaji,
            TableOptions::Fourchess(_) => GameKind::Fourchess,
        }
    }

    /// Every option by its wire name: what clients, the store and game records see.
    pub fn to_json(&self) -> Value {
        match self {
            TableOptions::Chaturaji(o) => to_json(o),
            TableOptions::Fourchess(o) => to_json(o),
        }
    }
}

impl TableGame {
    /// A new game under complete, validated options.
    pub fn new(options: &TableOptions, first: Seat) -> Result<TableGame, Vec<OptionProblem>> {
        Ok(match options {
            TableOptions::Chaturaji(o) => TableGame::Chaturaji(Box::new(
                chaturaji::Game::new(*o, first).map_err(rules_problems)?,
            )),
            TableOptions::Fourchess(o) => TableGame::Fourchess {
                game: Box::new(fourchess::Game::new(o.clone(), first).map_err(rules_problems)?),
                moves: 0,
            },
        })
    }

    /// A new game under house rules read back from a record (`TableOptions::to_json`'s form).
    pub fn from_stored(
        kind: GameKind,
        options: &Value,
        first: Seat,
    ) -> Result<TableGame, Vec<OptionProblem>> {
        TableGame::new(&TableOptions::from_json(kind, options)?, first)
    }

    pub fn kind(&self) -> GameKind {
        match self {
            TableGame::Chaturaji(_) => GameKind::Chaturaji,
            TableGame::Fourchess { .. } => GameKind::Fourchess,
        }
    }

    pub fn to_act(&self) -> Option<Seat> {
        match self {
            TableGame::Chaturaji(g) => g.to_act(),
            TableGame::Fourchess { game, .. } => game.to_act(),
        }
    }

    /// Identifies the current turn (seat and turn number); a new value starts a new turn timer.
    pub fn turn_id(&self) -> Option<(Seat, u64)> {
        let seat = self.to_act()?;
        Some(match self {
            TableGame::Chaturaji(g) => (seat, u64::from(g.position().turn())),
            TableGame::Fourchess { moves, .. } => (seat, *moves),
        })
    }

    /// The faces of this game's dice (`lo`, `hi`), if it has dice.
    pub fn dice_faces(&self) -> Option<(u8, u8)> {
        match self {
            TableGame::Chaturaji(g) => {
                let faces = g.options().dice.faces();
                Some((*faces.start(), *faces.end()))
            }
            TableGame::Fourchess { .. } => None,
        }
    }

    /// The dice faces to throw now, when the turn starts with the room's throw.
    pub fn wants_roll(&self) -> Option<(u8, u8)> {
        match self {
            TableGame::Chaturaji(g) => match g.phase() {
                chaturaji::Phase::AwaitingRoll(_) => self.dice_faces(),
                _ => None,
            },
            TableGame::Fourchess { .. } => None,
        }
    }

    /// The room's throw as an action (Chaturaji only).
    pub fn roll(&self, dice: [u8; 2]) -> TableAction {
        TableAction::Chaturaji(chaturaji::Action::Roll { dice })
    }

    pub fn resign(kind: GameKind, seat: Seat) -> TableAction {
        match kind {
            GameKind::Chaturaji => TableAction::Chaturaji(chaturaji::Action::Resign { seat }),
            GameKind::Fourchess => TableAction::Fourchess(fourchess::Action::Resign { seat }),
        }
    }

    /// Read an action as the room's log holds it: any action, resignations and dice throws included
    /// (the log is the server's own, unlike a client's message).
    pub fn parse_logged(&self, value: &Value) -> Result<TableAction, String> {
        TableAction::from_json(self.kind(), value)
    }

    /// Read a client's action. The room throws the dice itself and resigning has its own message,
    /// so a client may send neither as an action.
    pub fn parse_action(&self, value: &Value) -> Result<TableAction, String> {
        let action = TableAction::from_json(self.kind(), value)?;
        if action.is_resign() || action.as_roll().is_some() {
            return Err("resign with the `resign` message; the room throws the dice".into());
        }
        Ok(action)
    }

    /// Apply an action; the rules' `Applied` as JSON, or the rules' (code, message) refusal.
    pub fn apply(&mut self, action: TableAction) -> Result<Value, (&'static str, String)> {
        match (self, action) {
            (TableGame::Chaturaji(g), TableAction::Chaturaji(a)) => g
                .apply(a)
                .map(|applied| to_json(&applied))
                .map_err(|e| (e.code(), e.to_string())),
            (TableGame::Fourchess { game, moves }, TableAction::Fourchess(a)) => {
                let is_move = !matches!(a, fourchess::Action::Resign { .. });
                let applied = game.apply(a).map_err(|e| (e.code(), e.to_string()))?;
                if is_move {
                    *moves += 1;
                }
                Ok(to_json(&applied))
            }
            _ => Err(("wrong_game", "an action of the other game".into())),
        }
    }

    /// Every legal action of the seat to act, without resignations (they have their own message)
    /// and without the dice throw (the room's).
    pub fn legal_actions(&self) -> Vec<TableAction> {
        let actions: Vec<TableAction> = match self {
            TableGame::Chaturaji(g) => g
                .legal_actions()
                .into_iter()
                .filter(|a| !matches!(a, chaturaji::Action::Roll { .. }))
                .map(TableAction::Chaturaji)
                .collect(),
            TableGame::Fourchess { game, .. } => game
                .legal_actions()
                .into_iter()
                .map(TableAction::Fourchess)
                .collect(),
        };
        actions.into_iter().filter(|a| !a.is_resign()).collect()
    }

    /// Whether the house rules let the client see its legal moves.
    pub fn show_legal_moves(&self) -> bool {
        match self {
            TableGame::Chaturaji(_) => true,
            TableGame::Fourchess { game, .. } => game.options().show_legal_moves,
        }
    }

    pub fn next_first_seat(&self, this_game_first: Seat) -> Seat {
        match self {
            TableGame::Chaturaji(g) => g.options().next_first_seat(this_game_first),
            TableGame::Fourchess { game, .. } => game.options().next_first_seat(this_game_first),
        }
    }

    pub fn options_json(&self) -> Value {
        match self {
            TableGame::Chaturaji(g) => to_json(g.options()),
            TableGame::Fourchess { game, .. } => to_json(game.options()),
        }
    }

    pub fn outcome_json(&self) -> Option<Value> {
        match self {
            TableGame::Chaturaji(g) => g.outcome().map(to_json),
            TableGame::Fourchess { game, .. } => game.outcome().map(to_json),
        }
    }

    /// Each seat's points now.
    pub fn points(&self) -> [i64; 4] {
        match self {
            TableGame::Chaturaji(g) => g.position().points().map(i64::from),
            TableGame::Fourchess { game, .. } => game.points().map(i64::from),
        }
    }

    /// Pieces of seats other than `seat` on the board (the CPU prefers moves that lower it).
    pub fn enemy_pieces(&self, seat: Seat) -> i64 {
        match self {
            TableGame::Chaturaji(g) => {
                let board = g.position().board();
                chaturaji::Square::all()
                    .filter_map(|sq| board.piece_at(sq))
                    .filter(|p| p.seat != seat)
                    .count() as i64
            }
            TableGame::Fourchess { game, .. } => {
                let pos = game.position();
                fourchess::Square::all()
                    .filter_map(|sq| pos.piece_at(sq))
                    .filter(|p| p.owner != fourchess::Owner::Seat(seat))
                    .count() as i64
            }
        }
    }

    /// The public state: the position in the game's text notation, points, and (Chaturaji) the dice
    /// with the reason each unused die cannot be used; (four-player chess) the kings in check.
    pub fn public_state(&self) -> Value {
        match self {
            TableGame::Chaturaji(g) => serde_json::json!({
                "position": g.notation(),
                "points": g.position().points(),
                "dice": g.dice(),
            }),
            TableGame::Fourchess { game, .. } => serde_json::json!({
                "fen4": game.fen4(),
                "points": game.points(),
                "checks": Seat::ALL.into_iter().filter(|&s| game.in_check(s)).collect::<Vec<_>>(),
            }),
        }
    }
}
