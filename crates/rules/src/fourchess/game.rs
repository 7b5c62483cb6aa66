//! A whole game: the rules state plus what needs history (F.23 repetition, F.24 fifty moves, F.26 move
//! limit), resignation (F.14, F.21), the end and the standings. This is the API the room server drives.

use std::collections::HashMap;

use crate::{OptionError, Seat};

use super::fen4::{Fen4Error, Setup, parse_fen4};
use super::moves::{Move, MoveText};
use super::options::{Mode, Options};
use super::outcome::{EndReason, Outcome};
use super::piece::Kind;
use super::position::Position;
use super::state::{ElimCause, Elimination, MoveReport, State};

/// What a player (or the server on a player's behalf) does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Action {
    /// Move a piece; castling is the king's two-square move, en passant the pawn's diagonal move.
    /// `promotion` is required when a Teams pawn promotes (Q, R, B or N); in FFA it may be omitted, and
    /// `queen` or `one_point_queen` both mean the one-point queen.
    Move {
        from: super::geometry::Square,
        to: super::geometry::Square,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        promotion: Option<Kind>,
    },
    /// Any live seat may resign at any time (F.14, F.21).
    Resign { seat: Seat },
}

impl From<MoveText> for Action {
    fn from(m: MoveText) -> Action {
        Action::Move {
            from: m.from,
            to: m.to,
            promotion: m.promotion,
        }
    }
}

impl From<Move> for Action {
    fn from(m: Move) -> Action {
        m.text().into()
    }
}

/// Why an action was refused; the game is unchanged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IllegalAction {
    #[error("the game is over")]
    GameOver,
    #[error("it is {to_act}'s turn, not {seat}'s")]
    NotYourTurn { seat: Seat, to_act: Seat },
    #[error("{0} is not a legal move")]
    IllegalMove(MoveText),
    #[error("{0} promotes: say which piece (Q, R, B or N)")]
    PromotionRequired(MoveText),
    #[error("{0} is out of the game")]
    SeatOut(Seat),
    #[error("{seat} may not resign for {other}")]
    NotYourSeat { seat: Seat, other: Seat },
}

impl IllegalAction {
    /// A stable machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            IllegalAction::GameOver => "game_over",
            IllegalAction::NotYourTurn { .. } => "not_your_turn",
            IllegalAction::IllegalMove(_) => "illegal_move",
            IllegalAction::PromotionRequired(_) => "promotion_required",
            IllegalAction::SeatOut(_) => "seat_out",
            IllegalAction::NotYourSeat { .. } => "not_your_seat",
        }
    }
}

/// What an accepted action did.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Applied {
    pub action: Action,
    /// Who acted.
    pub seat: Seat,
    /// The move's effects (`None` for a resignation).
    #[serde(rename = "move")]
    pub report: Option<MoveReport>,
    /// Players out because of this action, in order (FFA).
    pub eliminations: Vec<Elimination>,
    /// Points per seat after the action (including F.25's +10 when it ended the game in a draw).
    pub points: [u32; 4],
    /// Who moves next, if the game goes on.
    pub to_act: Option<Seat>,
    pub game_over: Option<Outcome>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NewGameError {
    #[error("bad options: {0:?}")]
    Options(Vec<OptionError>),
    #[error(transparent)]
    Fen4(#[from] Fen4Error),
}

/// One game of four-player chess.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Game {
    options: Options,
    first: Seat,
    start: Setup,
    state: State,
    /// F.24: plies since the last capture or pawn move.
    ply_clock: u32,
    /// F.26: plies played by all players.
    plies: u32,
    /// F.23: occurrences of each position key since the last capture or pawn move (the start
    /// counts). Those moves cannot be undone, so no earlier position can come back: the table is
    /// cleared then, which bounds it by the fifty-move count instead of the game's length.
    seen: HashMap<u64, u32>,
    /// Every accepted action as resolved (e.g. an FFA promotion sent without a piece is `=D`): a few
    /// bytes each, so a long game held by a server stays small. [`Game::record`] replays them.
    actions: Vec<Action>,
    /// What the last accepted action did (the PGN4 reader checks stalemate marks against it).
    last: Option<Applied>,
    outcome: Option<Outcome>,
}

impl Game {
    /// A new game from the standard setup with `first` to move.
    pub fn new(options: Options, first: Seat) -> Result<Game, Vec<OptionError>> {
        options.validate()?;
        let setup = Setup::start(options.mode, first);
        Ok(Game::start_from(options, first, setup))
    }

    /// A game from a FEN4 position (the mode comes from `options`).
    pub fn from_fen4(options: Options, fen4: &str) -> Result<Game, NewGameError> {
        options.validate().map_err(NewGameError::Options)?;
        let setup = parse_fen4(fen4, options.mode)?;
        Game::from_setup(options, setup).map_err(NewGameError::Options)
    }

    /// A game from a prepared position; the mode comes from `options`.
    pub fn from_setup(options: Options, mut setup: Setup) -> Result<Game, Vec<OptionError>> {
        options.validate()?;
        setup.position.mode = options.mode;
        let first = setup.position.to_move();
        Ok(Game::start_from(options, first, setup))
    }

    fn start_from(options: Options, first: Seat, setup: Setup) -> Game {
        let (state, _) = State::new(&setup);
        let mut game = Game {
            options,
            first,
            ply_clock: setup.ply_clock,
            start: setup,
            state,
            plies: 0,
            seen: HashMap::new(),
            actions: Vec::new(),
            last: None,
            outcome: None,
        };
        game.seen.insert(game.state.pos.key(), 1);
        game.outcome = game
            .state
            .end
            .map(|reason| Outcome::new(game.options.mode, reason, game.state.points));
        game
    }

    /// The rules state ([`super::Node`] starts from it).
    pub(crate) fn state(&self) -> &State {
        &self.state
    }

    /// F.24: plies since the last capture or pawn move.
    pub(crate) fn ply_clock(&self) -> u32 {
        self.ply_clock
    }

    /// F.26: plies played (moves and resignations).
    pub(crate) fn plies(&self) -> u32 {
        self.plies
    }

    pub fn options(&self) -> &Options {
        &self.options
    }

    pub fn first(&self) -> Seat {
        self.first
    }

    pub fn mode(&self) -> Mode {
        self.options.mode
    }

    /// The seat to move, or `None` when the game is over.
    pub fn to_act(&self) -> Option<Seat> {
        self.outcome.is_none().then(|| self.state.pos.to_move())
    }

    pub fn position(&self) -> &Position {
        &self.state.pos
    }

    pub fn points(&self) -> [u32; 4] {
        self.state.points
    }

    /// Whether `seat`'s king is attacked by a live opponent now (several kings can be at once).
    pub fn in_check(&self, seat: Seat) -> bool {
        !self.is_out(seat) && super::movegen::in_check(&self.state.pos, seat)
    }

    pub fn is_out(&self, seat: Seat) -> bool {
        self.state.pos.is_eliminated(seat)
    }

    pub fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }

    /// Every accepted action, in order, as resolved.
    pub fn actions(&self) -> &[Action] {
        &self.actions
    }

    /// Every accepted action with what it did, in order: replayed from the start (the game keeps
    /// only the actions), so this costs a replay of the game.
    pub fn record(&self) -> Vec<Applied> {
        let mut replay = Game::start_from(self.options.clone(), self.first, self.start.clone());
        self.actions
            .iter()
            .map(|&action| {
                replay
                    .apply(action)
                    .expect("an accepted action replays the same way")
            })
            .collect()
    }

    /// What the last accepted action did.
    pub fn last_applied(&self) -> Option<&Applied> {
        self.last.as_ref()
    }

    /// The position the game started from.
    pub fn start(&self) -> &Setup {
        &self.start
    }

    /// The current position in FEN4 (points and the fifty-move clock included).
    pub fn fen4(&self) -> String {
        super::fen4::to_fen4(&self.state.pos, self.state.points, self.ply_clock)
    }

    /// The legal moves of the seat to act (resignation, always open to every live seat, is not listed).
    pub fn legal_moves(&self) -> Vec<Move> {
        if self.outcome.is_some() {
            return Vec::new();
        }
        super::legal_moves(&self.state.pos)
    }

    /// [`Game::legal_moves`] as actions.
    pub fn legal_actions(&self) -> Vec<Action> {
        self.legal_moves().into_iter().map(Action::from).collect()
    }

    /// Applies an action sent by `seat`: a move is refused unless `seat` is to act; a resignation must
    /// be `seat`'s own. Use this where actions come from players; [`Game::apply`] trusts the caller.
    pub fn apply_for(&mut self, seat: Seat, action: Action) -> Result<Applied, IllegalAction> {
        if self.outcome.is_some() {
            return Err(IllegalAction::GameOver);
        }
        let to_act = self.state.pos.to_move();
        match action {
            Action::Move { .. } if seat != to_act => {
                Err(IllegalAction::NotYourTurn { seat, to_act })
            }
            Action::Resign { seat: other } if other != seat => {
                Err(IllegalAction::NotYourSeat { seat, other })
            }
            _ => self.apply(action),
        }
    }

    /// Applies an action (a move is the seat to act's); an illegal one changes nothing.
    pub fn apply(&mut self, action: Action) -> Result<Applied, IllegalAction> {
        if self.outcome.is_some() {
            return Err(IllegalAction::GameOver);
        }
        let applied = match action {
            Action::Move {
                from,
                to,
                promotion,
            } => {
                let text = MoveText {
                    from,
                    to,
                    promotion,
                };
                let m = self.find_move(text)?;
                // Record the move as resolved (e.g. an FFA promotion sent without a piece is `=D`).
                self.play(Action::from(m), m)
            }
            Action::Resign { seat } => {
                if self.state.pos.is_eliminated(seat) {
                    return Err(IllegalAction::SeatOut(seat));
                }
                self.resign(action, seat)
            }
        };
        self.actions.push(applied.action);
        self.last = Some(applied.clone());
        Ok(applied)
    }

    fn find_move(&self, text: MoveText) -> Result<Move, IllegalAction> {
        let candidates: Vec<Move> = self
            .legal_moves()
            .into_iter()
            .filter(|m| m.from() == text.from && m.to() == text.to)
            .collect();
        if candidates.is_empty() {
            return Err(IllegalAction::IllegalMove(text));
        }
        // F.8 FFA: the only promotion is the one-point queen; a plain "queen" means it.
        let promotion = match (self.options.mode, text.promotion) {
            (Mode::Ffa, Some(Kind::Queen)) => Some(Kind::OnePointQueen),
            (_, asked) => asked,
        };
        match promotion {
            Some(kind) => candidates
                .into_iter()
                .find(|m| m.promotion() == Some(kind))
                .ok_or(IllegalAction::IllegalMove(text)),
            None if candidates.len() == 1 => Ok(candidates[0]),
            None => Err(IllegalAction::PromotionRequired(text)),
        }
    }

    fn play(&mut self, action: Action, m: Move) -> Applied {
        let seat = self.state.pos.to_move();
        let pawn_move = self
            .state
            .pos
            .piece_at(m.from())
            .is_some_and(|p| p.kind == Kind::Pawn);
        let (report, eliminations) = self.state.play(m);
        self.plies += 1;
        if pawn_move || !report.captures.is_empty() {
            self.ply_clock = 0;
            // Irreversible: no position before this move can occur again (F.23 counts only
            // positions that can).
            self.seen.clear();
        } else {
            self.ply_clock += 1;
        }
        self.after_action(action, seat, Some(report), eliminations)
    }

    fn resign(&mut self, action: Action, seat: Seat) -> Applied {
        let mut eliminations = Vec::new();
        match self.options.mode {
            Mode::Teams => self.state.end = Some(EndReason::Resignation { seat }),
            Mode::Ffa => {
                // F.21: out at once, no points to anyone.
                eliminations.push(Elimination {
                    seat,
                    cause: ElimCause::Resigned,
                    points: 0,
                });
                self.state.eliminate_and_pass(seat);
                self.state.settle(&mut eliminations);
            }
        }
        self.after_action(action, seat, None, eliminations)
    }

    /// Ends in 7b's order: the rules' own ends (already in `state.end`), then repetition, fifty moves,
    /// move limit.
    fn after_action(
        &mut self,
        action: Action,
        seat: Seat,
        report: Option<MoveReport>,
        eliminations: Vec<Elimination>,
    ) -> Applied {
        let count = self.seen.entry(self.state.pos.key()).or_insert(0);
        *count += 1;
        let repeated = *count >= 3;
        let live = self.state.pos.live_count();
        let end = self.state.end.or_else(|| {
            if repeated {
                Some(EndReason::Repetition)
            } else if self.ply_clock >= 50 * live {
                Some(EndReason::FiftyMoves)
            } else if self
                .options
                .move_limit
                .is_some_and(|limit| self.plies >= limit)
            {
                Some(EndReason::MoveLimit)
            } else {
                None
            }
        });
        if let Some(reason) = end {
            self.state.end = Some(reason);
            if self.options.mode == Mode::Ffa && reason.is_draw_f25() {
                // F.25: every remaining player scores 10.
                for s in Seat::ALL {
                    if !self.state.pos.is_eliminated(s) {
                        self.state.points[s.index()] += 10;
                    }
                }
            }
            self.outcome = Some(Outcome::new(self.options.mode, reason, self.state.points));
        }
        Applied {
            action,
            seat,
            report,
            eliminations,
            points: self.state.points,
            to_act: self.to_act(),
            game_over: self.outcome.clone(),
        }
    }
}
