//! PUCT: AlphaZero's tree search with a policy and value network (issue #40), for any
//! game of this crate ([`Game`]: its observation is the network's input).
//!
//! Selection maximises `Q + c_puct * P * sqrt(N_parent) / (1 + N_child)` (`P`: the
//! policy's prior of the child's action, a softmax over the legal actions only; `Q`: the
//! child's mean value for the seat that chose it). A leaf is valued by the network's value
//! head (one value per seat, relative to the seat to act, mapped to absolute seats here:
//! a win share, or a placing where the network's meta says `"value": "placing"`,
//! [`crate::game::Objective`]), a finished game by its returns or placings; each node backs up the value of the seat that
//! chose its action, as the rollout MCTS (`common::mcts`) does, so 3-4 seats and turns of
//! several actions by one seat need nothing special. An unvisited child's `Q` is the
//! network's value of its parent for the seat to act there (first-play urgency).
//!
//! Leaves are evaluated in batches of up to `batch_size`: the selections of one batch
//! each add a virtual loss (a visit worth 0) along their path, so the next one looks
//! elsewhere; a selection that reaches a leaf already in the batch ends the batch. The
//! tree holds no states: each selection plays its actions from the root.
//!
//! With `leaf_mix > 0` a leaf's value blends the network's with the game's own leaf
//! value, the one the rollout MCTS uses (`game::leaf_values`: a random playout of at
//! most `leaf_rollout` actions, then the returns or the evaluation's logistic lead):
//! `(1 - leaf_mix) * network + leaf_mix * playout`, as AlphaGo mixed its value network
//! with rollouts. A young network's value says little; the mix lets its policy focus a
//! search that still sees what the hand-written levels see.
//!
//! With `dirichlet_fraction > 0` the root's priors are mixed with Dirichlet noise
//! (`(1 - f) * P + f * Dir(alpha)`), for self-play. With a simulation budget and a seed
//! the search is the same on every run.

use super::mcts::{thread_cpu_seconds, Budget};
use super::network::{Network, Scratch};
use super::rng::Rng;
use crate::game::{ends_within, final_values, leaf_values, observe_input, Game};
use std::time::Instant;

/// How the search explores.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    pub c_puct: f64,
    /// Leaves per network call (1: no virtual loss).
    pub batch_size: usize,
    /// The Dirichlet noise's concentration (used where `dirichlet_fraction > 0`).
    pub dirichlet_alpha: f64,
    /// How much of the root's priors is noise (0: none).
    pub dirichlet_fraction: f64,
    /// How much of a leaf's value is the game's own leaf value (0: the network alone).
    pub leaf_mix: f64,
    /// The most random actions of that leaf value's playout (`u32::MAX`: to the end).
    pub leaf_rollout: u32,
    /// 0, or: where a random walk of at most this many actions from the root ends the
    /// game, the playouts of this search go to the end (the rollout MCTS's `horizon`:
    /// near the end the game's own result beats its evaluation).
    pub leaf_horizon: u32,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            c_puct: 1.5,
            batch_size: 8,
            dirichlet_alpha: 0.3,
            dirichlet_fraction: 0.0,
            leaf_mix: 0.0,
            leaf_rollout: u32::MAX,
            leaf_horizon: 0,
        }
    }
}

/// The most leaves one network call takes.
pub const MAX_BATCH: usize = 256;

/// What one search found.
#[derive(Clone, Debug)]
pub struct SearchResult {
    /// The most visited root action (ties: the higher mean value, then the lower id);
    /// `None` if the root has no legal action.
    pub action: Option<u32>,
    /// `(action, visits)` of each root child, in the order of the game's legal actions.
    pub visits: Vec<(u32, u32)>,
    /// `(action, visits, mean value, prior)` of each root child, in the same order: the
    /// mean value for the seat to act at the root (0 where unvisited), the network's
    /// prior before any Dirichlet noise (for a policy target built from values).
    pub children: Vec<(u32, u32, f32, f32)>,
    /// The mean value of each seat (absolute seat order) over the simulations; the
    /// returns if the game is over.
    pub value: Vec<f64>,
    pub simulations: u64,
    /// How many network calls (batches) the search made.
    pub evaluations: u64,
    pub nodes: usize,
    /// Bytes of the tree's nodes and edges.
    pub tree_bytes: usize,
}

/// Why a game and a network do not go together.
pub fn check_fits<G: Game>(game: &G, network: &Network) -> Result<(), String> {
    let meta = &network.meta;
    let mut problems = Vec::new();
    if meta.game != G::ID {
        problems.push(format!("it is for {:?}, not {:?}", meta.game, G::ID));
    }
    if meta.num_players != game.num_players() {
        problems.push(format!(
            "it is for {} players, not {}",
            meta.num_players,
            game.num_players()
        ));
    }
    let (planes, vector) = game.observation_lens();
    if meta.input_size != planes + vector {
        problems.push(format!(
            "it reads {} inputs, the position's observation has {}",
            meta.input_size,
            planes + vector
        ));
    }
    if meta.num_actions != game.num_actions() {
        problems.push(format!(
            "it has {} actions, the game {}",
            meta.num_actions,
            game.num_actions()
        ));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("the network does not fit this game: {}", problems.join("; ")))
    }
}

/// The network's priors of a position's legal actions (`(action, prior)`, in the game's
/// order) and each seat's value (absolute seats).
pub type PositionEvaluation = (Vec<(u32, f32)>, Vec<f64>);

/// The network's view of `state` alone: the prior of each legal action (in the game's
/// order) and each seat's value (absolute seat order); the returns once the game is over.
pub fn evaluate_position<G: Game>(game: &G, state: &G::State, network: &Network) -> PositionEvaluation {
    let n = game.num_players();
    let to_act = game.to_act(state);
    let mut legal = vec![Vec::new()];
    if to_act >= 0 {
        game.legal_actions(state, &mut legal[0]);
    }
    let objective = network.meta.objective;
    if legal[0].is_empty() {
        let (mut returns, mut scores) = (vec![0.0; n], vec![0.0; n]);
        final_values(game, state, objective, &mut returns, &mut scores);
        return (Vec::new(), returns);
    }
    let mut input = vec![0.0f32; network.input_size()];
    observe_input(game, state, to_act as usize, &mut input);
    let mut priors = vec![Vec::new()];
    let mut relative = vec![0.0f32; n];
    network.evaluate(&input, &legal, &mut priors, &mut relative, &mut Scratch::default());
    let mut values = vec![0.0; n];
    let scale = objective.softmax_scale(n);
    for (rel, &v) in relative.iter().enumerate() {
        values[(to_act as usize + rel) % n] = scale * v as f64;
    }
    (
        legal[0].iter().copied().zip(priors[0].iter().copied()).collect(),
        values,
    )
}

const NONE: u32 = u32::MAX;

/// A legal action of an expanded node: 12 bytes, and a [`Node`] only once selected (most
/// of a wide node's actions never are).
#[derive(Clone, Copy, Debug)]
struct Edge {
    action: u32,
    prior: f32,
    /// The node it leads to (`NONE` until first selected).
    child: u32,
}

/// One node of the tree (a position reached by a selection): 28 bytes.
#[derive(Clone, Copy, Debug)]
struct Node {
    visits: u32,
    /// Selections of the current batch through this node, not yet backed up.
    virtual_visits: u32,
    /// The values of the seat that chose the action leading here, summed over the visits.
    total: f32,
    /// The network's value of this position for the seat to act here: its unselected
    /// actions' `Q`.
    first_play: f32,
    /// Its actions are `edges[first_edge .. first_edge + num_edges]` (`NONE`: not expanded).
    first_edge: u32,
    num_edges: u32,
    /// The seat that chose the action leading here.
    player: u8,
    /// Waiting in the current batch for the network.
    pending: bool,
}

impl Node {
    fn new(player: usize) -> Self {
        Node {
            visits: 0,
            virtual_visits: 0,
            total: 0.0,
            first_play: 0.0,
            first_edge: NONE,
            num_edges: 0,
            player: player as u8,
            pending: false,
        }
    }
}

/// A leaf waiting for the network.
struct Leaf {
    node: usize,
    path: Vec<u32>,
    to_act: usize,
}

/// The most bytes of tree one search holds (nodes and edges); it stops there, as at a
/// budget. A simulation adds its leaf's edges: about 0.6 kB in Medina 3p, 1.6 kB in Terra
/// Nova 2p (from `tabletop bench search`'s positions), so this is 6-10 s of search at
/// 100,000 simulations a second.
pub const MAX_TREE_BYTES: usize = 1 << 30;

/// Searches from `root` with `network` until `budget` is reached (at least one
/// simulation) or the tree holds [`MAX_TREE_BYTES`]. The network must fit the game
/// ([`check_fits`]).
pub fn search<G: Game>(
    game: &G,
    root: &G::State,
    network: &Network,
    settings: &Settings,
    budget: &Budget<'_>,
    rng: &mut Rng,
) -> SearchResult {
    let n = game.num_players();
    let input_size = network.input_size();
    let batch_size = settings.batch_size.clamp(1, MAX_BATCH);
    let mut nodes = vec![Node::new(0)];
    let mut edges: Vec<Edge> = Vec::new();
    let mut leaves: Vec<Leaf> = Vec::with_capacity(batch_size);
    let mut inputs = vec![0.0f32; batch_size * input_size];
    let mut legal: Vec<Vec<u32>> = vec![Vec::new(); batch_size];
    let mut priors: Vec<Vec<f32>> = vec![Vec::new(); batch_size];
    let mut values = vec![0.0f32; batch_size * network.num_players()];
    let objective = network.meta.objective;
    let value_scale = objective.softmax_scale(n);
    let mut final_scores = vec![0.0f64; n];
    let mixing = settings.leaf_mix > 0.0;
    let leaf_rollout = if mixing && settings.leaf_horizon > 0 && ends_within(game, root, rng, settings.leaf_horizon) {
        u32::MAX
    } else {
        settings.leaf_rollout
    };
    let mut played_values = vec![0.0f64; if mixing { batch_size * n } else { 0 }];
    let mut played_scores = vec![0.0f64; n];
    let mut scratch = first_layer(game, root, network, &mut inputs[..input_size]);
    let mut returns = vec![0.0f64; n];
    let mut value_sum = vec![0.0f64; n];
    let mut path: Vec<u32> = Vec::with_capacity(256);
    let cpu_deadline = budget.cpu_seconds.map(|seconds| thread_cpu_seconds() + seconds);
    let wall_start = Instant::now();
    let (mut done, mut evaluations) = (0u64, 0u64);
    let mut root_returns = None;
    let mut root_priors: Vec<f32> = Vec::new();
    let tree_bytes = |nodes: &Vec<Node>, edges: &Vec<Edge>| {
        nodes.len() * std::mem::size_of::<Node>() + edges.len() * std::mem::size_of::<Edge>()
    };
    while done == 0
        || !(budget.spent(done, cpu_deadline, wall_start, true) || tree_bytes(&nodes, &edges) >= MAX_TREE_BYTES)
    {
        let wanted = budget
            .simulations
            .map_or(batch_size as u64, |limit| (limit.max(1) - done).min(batch_size as u64))
            as usize;
        leaves.clear();
        let mut selections = 0;
        while selections < wanted {
            selections += 1;
            // Select a leaf: descend by PUCT (counting the batch's virtual visits).
            path.clear();
            path.push(0);
            let mut state = *root;
            let mut node = 0usize;
            while nodes[node].first_edge != NONE {
                let e = select(&nodes, &edges, node, settings.c_puct);
                if edges[e].child == NONE {
                    edges[e].child = nodes.len() as u32;
                    nodes.push(Node::new(game.to_act(&state) as usize));
                }
                game.play(&mut state, edges[e].action);
                node = edges[e].child as usize;
                path.push(node as u32);
            }
            if nodes[node].pending {
                break; // already in this batch: evaluate what there is
            }
            let to_act = game.to_act(&state);
            let k = leaves.len();
            legal[k].clear();
            if to_act >= 0 {
                game.legal_actions(&state, &mut legal[k]);
            }
            if legal[k].is_empty() {
                // The game is over (or a seat to act has no action: valued as it stands).
                final_values(game, &state, objective, &mut returns, &mut final_scores);
                if node == 0 {
                    root_returns = Some(returns.clone());
                }
                backup(&mut nodes, &path, &returns, &mut value_sum, false);
                done += 1;
                if node == 0 {
                    break;
                }
                continue;
            }
            nodes[node].pending = true;
            for &i in path.iter() {
                nodes[i as usize].virtual_visits += 1;
            }
            observe_input(
                game,
                &state,
                to_act as usize,
                &mut inputs[k * input_size..(k + 1) * input_size],
            );
            if mixing {
                leaf_values(
                    game,
                    &state,
                    leaf_rollout,
                    objective,
                    rng,
                    &mut played_values[k * n..(k + 1) * n],
                    &mut played_scores,
                );
            }
            leaves.push(Leaf {
                node,
                path: path.clone(),
                to_act: to_act as usize,
            });
        }
        if root_returns.is_some() {
            break;
        }
        if leaves.is_empty() {
            continue;
        }
        let count = leaves.len();
        network.evaluate(
            &inputs[..count * input_size],
            &legal[..count],
            &mut priors[..count],
            &mut values[..count * n],
            &mut scratch,
        );
        evaluations += 1;
        for (k, leaf) in leaves.iter().enumerate() {
            // The value head is relative to the seat to act: index 0 is `to_act`.
            for (rel, &v) in values[k * n..(k + 1) * n].iter().enumerate() {
                let seat = (leaf.to_act + rel) % n;
                let v = value_scale * v as f64;
                returns[seat] = if mixing {
                    let played = played_values[k * n + seat];
                    (1.0 - settings.leaf_mix) * v + settings.leaf_mix * played
                } else {
                    v
                };
            }
            if leaf.node == 0 {
                root_priors = priors[k].clone();
            }
            if leaf.node == 0 && settings.dirichlet_fraction > 0.0 {
                add_noise(
                    &mut priors[k],
                    settings.dirichlet_alpha,
                    settings.dirichlet_fraction,
                    rng,
                );
            }
            let first = edges.len();
            edges.extend(legal[k].iter().zip(priors[k].iter()).map(|(&action, &prior)| Edge {
                action,
                prior,
                child: NONE,
            }));
            let expanded = &mut nodes[leaf.node];
            expanded.first_edge = first as u32;
            expanded.num_edges = legal[k].len() as u32;
            expanded.first_play = returns[leaf.to_act] as f32;
            expanded.pending = false;
            backup(&mut nodes, &leaf.path, &returns, &mut value_sum, true);
            done += 1;
        }
    }
    let root = &nodes[0];
    let root_edges = if root.first_edge == NONE {
        &edges[0..0]
    } else {
        &edges[root.first_edge as usize..(root.first_edge + root.num_edges) as usize]
    };
    // (action, visits, mean value for the seat to act at the root) of each root action.
    let children: Vec<(u32, u32, f32)> = root_edges
        .iter()
        .map(|e| match e.child {
            NONE => (e.action, 0, 0.0),
            child => {
                let c = &nodes[child as usize];
                (e.action, c.visits, c.total / c.visits.max(1) as f32)
            }
        })
        .collect();
    let action = children
        .iter()
        .max_by(|a, b| a.1.cmp(&b.1).then(a.2.total_cmp(&b.2)).then(b.0.cmp(&a.0)))
        .map(|c| c.0);
    let value = match root_returns {
        Some(returns) => returns,
        None => value_sum.iter().map(|v| v / done.max(1) as f64).collect(),
    };
    SearchResult {
        action,
        visits: children.iter().map(|c| (c.0, c.1)).collect(),
        children: children
            .iter()
            .zip(root_priors.iter().chain(std::iter::repeat(&0.0)))
            .map(|(c, &prior)| (c.0, c.1, c.2, prior))
            .collect(),
        value,
        simulations: done,
        evaluations,
        nodes: nodes.len(),
        tree_bytes: tree_bytes(&nodes, &edges),
    }
}

/// Buffers whose first layer knows the game's inputs ([`Game::input_layout`]), from
/// the observation of `root` (written to `buffer`); plain buffers where the game says
/// nothing or the game is over.
fn first_layer<G: Game>(game: &G, root: &G::State, network: &Network, buffer: &mut [f32]) -> Scratch {
    let layout = game.input_layout();
    let to_act = game.to_act(root);
    if to_act < 0 || (layout.fixed.is_empty() && layout.uniform.is_empty()) {
        return Scratch::default();
    }
    observe_input(game, root, to_act as usize, buffer);
    Scratch::for_inputs(network, &layout, buffer).expect("the game's input layout fits its inputs")
}

/// The action of `parent` with the highest PUCT score (ties: the first), as an index
/// into `edges`.
#[inline]
fn select(nodes: &[Node], edges: &[Edge], parent: usize, c_puct: f64) -> usize {
    let p = &nodes[parent];
    let parent_visits = (p.visits + p.virtual_visits).max(1) as f32;
    let scale = c_puct as f32 * parent_visits.sqrt();
    let first = p.first_edge as usize;
    let mut best = first;
    let mut best_score = f32::NEG_INFINITY;
    for (i, e) in edges[first..first + p.num_edges as usize].iter().enumerate() {
        let (visits, total) = match e.child {
            NONE => (0, 0.0),
            child => {
                let c = &nodes[child as usize];
                (c.visits + c.virtual_visits, c.total)
            }
        };
        // A virtual visit counts as a visit worth 0 (a loss): the batch's next selection
        // looks elsewhere.
        let q = if visits == 0 {
            p.first_play
        } else {
            total / visits as f32
        };
        let score = q + scale * e.prior / (1 + visits) as f32;
        if score > best_score {
            best_score = score;
            best = first + i;
        }
    }
    best
}

/// Adds one visit worth `values` (absolute seats) to every node of `path`, and takes the
/// virtual visit off where the selection added one.
fn backup(nodes: &mut [Node], path: &[u32], values: &[f64], value_sum: &mut [f64], virtual_visit: bool) {
    for &i in path {
        let node = &mut nodes[i as usize];
        node.visits += 1;
        if virtual_visit {
            node.virtual_visits -= 1;
        }
        node.total += values[node.player as usize] as f32;
    }
    value_sum.iter_mut().zip(values).for_each(|(s, v)| *s += v);
}

/// `(1 - fraction) * priors + fraction * Dir(alpha)`.
fn add_noise(priors: &mut [f32], alpha: f64, fraction: f64, rng: &mut Rng) {
    let noise: Vec<f64> = priors.iter().map(|_| gamma(alpha, rng)).collect();
    let total: f64 = noise.iter().sum();
    if total <= 0.0 || !total.is_finite() {
        return;
    }
    for (p, g) in priors.iter_mut().zip(noise) {
        *p = ((1.0 - fraction) * *p as f64 + fraction * g / total) as f32;
    }
}

/// A uniform draw in `(0, 1)`.
fn uniform(rng: &mut Rng) -> f64 {
    ((rng.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
}

/// A draw of Gamma(`alpha`, 1): Marsaglia and Tsang's method (boosted below 1).
fn gamma(alpha: f64, rng: &mut Rng) -> f64 {
    if alpha < 1.0 {
        return gamma(alpha + 1.0, rng) * uniform(rng).powf(1.0 / alpha);
    }
    let d = alpha - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        // A standard normal by Box-Muller.
        let x = (-2.0 * uniform(rng).ln()).sqrt() * (std::f64::consts::TAU * uniform(rng)).cos();
        let v = (1.0 + c * x).powi(3);
        if v <= 0.0 {
            continue;
        }
        let u = uniform(rng);
        if u.ln() < 0.5 * x * x + d - d * v + d * v.ln() {
            return d * v;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::common::network::{tests::meta_json, Array};
    use std::collections::HashMap;

    use crate::game::test_games::Nim;

    /// A network that knows nothing of the position: every weight 0, so its policy is
    /// the softmax of `policy_bias` and its values the softmax of `value_bias`.
    fn blind_network(policy_bias: [f32; 3], value_bias: [f32; 2]) -> Network {
        zero_weight_network(&meta_json("nim", 16, &[4], 3, 2), 16, 4, &policy_bias, &value_bias)
    }

    /// A network of one hidden layer of `hidden` units whose weights are all 0: its policy
    /// is the softmax of `policy_bias` and its values the softmax of `value_bias`.
    fn zero_weight_network(
        meta: &str,
        inputs: usize,
        hidden: usize,
        policy_bias: &[f32],
        value_bias: &[f32],
    ) -> Network {
        let (actions, seats) = (policy_bias.len(), value_bias.len());
        let mut arrays = HashMap::new();
        let mut put = |name: &str, shape: Vec<usize>, values: Vec<f32>| {
            arrays.insert(name.to_string(), Array { shape, values });
        };
        put("w0", vec![inputs, hidden], vec![0.0; inputs * hidden]);
        put("b0", vec![hidden], vec![0.0; hidden]);
        put("policy_w", vec![hidden, actions], vec![0.0; hidden * actions]);
        put("policy_b", vec![actions], policy_bias.to_vec());
        put("value_w", vec![hidden, seats], vec![0.0; hidden * seats]);
        put("value_b", vec![seats], value_bias.to_vec());
        Network::new(meta, arrays).unwrap()
    }

    fn settings(batch_size: usize) -> Settings {
        Settings {
            batch_size,
            ..Settings::default()
        }
    }

    fn run(net: &Network, heap: u32, settings: &Settings, simulations: u64, seed: u64) -> SearchResult {
        search(
            &Nim,
            &(heap, 0),
            net,
            settings,
            &Budget::simulations(simulations),
            &mut Rng::new(seed),
        )
    }

    #[test]
    fn a_placing_network_s_search_finishes_second_rather_than_last() {
        // Podium: seat 0 cannot win; the prior says finish last (action 1). Win shares
        // value both actions 0, so the prior decides; placings prefer second (action 2).
        use crate::game::test_games::Podium;
        let network = |objective: &str| {
            let meta = meta_json("podium", 3, &[2], 3, 3).replacen('{', &format!(r#"{{"value": "{objective}", "#), 1);
            zero_weight_network(&meta, 3, 2, &[0.0, 3.0, 0.0], &[0.0; 3])
        };
        let (win, placing) = (network("win"), network("placing"));
        assert_eq!(win.meta.objective, crate::game::Objective::Win);
        assert_eq!(placing.meta.objective, crate::game::Objective::Placing);
        let choose = |net: &Network| {
            search(
                &Podium,
                &0,
                net,
                &settings(1),
                &Budget::simulations(200),
                &mut Rng::new(3),
            )
        };
        assert_eq!(choose(&win).action, Some(1));
        let found = choose(&placing);
        assert_eq!(found.action, Some(2), "{:?}", found.visits);
        // Its root value is the placing of second: ahead of one rival of two.
        assert!((found.value[0] - 0.5).abs() < 0.1, "{:?}", found.value);
        // A uniform value head reads as equal placings: 1/3 of a softmax times 3/2 seats.
        let (_, values) = evaluate_position(&Podium, &0, &placing);
        assert!(values.iter().all(|v| (v - 0.5).abs() < 1e-6), "{values:?}");
        let bad = meta_json("podium", 3, &[2], 3, 3).replacen('{', r#"{"value": "rank", "#, 1);
        let error = Network::new(&bad, HashMap::new()).unwrap_err();
        assert!(error.contains("\"win\" or \"placing\""), "{error}");
    }

    #[test]
    fn the_game_s_returns_overrule_a_prior_for_the_losing_move() {
        // From 7 only taking 1 wins (it leaves a multiple of 3); the prior says take 2
        // (99.75 %) and the values say nothing: only the finished games can tell.
        let net = blind_network([20.0, -3.0, 3.0], [0.0, 0.0]);
        for batch_size in [1, 8] {
            let result = run(&net, 7, &settings(batch_size), 3000, 1);
            assert_eq!(result.action, Some(1), "batch {batch_size}: {:?}", result.visits);
            // The winner's value at the root approaches 1 for the seat to act.
            assert!(result.value[0] > 0.6, "{:?}", result.value);
        }
    }

    #[test]
    fn a_full_leaf_mix_values_leaves_by_playouts_alone() {
        // Two networks with one policy and opposite value heads: at `leaf_mix` 1 their
        // values are not consulted (one search, seed for seed); at 0.5 they are.
        let says_to_act_wins = blind_network([0.0, 0.0, 0.0], [5.0, -5.0]);
        let says_to_act_loses = blind_network([0.0, 0.0, 0.0], [-5.0, 5.0]);
        let mixed = |leaf_mix| Settings {
            leaf_mix,
            ..settings(4)
        };
        let a = run(&says_to_act_wins, 11, &mixed(1.0), 500, 3);
        let b = run(&says_to_act_loses, 11, &mixed(1.0), 500, 3);
        assert_eq!((a.visits.clone(), a.value.clone()), (b.visits, b.value));
        let a = run(&says_to_act_wins, 11, &mixed(0.5), 500, 3);
        let b = run(&says_to_act_loses, 11, &mixed(0.5), 500, 3);
        assert_ne!(a.value, b.value);
        // From 7 only taking 1 wins: the playouts' values and the tree find it even
        // where the value head would mislead alone.
        let result = run(&says_to_act_loses, 7, &mixed(1.0), 3000, 1);
        assert_eq!(result.action, Some(1), "{:?}", result.visits);
        // A game without an evaluation plays a playout cut at 0 actions on to the end.
        let cut = Settings {
            leaf_rollout: 0,
            ..mixed(1.0)
        };
        assert_eq!(run(&says_to_act_loses, 7, &cut, 3000, 1).action, Some(1));
    }

    #[test]
    fn illegal_actions_get_no_child_and_no_visit() {
        // Action 0 has by far the largest logit, but is never legal.
        let net = blind_network([50.0, 0.0, 0.0], [0.0, 0.0]);
        let result = run(&net, 9, &settings(4), 200, 2);
        let actions: Vec<u32> = result.visits.iter().map(|v| v.0).collect();
        assert_eq!(actions, vec![1, 2]);
        assert_eq!(result.visits.iter().map(|v| v.1 as u64).sum::<u64>(), 199);
        // With one stone left only taking 1 is legal.
        let result = run(&net, 1, &settings(4), 20, 2);
        assert_eq!(result.visits, vec![(1, 19)]);
    }

    #[test]
    fn the_value_head_is_read_relative_to_the_seat_to_act() {
        // The value head always says "the seat to act wins" (index 0 of the relative
        // order): a leaf after one move is then worth 0 to the seat that moved there.
        let net = blind_network([0.0, 0.0, 0.0], [5.0, -5.0]);
        let result = run(&net, 12, &settings(1), 3, 3);
        // One simulation values the root itself, two its children (seat 1 to act there).
        let to_act_wins = 1.0 / (1.0 + (-10.0f64).exp());
        let root_value = (to_act_wins + 2.0 * (1.0 - to_act_wins)) / 3.0;
        assert!((result.value[0] - root_value).abs() < 1e-3, "{:?}", result.value);
        assert!((result.value[0] + result.value[1] - 1.0).abs() < 1e-5);
    }

    #[test]
    fn a_seed_gives_one_search_and_the_noise_depends_on_it() {
        let net = blind_network([0.0, 0.5, 0.0], [0.0, 0.0]);
        let noisy = Settings {
            dirichlet_alpha: 0.3,
            dirichlet_fraction: 0.5,
            ..settings(8)
        };
        let a = run(&net, 14, &noisy, 300, 5);
        let b = run(&net, 14, &noisy, 300, 5);
        assert_eq!(a.visits, b.visits);
        assert_eq!(a.value, b.value);
        let others: Vec<_> = (6..12).map(|seed| run(&net, 14, &noisy, 300, seed).visits).collect();
        assert!(others.iter().any(|v| *v != a.visits), "the noise changed nothing");
        // Without noise the seed changes nothing.
        assert_eq!(
            run(&net, 14, &settings(8), 300, 1).visits,
            run(&net, 14, &settings(8), 300, 2).visits
        );
    }

    #[test]
    fn a_selection_adds_one_node_and_an_expansion_its_edges() {
        let net = blind_network([0.0, 0.0, 0.0], [0.0, 0.0]);
        let result = run(&net, 15, &settings(8), 400, 1);
        assert!(result.nodes <= 401, "{}", result.nodes);
        assert_eq!((std::mem::size_of::<Node>(), std::mem::size_of::<Edge>()), (28, 12));
        // Two edges per expanded node (every heap here has two moves, near the end one).
        assert!(
            result.tree_bytes <= result.nodes * (28 + 2 * 12),
            "{}",
            result.tree_bytes
        );
    }

    #[test]
    fn batches_evaluate_several_leaves_per_network_call() {
        let net = blind_network([0.0, 0.0, 0.0], [0.0, 0.0]);
        let single = run(&net, 15, &settings(1), 400, 1);
        let batched = run(&net, 15, &settings(16), 400, 1);
        assert_eq!((single.simulations, batched.simulations), (400, 400));
        // A lone leaf a call (only the finished games need none), or many.
        assert!(single.evaluations > 380, "{}", single.evaluations);
        assert!(batched.evaluations * 4 < single.evaluations, "{}", batched.evaluations);
    }

    #[test]
    fn a_finished_game_is_valued_by_its_returns() {
        let net = blind_network([0.0, 0.0, 0.0], [0.0, 0.0]);
        let result = search(
            &Nim,
            &(0, 1),
            &net,
            &settings(8),
            &Budget::simulations(50),
            &mut Rng::new(1),
        );
        assert_eq!(result.action, None);
        assert!(result.visits.is_empty());
        assert_eq!(result.value, vec![1.0, 0.0]);
    }

    #[test]
    fn a_network_for_another_game_or_size_is_refused() {
        let net = blind_network([0.0, 0.0, 0.0], [0.0, 0.0]);
        assert!(check_fits(&Nim, &net).is_ok());
        let wide = crate::common::network::tests::random_network("nim", 17, &[4], 3, 2, 1);
        let error = check_fits(&Nim, &wide).unwrap_err();
        assert!(error.contains("17 inputs") && error.contains("16"), "{error}");
        let other = crate::common::network::tests::random_network("medina", 16, &[4], 3, 3, 1);
        let error = check_fits(&Nim, &other).unwrap_err();
        assert!(error.contains("\"medina\"") && error.contains("3 players"), "{error}");
    }

    #[test]
    fn gamma_draws_have_the_right_mean() {
        let mut rng = Rng::new(3);
        for alpha in [0.3, 1.0, 2.5] {
            let mean: f64 = (0..20_000).map(|_| gamma(alpha, &mut rng)).sum::<f64>() / 20_000.0;
            assert!(
                (mean - alpha).abs() < 0.05 * alpha.max(1.0),
                "alpha {alpha}: mean {mean}"
            );
        }
    }
}
