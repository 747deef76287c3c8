//! The network's first layer made for a game's input layout (`Game::input_layout`,
//! `common::network::Scratch::for_inputs`) holds on every position of random games of
//! each game: the fixed inputs stay the first position's and each filled range one value.

use crate::common::mcts::Budget;
use crate::common::network::{tests::random_network, Scratch};
use crate::common::puct::{self, Settings};
use crate::common::rng::Rng;
use crate::game::{observe_input, Game};
use crate::medina::game::Medina;
use crate::medina::state::State as MedinaPosition;
use crate::terranova::board::{Board, Rules};
use crate::terranova::state::Game as TerraNova;

/// Positions of a random game (every third, to the end).
fn positions<G: Game>(game: &G, start: G::State, seed: u64) -> Vec<G::State> {
    let mut rng = Rng::new(seed);
    let (mut state, mut out, mut actions) = (start, Vec::new(), Vec::new());
    for ply in 0.. {
        if ply % 3 == 0 {
            out.push(state);
        }
        actions.clear();
        if game.to_act(&state) >= 0 {
            game.legal_actions(&state, &mut actions);
        }
        if actions.is_empty() {
            return out;
        }
        game.play(&mut state, actions[rng.below(actions.len() as u32) as usize]);
    }
    out
}

/// The game's input layout holds on every position of random games: the fixed inputs
/// are the first position's and each filled range one value, so the search's first
/// layer (made for the layout) computes what the plain one does.
fn check_layout<G: Game>(game: &G, start: G::State) {
    let layout = game.input_layout();
    let size = game.observation_lens().0 + game.observation_lens().1;
    let net = random_network(G::ID, size, &[16, 8], game.num_actions(), game.num_players(), 1);
    let mut inputs = Vec::new();
    let mut legal = Vec::new();
    for seed in 0..12 {
        for state in positions(game, start, seed) {
            let to_act = game.to_act(&state);
            let mut actions = Vec::new();
            if to_act >= 0 {
                game.legal_actions(&state, &mut actions);
            }
            if actions.is_empty() {
                continue;
            }
            let mut x = vec![0.0f32; size];
            observe_input(game, &state, to_act as usize, &mut x);
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
        check_layout(&Medina::of(&start), start);
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
    let game = TerraNova::<4> {
        board: Board::new(&cells, &water).unwrap(),
        rules: Rules::default(),
        num_players: 2,
        learned: None,
    };
    let start = game.initial(0);
    check_layout(&game, start);
}
