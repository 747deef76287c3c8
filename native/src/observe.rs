//! Each game's observation for the network search (`common::puct::Observe`): the planes
//! and vector of its `encode.rs` (the research encoding, value for value), one after the
//! other, as the network's input (`docs/bots.md`, "The network in the search").

use crate::common::mcts::SearchGame;
use crate::common::puct::Observe;
use crate::common::rng::Rng;
use crate::medina::encode as me;
use crate::medina::search::Search as MedinaSearch;
use crate::medina::state::State as MedinaPosition;
use crate::terranova::encode::{self as te, Layout};
use crate::terranova::state::{Game, State as TerraNovaPosition};

impl Observe for MedinaSearch {
    fn input_size(&self, state: &MedinaPosition) -> usize {
        me::planes_len(state) + me::vector_len(state)
    }

    fn num_actions(&self, state: &MedinaPosition) -> usize {
        state.num_actions()
    }

    fn observe(&self, state: &MedinaPosition, seat: usize, out: &mut [f32]) {
        let scores = state.scores();
        let (planes, vector) = out.split_at_mut(me::planes_len(state));
        me::write_planes(state, seat, &scores, planes);
        me::write_vector(state, seat, &scores, vector);
    }

    fn game_name(&self) -> &'static str {
        "medina"
    }
}

/// A Terra Nova game with its board's layout of planes, for the network search.
pub struct TerraNovaObserved<'a, const W: usize> {
    pub game: &'a Game<W>,
    layout: Layout,
}

impl<'a, const W: usize> TerraNovaObserved<'a, W> {
    pub fn new(game: &'a Game<W>) -> Self {
        TerraNovaObserved {
            game,
            layout: Layout::new(&game.board),
        }
    }
}

impl<const W: usize> SearchGame for TerraNovaObserved<'_, W> {
    type State = TerraNovaPosition<W>;

    fn num_players(&self) -> usize {
        self.game.num_players
    }

    fn to_act(&self, state: &Self::State) -> i32 {
        if state.is_terminal() {
            -1
        } else {
            state.current_player
        }
    }

    fn actions(&self, state: &Self::State, out: &mut Vec<u32>) {
        self.game.actions(state, out);
    }

    fn play(&self, state: &Self::State, action: u32) -> Self::State {
        self.game.play(state, action)
    }

    fn rollout(&self, state: &Self::State, rng: &mut Rng, returns: &mut [f64]) {
        self.game.rollout(state, rng, returns);
    }
}

impl<const W: usize> Observe for TerraNovaObserved<'_, W> {
    fn input_size(&self, _state: &Self::State) -> usize {
        self.layout.planes_len() + te::VECTOR_LEN
    }

    fn num_actions(&self, _state: &Self::State) -> usize {
        self.game.board.num_actions()
    }

    fn observe(&self, state: &Self::State, seat: usize, out: &mut [f32]) {
        let (planes, vector) = out.split_at_mut(self.layout.planes_len());
        self.layout.write_planes(self.game, state, seat, planes);
        te::write_vector(self.game, state, seat, vector);
    }

    fn game_name(&self) -> &'static str {
        "terranova"
    }
}
