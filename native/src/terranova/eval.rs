//! Terra Nova's evaluation (`games/terranova/heuristics.py`, same constants and steps), the
//! searches' `Game::evaluate` (`terranova::game`).
//!
//! The evaluation is each seat's estimated final score: points already scored plus the
//! Voronoi territory of its pioneers in every live zone (capped per pioneer, weighed up
//! in small zones), scaled by how likely the game is to go on (stall rule, stones left,
//! two seats mobile). The Python module's docstring says why each term is there.

// Seats index several parallel arrays at once (pioneers, fronts, totals), as in Python.
#![allow(clippy::needless_range_loop)]

use super::state::{Game, State, MAX_SEATS};
use crate::common::bits::Bits;

const CELL_VALUE: f64 = 0.5;
const CELLS_PER_PIONEER: f64 = 6.0;
const STUCK: f64 = 0.5;
const URGENCY: f64 = 8.0;

/// The features of a learned evaluation (`features`), in their order: each is a sum over
/// the live zones of one seat's share (`ZoneShare`), most of them scaled by the chance
/// that the game goes on (`going`: the stall rule and two seats mobile, as in
/// `evaluate`).
pub const FEATURE_NAMES: [&str; NUM_FEATURES] = [
    "going_territory", // going x the hand-written territory (capped per pioneer, small zones weighed up)
    "going_capped",    // going x the territory capped per pioneer, not weighed
    "going_owned",     // going x the Voronoi cells, uncapped
    "going_alone",     // going x the capped territory of zones no rival's pioneer is in
    "going_pioneers",  // going x the pioneers in live zones
    "going",           // going itself
    "capped",          // the capped territory, whether or not the game goes on
    "going_small",     // going x the capped territory in zones of at most SMALL_ZONE cells
    "going_in_hand",   // going x the stones in the seat's hand
    "going_mobile",    // going x the seat's pioneers beside an empty cell
];
pub const NUM_FEATURES: usize = 10;

/// A zone of at most this many cells counts in `going_small`: near to being scored.
const SMALL_ZONE: f64 = 12.0;

/// The weights of a learned evaluation: a seat's estimate is its points plus the dot
/// product of these with its `features` (`tools/fit_evaluation.py` fits them to final
/// scores of self-play games). The hand-written evaluation is `CELL_VALUE` on
/// `going_territory` and nothing else.
pub type Weights = [f64; NUM_FEATURES];

/// Each seat's estimated final score (the scores once the game is over): by the learned
/// weights where the game has them (`Game::learned`), else by the hand-written terms.
pub fn evaluate<const W: usize>(g: &Game<W>, s: &State<W>) -> [f64; MAX_SEATS] {
    let n = g.num_players;
    let mut estimate = [0.0; MAX_SEATS];
    for (e, &p) in estimate.iter_mut().zip(s.points.iter()).take(n) {
        *e = p as f64;
    }
    if is_settled(g, s) {
        return estimate;
    }
    let going = going(g, s);
    if let Some(weights) = &g.learned {
        let features = features_with(g, s, going);
        for seat in 0..n {
            estimate[seat] += weights
                .iter()
                .zip(features[seat].iter())
                .map(|(w, f)| w * f)
                .sum::<f64>();
        }
        return estimate;
    }
    let territory = territories(g, s);
    for seat in 0..n {
        estimate[seat] += going * CELL_VALUE * territory[seat];
    }
    estimate
}

/// Each seat's features of a learned evaluation (`FEATURE_NAMES`); all zero once nothing
/// more can score (the game over, or the supply empty where that ends it).
pub fn features<const W: usize>(g: &Game<W>, s: &State<W>) -> [[f64; NUM_FEATURES]; MAX_SEATS] {
    if is_settled(g, s) {
        return [[0.0; NUM_FEATURES]; MAX_SEATS];
    }
    features_with(g, s, going(g, s))
}

/// Whether nothing more can score: over, or the supply empty where E4 ends the game.
fn is_settled<const W: usize>(g: &Game<W>, s: &State<W>) -> bool {
    s.termination.is_some() || (s.supply <= 0 && g.rules.end_on_stones_exhausted)
}

/// The chance that the game goes on long enough for territory to score: the stall rule's
/// `1 - (stall / limit)^2` times `going_on`.
fn going<const W: usize>(g: &Game<W>, s: &State<W>) -> f64 {
    let limit = g.rules.stall_limit_rounds;
    let mut progress = 1.0;
    if limit > 0 {
        let used = s.stall as f64 / (limit as f64 * g.num_players as f64);
        progress = (1.0 - used * used).max(0.0);
    }
    progress * going_on(g, s)
}

fn features_with<const W: usize>(g: &Game<W>, s: &State<W>, going: f64) -> [[f64; NUM_FEATURES]; MAX_SEATS] {
    let mut out = [[0.0; NUM_FEATURES]; MAX_SEATS];
    for_each_zone_share(g, s, |share| {
        let capped = share.owned.min(CELLS_PER_PIONEER * share.pioneers);
        let f = &mut out[share.seat];
        f[0] += going * (1.0 + URGENCY / share.size) * capped;
        f[1] += going * capped;
        f[2] += going * share.owned;
        if share.alone {
            f[3] += going * capped;
        }
        f[4] += going * share.pioneers;
        f[6] += capped;
        if share.size <= SMALL_ZONE {
            f[7] += going * capped;
        }
    });
    let mobile = mobile_pioneers(g, s);
    for (seat, f) in out.iter_mut().enumerate().take(g.num_players) {
        f[5] = going;
        f[8] = going * f64::from(s.in_hand[seat]);
        f[9] = going * f64::from(mobile[seat]);
    }
    out
}

/// Each seat's territory in weighted cells (`heuristics.territories`).
fn territories<const W: usize>(g: &Game<W>, s: &State<W>) -> [f64; MAX_SEATS] {
    let mut totals = [0.0; MAX_SEATS];
    for_each_zone_share(g, s, |share| {
        let weight = 1.0 + URGENCY / share.size;
        totals[share.seat] += weight * share.owned.min(CELLS_PER_PIONEER * share.pioneers);
    });
    totals
}

/// One seat's part of one live zone (a zone holding pioneers).
struct ZoneShare {
    seat: usize,
    /// The zone's open cells.
    size: f64,
    /// The seat's Voronoi cells in the zone (all of it where it is alone there).
    owned: f64,
    /// The seat's pioneers in the zone.
    pioneers: f64,
    /// No rival's pioneer is in the zone.
    alone: bool,
}

/// Visits each seat's share of each live zone, zone by zone (the lowest pioneer's first).
fn for_each_zone_share<const W: usize>(g: &Game<W>, s: &State<W>, mut visit: impl FnMut(ZoneShare)) {
    let board = &g.board;
    let n = g.num_players;
    let open = board.all.minus(&(s.stones | s.closed));
    let mut everyone = Bits::EMPTY;
    for p in &s.pioneers[..n] {
        everyone |= *p;
    }
    let mut unseen = everyone;
    while let Some(first) = unseen.lowest() {
        let zone = board.flood_fill(&Bits::single(first), &open);
        unseen = unseen.minus(&zone);
        let size = zone.count() as f64;
        let mut present = [0usize; MAX_SEATS];
        let mut num_present = 0;
        for seat in 0..n {
            if s.pioneers[seat].intersects(&zone) {
                present[num_present] = seat;
                num_present += 1;
            }
        }
        let pioneers = |seat: usize| (s.pioneers[seat] & zone).count() as f64;
        if num_present == 1 {
            let seat = present[0];
            visit(ZoneShare {
                seat,
                size,
                owned: size,
                pioneers: pioneers(seat),
                alone: true,
            });
            continue;
        }
        let mut fronts = [Bits::<W>::EMPTY; MAX_SEATS];
        let mut owned = [0.0; MAX_SEATS];
        for i in 0..num_present {
            fronts[i] = s.pioneers[present[i]] & zone;
            owned[i] = fronts[i].count() as f64;
        }
        let mut reached = everyone & zone;
        loop {
            let mut grows = [Bits::<W>::EMPTY; MAX_SEATS];
            let (mut union, mut twice, mut thrice) = (Bits::EMPTY, Bits::EMPTY, Bits::EMPTY);
            for i in 0..num_present {
                let grow = board.spread(&fronts[i]) & zone.minus(&reached);
                thrice |= twice & grow;
                twice |= union & grow;
                union |= grow;
                grows[i] = grow;
            }
            if union.is_empty() {
                break;
            }
            for i in 0..num_present {
                let grow = grows[i];
                if grow.is_empty() {
                    continue;
                }
                if grow.intersects(&twice) {
                    owned[i] += grow.minus(&twice).count() as f64
                        + (grow & twice).minus(&thrice).count() as f64 / 2.0
                        + (grow & thrice).count() as f64 / 3.0;
                } else {
                    owned[i] += grow.count() as f64;
                }
            }
            reached |= union;
            fronts = grows;
        }
        for i in 0..num_present {
            let seat = present[i];
            visit(ZoneShare {
                seat,
                size,
                owned: owned[i],
                pioneers: pioneers(seat),
                alone: false,
            });
        }
    }
}

/// The chance that at least two seats stay mobile (`heuristics.going_on`).
fn going_on<const W: usize>(g: &Game<W>, s: &State<W>) -> f64 {
    let n = g.num_players;
    let mobile = mobile_pioneers(g, s);
    let mut chances = [0.0f64; MAX_SEATS];
    for seat in 0..n {
        chances[seat] = 1.0 - STUCK.powi(mobile[seat] as i32);
    }
    chances[..n].sort_by(|a, b| b.total_cmp(a));
    chances[0] * chances[1]
}

/// Each seat's pioneers beside an empty cell (those that can still move).
fn mobile_pioneers<const W: usize>(g: &Game<W>, s: &State<W>) -> [u32; MAX_SEATS] {
    let n = g.num_players;
    let mut everyone = Bits::EMPTY;
    for p in &s.pioneers[..n] {
        everyone |= *p;
    }
    let empty = g.board.all.minus(&(s.stones | s.closed | everyone));
    let beside_empty = g.board.spread(&empty);
    let mut mobile = [0; MAX_SEATS];
    for seat in 0..n {
        mobile[seat] = (s.pioneers[seat] & beside_empty).count();
    }
    mobile
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::common::alphabeta;
    use crate::common::mcts::{search_with, Budget, Settings};
    use crate::common::rng::Rng;
    use crate::game::{ends_within, leaf_values, Game as _, Objective};
    use crate::terranova::board::{Board, Rules};

    /// A hexagonal island of radius 5, seven landscapes (one of them water).
    fn island(num_players: usize) -> Game<4> {
        let mut cells = Vec::new();
        for r in -5i32..=5 {
            for q in -5i32..=5 {
                if (q + r).abs() <= 5 {
                    cells.push((q, r, ((q * 3 + r * 5).rem_euclid(7)) as u8));
                }
            }
        }
        let water = [false, false, false, false, false, false, true];
        Game {
            board: Board::new(&cells, &water).unwrap(),
            rules: Rules::default(),
            num_players,
            learned: None,
        }
    }

    /// A rollout with a limit and `ends_within` walk the game that a whole random playout
    /// plays from the same seed, and stop after `limit` actions.
    #[test]
    fn the_limited_walks_follow_the_whole_playout_of_the_same_seed() {
        let game = island(2);
        let mut state = game.initial(1);
        let mut rng = Rng::new(11);
        let mut slides = Vec::new();
        let mut ended = [0; 2];
        for seed in 0..60u64 {
            let mv = state.random_move(&game, &mut rng, &mut slides).unwrap();
            state.play(&game, mv);
            if state.is_terminal() {
                break;
            }
            let mut end = state;
            let actions = game.playout(&mut end, &mut Rng::new(seed), u32::MAX);
            for limit in [actions as u32 - 1, actions as u32] {
                let over = ends_within(&game, &state, &mut Rng::new(seed), limit);
                assert_eq!(over, limit as u64 >= actions);
                ended[over as usize] += 1;
                let (mut returns, mut scores) = ([0.0; 2], [0.0; 2]);
                leaf_values(
                    &game,
                    &state,
                    limit,
                    Objective::Win,
                    &mut Rng::new(seed),
                    &mut returns,
                    &mut scores,
                );
                let mut walked = state;
                game.playout(&mut walked, &mut Rng::new(seed), limit);
                assert_eq!(walked.is_terminal(), over);
                assert_eq!(scores[..].to_vec(), evaluate(&game, &walked)[..2].to_vec());
                if over {
                    assert_eq!(walked, end);
                    let winners = end.winners(&game);
                    for (p, &r) in returns.iter().enumerate() {
                        assert_eq!(r > 0.0, winners.contains(&p));
                    }
                }
            }
        }
        assert!(ended[0] == ended[1] && ended[0] > 40, "{ended:?}");
    }

    #[test]
    fn the_prior_is_the_estimated_lead_after_each_action_and_ranks_the_root() {
        let game = island(2);
        let mut state = game.initial(0);
        let mut rng = Rng::new(5);
        let mut slides = Vec::new();
        for _ in 0..40 {
            let mv = state.random_move(&game, &mut rng, &mut slides).unwrap();
            state.play(&game, mv);
        }
        let seat = game.to_act(&state) as usize;
        let actions = state.legal_actions(&game);
        let mut priors = Vec::new();
        assert!(game.action_priors(&state, &actions, &mut priors));
        for (&action, &prior) in actions.iter().zip(priors.iter()) {
            let estimate = evaluate(&game, &game.after(&state, action));
            assert_eq!(prior, estimate[seat] - estimate[1 - seat]);
        }
        let settings = Settings {
            uct_c: 0.2,
            widening: 1.0,
            rank_root: true,
            rollout_limit: Some(0),
            ..Settings::default()
        };
        let result = search_with(&game, &state, &settings, &Budget::simulations(50), &mut Rng::new(1));
        // ceil(sqrt(49)) = 7 children: the best seven by the prior.
        let prior_of = |a: u32| priors[actions.iter().position(|&b| b == a).unwrap()];
        let searched: Vec<f64> = result.children.iter().map(|c| prior_of(c.0)).collect();
        let worst_searched = searched.iter().cloned().fold(f64::INFINITY, f64::min);
        let better_unsearched = actions
            .iter()
            .filter(|a| !result.children.iter().any(|c| c.0 == **a))
            .filter(|&&a| prior_of(a) > worst_searched)
            .count();
        assert_eq!((searched.len(), better_unsearched), (7, 0));
    }

    /// The hand-written evaluation is one learned one: `CELL_VALUE` on `going_territory`;
    /// other weights move the estimate by their features, and nothing is learned where
    /// nothing more can score.
    #[test]
    fn the_learned_evaluation_holds_the_hand_written_one_and_weighs_its_features() {
        let game = island(2);
        let mut hand = [0.0; NUM_FEATURES];
        hand[0] = CELL_VALUE;
        let learned = game.with_learned_evaluation(&hand).unwrap();
        let mut other = [0.0; NUM_FEATURES];
        other[1] = 0.25;
        other[5] = 3.0;
        let shifted = game.with_learned_evaluation(&other).unwrap();
        let mut state = game.initial(0);
        let mut rng = Rng::new(3);
        let mut slides = Vec::new();
        let mut compared = 0;
        while !state.is_terminal() {
            let (expected, got) = (evaluate(&game, &state), evaluate(&learned, &state));
            let features = features(&game, &state);
            let shifted_estimate = evaluate(&shifted, &state);
            for seat in 0..2 {
                assert!((expected[seat] - got[seat]).abs() < 1e-9, "{expected:?} {got:?}");
                let points = state.points[seat] as f64;
                let by_weights = 0.25 * features[seat][1] + 3.0 * features[seat][5];
                assert!((shifted_estimate[seat] - points - by_weights).abs() < 1e-9);
                assert!(features[seat][2] >= features[seat][1] && features[seat][6] >= features[seat][1]);
            }
            compared += 1;
            let mv = state.random_move(&game, &mut rng, &mut slides).unwrap();
            state.play(&game, mv);
        }
        assert_eq!(features(&game, &state), [[0.0; NUM_FEATURES]; MAX_SEATS]);
        assert!(compared > 100);
        assert!(game.with_learned_evaluation(&[1.0; 3]).is_err());
        assert!(game.with_learned_evaluation(&[f64::NAN; NUM_FEATURES]).is_err());
    }

    /// Along random games: where an action ends the game with the seat to act the only
    /// winner, the alpha-beta at depth 1 plays such an action; now and then where no
    /// action ends the game, it plays an action of the best one-ply lead (the prior's).
    #[test]
    fn the_alphabeta_takes_a_winning_end_and_else_the_best_lead() {
        let game = island(2);
        let one_ply = alphabeta::Settings { max_depth: 1, width: 0 };
        let (mut wins, mut checked) = (0, 0);
        for seed in 0..8u64 {
            let mut state = game.initial(seed as usize % 2);
            let mut rng = Rng::new(seed);
            let mut slides = Vec::new();
            let mut step = 0;
            while !state.is_terminal() {
                step += 1;
                let actions = state.legal_actions(&game);
                let seat = game.to_act(&state) as usize;
                let wins_here = |a: u32| {
                    let child = game.after(&state, a);
                    child.is_terminal() && child.winners(&game) == vec![seat]
                };
                let winning = actions.iter().any(|&a| wins_here(a));
                let ending = actions.iter().any(|&a| game.after(&state, a).is_terminal());
                if winning || (!ending && step % 17 == 0) {
                    let found = alphabeta::search(&game, &state, &one_ply, &alphabeta::Budget::default());
                    let action = found.action.expect("an action");
                    if winning {
                        assert!(wins_here(action), "seed {seed}, step {step}");
                        wins += 1;
                    } else {
                        let mut priors = Vec::new();
                        assert!(game.action_priors(&state, &actions, &mut priors));
                        let best = priors.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
                        assert_eq!(priors[actions.iter().position(|&a| a == action).unwrap()], best);
                        checked += 1;
                    }
                }
                let mv = state.random_move(&game, &mut rng, &mut slides).unwrap();
                state.play(&game, mv);
            }
        }
        assert!(wins > 0 && checked > 5, "{wins} {checked}");
    }
}
