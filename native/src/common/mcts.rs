//! Monte Carlo tree search with random rollouts, for any game of this crate.
//!
//! As OpenSpiel's `MCTSBot`: UCT selection, a leaf is expanded when first reached (one
//! child per legal action) and valued by one random rollout; values are per seat (each
//! node holds the rewards of the seat that chose its action), so multi-player games and
//! turns of several actions by one seat need nothing special. The tree holds no states:
//! each simulation replays its actions from the root, so a node is a few words.

use super::rng::Rng;

/// What the search needs of a game.
pub trait SearchGame {
    /// A position (a small `Copy` value).
    type State: Copy;
    fn num_players(&self) -> usize;
    /// The seat to act, or a negative number once the game is over.
    fn to_act(&self, state: &Self::State) -> i32;
    /// Every legal action (any order).
    fn actions(&self, state: &Self::State, out: &mut Vec<u32>);
    /// The state after a legal action.
    fn play(&self, state: &Self::State, action: u32) -> Self::State;
    /// Plays at random to the end (the state may be over already) and writes each seat's
    /// reward (its win share) to `returns`.
    fn rollout(&self, state: &Self::State, rng: &mut Rng, returns: &mut [f64]);
}

/// One node of the tree.
#[derive(Clone, Copy, Debug)]
pub struct Node {
    /// The action that led here from the parent.
    pub action: u32,
    /// The seat that chose it (whose rewards `total` sums).
    pub player: u8,
    pub visits: u32,
    pub total: f32,
    pub first_child: u32,
    pub num_children: u32,
}

/// What one search found.
#[derive(Clone, Debug)]
pub struct SearchResult {
    /// The most visited action at the root (`None` if the root has no legal action).
    pub action: Option<u32>,
    pub simulations: u32,
    pub nodes: usize,
    /// Bytes of tree per node.
    pub node_bytes: usize,
}

/// Runs `simulations` simulations from `root`.
pub fn search<G: SearchGame>(
    game: &G,
    root: &G::State,
    simulations: u32,
    uct_c: f64,
    rng: &mut Rng,
) -> SearchResult {
    let n = game.num_players();
    let mut nodes = vec![Node {
        action: 0,
        player: 0,
        visits: 0,
        total: 0.0,
        first_child: 0,
        num_children: 0,
    }];
    let mut path: Vec<u32> = Vec::with_capacity(256);
    let mut actions: Vec<u32> = Vec::with_capacity(256);
    let mut returns = vec![0.0; n];
    for _ in 0..simulations {
        path.clear();
        path.push(0);
        let mut state = *root;
        let mut node = 0usize;
        loop {
            let to_act = game.to_act(&state);
            if to_act < 0 {
                break;
            }
            if nodes[node].num_children == 0 {
                actions.clear();
                game.actions(&state, &mut actions);
                let first = nodes.len() as u32;
                for &action in actions.iter() {
                    nodes.push(Node {
                        action,
                        player: to_act as u8,
                        visits: 0,
                        total: 0.0,
                        first_child: 0,
                        num_children: 0,
                    });
                }
                nodes[node].first_child = first;
                nodes[node].num_children = actions.len() as u32;
                break;
            }
            let parent_visits = nodes[node].visits.max(1) as f64;
            let log_parent = parent_visits.ln();
            let first = nodes[node].first_child as usize;
            let mut best = first;
            let mut best_value = f64::NEG_INFINITY;
            for (i, child) in nodes[first..first + nodes[node].num_children as usize]
                .iter()
                .enumerate()
            {
                let value = if child.visits == 0 {
                    // Unvisited children first, in a random order.
                    1e9 + rng.below(1 << 20) as f64
                } else {
                    let visits = child.visits as f64;
                    child.total as f64 / visits + uct_c * (log_parent / visits).sqrt()
                };
                if value > best_value {
                    best_value = value;
                    best = first + i;
                }
            }
            state = game.play(&state, nodes[best].action);
            node = best;
            path.push(best as u32);
        }
        game.rollout(&state, rng, &mut returns);
        for &i in path.iter() {
            let node = &mut nodes[i as usize];
            node.visits += 1;
            node.total += returns[node.player as usize] as f32;
        }
    }
    let root_node = nodes[0];
    let children = &nodes
        [root_node.first_child as usize..(root_node.first_child + root_node.num_children) as usize];
    let action = children.iter().max_by_key(|c| c.visits).map(|c| c.action);
    SearchResult {
        action,
        simulations,
        nodes: nodes.len(),
        node_bytes: std::mem::size_of::<Node>(),
    }
}
