//! Reading the setup the Python adapter sends: `{"config": ..., "initial": ...}`, where
//! `initial` is the Python initial state's `to_json()` (the cells in index order, the
//! landscapes, the resolved rules and the start player it drew).

use super::board::{Board, ReturnRule, Rules};
use super::state::{pioneers_per_player, Game, State};
use serde_json::Value;

/// A game and its initial state, or why the setup cannot be played.
pub fn from_json<const W: usize>(setup: &Value) -> Result<(Game<W>, State<W>), String> {
    let initial = setup.get("initial").ok_or("the setup has no 'initial'")?;
    let num_players = initial
        .get("players")
        .and_then(Value::as_array)
        .map(|p| p.len())
        .ok_or("initial.players is missing")?;
    pioneers_per_player(num_players).ok_or_else(|| format!("Terra Nova is for 2 to 4 players, not {num_players}"))?;
    let landscapes = initial
        .get("landscapes")
        .and_then(Value::as_array)
        .ok_or("initial.landscapes is missing")?;
    let mut land_ids = Vec::new();
    let mut water = Vec::new();
    for ls in landscapes {
        land_ids.push(
            ls.get("id")
                .and_then(Value::as_str)
                .ok_or("a landscape without an id")?
                .to_owned(),
        );
        water.push(ls.get("water").and_then(Value::as_bool).unwrap_or(false));
    }
    let mut cells = Vec::new();
    for cell in initial
        .get("cells")
        .and_then(Value::as_array)
        .ok_or("initial.cells is missing")?
    {
        let q = cell.get("q").and_then(Value::as_i64).ok_or("a cell without q")? as i32;
        let r = cell.get("r").and_then(Value::as_i64).ok_or("a cell without r")? as i32;
        let id = cell
            .get("landscape")
            .and_then(Value::as_str)
            .ok_or("a cell without a landscape")?;
        let land = land_ids
            .iter()
            .position(|l| l == id)
            .ok_or("a cell names an unknown landscape")?;
        cells.push((q, r, land as u8));
    }
    let mut board = Board::<W>::new(&cells, &water)?;
    board.land_ids = land_ids;
    let rules = rules_from_json(initial.get("rules").ok_or("initial.rules is missing")?)?;
    let start = initial
        .get("start_player")
        .and_then(Value::as_u64)
        .ok_or("initial.start_player is missing")? as usize;
    if start >= num_players {
        return Err(format!("start_player {start} is not a seat"));
    }
    let game = Game {
        board,
        rules,
        num_players,
        learned: None,
    };
    let state = game.initial(start);
    Ok((game, state))
}

fn rules_from_json(rules: &Value) -> Result<Rules, String> {
    let text = |name: &str| {
        rules
            .get(name)
            .and_then(Value::as_str)
            .ok_or(format!("rules.{name} is missing"))
    };
    let flag = |name: &str| {
        rules
            .get(name)
            .and_then(Value::as_bool)
            .ok_or(format!("rules.{name} is missing"))
    };
    let return_rule = match text("return_rule")? {
        "end_of_turn" => ReturnRule::EndOfTurn,
        "strict" => ReturnRule::Strict,
        "three_moves_only" => ReturnRule::ThreeMovesOnly,
        other => return Err(format!("unknown return_rule {other:?}")),
    };
    let immediate_scoring = match text("scoring_timing")? {
        "immediate" => true,
        "end_of_turn" => false,
        other => return Err(format!("unknown scoring_timing {other:?}")),
    };
    let potential_mobility = match text("mobility_test")? {
        "current" => false,
        "potential" => true,
        other => return Err(format!("unknown mobility_test {other:?}")),
    };
    let stall_limit_rounds = match rules.get("stall_limit_rounds") {
        None | Some(Value::Null) => 0,
        Some(v) => v
            .as_u64()
            .filter(|&v| (1..=u32::MAX as u64).contains(&v))
            .ok_or("bad stall_limit_rounds")? as u32,
    };
    Ok(Rules {
        return_rule,
        immediate_scoring,
        score_on_type_reduction: flag("score_on_type_reduction")?,
        lake_is_landscape: flag("lake_is_landscape")?,
        end_on_player_eliminated: flag("end_on_player_eliminated")?,
        potential_mobility,
        end_on_stones_exhausted: flag("end_on_stones_exhausted")?,
        stall_limit_rounds,
    })
}
