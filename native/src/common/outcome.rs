//! The result of a finished game from its scores (as `tabletop.core.outcome.Outcome`).

/// The seats with the highest score, ascending.
pub fn winners(scores: &[i32]) -> Vec<usize> {
    let Some(&top) = scores.iter().max() else {
        return Vec::new();
    };
    (0..scores.len()).filter(|&p| scores[p] == top).collect()
}

/// The win share of each seat: 1/k to each of k winners, 0 to the others.
pub fn returns(num_players: usize, winners: &[usize]) -> Vec<f64> {
    let mut out = vec![0.0; num_players];
    if !winners.is_empty() {
        let share = 1.0 / winners.len() as f64;
        for &p in winners {
            out[p] = share;
        }
    }
    out
}
