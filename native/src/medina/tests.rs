//! Unit tests of the Rust rules (the differential tests against the Python engine are
//! `tests/native/test_medina_*.py`).

use super::board::*;
use super::moves::*;
use super::ruleset::*;
use super::state::*;
use crate::common::rng::Rng;

fn sq(name: &str) -> usize {
    let col = FILES.iter().position(|&c| c == name.as_bytes()[0]).unwrap();
    let row: usize = name[1..].parse().unwrap();
    square(col, row - 1)
}

fn started(n: usize) -> State {
    let mut s = State::new(n, 0, Rules::default());
    s.apply(sq("E5")).unwrap();
    s
}

#[test]
fn the_start_player_places_the_starting_merchant_on_an_inner_square() {
    let s = State::new(3, 0, Rules::default());
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
    s.legal()
        .for_each_of_kind(6, |a| walls.push(a - WALL_BLOCK * NUM_SQUARES));
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
            _ => Rules {
                last_player_by_supply: true,
                start_merchant_anywhere: true,
                ..Rules::default()
            },
        };
        let rules = Rules {
            stable_adjacency_scores: seed % 2 == 0,
            ..rules
        };
        let mut s = State::new(n, (seed as usize) % n, rules);
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
                assert_eq!(
                    s.palaces[pid].size as u32,
                    pieces.count() + palace_stables(&s, pid).count()
                );
            }
        }
        assert!(s.is_terminal());
        assert_eq!(s.current_player, -1);
        let r = s.returns();
        assert!((r.iter().sum::<f64>() - 1.0).abs() < 1e-9);
    }
}

/// The action of a move in notation (`gray@H8`, `dome@H8`, `wall@B1`, `pass`).
fn action(text: &str) -> usize {
    if text == "pass" {
        return PASS_ACTION;
    }
    let (piece, at) = text.split_once('@').unwrap();
    let block = [
        "start", "gray", "black", "brown", "orange", "dome", "stable", "merchant", "wall",
    ]
    .iter()
    .position(|&p| p == piece)
    .unwrap();
    block * NUM_SQUARES + sq(at)
}

fn play(s: &mut State, moves: &[&str]) {
    for m in moves {
        s.apply(action(m)).unwrap_or_else(|e| panic!("{m}: {e}"));
    }
}

#[test]
fn a_wall_in_front_of_an_owned_palace_takes_the_tower_tile() {
    let mut s = started(3);
    play(&mut s, &["gray@B2", "dome@B2", "wall@B1"]);
    assert_eq!(s.tower_tiles, [0, -1, -1, -1]);
    // 1 piece + 1 wall + the gray tile (1) + tower A1 (4).
    assert_eq!(s.scores()[0], 7);
    // Under A5 the tower's value is the variant's.
    let mut t = State::new(
        3,
        0,
        Rules {
            tower_values: [9, 0, 0, 0],
            ..Rules::default()
        },
    );
    play(&mut t, &["start@E5", "gray@B2", "dome@B2", "wall@B1"]);
    assert_eq!(t.scores()[0], 12);
}

#[test]
fn a_colour_retires_when_every_player_owns_one() {
    let mut s = started(3);
    play(&mut s, &["gray@C3", "dome@C3", "gray@H8", "dome@H8", "gray@M5"]);
    // Player 0's palace was first: an equal palace does not take the tile.
    assert_eq!(s.palace_tiles[0], 0);
    assert_eq!(s.retired, [0; 4]);
    play(&mut s, &["dome@M5"]);
    assert_eq!(s.owned[2 * 4], 2);
    assert_eq!(
        (0..3).map(|p| s.supply[p * NUM_SLOTS]).collect::<Vec<_>>(),
        vec![0, 0, 0]
    );
    assert_eq!(s.retired[0], 5 + 5 + 5);
}

#[test]
fn the_merchant_chain_grows_from_its_ends_only() {
    let mut s = started(3);
    play(&mut s, &["merchant@F5", "merchant@G5"]);
    assert_eq!(s.chain_ends, Bits::single(sq("E5")).with(sq("G5")));
    let m = s.merchant_squares();
    assert!(m.has(sq("H5")) && m.has(sq("D5")) && m.has(sq("G6")));
    assert!(!m.has(sq("F6")), "F6 is next to the chain's middle, not an end");
}

#[test]
fn presets_set_the_flags_of_the_python_presets() {
    let legacy = Rules::preset("boardspace_legacy").unwrap();
    assert!(legacy.abandoned_palace_claimable && legacy.new_chain_may_touch_one && legacy.tower_reconnect_per_run);
    assert!(!legacy.dome_obligation_lookahead && !legacy.stable_adjacency_scores);
    assert!(Rules::preset("boardspace").unwrap().stable_adjacency_scores);
    assert_eq!(Rules::preset("default"), Some(Rules::default()));
    assert_eq!(Rules::preset("nope"), None);
}

#[test]
fn the_tree_search_returns_a_legal_action() {
    let s = started(4);
    let game = super::game::Medina::of(&s);
    let result = crate::common::mcts::search(&game, &s, 300, 2.0, &mut Rng::new(3));
    assert!(s.is_legal(result.action.unwrap() as usize));
    assert!(result.nodes > 1);
}

#[test]
fn the_nth_legal_action_is_the_nth_listed_one_for_all_moves_and_each_kind() {
    for seed in 0..30u64 {
        let mut s = if seed < 20 {
            State::new(3 + (seed % 2) as usize, 0, Rules::default())
        } else {
            // The second edition: neutral domes and tea listed between the other kinds.
            second_edition(2 + (seed % 3) as usize, "second_edition")
        };
        let mut below = below_from(seed);
        loop {
            let legal = s.legal();
            let mut listed = Vec::new();
            legal.for_each(|a| listed.push(a));
            assert_eq!(legal.count() as usize, listed.len());
            let nth: Vec<usize> = (0..legal.count()).map(|i| legal.nth(i)).collect();
            assert_eq!(nth, listed);
            // The counted words give the same actions, by index and in one pass.
            let words = legal.words();
            assert_eq!(words.count(), listed.len());
            let direct = s.legal_words();
            assert_eq!((0..direct.count()).map(|i| direct.nth(i)).collect::<Vec<_>>(), listed);
            assert_eq!((0..words.count()).map(|i| words.nth(i)).collect::<Vec<_>>(), listed);
            let mut passed = Vec::new();
            words.for_each(|a| passed.push(a));
            assert_eq!(passed, listed);
            for kind in 0..KINDS.len() {
                let mut of_kind = Vec::new();
                legal.for_each_of_kind(kind, |a| of_kind.push(a));
                let only = legal.of_kind(kind);
                assert_eq!(only.count(), legal.count_of_kind(kind));
                let nth: Vec<usize> = (0..only.count()).map(|i| only.nth(i)).collect();
                assert_eq!(nth, of_kind);
                let words = only.words();
                assert_eq!((0..words.count()).map(|i| words.nth(i)).collect::<Vec<_>>(), of_kind);
                let direct = s.legal_words_of_kind(kind);
                assert_eq!((0..direct.count()).map(|i| direct.nth(i)).collect::<Vec<_>>(), of_kind);
            }
            match s.random_action(&mut below) {
                Some(a) => s.apply_legal(a),
                None => break,
            }
        }
    }
}

/// A started second-edition game of `players` (`preset`), the well on H7, the starting
/// merchant on E5 and two neutral domes a seat (as `rules.initial_state` with those squares).
fn second_edition(players: usize, preset: &str) -> State {
    let rules = Rules {
        neutral_domes: [2, 2, 2],
        ..Rules::preset(preset).unwrap()
    };
    let mut s = State::new(players, 0, rules);
    s.place_well(sq("H7"));
    s.place_start(sq("E5"));
    s.ply = 0;
    s
}

#[test]
fn the_second_edition_deals_its_supplies_towers_and_tea() {
    let s = second_edition(2, "second_edition");
    assert_eq!(s.supply[..NUM_SLOTS], [8, 8, 8, 8, 4, 4, 12, 15]);
    // Towers A1, P1, A12, P12 worth 4, 2, 1, 3: 0, 2, 3, 1 merchants on them (4 - value).
    assert_eq!(s.tower_merchants, [0, 2, 3, 1]);
    assert_eq!((s.tea_pool, s.neutral), (6, [2, 2, 0, 0]));
    // Turn 1 has one placement; the 2-player board's walls are next to its own towers.
    assert_eq!((s.turn, s.placements_left), (1, 1));
    assert!(s.wall_squares().has(sq("O1")) && !s.wall_squares().has(sq("Q1")));
    // The well's square is never free, its red squares take no palace.
    assert!(s.occupied.has(sq("H7")) && !s.new_palace_squares().has(sq("G6")));
    assert!(s.merchant_squares().andnot(s.geo().building).is_empty());
}

#[test]
fn a_neutral_dome_finishes_a_palace_for_nobody_and_a_purple_claim_pours_tea() {
    let mut s = second_edition(3, "second_edition");
    // Turn 1 (seat 0) and the one-placement turn 2 (seat 1), then two placements a turn.
    play(&mut s, &["black@C3", "merchant@F5"]);
    assert_eq!((s.current_player, s.placements_left), (2, 2));
    let neutral = NEUTRAL_BLOCK * NUM_SQUARES + sq("C3");
    assert!(s.is_legal(neutral));
    s.apply(neutral).unwrap();
    let pid = s.unfinished[1];
    assert_eq!(pid, -1, "the palace is finished");
    assert_eq!(s.palaces[0].owner, NEUTRAL);
    // Half the pool (rounded up) goes to the box, no seat gets it; the tile is neutral.
    assert_eq!((s.tea_pool, s.tea), (3, [0; 4]));
    assert_eq!(s.palace_tiles[1], NEUTRAL);
    assert_eq!(s.claims(), vec![0]);
    // Seat 2's second placement: a purple palace domed by a seat takes 2 of the 3 left.
    play(&mut s, &["black@M9"]);
    play(&mut s, &["dome@M9"]);
    assert_eq!((s.tea_pool, s.tea[0]), (1, 2));
    assert!(s.tea_usable(0) == 2);
}

#[test]
fn a_tea_tile_replaces_the_second_placement() {
    let mut s = second_edition(2, "second_edition");
    play(&mut s, &["black@C3", "dome@C3"]); // seat 0, then seat 1 domes purple
    assert_eq!(s.tea[1], 3);
    assert_eq!((s.current_player, s.second_step), (1, true));
    assert!(s.is_legal(TEA_ACTION) && s.legal().tea);
    s.apply(TEA_ACTION).unwrap();
    assert_eq!((s.current_player, s.tea[1], s.ply), (0, 2, 3));
    // Not at the first step of a turn.
    assert!(!s.is_legal(TEA_ACTION));
    assert_eq!(s.legal().count(), s.legal_words().count() as u32);
}

#[test]
fn the_tie_break_picks_the_largest_palace_then_the_earlier_claim() {
    let rules = Rules {
        tie_break_largest_palace: true,
        ..Rules::preset("second_edition").unwrap()
    };
    let mut s = State::new(2, 0, rules);
    s.place_start(sq("E5"));
    // Seat 0 starts gray; seat 1 grows and domes it; seat 0 builds and domes brown.
    play(&mut s, &["gray@C3", "gray@C4", "dome@C3", "brown@J9", "dome@J9"]);
    // Seat 0: brown of 1 (1 point + the brown tile 3); seat 1: gray of 2 (2 + tile 1).
    assert_eq!(s.scores()[..2], [4, 3]);
    assert_eq!(s.tie_break_winner(&[0, 1]), 1, "the larger palace");
    let (winners, k) = s.winners();
    assert_eq!(&winners[..k], &[0], "no tie: the top score wins");
}

#[test]
fn loading_a_second_edition_position_gives_it_back() {
    for (players, preset) in [(2, "second_edition"), (3, "boardspace_v2"), (4, "second_edition")] {
        let mut s = second_edition(players, preset);
        let mut below = below_from(players as u64);
        loop {
            let p = super::load::Position::of(&s);
            let loaded = super::load::load(s.rules, players, &p).unwrap_or_else(|e| panic!("{preset}: {e}"));
            assert_eq!(super::load::Position::of(&loaded), p);
            assert_eq!(loaded.legal().count(), s.legal().count());
            match s.random_action(&mut below) {
                Some(a) => s.apply_legal(a),
                None => break,
            }
        }
    }
}

#[test]
fn a_stable_next_to_a_wall_of_the_two_player_board_connects_its_palace() {
    // C12 is a wall space of the 2-player board (a building square of the big one).
    let mut s = second_edition(2, "second_edition");
    play(&mut s, &["gray@D11", "dome@D11", "wall@B12", "wall@C12", "stable@C11"]);
    // Tower A12 (worth 1, 3 merchants on it) to seat 1, its merchants to seat 1's supply.
    assert_eq!(s.tower_tiles, [-1, -1, 1, -1]);
    assert_eq!(s.tower_merchants[2], 0);
    assert_eq!(s.supply[NUM_SLOTS + MERCHANT], 12 + 3);
}
