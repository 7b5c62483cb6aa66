//! A game: options plus position, and the turn flow that actions drive (C.7–C.9, C.22, C.23).

use super::action::{Action, IllegalAction, Move, MoveList};
use super::dice::{Die, DieClass, DieState, DieView, Unusable};
use super::events::{Applied, Event};
use super::options::{DiceUse, Options};
use super::outcome::{EndReason, Outcome};
use super::pipeline::resolve_move;
use super::position::Position;
use super::square::Square;
use crate::{OptionError, Seat};

/// Whether some unused die in these views can be used.
fn any_usable_view(views: Option<[DieView; 2]>) -> bool {
    views.is_some_and(|dice| {
        dice.iter()
            .any(|d| d.state == DieState::Unused && d.unusable.is_none())
    })
}

/// Turns without a capture that end the game (C.22.3: 12 rounds).
pub const NO_CAPTURE_TURNS: u16 = 48;

/// Where the game stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// The room must throw the dice for this seat ([`Action::Roll`]).
    AwaitingRoll(Seat),
    /// This seat chooses moves (or ends its turn).
    Moving(Seat),
    Over,
}

/// The full rules state of one Chaturaji game. `Clone` is a plain copy.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Game {
    options: Options,
    pos: Position,
    outcome: Option<Outcome>,
}

/// A position that cannot be played under the given options.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    #[error("invalid options: {0:?}")]
    Options(Vec<OptionError>),
    #[error(transparent)]
    Notation(#[from] super::notation::NotationError),
    #[error("inconsistent position: {0}")]
    Inconsistent(String),
}

impl Game {
    /// A new game from the setup, `first` to move (awaiting the first roll).
    pub fn new(options: Options, first: Seat) -> Result<Game, Vec<OptionError>> {
        options.validate()?;
        Ok(Game {
            options,
            pos: Position::start(first),
            outcome: None,
        })
    }

    /// A game continuing from `pos` under `options`.
    pub fn from_position(options: Options, pos: Position) -> Result<Game, SetupError> {
        options.validate().map_err(SetupError::Options)?;
        let inconsistent = |m: String| Err(SetupError::Inconsistent(m));
        if let Some(dice) = pos.dice {
            for die in dice {
                if options.dice.class_of(die.face).is_none() {
                    return inconsistent(format!(
                        "{} is not a face of the {} dice",
                        die.face,
                        options.dice.name()
                    ));
                }
            }
        }
        let mut game = Game {
            options,
            pos,
            outcome: None,
        };
        match pos.end {
            Some(reason) => {
                game.outcome = Some(Outcome::rank(reason, &pos.board, pos.points, pos.resigned))
            }
            None => {
                if u32::from(pos.turn) >= options.round_limit.saturating_mul(4) {
                    return inconsistent(format!(
                        "turn {} is past the round limit ({} rounds)",
                        pos.turn, options.round_limit
                    ));
                }
                if pos.no_capture_turns >= NO_CAPTURE_TURNS || pos.no_capture_turns > pos.turn {
                    return inconsistent(format!(
                        "{} turns without capture cannot be reached in a running game at turn {}",
                        pos.no_capture_turns, pos.turn
                    ));
                }
                if pos.board.king_count() <= 1 {
                    return inconsistent("at most one king on the board ends the game".into());
                }
                if pos.is_resigned(pos.to_move) {
                    return inconsistent("the seat to move has resigned".into());
                }
                if pos.resigned_count() >= 3 {
                    return inconsistent("three seats resigned but the game is not over".into());
                }
                if let Some(dice) = pos.dice {
                    if dice
                        .iter()
                        .any(|d| matches!(d.state, DieState::Declined | DieState::Void))
                    {
                        return inconsistent(
                            "declined or void dice in a turn still running".into(),
                        );
                    }
                    if !game.any_usable() {
                        return inconsistent(
                            "no remaining die is usable, so the turn should have ended".into(),
                        );
                    }
                }
            }
        }
        Ok(game)
    }

    /// A game from the position notation (see the module docs).
    pub fn from_notation(options: Options, text: &str) -> Result<Game, SetupError> {
        let pos: Position = text.parse()?;
        Game::from_position(options, pos)
    }

    pub fn options(&self) -> &Options {
        &self.options
    }

    pub fn position(&self) -> &Position {
        &self.pos
    }

    /// The position notation of the current state.
    pub fn notation(&self) -> String {
        self.pos.to_string()
    }

    pub fn phase(&self) -> Phase {
        if self.pos.end.is_some() {
            Phase::Over
        } else if self.pos.dice.is_some() {
            Phase::Moving(self.pos.to_move)
        } else {
            Phase::AwaitingRoll(self.pos.to_move)
        }
    }

    /// The seat whose turn it is, or `None` when the game is over. While [`Phase::AwaitingRoll`] the
    /// room throws the dice for that seat.
    pub fn to_act(&self) -> Option<Seat> {
        match self.pos.end {
            Some(_) => None,
            None => Some(self.pos.to_move),
        }
    }

    pub fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }

    /// The seat that should start the next game (option `first_seat_next_game`, C.3).
    pub fn next_first_seat(&self) -> Seat {
        self.options.next_first_seat(self.pos.first_seat())
    }

    /// The current turn's dice as the client sees them, with the reason for every unusable unused die.
    pub fn dice(&self) -> Option<[DieView; 2]> {
        self.pos.dice.map(|dice| dice.map(|d| self.view(d)))
    }

    fn class(&self, die: Die) -> DieClass {
        // Faces are validated on Roll and in `from_position`.
        self.options
            .dice
            .class_of(die.face)
            .unwrap_or(DieClass::PawnOrKing)
    }

    fn view(&self, die: Die) -> DieView {
        let class = self.class(die);
        DieView {
            face: die.face,
            class,
            state: die.state,
            unusable: match die.state {
                DieState::Unused => self.unusable(class),
                _ => None,
            },
        }
    }

    /// Why a die of `class` cannot be used by the seat to move now (C.8), or `None` if it can.
    fn unusable(&self, class: DieClass) -> Option<Unusable> {
        let seat = self.pos.to_move;
        if self.pos.board.of_class(seat, class) == 0 {
            Some(Unusable::NoPieceOfClass)
        } else if !self.pos.board.class_can_move(seat, class) {
            Some(Unusable::NoLegalMove)
        } else {
            None
        }
    }

    #[inline]
    fn die_usable(&self, die: Die) -> bool {
        die.state == DieState::Unused
            && self
                .pos
                .board
                .class_can_move(self.pos.to_move, self.class(die))
    }

    fn any_usable(&self) -> bool {
        self.pos
            .dice
            .is_some_and(|dice| dice.iter().any(|&d| self.die_usable(d)))
    }

    /// Every legal move of the seat to move, for every unused die, into `moves` (cleared first).
    /// Empty unless the phase is [`Phase::Moving`].
    pub fn legal_moves(&self, moves: &mut MoveList) {
        moves.clear();
        let (Some(dice), None) = (self.pos.dice, self.pos.end) else {
            return;
        };
        let seat = self.pos.to_move;
        for (i, die) in dice.into_iter().enumerate() {
            if die.state != DieState::Unused {
                continue;
            }
            self.pos
                .board
                .for_each_move(seat, self.class(die), |from, to| {
                    moves.push(Move {
                        die: i as u8,
                        from,
                        to,
                    })
                });
        }
    }

    /// Whether [`Action::EndTurn`] is legal now.
    pub fn can_end_turn(&self) -> bool {
        self.pos.end.is_none()
            && self.pos.dice.is_some()
            && self.options.dice_use == DiceUse::Optional
    }

    /// Every legal action: while awaiting the throw, every roll of the dice kind; while moving, every
    /// move for every unused die and `EndTurn` when allowed; and always `Resign` for every live seat.
    pub fn legal_actions(&self) -> Vec<Action> {
        let mut actions = Vec::new();
        match self.phase() {
            Phase::Over => return actions,
            Phase::AwaitingRoll(_) => {
                for a in self.options.dice.faces() {
                    for b in self.options.dice.faces() {
                        actions.push(Action::Roll { dice: [a, b] });
                    }
                }
            }
            Phase::Moving(_) => {
                let mut moves = MoveList::new();
                self.legal_moves(&mut moves);
                actions.extend(moves.as_slice().iter().map(|&m| Action::from(m)));
                if self.can_end_turn() {
                    actions.push(Action::EndTurn);
                }
            }
        }
        for seat in Seat::ALL {
            if !self.pos.is_resigned(seat) {
                actions.push(Action::Resign { seat });
            }
        }
        actions
    }

    /// Apply one action. An illegal action changes nothing and says why.
    pub fn apply(&mut self, action: Action) -> Result<Applied, IllegalAction> {
        if self.pos.end.is_some() {
            return Err(IllegalAction::GameOver);
        }
        let mut events = Applied::new();
        match action {
            Action::Roll { dice } => self.roll(dice, &mut events)?,
            Action::Move { die, from, to } => self.play(die, from, to, &mut events)?,
            Action::EndTurn => {
                if self.pos.dice.is_none() {
                    return Err(IllegalAction::NotRolled);
                }
                if self.options.dice_use == DiceUse::Forced {
                    // The turn ends by itself once no die is usable, so a running forced turn always
                    // has a usable die.
                    return Err(IllegalAction::MustUseDice);
                }
                self.decline_dice();
                self.end_turn(&mut events);
            }
            Action::Resign { seat } => self.resign(seat, &mut events)?,
        }
        Ok(events)
    }

    fn roll(&mut self, faces: [u8; 2], events: &mut Applied) -> Result<(), IllegalAction> {
        if self.pos.dice.is_some() {
            return Err(IllegalAction::AlreadyRolled);
        }
        for face in faces {
            if self.options.dice.class_of(face).is_none() {
                return Err(IllegalAction::BadDieFace {
                    face,
                    kind: self.options.dice.name(),
                });
            }
        }
        self.pos.dice = Some(faces.map(|face| Die {
            face,
            state: DieState::Unused,
        }));
        let views = self.dice();
        if let Some(dice) = views {
            events.push(Event::Rolled {
                seat: self.pos.to_move,
                dice,
            });
        }
        // C.9: if neither die is usable the turn passes at once.
        if !any_usable_view(views) {
            self.end_turn_with(views, events);
        }
        Ok(())
    }

    fn play(
        &mut self,
        die: u8,
        from: Square,
        to: Square,
        events: &mut Applied,
    ) -> Result<(), IllegalAction> {
        let Some(mut dice) = self.pos.dice else {
            return Err(IllegalAction::NotRolled);
        };
        let Some(chosen) = dice.get(die as usize).copied() else {
            return Err(IllegalAction::NoSuchDie(die));
        };
        if chosen.state != DieState::Unused {
            return Err(IllegalAction::DieAlreadyUsed(die));
        }
        let seat = self.pos.to_move;
        if self.pos.board.seat_at(from) != Some(seat) {
            return Err(IllegalAction::NotYourPiece(from));
        }
        let kind = self.pos.board.kind_at(from).expect("occupied");
        if DieClass::of_kind(kind) != self.class(chosen) {
            return Err(IllegalAction::WrongClass);
        }
        if self.pos.board.targets(seat, kind, from) & (1u64 << to.index()) == 0 {
            return Err(IllegalAction::IllegalDestination { from, to });
        }
        dice[die as usize].state = DieState::Used;
        self.pos.dice = Some(dice);
        events.push(Event::Moved {
            seat,
            die,
            from,
            to,
            piece: kind,
        });
        resolve_move(&mut self.pos, &self.options, seat, from, to, events);
        if let Some(reason) = self.pos.end {
            self.finish(reason, events);
        } else {
            // The turn goes on while a remaining die is usable, judged now (9b).
            let views = self.dice();
            if !any_usable_view(views) {
                self.end_turn_with(views, events);
            }
        }
        Ok(())
    }

    fn resign(&mut self, seat: Seat, events: &mut Applied) -> Result<(), IllegalAction> {
        if self.pos.is_resigned(seat) {
            return Err(IllegalAction::AlreadyResigned(seat));
        }
        self.pos.resigned |= 1 << seat.index();
        events.push(Event::Resigned { seat });
        if seat == self.pos.to_move {
            // 9b: resigning during one's own turn ends that turn (which checks for the third resignation).
            self.decline_dice();
            self.end_turn(events);
        } else if self.pos.resigned_count() >= 3 {
            self.finish(EndReason::Resignations, events);
        }
        Ok(())
    }

    /// Mark every still-usable unused die as declined (9b).
    fn decline_dice(&mut self) {
        if let Some(mut dice) = self.pos.dice {
            for die in &mut dice {
                if self.die_usable(*die) {
                    die.state = DieState::Declined;
                }
            }
            self.pos.dice = Some(dice);
        }
    }

    /// Complete the current turn, check the end-of-turn ends (C.22.3–5), move to the next seat and pass
    /// every resigned seat's turn at once (C.23).
    fn end_turn(&mut self, events: &mut Applied) {
        self.end_turn_with(self.dice(), events)
    }

    /// [`Game::end_turn`] with the final dice views already computed.
    fn end_turn_with(&mut self, mut views: Option<[DieView; 2]>, events: &mut Applied) {
        loop {
            events.push(Event::TurnEnded {
                seat: self.pos.to_move,
                dice: views.take(),
            });
            self.pos.turn += 1;
            if self.pos.captured_this_turn {
                self.pos.no_capture_turns = 0;
            } else {
                self.pos.no_capture_turns += 1;
            }
            self.pos.captured_this_turn = false;
            self.pos.dice = None;
            let limit_turns = self.options.round_limit.saturating_mul(4);
            let reason = if self.pos.no_capture_turns >= NO_CAPTURE_TURNS {
                Some(EndReason::NoCapture)
            } else if u32::from(self.pos.turn) >= limit_turns {
                Some(EndReason::RoundLimit)
            } else if self.pos.resigned_count() >= 3 {
                Some(EndReason::Resignations)
            } else {
                None
            };
            if let Some(reason) = reason {
                self.finish(reason, events);
                return;
            }
            self.pos.to_move = self.pos.to_move.next();
            if !self.pos.is_resigned(self.pos.to_move) {
                return;
            }
        }
    }

    /// End the game: unused dice become void, standings are computed.
    fn finish(&mut self, reason: EndReason, events: &mut Applied) {
        if let Some(mut dice) = self.pos.dice {
            for die in &mut dice {
                if die.state == DieState::Unused {
                    die.state = DieState::Void;
                }
            }
            self.pos.dice = Some(dice);
        }
        self.pos.end = Some(reason);
        self.outcome = Some(Outcome::rank(
            reason,
            &self.pos.board,
            self.pos.points,
            self.pos.resigned,
        ));
        events.push(Event::GameOver { reason });
    }
}
