//! Medina's evaluation (`games/medina/heuristics.py`, the same terms and constants): the
//! searches' `Game::evaluate` (`medina::game`), for the alpha-beta yardstick
//! (`common::alphabeta`) and its one-ply action priors.
//!
//! The evaluation is each seat's estimated final score: the score if the game ended now,
//! plus a share of each unfinished palace for the seats that could still dome it (more
//! to those who act sooner), an option value for each dome in hand that can still claim
//! a colour its holder lacks, and room to grow around owned palaces; in the second
//! edition also free well-bonus squares an owned palace's stable could take and tea
//! tiles. The Python module's docstring says why each term is there.

use super::board::{ortho_dilate, ortho_dilate_any};
use super::moves::{DOME, NUM_SLOTS, PURPLE, STABLE};
use super::state::{palace_stables, State};

const CLAIM_SHARE: f64 = 0.7;
const DOME_OPTION: f64 = 1.5;
const GROWTH_PER_SQUARE: f64 = 0.15;
const GROWTH_CAP: f64 = 2.0;
const YELLOW_OPTION: f64 = 1.5;
const TEA_VALUE: f64 = 0.3;

/// The points palace `pid` earns its owner (as if owned: `scoring.palace_score`).
fn palace_points(s: &State, pid: usize) -> f64 {
    let pieces = s.palace_pieces(pid);
    let stables = palace_stables(s, pid);
    let comps = pieces | stables;
    let reach = if s.rules.stable_adjacency_scores { comps } else { pieces };
    (pieces.count()
        + stables.count()
        + (ortho_dilate(reach) & s.merchants).count()
        + (ortho_dilate_any(comps) & s.walls).count()
        + 4 * (comps & s.yellow).count()) as f64
}

/// Whether no palace of `colour` can be claimed any more (retired, none unfinished).
fn dead_colour(s: &State, colour: usize) -> bool {
    s.retired[colour] > 0 && s.unfinished[colour] < 0
}

/// Each seat's estimated final score (the final scores once the game is over).
pub fn evaluate(s: &State) -> [f64; 4] {
    let scores = s.scores();
    let mut estimate = scores.map(|x| x as f64);
    if s.is_terminal() {
        return estimate;
    }
    let n = s.num_players as usize;
    let current = s.current_player as i64;
    let dome = |p: usize| s.supply[p * NUM_SLOTS + DOME];
    let second = s.rules.second();
    for (colour, &pid) in s.unfinished.iter().enumerate() {
        if pid < 0 {
            continue;
        }
        let eligible = |p: &usize| dome(*p) > 0 && s.owned[p * 4 + colour] < 0;
        if !(0..n).any(|p| eligible(&p)) {
            continue;
        }
        let mut value = palace_points(s, pid as usize);
        if s.palace_tiles[colour] < 0 {
            value += colour as f64 + 1.0; // the first claim of a colour takes its palace tile
        }
        if second && colour == PURPLE {
            value += TEA_VALUE * (s.tea_pool as u32).div_ceil(2) as f64; // this claim's tea tiles
        }
        // The seat to move gets first pick, then the others in turn order.
        let weight = |p: usize| 1.0 / (1 + (p as i64 - current).rem_euclid(n as i64)) as f64;
        let total: f64 = (0..n).filter(eligible).map(weight).sum();
        for p in (0..n).filter(eligible) {
            estimate[p] += CLAIM_SHARE * value * weight(p) / total;
        }
    }
    let free = s.geo().building.andnot(s.occupied);
    for (p, e) in estimate.iter_mut().enumerate().take(n) {
        let domes = dome(p) as usize;
        if domes > 0 {
            let lacking = (0..4).filter(|&c| s.owned[p * 4 + c] < 0 && !dead_colour(s, c)).count();
            *e += DOME_OPTION * domes.min(lacking) as f64;
        }
        for c in 0..4 {
            let pid = s.owned[p * 4 + c];
            if pid >= 0 {
                let pieces = s.palace_pieces(pid as usize);
                let around = ortho_dilate(pieces | palace_stables(s, pid as usize)) & free;
                *e += GROWTH_CAP.min(GROWTH_PER_SQUARE * around.count() as f64);
                if second && s.supply[p * NUM_SLOTS + STABLE] > 0 {
                    // A free yellow square a stable of this palace could take (not red,
                    // not touching another palace).
                    let yellow = (ortho_dilate(pieces) & free & s.yellow).andnot(s.contested);
                    *e += YELLOW_OPTION * yellow.count() as f64;
                }
            }
        }
        if second {
            *e += TEA_VALUE * s.tea[p] as f64;
        }
    }
    estimate
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::common::alphabeta::{search, Budget, Settings};
    use crate::common::rng::Rng;
    use crate::game::Game as _;
    use crate::medina::game::Medina;
    use crate::medina::ruleset::Rules;

    fn medina(num_players: usize) -> Medina {
        Medina {
            num_players,
            rules: Rules::preset("default").expect("a preset"),
        }
    }

    /// A 3-player game after `actions` kind-first random actions of seed `seed`.
    fn position(players: usize, actions: u32, seed: u64) -> State {
        let mut rng = Rng::new(seed);
        let mut s = State::new(players, 0, Rules::preset("default").expect("a preset"));
        for _ in 0..actions {
            match s.random_action(&mut |k| rng.below(k)) {
                Some(action) => s.apply_legal(action),
                None => break,
            }
        }
        s
    }

    #[test]
    fn the_estimate_is_the_score_plus_what_is_likely_to_come() {
        let mut differs = 0;
        for seed in 0..20 {
            let s = position(3, 40, seed);
            let estimate = evaluate(&s);
            let scores = s.scores();
            for p in 0..3 {
                // Every term added to the score is a gain.
                assert!(estimate[p] >= scores[p] as f64, "seed {seed}");
                differs += (estimate[p] > scores[p] as f64) as u32;
            }
            assert_eq!(estimate[3], 0.0);
        }
        assert!(differs > 20, "{differs}");
        let mut end = position(3, 0, 1);
        medina(3).playout(&mut end, &mut Rng::new(1), u32::MAX);
        assert!(end.is_terminal());
        assert_eq!(evaluate(&end), end.scores().map(|x| x as f64));
    }

    /// With one placement left to the seat to act, a depth-1 search plays the action of
    /// the best one-ply lead (the prior's best).
    #[test]
    fn depth_one_plays_the_best_one_ply_lead() {
        let game = medina(3);
        for seed in 0..6 {
            let s = position(3, 30 + seed as u32, seed);
            if s.is_terminal() {
                continue;
            }
            let mut actions = Vec::new();
            game.legal_actions(&s, &mut actions);
            let mut priors = Vec::new();
            assert!(game.action_priors(&s, &actions, &mut priors));
            let best = priors.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let settings = Settings { max_depth: 1, width: 0 };
            let result = search(&game, &s, &settings, &Budget::default());
            let chosen = actions
                .iter()
                .position(|&a| Some(a) == result.action)
                .expect("a legal action");
            assert_eq!(priors[chosen], best, "seed {seed}");
            assert_eq!(result.depth, 1);
        }
    }

    #[test]
    fn a_deeper_search_returns_a_legal_action_and_its_depth() {
        let game = medina(3);
        let s = position(3, 24, 3);
        let settings = Settings { max_depth: 3, width: 6 };
        let result = search(&game, &s, &settings, &Budget::default());
        assert_eq!(result.depth, 3);
        assert!(!result.pv.is_empty() && result.pv.len() <= 3);
        assert!(s.is_legal(result.action.expect("an action") as usize));
        let mut line = s;
        for &action in &result.pv {
            assert!(line.is_legal(action as usize));
            line.apply_legal(action as usize);
        }
    }

    /// Along random games: where an action ends the game with the seat to act the only
    /// winner, the alpha-beta at depth 1 plays such an action.
    #[test]
    fn the_alphabeta_takes_a_winning_end() {
        let game = medina(3);
        let one_ply = Settings { max_depth: 1, width: 0 };
        let mut wins = 0;
        for seed in 0..12u64 {
            let mut s = position(3, 0, seed);
            let mut rng = Rng::new(seed + 100);
            while !s.is_terminal() {
                let seat = s.current_player as usize;
                let mut actions = Vec::new();
                game.legal_actions(&s, &mut actions);
                let wins_here = |a: u32| {
                    let child = game.after(&s, a);
                    let (winners, k) = child.winners();
                    child.is_terminal() && k == 1 && winners[0] == seat as u8
                };
                if actions.iter().any(|&a| wins_here(a)) {
                    let found = search(&game, &s, &one_ply, &Budget::default());
                    assert!(wins_here(found.action.expect("an action")), "seed {seed}");
                    wins += 1;
                }
                let action = s.random_action(&mut |k| rng.below(k)).expect("not over");
                s.apply_legal(action);
            }
        }
        assert!(wins > 0, "{wins}");
    }

    /// Paranoid minimax by brute force: the root seat's lead, maximised by it, minimised by
    /// every other seat.
    fn minimax(game: &Medina, s: &State, depth: u32, root: usize) -> f64 {
        let seat = game.to_act(s);
        if seat < 0 || depth == 0 {
            let mut e = [0.0; 4];
            game.evaluate(s, &mut e[..game.num_players]);
            let rival = (0..game.num_players)
                .filter(|&j| j != root)
                .fold(f64::NEG_INFINITY, |m, j| m.max(e[j]));
            let lead = e[root] - rival;
            return if seat < 0 {
                lead + crate::common::alphabeta::WIN * lead.signum()
            } else {
                lead
            };
        }
        let mut actions = Vec::new();
        game.legal_actions(s, &mut actions);
        let values = actions
            .iter()
            .map(|&a| minimax(game, &game.after(s, a), depth - 1, root));
        if seat as usize == root {
            values.fold(f64::NEG_INFINITY, f64::max)
        } else {
            values.fold(f64::INFINITY, f64::min)
        }
    }

    /// At the last placement of a turn, depth 2 is the seat's placement and the next
    /// seat's answer: the alpha-beta's value is brute-force paranoid minimax's.
    #[test]
    fn the_alphabeta_value_is_paranoid_minimaxs_across_a_turn_end() {
        let mut checked = 0;
        for (players, seed) in [(3, 1), (3, 2), (4, 3)] {
            let game = medina(players);
            let mut s = position(players, 70, seed);
            let mut rng = Rng::new(seed);
            for _ in 0..2 {
                while !s.is_terminal() && s.placements_left != 1 {
                    let action = s.random_action(&mut |k| rng.below(k)).expect("not over");
                    s.apply_legal(action);
                }
                if s.is_terminal() {
                    break;
                }
                let root = s.current_player as usize;
                let found = search(&game, &s, &Settings { max_depth: 2, width: 0 }, &Budget::default());
                assert_eq!(
                    found.value,
                    minimax(&game, &s, 2, root),
                    "{players} players, seed {seed}"
                );
                let next = game.after(&s, found.action.expect("an action"));
                assert!(next.is_terminal() || next.current_player as usize != root);
                checked += 1;
                let action = s.random_action(&mut |k| rng.below(k)).expect("not over");
                s.apply_legal(action);
            }
        }
        assert!(checked >= 4, "{checked}");
    }
}
