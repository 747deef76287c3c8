//! Unit tests of the Rust rules (the differential tests against the Python engine are
//! `tests/native/test_differential.py` and `tests/native/test_terranova_native.py`).

use super::board::{Board, ReturnRule, Rules};
use super::moves::{Kind, Move};
use super::state::{Game, Lines, Phase};
use crate::common::bits::Bits;
use crate::common::rng::Rng;

fn disc_game(radius: i32, num_players: usize, rules: Rules) -> Game<4> {
    let mut cells = Vec::new();
    for r in -radius..=radius {
        for q in -radius..=radius {
            if (q + r).abs() <= radius {
                cells.push((q, r, ((q * 3 + r * 5).rem_euclid(7)) as u8));
            }
        }
    }
    let water = [false, false, false, false, false, false, true];
    Game {
        board: Board::new(&cells, &water).unwrap(),
        rules,
        num_players,
        learned: None,
    }
}

#[test]
fn a_slide_decoded_from_the_layout_is_the_slide_walked_to() {
    // A disc, and a disc with a hole in it (lines with gaps).
    for hole in [0, 2] {
        let mut cells = Vec::new();
        for r in -5i32..=5 {
            for q in -5i32..=5 {
                let distance = q.abs().max(r.abs()).max((q + r).abs());
                if distance <= 5 && distance >= hole {
                    cells.push((q, r, ((q * 3 + r * 5).rem_euclid(7)) as u8));
                }
            }
        }
        let water = [false, false, false, false, false, false, true];
        let game = Game::<4> {
            board: Board::new(&cells, &water).unwrap(),
            rules: Rules::default(),
            num_players: 2,
            learned: None,
        };
        assert!(game.board.lines_fit);
        let mut slides = 0;
        for action in game.board.num_cells..game.board.stone_base() {
            if let Some(mv) = game.decode(action) {
                assert_eq!(game.decode_listed(action), Some(mv), "action {action}");
                slides += 1;
            }
        }
        assert!(slides > 300);
    }
}

#[test]
fn counted_random_slides_are_the_listed_slides() {
    let game = disc_game(6, 3, Rules::default());
    let mut rng = Rng::new(3);
    let mut slides = Vec::new();
    let mut state = game.initial(0);
    let mut checked = 0;
    while !state.is_terminal() {
        if state.phase == Phase::Play && state.legal_kinds(&game).as_slice().contains(&Kind::Move) {
            let mut listed = Vec::new();
            state.for_each_slide(&game, |src, _, _, dst| listed.push(Move::Slide { src, dst }));
            for _ in 0..20 {
                let mut again = state;
                again.phase = Phase::Play;
                let Some(mv) = again.random_move(&game, &mut rng, &mut slides) else {
                    continue;
                };
                if let Move::Slide { .. } = mv {
                    assert!(listed.contains(&mv), "{mv:?} is not a legal slide");
                }
            }
            checked += 1;
        }
        let mv = state
            .random_move(&game, &mut rng, &mut slides)
            .expect("a move while not over");
        assert!(state.is_legal(&game, mv));
        state.play(&game, mv);
    }
    assert!(checked > 50);
}

/// The lines kept by `play` against fresh ones, and the slides counted in them against
/// the listed slides for the same draw, at every step of random games: every return
/// rule (the forbidden slides back), both scoring times, 2-4 players, a disc and a
/// board with holes (rays that stop at gaps).
#[test]
fn the_counted_slides_are_the_listed_slides_for_the_same_draw() {
    let holes = |q: i32, r: i32| (q * 7 + r * 3).rem_euclid(11) == 0 && (q, r) != (0, 0);
    let mut drawn = 0;
    for (k, return_rule) in [ReturnRule::EndOfTurn, ReturnRule::Strict, ReturnRule::ThreeMovesOnly]
        .into_iter()
        .enumerate()
    {
        for immediate_scoring in [true, false] {
            for num_players in 2..=4 {
                let rules = Rules {
                    return_rule,
                    immediate_scoring,
                    ..Rules::default()
                };
                let mut game = disc_game(6, num_players, rules);
                if num_players == 3 {
                    let cells: Vec<(i32, i32, u8)> = game
                        .board
                        .coords
                        .iter()
                        .zip(game.board.land.iter())
                        .filter(|(&(q, r), _)| !holes(q, r))
                        .map(|(&(q, r), &l)| (q, r, l))
                        .collect();
                    let water = [false, false, false, false, false, false, true];
                    game.board = Board::new(&cells, &water).unwrap();
                }
                assert!(game.board.lines_fit);
                let mut rng = Rng::new(k as u64 * 10 + num_players as u64);
                let mut slides = Vec::new();
                let mut state = game.initial(0);
                while !state.is_terminal() {
                    let lines = state.lines(&game).expect("the lines follow every move");
                    assert_eq!(lines.words, Lines::new(&game.board, &state.filled).words);
                    if state.phase == Phase::Play {
                        let (mut listing, mut counting) = (rng.clone(), rng.clone());
                        let listed = state.random_listed_slide(&game, &mut listing, &mut slides);
                        let counted = state.random_counted_slide(&game, lines, &mut counting);
                        assert_eq!(listed, counted);
                        assert_eq!(listing.next_u64(), counting.next_u64());
                        drawn += listed.is_some() as usize;
                        // The listing by runs, against the listing by walking the rays.
                        let mut walked = state;
                        walked.lines.filled = Bits::EMPTY;
                        assert!(walked.lines(&game).is_none());
                        for kind in [Kind::Move, Kind::Stone] {
                            let (mut a, mut b) = (Vec::new(), Vec::new());
                            state.actions_of_kind(&game, kind, &mut a);
                            walked.actions_of_kind(&game, kind, &mut b);
                            assert_eq!(a, b);
                        }
                        assert!(walked.action_runs(&game, &[Kind::Move]).is_none());
                    }
                    // Every kind's runs, and all legal actions', against the lists.
                    let kinds = state.legal_kinds(&game);
                    let mut every = vec![kinds.as_slice().to_vec()];
                    every.extend(kinds.as_slice().iter().map(|&k| vec![k]));
                    for kinds in every {
                        let mut listed = Vec::new();
                        for &kind in &kinds {
                            state.actions_of_kind(&game, kind, &mut listed);
                        }
                        let runs = state.action_runs(&game, &kinds).unwrap();
                        let b = &game.board;
                        let read: Vec<u32> = (0..runs.len()).map(|i| runs.get(b, i)).collect();
                        assert_eq!(read, listed);
                        assert_eq!(runs.to_vec(b), listed);
                    }
                    // The ascending listing (OpenSpiel's order), from the lines and by
                    // walking the rays, against the listed actions sorted.
                    let mut sorted = state.legal_actions(&game);
                    sorted.sort_unstable();
                    let mut walked = state;
                    walked.lines.filled = Bits::EMPTY;
                    for s in [state, walked] {
                        let mut ascending = Vec::new();
                        s.legal_actions_ascending(&game, &mut ascending);
                        assert_eq!(ascending, sorted);
                    }
                    let mv = state.random_move(&game, &mut rng, &mut slides).unwrap();
                    state.play(&game, mv);
                }
            }
        }
    }
    assert!(drawn > 3000, "{drawn}");
}

#[test]
fn every_rule_variant_plays_to_the_end() {
    for return_rule in [ReturnRule::EndOfTurn, ReturnRule::Strict, ReturnRule::ThreeMovesOnly] {
        for immediate_scoring in [true, false] {
            let rules = Rules {
                return_rule,
                immediate_scoring,
                ..Rules::default()
            };
            let game = disc_game(5, 2, rules);
            let mut end = game.initial(1);
            let actions = crate::game::Game::playout(&game, &mut end, &mut Rng::new(9), u32::MAX);
            assert!(end.is_terminal() && actions > 20);
            assert!(end.points.iter().sum::<i32>() > 0 || end.num_areas == 0);
        }
    }
}

#[test]
fn the_search_returns_a_legal_action_and_counts_its_nodes() {
    let game = disc_game(5, 2, Rules::default());
    let mut state = game.initial(0);
    let mut rng = Rng::new(2);
    let mut slides = Vec::new();
    for _ in 0..30 {
        let mv = state.random_move(&game, &mut rng, &mut slides).unwrap();
        state.play(&game, mv);
    }
    let result = crate::common::mcts::search(&game, &state, 300, 2.0, &mut rng);
    let action = result.action.expect("a legal action");
    assert!(state.legal_actions(&game).contains(&action));
    assert!(result.nodes > 300);
}
