//! Unit tests of the Rust rules (the differential tests against the Python engine are
//! `tests/native/test_medina_*.py`).

use super::board::*;
use super::state::*;
use crate::common::rng::Rng;

fn sq(name: &str) -> usize {
    let col = FILES.iter().position(|&c| c == name.as_bytes()[0]).unwrap();
    let row: usize = name[1..].parse().unwrap();
    square(col, row - 1)
}

fn started(n: usize) -> State {
    let mut s = State::new(n, 0, Rules::default(), true);
    s.apply(sq("E5")).unwrap();
    s
}

#[test]
fn the_start_player_places_the_starting_merchant_on_an_inner_square() {
    let s = State::new(3, 0, Rules::default(), true);
    let legal = s.legal();
    assert_eq!(legal.count(), 126);
    assert!(!s.is_legal(sq("B2")));
    let s = started(3);
    assert_eq!(s.phase, Phase::Play);
    assert_eq!(s.current_player, 0);
    assert_eq!(s.placements_left, 2);
    assert_eq!(s.turn, 1);
    assert_eq!(s.ply, 1);
}

#[test]
fn the_first_wall_moves_are_next_to_the_towers() {
    let s = started(3);
    let mut walls = vec![];
    s.legal().for_each_of_kind(5, |a| walls.push(a - WALL_BLOCK * NUM_SQUARES));
    // B1 Q1 A2 R2 A12 R12 B13 Q13 in square order.
    let names = ["B1", "Q1", "A2", "R2", "A12", "R12", "B13", "Q13"];
    assert_eq!(walls, names.iter().map(|n| sq(n)).collect::<Vec<_>>());
}

#[test]
fn two_placements_then_the_next_player() {
    let mut s = started(3);
    s.apply(WALL_BLOCK * NUM_SQUARES + sq("B1")).unwrap();
    assert_eq!((s.current_player, s.placements_left), (0, 1));
    s.apply(MERCHANT_BLOCK * NUM_SQUARES + sq("F5")).unwrap();
    assert_eq!((s.current_player, s.placements_left, s.turn), (1, 2, 2));
    assert_eq!(s.chain_ends, Bits::single(sq("E5")).with(sq("F5")));
}

#[test]
fn illegal_actions_are_refused_and_leave_the_state_unchanged() {
    let mut s = started(4);
    let before = s;
    assert!(s.apply(WALL_BLOCK * NUM_SQUARES + sq("C1")).is_err());
    assert!(s.apply(NUM_ACTIONS).is_err());
    assert!(s.apply(PASS_ACTION).is_err());
    assert_eq!(s, before);
}

#[test]
fn a_dome_claims_the_palace_and_its_tile() {
    let mut s = started(3);
    let gray = NUM_SQUARES; // block 1
    s.apply(gray + sq("H8")).unwrap();
    s.apply(gray + sq("H9")).unwrap();
    // Player 1 domes it.
    s.apply(DOME_BLOCK * NUM_SQUARES + sq("H9")).unwrap();
    assert_eq!(s.palaces[0].owner, 1);
    assert_eq!(s.palace_tiles[0], 1);
    assert_eq!(s.unfinished[0], -1);
    // 2 pieces + the gray palace tile (1).
    assert_eq!(s.scores()[..3], [0, 3, 0]);
}

#[test]
fn tower_values_parse_as_python() {
    assert_eq!(parse_tower_values("A13:1,R1:2,R13:3,A1:4"), Ok([4, 2, 1, 3]));
    assert_eq!(parse_tower_values("a1:0, r1:10,A13:7,R13:1"), Ok([0, 10, 7, 1]));
    assert!(parse_tower_values("A1:1,A1:2,A13:3,R13:4").is_err());
    assert!(parse_tower_values("A1:1,R1:2,A13:3").is_err());
    assert!(parse_tower_values("A1:-1,R1:2,A13:3,R13:4").is_err());
}

/// A seeded `below` for the tests.
fn below_from(seed: u64) -> impl FnMut(u32) -> u32 {
    let mut rng = Rng::new(seed);
    move |n| rng.below(n)
}

#[test]
fn random_games_end_and_keep_the_invariants() {
    for seed in 0..200u64 {
        let n = 3 + (seed % 2) as usize;
        let rules = match seed % 3 {
            0 => Rules::default(),
            1 => Rules::preset("boardspace").unwrap(),
            _ => Rules { last_player_by_supply: true, start_merchant_anywhere: true, ..Rules::default() },
        };
        let mut s = State::new(n, (seed as usize) % n, rules, seed % 2 == 0);
        let mut below = below_from(seed + 1);
        let mut plies = 0;
        while let Some(a) = s.random_action(&mut below) {
            assert!(s.is_legal(a));
            s.apply_legal(a);
            plies += 1;
            assert!(plies < 1000);
            // Pieces, stables and merchants are disjoint and occupied is their union.
            assert!((s.palace_mask & s.stables).is_empty());
            assert!((s.palace_mask & s.merchants).is_empty());
            assert_eq!(s.occupied, s.palace_mask | s.stables | s.merchants);
            // Every unfinished palace can grow.
            for col in 0..4 {
                assert_eq!(s.unfinished[col] >= 0, s.ext[col].any());
            }
            // Palace sizes are the pieces and stables found around their anchors.
            for pid in 0..s.num_palaces as usize {
                let pieces = s.palace_pieces(pid);
                assert_eq!(s.palaces[pid].size as u32, pieces.count() + palace_stables(&s, pid).count());
            }
        }
        assert!(s.is_terminal());
        assert_eq!(s.current_player, -1);
        let r = s.returns();
        assert!((r.iter().sum::<f64>() - 1.0).abs() < 1e-9);
    }
}
