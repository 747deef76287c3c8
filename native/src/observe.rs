//! Each game's observation for the network search (`common::puct::Observe`): the planes
//! and vector of its `encode.rs` (the research encoding, value for value), one after the
//! other, as the network's input (`docs/bots.md`, "The network in the search").

use crate::common::mcts::SearchGame;
use crate::common::network::InputLayout;
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

    fn input_layout(&self, state: &MedinaPosition) -> InputLayout {
        let (fixed, uniform) = me::input_layout(state);
        InputLayout { fixed, uniform }
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

    fn input_layout(&self, _state: &Self::State) -> InputLayout {
        let (fixed, uniform) = self.layout.input_layout();
        InputLayout { fixed, uniform }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::common::mcts::Budget;
    use crate::common::network::{tests::random_network, Scratch};
    use crate::common::puct::{self, Settings};
    use crate::terranova::board::{Board, Rules};

    /// Positions of a random game (every third, to the end).
    fn positions<G: SearchGame>(game: &G, start: G::State, seed: u64) -> Vec<G::State> {
        let mut rng = Rng::new(seed);
        let (mut state, mut out, mut actions) = (start, Vec::new(), Vec::new());
        for ply in 0.. {
            if ply % 3 == 0 {
                out.push(state);
            }
            actions.clear();
            if game.to_act(&state) >= 0 {
                game.actions(&state, &mut actions);
            }
            if actions.is_empty() {
                return out;
            }
            state = game.play(&state, actions[rng.below(actions.len() as u32) as usize]);
        }
        out
    }

    /// The game's input layout holds on every position of random games: the fixed inputs
    /// are the first position's and each filled range one value, so the search's first
    /// layer (made for the layout) computes what the plain one does.
    fn check_layout<G: Observe>(game: &G, start: G::State) {
        let layout = game.input_layout(&start);
        let size = game.input_size(&start);
        let net = random_network(
            game.game_name(),
            size,
            &[16, 8],
            game.num_actions(&start),
            game.num_players(),
            1,
        );
        let mut inputs = Vec::new();
        let mut legal = Vec::new();
        for seed in 0..12 {
            for state in positions(game, start, seed) {
                let to_act = game.to_act(&state);
                let mut actions = Vec::new();
                if to_act >= 0 {
                    game.actions(&state, &mut actions);
                }
                if actions.is_empty() {
                    continue;
                }
                let mut x = vec![0.0f32; size];
                game.observe(&state, to_act as usize, &mut x);
                inputs.extend_from_slice(&x);
                legal.push(actions);
            }
        }
        let n = legal.len();
        assert!(n > 30, "{n} positions");
        for x in inputs.chunks_exact(size) {
            assert_eq!(
                &x[layout.fixed.clone()],
                &inputs[layout.fixed.clone()],
                "fixed inputs changed"
            );
            for range in &layout.uniform {
                assert!(
                    x[range.clone()].iter().all(|&v| v == x[range.start]),
                    "{range:?} not one value"
                );
            }
        }
        let run = |scratch: &mut Scratch| {
            let mut priors = vec![Vec::new(); n];
            let mut values = vec![0.0; n * game.num_players()];
            net.evaluate(&inputs, &legal, &mut priors, &mut values, scratch);
            (priors.concat(), values)
        };
        let plain = run(&mut Scratch::default());
        let made = run(&mut Scratch::for_inputs(&net, &layout, &inputs[..size]).unwrap());
        for (a, b) in plain.0.iter().chain(&plain.1).zip(made.0.iter().chain(&made.1)) {
            assert!((a - b).abs() < 1e-4, "{a} {b}");
        }
        // And a search over it (its debug checks on every leaf's input).
        let result = puct::search(
            game,
            &start,
            &net,
            &Settings::default(),
            &Budget::simulations(200),
            &mut Rng::new(1),
        );
        assert_eq!(result.simulations, 200);
    }

    #[test]
    fn medina_s_input_layout_holds() {
        use crate::medina::ruleset::Rules as MedinaRules;
        for (players, rules) in [
            (3, MedinaRules::default()),
            (2, MedinaRules::preset("second_edition").unwrap()),
        ] {
            let mut start = MedinaPosition::new(players, 0, rules);
            if rules.second() {
                start.place_well(40);
                start.place_start(60);
                start.ply = 0;
            }
            check_layout(&MedinaSearch { num_players: players }, start);
        }
    }

    #[test]
    fn terra_nova_s_input_layout_holds() {
        let mut cells = Vec::new();
        for r in -4i32..=4 {
            for q in -4i32..=4 {
                if (q + r).abs() <= 4 {
                    cells.push((q, r, ((q * 3 + r * 5).rem_euclid(7)) as u8));
                }
            }
        }
        let water = [false, false, false, false, false, false, true];
        let game = Game::<4> {
            board: Board::new(&cells, &water).unwrap(),
            rules: Rules::default(),
            num_players: 2,
        };
        check_layout(&TerraNovaObserved::new(&game), game.initial(0));
    }
}
