//! Reading the setup the Python adapter sends (`{"config": ..., "initial": <the Python
//! initial state's to_json()>}`): the rules, the player count and start player, and what
//! the Python engine drew at random (the starting merchant's square; in the second
//! edition also the well), as Terra Nova's `setup.rs`.

use super::board::{square, FILES, HEIGHT};
use super::ruleset::{parse_neutral_domes, parse_tower_values, Rules};
use super::state::State;
use serde_json::Value;

fn field<'a>(obj: &'a Value, key: &str) -> Result<&'a Value, String> {
    obj.get(key).ok_or_else(|| format!("medina setup: missing {key:?}"))
}

fn flag(rules: &Value, key: &str) -> Result<bool, String> {
    field(rules, key)?
        .as_bool()
        .ok_or_else(|| format!("medina setup: rules.{key} must be a boolean"))
}

fn text<'a>(obj: &'a Value, key: &str) -> Result<&'a str, String> {
    field(obj, key)?
        .as_str()
        .ok_or_else(|| format!("medina setup: {key} must be a string"))
}

fn int(obj: &Value, key: &str) -> Result<i64, String> {
    field(obj, key)?
        .as_i64()
        .ok_or_else(|| format!("medina setup: {key} must be an integer"))
}

/// The index of a square name such as `E5`.
pub fn parse_square(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let col = FILES.iter().position(|&c| Some(&c) == bytes.first())?;
    let rank: usize = text.get(1..)?.parse().ok()?;
    (1..=HEIGHT).contains(&rank).then(|| square(col, rank - 1))
}

/// The state described by the setup JSON (`{"config": ..., "initial": <Python initial state's to_json()>}`).
pub fn from_json(setup_json: &str) -> Result<State, String> {
    let setup: Value = serde_json::from_str(setup_json).map_err(|e| format!("medina setup: bad JSON: {e}"))?;
    let initial = field(&setup, "initial")?;
    let rules = field(initial, "rules")?;
    let edition = int(rules, "edition")?;
    if !(1..=2).contains(&edition) {
        return Err(format!("medina: no edition {edition} (1 or 2)"));
    }
    let start_random = match text(rules, "start_merchant")? {
        "player" => false,
        "random" => true,
        other => return Err(format!("medina setup: unknown start_merchant {other:?}")),
    };
    let tie_break_largest_palace = match text(rules, "tie_break")? {
        "none" => false,
        "largest_palace" => true,
        other => return Err(format!("medina setup: unknown tie_break {other:?}")),
    };
    let well_bonus_plaza_ring = match text(rules, "well_bonus_squares")? {
        "cross" => false,
        "plaza_ring" => true,
        other => return Err(format!("medina setup: unknown well_bonus_squares {other:?}")),
    };
    let parsed = Rules {
        edition: edition as u8,
        abandoned_palace_claimable: flag(rules, "abandoned_palace_claimable")?,
        new_chain_may_touch_one: flag(rules, "new_chain_may_touch_one")?,
        tower_reconnect_per_run: flag(rules, "tower_reconnect_per_run")?,
        tower_values: parse_tower_values(text(rules, "tower_values")?)?,
        last_player_by_supply: flag(rules, "last_player_by_supply")?,
        dome_obligation_lookahead: flag(rules, "dome_obligation_lookahead")?,
        start_merchant_anywhere: flag(rules, "start_merchant_anywhere")?,
        stable_adjacency_scores: flag(rules, "stable_adjacency_scores")?,
        last_player_dome_obligation: flag(rules, "last_player_dome_obligation")?,
        obligation_recheck: flag(rules, "obligation_recheck")?,
        tie_break_largest_palace,
        neutral_domes: parse_neutral_domes(text(rules, "neutral_domes")?)?,
        well_bonus_plaza_ring,
        neutral_claims_tiles: flag(rules, "neutral_claims_tiles")?,
        neutral_dome_any_unowned: flag(rules, "neutral_dome_any_unowned")?,
        tea_spend_when_stuck: flag(rules, "tea_spend_when_stuck")?,
        tea_usable_turn_received: flag(rules, "tea_usable_turn_received")?,
        tower_events_claim_only: flag(rules, "tower_events_claim_only")?,
        neutral_dome_satisfies_obligation: flag(rules, "neutral_dome_satisfies_obligation")?,
    };
    let n = int(initial, "num_players")?;
    let fewest = if parsed.second() { 2 } else { 3 };
    if !(fewest..=4).contains(&n) {
        return Err(format!("medina needs {fewest} to 4 players, got {n}"));
    }
    let start_player = int(initial, "current_player")?;
    if !(0..n).contains(&start_player) {
        return Err(format!("medina setup: current_player {start_player} is not a seat"));
    }
    let mut state = State::new(n as usize, start_player as usize, parsed);
    if parsed.second() {
        // The well as the Python engine drew it (its rules name the square), or none.
        match text(rules, "well")? {
            "none" => {}
            name => {
                let sq = parse_square(name)
                    .filter(|&sq| state.geo().inner.has(sq))
                    .ok_or_else(|| format!("medina setup: bad well square {name:?}"))?;
                state.place_well(sq);
            }
        }
    }
    // A drawn (or, in the second edition, a given) starting merchant: from the Python view.
    let placed_at_setup = start_random || (parsed.second() && !text(rules, "start_square")?.is_empty());
    match field(initial, "start_merchant")? {
        Value::Null if !placed_at_setup => {}
        Value::String(name) if placed_at_setup => {
            let sq = parse_square(name)
                .filter(|&sq| state.start_squares().andnot(state.occupied).has(sq))
                .ok_or_else(|| format!("medina setup: bad start square {name:?}"))?;
            state.place_start(sq);
            state.ply = 0;
        }
        other => return Err(format!("medina setup: unexpected start_merchant {other}")),
    }
    Ok(state)
}
