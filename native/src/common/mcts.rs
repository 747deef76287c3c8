//! Monte Carlo tree search with random rollouts, for any game of this crate.
//!
//! As OpenSpiel's `MCTSBot`: UCT selection, and each simulation ends in one random
//! rollout; values are per seat (each node holds the rewards of the seat that chose its
//! action), so multi-player games and turns of several actions by one seat need nothing
//! special. The tree holds no states: each simulation plays its actions from the root.
//!
//! Children are created lazily, one per simulation: a node lists its actions when a
//! simulation wants a child it does not have yet, and adds one untried action, drawn in
//! a random order (a per-node affine permutation of the action list, so nothing is
//! stored but a count). Every untried action is still tried before any is tried twice,
//! as OpenSpiel's expansion of all children does, but a simulation adds one node, not one
//! per legal action (Terra Nova's ~170): the tree grows by ~1 node (28 bytes) per
//! simulation. With `widening > 0` (progressive widening) a node with `v` visits has at
//! most `ceil(widening * v^0.5)` children, so the search goes deeper in wide positions.
//!
//! The search stops at the first of its budgets: simulations, CPU seconds of the
//! searching thread, wall seconds, or a stop flag set from another thread.

use super::rng::Rng;
use crate::game::{ends_within, leaf_values, Game, Objective};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// How the tree is grown and searched.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// The UCT exploration constant.
    pub uct_c: f64,
    /// Progressive widening: at most `ceil(widening * visits^0.5)` children per node;
    /// `0` tries every action once before any twice (OpenSpiel's `MCTSBot`).
    pub widening: f64,
    /// How much of a rollout's reward is the seat's final score margin rather than its
    /// win share (`0`: win share only): `(1 - w) * share + w * margin_value`, where
    /// `margin_value` is the logistic of the lead over the best other seat in units of
    /// `max(1.5, 0.1 * top score)` points (the Python levels' `ScoreValue`).
    pub margin_weight: f64,
    /// The exponent of progressive widening: `ceil(widening * visits^widening_power)`.
    pub widening_power: f64,
    /// Expand the root's actions best first by the game's `action_priors` (where it has
    /// them) instead of in a random order; with widening, only the best are searched.
    pub rank_root: bool,
    /// Also rank the untried actions of every node with at least this many visits
    /// (`0`: no node below the root).
    pub rank_visits: u32,
    /// With a `rollout_limit`: if a random playout from the root ends within this many
    /// actions, every leaf is valued by a random rollout to the end instead of stopping
    /// early and taking the evaluation (`0`: never): the
    /// Python levels' `AdaptiveRollout`.
    pub horizon: u32,
    /// Leaves valued by the game's evaluation after at most this many random actions
    /// (`game::leaf_values`), and nodes ranked by its one-ply priors where asked
    /// (`rank_root`, `rank_visits`); `None`: random rollouts to the end, no ranking.
    pub rollout_limit: Option<u32>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            uct_c: 2.0,
            widening: 0.0,
            margin_weight: 0.0,
            widening_power: 0.5,
            rank_root: false,
            rank_visits: 0,
            horizon: 0,
            rollout_limit: None,
        }
    }
}

/// Blends score margins into `returns` (see `Settings::margin_weight`).
fn blend_margins(returns: &mut [f64], scores: &[f64], weight: f64) {
    if returns.len() < 2 {
        return;
    }
    let top = scores.iter().fold(0.0f64, |m, s| m.max(s.abs()));
    let unit = (0.1 * top).max(1.5);
    for (i, reward) in returns.iter_mut().enumerate() {
        let rival = scores
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != i)
            .fold(f64::NEG_INFINITY, |m, (_, &s)| m.max(s));
        let margin = 1.0 / (1.0 + (-(scores[i] - rival) / unit).exp());
        *reward = (1.0 - weight) * *reward + weight * margin;
    }
}

/// When the search stops: at the first budget reached (at least one simulation is run
/// whatever the budgets, so there is a move to return).
#[derive(Clone, Copy, Debug, Default)]
pub struct Budget<'a> {
    pub simulations: Option<u64>,
    /// CPU seconds of the searching thread (load-independent on a shared machine).
    pub cpu_seconds: Option<f64>,
    pub wall_seconds: Option<f64>,
    /// Stops the search at its next check (every few simulations) once set.
    pub stop: Option<&'a AtomicBool>,
}

impl Budget<'_> {
    /// Whether a search that has run `done` simulations, started at `wall_start` with
    /// `cpu_deadline` (the thread's CPU seconds), is to stop; the stop flag and the
    /// clocks are read only where `read_clocks` (a search reads them every few
    /// simulations: the CPU clock is a system call).
    #[inline]
    pub fn spent(&self, done: u64, cpu_deadline: Option<f64>, wall_start: Instant, read_clocks: bool) -> bool {
        if self.simulations.is_some_and(|limit| done >= limit) {
            return true;
        }
        if !read_clocks {
            return false;
        }
        if self.stop.is_some_and(|flag| flag.load(Ordering::Relaxed)) {
            return true;
        }
        if cpu_deadline.is_some_and(|deadline| thread_cpu_seconds() >= deadline) {
            return true;
        }
        self.wall_seconds
            .is_some_and(|seconds| wall_start.elapsed().as_secs_f64() >= seconds)
    }

    /// A budget of `simulations` simulations only.
    pub fn simulations(simulations: u64) -> Self {
        Budget {
            simulations: Some(simulations),
            ..Budget::default()
        }
    }
}

/// One node of the tree: 28 bytes.
#[derive(Clone, Copy, Debug)]
pub struct Node {
    /// The action that led here from the parent.
    pub action: u32,
    pub visits: u32,
    /// The rewards of the seat that chose `action`, summed over the visits.
    pub total: f32,
    /// The newest child (`NONE` if none); children are linked by `next_sibling`.
    pub first_child: u32,
    pub next_sibling: u32,
    /// How many legal actions the position has (`UNLISTED` until first listed).
    pub num_actions: u32,
    /// The seat that chose `action` (top 8 bits) and the number of children.
    meta: u32,
}

const NONE: u32 = u32::MAX;
const UNLISTED: u32 = u32::MAX;
const CHILDREN_MASK: u32 = (1 << 24) - 1;

impl Node {
    fn new(action: u32, player: usize) -> Self {
        Node {
            action,
            visits: 0,
            total: 0.0,
            first_child: NONE,
            next_sibling: NONE,
            num_actions: UNLISTED,
            meta: (player as u32) << 24,
        }
    }

    /// The seat whose rewards `total` sums.
    pub fn player(&self) -> usize {
        (self.meta >> 24) as usize
    }

    pub fn num_children(&self) -> u32 {
        self.meta & CHILDREN_MASK
    }
}

/// What one search found.
#[derive(Clone, Debug)]
pub struct SearchResult {
    /// The most visited action at the root (`None` if the root has no legal action).
    pub action: Option<u32>,
    /// `(action, visits, mean reward of the seat to move)` of each root child.
    pub children: Vec<(u32, u32, f64)>,
    pub simulations: u64,
    pub nodes: usize,
    /// Bytes of tree per node.
    pub node_bytes: usize,
    /// Bytes the tree's storage holds (its capacity).
    pub tree_bytes: usize,
}

/// The CPU time this thread has used, in seconds (wall time where the platform has no
/// per-thread clock).
pub fn thread_cpu_seconds() -> f64 {
    #[cfg(target_os = "linux")]
    {
        #[repr(C)]
        struct Timespec {
            tv_sec: i64,
            tv_nsec: i64,
        }
        extern "C" {
            fn clock_gettime(clock: i32, time: *mut Timespec) -> i32;
        }
        const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
        let mut time = Timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: `time` is a valid, writable timespec (64-bit fields on the 64-bit Linux
        // targets this crate builds for) and the clock id is Linux's thread CPU clock.
        if unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut time) } == 0 {
            return time.tv_sec as f64 + time.tv_nsec as f64 * 1e-9;
        }
    }
    static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_secs_f64()
}

/// The `index`-th untried action of a node with `n` actions, in the node's own random
/// order: `(a * index + b) mod n` with `a` coprime to `n`, both drawn from `key`.
fn permuted(index: u32, n: u32, key: u64) -> u32 {
    let n64 = n as u64;
    let mut a = (key >> 32) % n64;
    a = a.max(1);
    while gcd(a, n64) != 1 {
        a += 1;
    }
    let b = (key & 0xFFFF_FFFF) % n64;
    ((a * index as u64 + b) % n64) as u32
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// A per-node key for its order of actions (SplitMix64 of the node index and the seed).
fn node_key(node: usize, seed: u64) -> u64 {
    let mut z = (node as u64 ^ seed).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Runs `simulations` simulations from `root` with UCT constant `uct_c` (OpenSpiel's
/// `MCTSBot` settings).
pub fn search<G: Game>(game: &G, root: &G::State, simulations: u32, uct_c: f64, rng: &mut Rng) -> SearchResult {
    let settings = Settings {
        uct_c,
        ..Settings::default()
    };
    search_with(game, root, &settings, &Budget::simulations(simulations as u64), rng)
}

/// Searches from `root` until a budget of `budget` is reached.
pub fn search_with<G: Game>(
    game: &G,
    root: &G::State,
    settings: &Settings,
    budget: &Budget<'_>,
    rng: &mut Rng,
) -> SearchResult {
    search_ordered(game, root, settings, budget, rng, None)
}

/// [`search_with`], the root's actions ranked by `root_order` (best first; actions it
/// does not list after those it does) instead of the game's one-ply priors where
/// `rank_root` asks for a ranking: a network's policy read once at the root guides
/// the rollout search's widening.
pub fn search_ordered<G: Game>(
    game: &G,
    root: &G::State,
    settings: &Settings,
    budget: &Budget<'_>,
    rng: &mut Rng,
    root_order: Option<&[u32]>,
) -> SearchResult {
    let n = game.num_players();
    let order_seed = rng.next_u64();
    let mut nodes = vec![Node::new(0, 0)];
    let mut path: Vec<u32> = Vec::with_capacity(256);
    let mut actions: Vec<u32> = Vec::with_capacity(256);
    let mut ranks = Ranks::default();
    let evaluated = settings.rollout_limit.is_some();
    let mut has_priors = (evaluated || root_order.is_some()) && (settings.rank_root || settings.rank_visits > 0);
    let mut returns = vec![0.0; n];
    let mut scores = vec![0.0; n];
    let exact_leaves = evaluated && settings.horizon > 0 && ends_within(game, root, rng, settings.horizon);
    let cpu_deadline = budget.cpu_seconds.map(|seconds| thread_cpu_seconds() + seconds);
    let wall_start = Instant::now();
    let mut done: u64 = 0;
    loop {
        if done > 0 && budget.spent(done, cpu_deadline, wall_start, done.is_multiple_of(8)) {
            break;
        }
        done += 1;
        path.clear();
        path.push(0);
        let mut state = *root;
        let mut node = 0usize;
        loop {
            let to_act = game.to_act(&state);
            if to_act < 0 {
                break;
            }
            let current = nodes[node];
            // `UNLISTED` is `u32::MAX`, so an unlisted node always wants a child.
            if current.num_children() < current.num_actions.min(allowed(settings, &current)) {
                // Add a child: the next untried action in this node's order (best first
                // where the node is ranked, else a random order).
                let mut rank = ranks.of(node);
                if rank.is_none() || current.num_actions == UNLISTED {
                    actions.clear();
                    game.legal_actions(&state, &mut actions);
                    nodes[node].num_actions = actions.len() as u32;
                }
                let num_actions = nodes[node].num_actions;
                let wants_rank = (node == 0 && settings.rank_root)
                    || (settings.rank_visits > 0 && current.visits >= settings.rank_visits);
                if rank.is_none() && has_priors && wants_rank && num_actions > 0 {
                    rank = match root_order {
                        Some(order) if node == 0 => Some(ranks.rank_in_order(node, &nodes, &actions, order)),
                        _ if evaluated => ranks.rank(game, &state, node, &nodes, &actions),
                        _ => None,
                    };
                    has_priors = rank.is_some() || (root_order.is_some() && node == 0);
                }
                if current.num_children() < num_actions.min(allowed(settings, &nodes[node])) {
                    let action = match rank {
                        Some(rank) => ranks.order[(rank.offset + current.num_children() - rank.base) as usize],
                        None => {
                            actions[permuted(current.num_children(), num_actions, node_key(node, order_seed)) as usize]
                        }
                    };
                    let child = nodes.len();
                    let mut new = Node::new(action, to_act as usize);
                    new.next_sibling = current.first_child;
                    nodes.push(new);
                    let parent = &mut nodes[node];
                    parent.first_child = child as u32;
                    parent.meta += 1;
                    game.play(&mut state, action);
                    path.push(child as u32);
                    break;
                }
            }
            if nodes[node].first_child == NONE {
                break; // no legal action although a seat is to act: value it as it stands
            }
            // Every allowed child exists: descend by UCT.
            let log_parent = (nodes[node].visits.max(1) as f64).ln();
            let mut best = NONE;
            let mut best_value = f64::NEG_INFINITY;
            let mut child = nodes[node].first_child;
            while child != NONE {
                let c = &nodes[child as usize];
                let value = if c.visits == 0 {
                    f64::INFINITY
                } else {
                    let visits = c.visits as f64;
                    c.total as f64 / visits + settings.uct_c * (log_parent / visits).sqrt()
                };
                if value > best_value {
                    best_value = value;
                    best = child;
                }
                child = c.next_sibling;
            }
            game.play(&mut state, nodes[best as usize].action);
            node = best as usize;
            path.push(best);
        }
        match settings.rollout_limit {
            Some(limit) => {
                let limit = if exact_leaves { u32::MAX } else { limit };
                leaf_values(game, &state, limit, Objective::Win, rng, &mut returns, &mut scores);
            }
            None => {
                game.playout(&mut state, rng, u32::MAX);
                game.returns(&state, &mut returns);
                if settings.margin_weight > 0.0 {
                    game.scores(&state, &mut scores);
                }
            }
        }
        if settings.margin_weight > 0.0 {
            blend_margins(&mut returns, &scores, settings.margin_weight);
        }
        for &i in path.iter() {
            let node = &mut nodes[i as usize];
            node.visits += 1;
            node.total += returns[node.player()] as f32;
        }
    }
    let mut children = Vec::new();
    let mut child = nodes[0].first_child;
    while child != NONE {
        let c = &nodes[child as usize];
        children.push((c.action, c.visits, c.total as f64 / c.visits.max(1) as f64));
        child = c.next_sibling;
    }
    // The most visited; ties (common when a wide root is barely searched) go to the
    // higher mean reward, then to the lower action id, so a fixed seed gives one answer.
    let action = children
        .iter()
        .max_by(|a, b| (a.1.cmp(&b.1)).then(a.2.total_cmp(&b.2)).then(b.0.cmp(&a.0)))
        .map(|c| c.0);
    SearchResult {
        action,
        children,
        simulations: done,
        nodes: nodes.len(),
        node_bytes: std::mem::size_of::<Node>(),
        tree_bytes: nodes.capacity() * std::mem::size_of::<Node>(),
    }
}

/// Where a ranked node's untried actions are, best first: its child number `base + i`
/// is `Ranks::order[offset + i]` (`base`: the children it had when it was ranked).
#[derive(Clone, Copy, Debug)]
struct Rank {
    offset: u32,
    base: u32,
}

/// The ranked nodes' orders of actions (only ranked nodes have one, so the tree's nodes
/// stay 28 bytes).
#[derive(Default)]
struct Ranks {
    of_node: HashMap<u32, Rank>,
    order: Vec<u32>,
    values: Vec<f64>,
    untried: Vec<(u32, f64)>,
}

impl Ranks {
    fn of(&self, node: usize) -> Option<Rank> {
        if self.of_node.is_empty() {
            return None;
        }
        self.of_node.get(&(node as u32)).copied()
    }

    /// Ranks `node`'s untried `actions` (its legal actions in `state`) by the game's
    /// one-ply priors, best first (ties in the listed order); `None` if the game has none.
    fn rank<G: Game>(
        &mut self,
        game: &G,
        state: &G::State,
        node: usize,
        nodes: &[Node],
        actions: &[u32],
    ) -> Option<Rank> {
        self.values.clear();
        if !game.action_priors(state, actions, &mut self.values) {
            return None;
        }
        Some(self.rank_by_values(node, nodes, actions))
    }

    /// Ranks `node`'s untried `actions` in `order` (best first; the actions it does not
    /// list last, in the listed order).
    fn rank_in_order(&mut self, node: usize, nodes: &[Node], actions: &[u32], order: &[u32]) -> Rank {
        let place: HashMap<u32, usize> = order.iter().enumerate().map(|(i, &a)| (a, i)).collect();
        self.values.clear();
        self.values.extend(
            actions
                .iter()
                .map(|a| place.get(a).map_or(f64::NEG_INFINITY, |&i| -(i as f64))),
        );
        self.rank_by_values(node, nodes, actions)
    }

    /// Ranks `node`'s untried `actions` by `self.values` (one per action), best first.
    fn rank_by_values(&mut self, node: usize, nodes: &[Node], actions: &[u32]) -> Rank {
        let mut tried = Vec::new();
        let mut child = nodes[node].first_child;
        while child != NONE {
            tried.push(nodes[child as usize].action);
            child = nodes[child as usize].next_sibling;
        }
        self.untried.clear();
        self.untried.extend(
            actions
                .iter()
                .zip(self.values.iter())
                .filter(|(a, _)| !tried.contains(a))
                .map(|(&a, &v)| (a, v)),
        );
        // Stable: equal values keep the listed order, so a seed gives one search.
        self.untried.sort_by(|a, b| b.1.total_cmp(&a.1));
        let rank = Rank {
            offset: self.order.len() as u32,
            base: nodes[node].num_children(),
        };
        self.order.extend(self.untried.iter().map(|&(a, _)| a));
        self.of_node.insert(node as u32, rank);
        rank
    }
}

/// How many children `node` may have now.
#[inline]
fn allowed(settings: &Settings, node: &Node) -> u32 {
    if settings.widening <= 0.0 {
        return u32::MAX;
    }
    let visits = node.visits as f64;
    let grown = if settings.widening_power == 0.5 {
        visits.sqrt()
    } else {
        visits.powf(settings.widening_power)
    };
    let k = (settings.widening * grown).ceil();
    (k as u32).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::test_games::Nim;

    #[test]
    fn finds_the_winning_move_of_nim() {
        // From 7, taking 1 leaves a multiple of 3: the only winning move.
        for widening in [0.0, 1.5] {
            let settings = Settings {
                uct_c: 1.0,
                widening,
                ..Settings::default()
            };
            let result = search_with(&Nim, &(7, 0), &settings, &Budget::simulations(3000), &mut Rng::new(1));
            assert_eq!(result.action, Some(1), "widening {widening}: {:?}", result.children);
        }
    }

    #[test]
    fn adds_one_node_per_simulation_at_most() {
        let result = search(&Nim, &(30, 0), 500, 2.0, &mut Rng::new(2));
        assert_eq!(result.simulations, 500);
        assert!(result.nodes <= 501, "{}", result.nodes);
        assert_eq!(result.node_bytes, 28);
        let visits: u32 = result.children.iter().map(|c| c.1).sum();
        assert_eq!(visits, 500);
    }

    #[test]
    fn the_same_seed_gives_the_same_search() {
        let a = search(&Nim, &(20, 0), 400, 2.0, &mut Rng::new(5));
        let b = search(&Nim, &(20, 0), 400, 2.0, &mut Rng::new(5));
        assert_eq!(a.children, b.children);
    }

    #[test]
    fn the_permutation_visits_every_action_once() {
        for n in 1..40u32 {
            for key in [0u64, 7, u64::MAX, 0x1234_5678_9ABC_DEF0] {
                let mut seen: Vec<u32> = (0..n).map(|i| permuted(i, n, key)).collect();
                seen.sort_unstable();
                assert_eq!(seen, (0..n).collect::<Vec<_>>(), "n {n} key {key}");
            }
        }
    }

    #[test]
    fn a_stop_flag_or_a_clock_ends_the_search() {
        let stop = AtomicBool::new(true);
        let budget = Budget {
            stop: Some(&stop),
            ..Budget::default()
        };
        let result = search_with(&Nim, &(50, 0), &Settings::default(), &budget, &mut Rng::new(3));
        assert!(result.simulations <= 8 && result.action.is_some());
        let budget = Budget {
            cpu_seconds: Some(0.02),
            ..Budget::default()
        };
        let start = thread_cpu_seconds();
        let result = search_with(&Nim, &(50, 0), &Settings::default(), &budget, &mut Rng::new(3));
        let used = thread_cpu_seconds() - start;
        assert!(result.simulations > 8 && (0.02..0.5).contains(&used), "{used}");
    }

    #[test]
    fn margins_blend_into_the_win_shares() {
        let mut returns = [1.0, 0.0, 0.0];
        blend_margins(&mut returns, &[30.0, 10.0, 29.0], 0.5);
        // Unit 3 points: the winner leads by 1 (logistic 0.58), the others trail by 20 and 1.
        assert!((returns[0] - (0.5 + 0.5 * 0.5826)).abs() < 1e-3, "{returns:?}");
        assert!(returns[1] < 0.01 && (returns[2] - 0.5 * 0.4174).abs() < 1e-3);
    }

    /// One seat picks a number 0..40 `picks` times; the reward is the picks read as the
    /// digits of a number in base 40, over its largest value. The prior (when given) is
    /// the pick itself or its reverse; with `evaluated`, the evaluation says 0 for every
    /// unfinished position.
    #[derive(Clone, PartialEq)]
    struct Picks {
        picks: u32,
        priors: Option<bool>,
        evaluated: bool,
    }

    impl Picks {
        fn two(priors: Option<bool>) -> Self {
            Picks {
                picks: 2,
                priors,
                evaluated: false,
            }
        }
    }

    impl Game for Picks {
        type State = (u32, u32);
        const NAME: &'static str = "Picks";
        const ID: &'static str = "picks";

        fn num_players(&self) -> usize {
            1
        }
        fn num_actions(&self) -> usize {
            40
        }
        fn to_act(&self, state: &(u32, u32)) -> i32 {
            if state.1 >= self.picks {
                -1
            } else {
                0
            }
        }
        fn legal_actions(&self, state: &(u32, u32), out: &mut Vec<u32>) {
            if !self.is_over(state) {
                out.extend(0..40);
            }
        }
        fn is_legal(&self, state: &(u32, u32), action: u32) -> bool {
            !self.is_over(state) && action < 40
        }
        fn play(&self, state: &mut (u32, u32), action: u32) {
            *state = (state.0 * 40 + action, state.1 + 1);
        }
        fn scores(&self, state: &(u32, u32), out: &mut [f64]) {
            out[0] = state.0 as f64;
        }
        fn returns(&self, state: &(u32, u32), out: &mut [f64]) {
            out[0] = if self.is_over(state) {
                state.0 as f64 / 40f64.powi(self.picks as i32)
            } else {
                0.0
            };
        }
        fn random_action(&self, state: &(u32, u32), rng: &mut Rng) -> Option<u32> {
            (!self.is_over(state)).then(|| rng.below(40))
        }
        fn evaluate(&self, _state: &(u32, u32), out: &mut [f64]) -> bool {
            out.fill(0.0);
            self.evaluated
        }
        fn action_priors(&self, _state: &(u32, u32), actions: &[u32], values: &mut Vec<f64>) -> bool {
            match self.priors {
                None => false,
                Some(reverse) => {
                    values.extend(actions.iter().map(|&a| if reverse { -(a as f64) } else { a as f64 }));
                    true
                }
            }
        }
    }

    #[test]
    fn widening_limits_the_children() {
        let settings = Settings {
            uct_c: 2.0,
            widening: 1.0,
            ..Settings::default()
        };
        let game = Picks::two(None);
        let result = search_with(&game, &(0, 0), &settings, &Budget::simulations(100), &mut Rng::new(4));
        // ceil(sqrt(visits)) children: 10 after 99 visits of the root.
        assert!(result.children.len() <= 10, "{}", result.children.len());
        let all = search(&game, &(0, 0), 100, 2.0, &mut Rng::new(4));
        assert_eq!(all.children.len(), 40);
    }

    /// Ranked by the priors: they are read only where leaves take the evaluation
    /// (`rollout_limit`; without one, `Picks` plays on to the end).
    fn ranked(rank_root: bool, rank_visits: u32) -> Settings {
        Settings {
            uct_c: 0.2,
            widening: 1.0,
            rank_root,
            rank_visits,
            rollout_limit: Some(0),
            ..Settings::default()
        }
    }

    fn sorted_actions(result: &SearchResult) -> Vec<u32> {
        let mut actions: Vec<u32> = result.children.iter().map(|c| c.0).collect();
        actions.sort_unstable();
        actions
    }

    #[test]
    fn a_ranked_root_expands_its_children_in_the_priors_order() {
        let budget = Budget::simulations(100);
        // ceil(sqrt(visits)) children: the 10 best by the prior, whatever they are worth.
        let best = search_with(
            &Picks::two(Some(false)),
            &(0, 0),
            &ranked(true, 0),
            &budget,
            &mut Rng::new(1),
        );
        assert_eq!(sorted_actions(&best), (30..40).collect::<Vec<_>>());
        assert_eq!(best.action, Some(39));
        let reversed = search_with(
            &Picks::two(Some(true)),
            &(0, 0),
            &ranked(true, 0),
            &budget,
            &mut Rng::new(1),
        );
        assert_eq!(sorted_actions(&reversed), (0..10).collect::<Vec<_>>());
        assert_eq!(reversed.action, Some(9), "the best of the ten it tried");
        // Without priors (or without ranking, or without a rollout limit) the order is
        // random: not the top ten.
        let unranked = search_with(&Picks::two(None), &(0, 0), &ranked(true, 0), &budget, &mut Rng::new(1));
        assert_ne!(sorted_actions(&unranked), (30..40).collect::<Vec<_>>());
        let off = search_with(
            &Picks::two(Some(false)),
            &(0, 0),
            &ranked(false, 0),
            &budget,
            &mut Rng::new(1),
        );
        assert_eq!(sorted_actions(&off), sorted_actions(&unranked));
        let to_the_end = Settings {
            rollout_limit: None,
            ..ranked(true, 0)
        };
        let plain = search_with(
            &Picks::two(Some(false)),
            &(0, 0),
            &to_the_end,
            &budget,
            &mut Rng::new(1),
        );
        assert_ne!(sorted_actions(&plain), (30..40).collect::<Vec<_>>());
    }

    #[test]
    fn a_given_root_order_overrules_the_priors_and_needs_none() {
        let budget = Budget::simulations(100);
        // 5, 7, 11, ...: the order given; the game's priors would say 30..40.
        let order: Vec<u32> = (0..40).map(|i| (5 + 2 * i) % 40).collect();
        for game in [Picks::two(Some(false)), Picks::two(None)] {
            for settings in [
                ranked(true, 0),
                Settings {
                    rollout_limit: None,
                    ..ranked(true, 0)
                },
            ] {
                let result = search_ordered(&game, &(0, 0), &settings, &budget, &mut Rng::new(1), Some(&order));
                let mut first_ten = order[..10].to_vec();
                first_ten.sort_unstable();
                assert_eq!(sorted_actions(&result), first_ten);
            }
        }
        // Actions the order leaves out come after those it lists.
        let short = [39u32, 38];
        let result = search_ordered(
            &Picks::two(None),
            &(0, 0),
            &ranked(true, 0),
            &budget,
            &mut Rng::new(1),
            Some(&short),
        );
        assert_eq!(sorted_actions(&result), vec![0, 1, 2, 3, 4, 5, 6, 7, 38, 39]);
        // Without `rank_root` the order is not used.
        let off = search_ordered(
            &Picks::two(None),
            &(0, 0),
            &ranked(false, 0),
            &budget,
            &mut Rng::new(1),
            Some(&order),
        );
        let plain = search_with(&Picks::two(None), &(0, 0), &ranked(false, 0), &budget, &mut Rng::new(1));
        assert_eq!(sorted_actions(&off), sorted_actions(&plain));
    }

    #[test]
    fn nodes_with_enough_visits_are_ranked_below_the_root() {
        // With deep ranking, a child of the root with 4 visits (already 2 children, in a
        // random order) ranks its untried second picks: the best come next, so its mean
        // reward is higher than where only the root is ranked.
        let game = Picks::two(Some(false));
        let budget = Budget::simulations(400);
        let deep = search_with(&game, &(0, 0), &ranked(true, 4), &budget, &mut Rng::new(2));
        let shallow = search_with(&game, &(0, 0), &ranked(true, 0), &budget, &mut Rng::new(2));
        assert_eq!(deep.action, Some(39));
        assert_eq!(shallow.action, Some(39));
        let mean_of_39 = |r: &SearchResult| r.children.iter().find(|c| c.0 == 39).unwrap().2;
        assert!(
            mean_of_39(&deep) > mean_of_39(&shallow) + 0.005,
            "{} {}",
            mean_of_39(&deep),
            mean_of_39(&shallow)
        );
        // Ranking adds no node: still one a simulation.
        assert_eq!(deep.nodes, shallow.nodes);
    }

    #[test]
    fn the_widening_power_sets_how_fast_the_children_grow() {
        let mut settings = ranked(true, 0);
        settings.widening_power = 0.25;
        let result = search_with(
            &Picks::two(Some(false)),
            &(0, 0),
            &settings,
            &Budget::simulations(100),
            &mut Rng::new(1),
        );
        // ceil(99^0.25) = 4 children.
        assert_eq!(sorted_actions(&result), (36..40).collect::<Vec<_>>());
    }

    #[test]
    fn a_short_remainder_is_valued_by_rollouts_to_the_end() {
        // Three picks; the evaluation says 0 (a lead of 0: 1/2) for every unfinished
        // position. With a horizon of 3 every leaf is a rollout to the end and the search
        // sees the real values; with 2 the game does not end within it, and the 200
        // simulations reach no finished position: every leaf is worth 1/2.
        let game = Picks {
            picks: 3,
            priors: None,
            evaluated: true,
        };
        let mut settings = Settings {
            uct_c: 0.1,
            rollout_limit: Some(0),
            ..Settings::default()
        };
        settings.horizon = 3;
        let exact = search_with(&game, &(0, 0), &settings, &Budget::simulations(200), &mut Rng::new(3));
        assert_eq!(exact.action, Some(39));
        settings.horizon = 2;
        let cut = search_with(&game, &(0, 0), &settings, &Budget::simulations(200), &mut Rng::new(3));
        assert!(cut.children.iter().all(|c| c.2 == 0.5), "{:?}", cut.children);
    }
}
