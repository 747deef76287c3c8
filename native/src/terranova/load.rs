//! Loading a Terra Nova position: the inverse of the Python binding's `export()`.
//!
//! A [`Position`] holds the fields of the Python `state.State` (as `export()` gives them);
//! [`load`] checks that they describe a position of this game that the rules can reach
//! in every respect a state can check by itself (cells on the board, no two pieces on
//! a cell, every pioneer and stone accounted for, turn progress that fits the phase, the
//! end of the game where and only where the rules end it) and returns the equal
//! [`State`]. `filled` is derived; `termination` is checked against the rules' end
//! conditions, or derived from them where it is not given.

use super::board::ReturnRule;
use super::rules::Termination;
use super::scoring::{component, scored_area, scored_areas};
use super::state::{
    pioneers_per_player, AreaRecord, Game, Lines, Phase, State, MAX_RECORDED_AREAS, MAX_SEATS, TOTAL_STONES,
};
use crate::common::bits::Bits;

/// The fields of a Terra Nova position (`export()`; numbers as read, checked by [`load`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position<const W: usize> {
    pub current_player: i64,
    pub phase: String,
    pub pioneers: Vec<Bits<W>>,
    pub stones: Bits<W>,
    pub closed: Bits<W>,
    /// Pioneers, stones and closed cells: checked where given.
    pub filled: Option<Bits<W>>,
    pub turn_stones: Bits<W>,
    pub supply: i64,
    pub points: Vec<i64>,
    pub in_hand: Vec<i64>,
    pub removed: Vec<i64>,
    pub action: i64,
    /// `(current cell, turn-start cell)` of each pioneer moved this turn.
    pub movers: Vec<(i64, i64)>,
    pub moves_made: i64,
    pub pending_return: i64,
    pub turn: i64,
    pub ply: i64,
    pub stall: i64,
    pub start_player: i64,
    /// How many areas were scored: checked against `areas` where given.
    pub num_areas: Option<i64>,
    /// The scored areas in the order scored (`state.areas`).
    pub areas: Vec<AreaFields>,
    /// The end condition's name once over: checked where given.
    pub termination: Option<String>,
}

/// A scored area's fields (`scoring.ScoredArea`), checked by [`load`] against the
/// position: its cells one whole component of the closed cells, the rest what they,
/// the counts and the rules give.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AreaFields {
    pub cells: Vec<i64>,
    pub landscapes: Vec<String>,
    pub t: i64,
    pub value: i64,
    pub counts: Vec<i64>,
    pub awards: Vec<i64>,
    pub turn: i64,
}

impl AreaFields {
    /// The fields of an area as `scored_areas` rebuilds it.
    pub fn of<const W: usize>(g: &Game<W>, area: &super::scoring::ScoredArea<W>) -> Self {
        let n = g.num_players;
        AreaFields {
            cells: area.cells.iter().map(|c| c as i64).collect(),
            landscapes: (0..g.board.num_lands)
                .filter(|&i| area.lands >> i & 1 != 0)
                .map(|i| g.board.land_ids[i].clone())
                .collect(),
            t: i64::from(area.t),
            value: i64::from(area.value),
            counts: area.counts[..n].iter().map(|&c| i64::from(c)).collect(),
            awards: area.awards[..n].iter().map(|&c| i64::from(c)).collect(),
            turn: i64::from(area.turn),
        }
    }
}

/// The records of the scored areas `areas` of a position whose closed cells are `closed`
/// and whose turn is `turn`, or why they are not its areas.
fn area_records<const W: usize>(
    g: &Game<W>,
    areas: &[AreaFields],
    closed: &Bits<W>,
    removed: &[i32],
    turn: i64,
) -> Result<[AreaRecord; MAX_RECORDED_AREAS], String> {
    let n = g.num_players;
    if areas.len() > MAX_RECORDED_AREAS {
        return Err(format!(
            "{} scored areas: the native engine records at most {MAX_RECORDED_AREAS}",
            areas.len()
        ));
    }
    let mut records = [AreaRecord::default(); MAX_RECORDED_AREAS];
    let mut covered = Bits::EMPTY;
    let mut counted = [0i32; MAX_SEATS];
    let mut last_turn = 0;
    for (i, (area, record)) in areas.iter().zip(records.iter_mut()).enumerate() {
        let lowest = *area.cells.first().ok_or_else(|| format!("area {i} has no cells"))?;
        let lowest = usize::try_from(lowest)
            .ok()
            .filter(|&c| c < g.board.num_cells && closed.get(c))
            .ok_or_else(|| format!("area {i}'s cell {lowest} is not a closed cell"))?;
        let cells = component(g, lowest, closed);
        if area.cells.iter().map(|&c| c as usize).ne(cells.iter()) || cells.intersects(&covered) {
            return Err(format!(
                "area {i}'s cells are not one whole component of the closed cells, ascending, apart from the other areas"
            ));
        }
        covered |= cells;
        if area.counts.len() != n {
            return Err(format!("area {i} has {} counts for {n} players", area.counts.len()));
        }
        let mut counts = [0i32; MAX_SEATS];
        for (p, (&c, count)) in area.counts.iter().zip(counts.iter_mut()).enumerate() {
            *count = in_range("an area's count", c, 0, i64::from(removed[p]))? as i32;
            counted[p] += *count;
        }
        last_turn = in_range("an area's turn", area.turn, last_turn, turn)?;
        *record = AreaRecord {
            turn: last_turn as u32,
            cell: lowest as u16,
            counts: AreaRecord::pack_counts(&counts[..n]),
        };
        if AreaFields::of(g, &scored_area(g, record, closed)) != *area {
            return Err(format!(
                "area {i}'s landscapes, t, value or awards are not what its cells and counts give"
            ));
        }
    }
    if covered != *closed {
        return Err("the scored areas' cells are not the closed cells".into());
    }
    if counted[..n] != removed[..n] {
        return Err(format!(
            "the scored areas removed {:?} pioneers, but removed is {:?}",
            &counted[..n],
            &removed[..n]
        ));
    }
    Ok(records)
}

const PHASES: [Phase; 3] = [Phase::Placement, Phase::Play, Phase::Over];
const TERMINATIONS: [Termination; 5] = [
    Termination::BoardDivided,
    Termination::OneMobilePlayer,
    Termination::PlayerEliminated,
    Termination::StonesExhausted,
    Termination::Stall,
];

impl<const W: usize> Position<W> {
    /// The fields of `s` (what `export()` gives, with the termination).
    pub fn of(g: &Game<W>, s: &State<W>) -> Self {
        let n = g.num_players;
        let wide = |v: &[i32]| v[..n].iter().map(|&x| i64::from(x)).collect();
        Position {
            current_player: i64::from(s.current_player),
            phase: s.phase.name().to_owned(),
            pioneers: s.pioneers[..n].to_vec(),
            stones: s.stones,
            closed: s.closed,
            filled: Some(s.filled),
            turn_stones: s.turn_stones,
            supply: i64::from(s.supply),
            points: wide(&s.points),
            in_hand: wide(&s.in_hand),
            removed: wide(&s.removed),
            action: i64::from(s.action),
            movers: s.movers[..s.num_movers as usize]
                .iter()
                .map(|&(c, st)| (i64::from(c), i64::from(st)))
                .collect(),
            moves_made: i64::from(s.moves_made),
            pending_return: i64::from(s.pending_return),
            turn: i64::from(s.turn),
            ply: i64::from(s.ply),
            stall: i64::from(s.stall),
            start_player: i64::from(s.start_player),
            num_areas: Some(i64::from(s.num_areas)),
            areas: scored_areas(g, s)
                .unwrap_or_default()
                .iter()
                .map(|area| AreaFields::of(g, area))
                .collect(),
            termination: s.termination.map(|t| t.name().to_owned()),
        }
    }
}

/// A count that must lie in `lo..=hi`.
fn in_range(name: &str, value: i64, lo: i64, hi: i64) -> Result<i64, String> {
    if (lo..=hi).contains(&value) {
        Ok(value)
    } else {
        Err(format!("{name} is {value}, not in {lo}..={hi}"))
    }
}

/// A per-seat list of `n` numbers, each in `lo..=hi`.
fn per_seat(name: &str, values: &[i64], n: usize, lo: i64, hi: i64) -> Result<[i32; MAX_SEATS], String> {
    if values.len() != n {
        return Err(format!("{name} has {} entries for {n} players", values.len()));
    }
    let mut out = [0; MAX_SEATS];
    for (o, &v) in out.iter_mut().zip(values) {
        *o = in_range(name, v, lo, hi)? as i32;
    }
    Ok(out)
}

/// The position `p` of game `g`, or why it is not one.
pub fn load<const W: usize>(g: &Game<W>, p: &Position<W>) -> Result<State<W>, String> {
    let n = g.num_players;
    let b = &g.board;
    let cells = b.num_cells as i64;
    let phase = *PHASES
        .iter()
        .find(|ph| ph.name() == p.phase)
        .ok_or_else(|| format!("unknown phase {:?}", p.phase))?;
    if p.pioneers.len() != n {
        return Err(format!("pioneers has {} entries for {n} players", p.pioneers.len()));
    }
    // Every piece on the board, at most one on a cell.
    let mut named: Vec<(String, Bits<W>)> = vec![
        ("stones".into(), p.stones),
        ("closed".into(), p.closed),
        ("turn_stones".into(), p.turn_stones),
    ];
    named.extend(
        p.pioneers
            .iter()
            .enumerate()
            .map(|(i, &own)| (format!("pioneers[{i}]"), own)),
    );
    for (name, bits) in &named {
        if bits.minus(&b.all).any() {
            return Err(format!("{name} names a cell beyond the board's {cells} cells"));
        }
    }
    if p.stones.intersects(&p.closed) {
        return Err("a stone lies on a closed cell".into());
    }
    let mut filled = p.stones | p.closed;
    for (i, own) in p.pioneers.iter().enumerate() {
        if own.intersects(&filled) {
            return Err(format!(
                "a pioneer of seat {i} shares a cell with a stone, a closed area or another pioneer"
            ));
        }
        filled |= *own;
    }
    if p.filled.is_some_and(|f| f != filled) {
        return Err("filled is not the cells of the pioneers, stones and closed areas".into());
    }
    if p.turn_stones.minus(&p.stones).any() {
        return Err("turn_stones names a cell without a stone".into());
    }
    // Every pioneer and stone accounted for.
    let each = pioneers_per_player(n).ok_or_else(|| format!("Terra Nova has no {n}-player game"))?;
    let in_hand = per_seat("in_hand", &p.in_hand, n, 0, i64::from(each))?;
    let removed = per_seat("removed", &p.removed, n, 0, i64::from(each))?;
    let points = per_seat("points", &p.points, n, i64::from(i32::MIN), i64::from(i32::MAX))?;
    for i in 0..n {
        let on_board = p.pioneers[i].count() as i32;
        if on_board + in_hand[i] + removed[i] != each {
            return Err(format!(
                "seat {i} has {on_board} pioneers on the board, {} in hand and {} removed: not the {each} of a {n}-player game",
                in_hand[i], removed[i]
            ));
        }
    }
    let supply = in_range("supply", p.supply, 0, i64::from(TOTAL_STONES))? as i32;
    if supply + p.stones.count() as i32 != TOTAL_STONES {
        return Err(format!(
            "a supply of {supply} and {} stones on the board are not the {TOTAL_STONES} stones",
            p.stones.count()
        ));
    }
    if p.num_areas.is_some_and(|k| k != p.areas.len() as i64) {
        return Err(format!(
            "num_areas is {}, but {} areas are given",
            p.num_areas.unwrap_or_default(),
            p.areas.len()
        ));
    }
    let areas = area_records(g, &p.areas, &p.closed, &removed[..n], p.turn)?;
    let mut awarded = vec![0i64; n];
    for area in &p.areas {
        for (sum, &award) in awarded.iter_mut().zip(&area.awards) {
            *sum += award;
        }
    }
    if awarded != p.points {
        return Err(format!(
            "points {:?} are not the scored areas' awards {awarded:?}",
            p.points
        ));
    }
    let start_player = in_range("start_player", p.start_player, 0, n as i64 - 1)?;
    let counter = |name: &str, v: i64| in_range(name, v, 0, i64::from(u32::MAX)).map(|v| v as u32);
    // Turn progress.
    let action = in_range("action", p.action, 0, 2)?;
    let moves_made = in_range("moves_made", p.moves_made, 0, action)?;
    if p.movers.len() > moves_made as usize {
        return Err(format!("{} movers after {moves_made} moves this turn", p.movers.len()));
    }
    if p.turn_stones.count() as i64 != action - moves_made {
        return Err(format!(
            "{} stones placed this turn, but {action} actions of which {moves_made} moves",
            p.turn_stones.count()
        ));
    }
    let mut movers = [(0u16, 0u16); 3];
    for (i, &(cur, start)) in p.movers.iter().enumerate() {
        let cur = in_range("a mover's cell", cur, 0, cells - 1)? as usize;
        let start = in_range("a mover's start cell", start, 0, cells - 1)? as usize;
        let current = usize::try_from(p.current_player).ok().filter(|&c| c < n);
        if !current.is_some_and(|c| p.pioneers[c].get(cur)) {
            return Err(format!("mover {i} is not on a pioneer of the player to act"));
        }
        if movers[..i].iter().any(|&(c, _)| c as usize == cur) {
            return Err(format!("two movers on cell {cur}"));
        }
        movers[i] = (cur as u16, start as u16);
    }
    let pending_return = in_range("pending_return", p.pending_return, -1, cells - 1)?;
    if pending_return >= 0
        && (g.rules.return_rule != ReturnRule::EndOfTurn
            || !p
                .movers
                .iter()
                .any(|&(c, s)| c == pending_return && s == pending_return))
    {
        return Err(format!(
            "pending_return {pending_return} is not a pioneer back on its turn-start cell"
        ));
    }
    let mut state = State {
        pioneers: [Bits::EMPTY; MAX_SEATS],
        stones: p.stones,
        closed: p.closed,
        filled,
        turn_stones: p.turn_stones,
        points,
        in_hand,
        removed,
        supply,
        movers,
        num_movers: p.movers.len() as u8,
        action: action as u8,
        moves_made: moves_made as u8,
        pending_return: pending_return as i32,
        turn: counter("turn", p.turn)?,
        ply: counter("ply", p.ply)?,
        stall: counter("stall", p.stall)?,
        current_player: -1,
        start_player: start_player as u8,
        phase,
        termination: None,
        num_areas: p.areas.len() as u32,
        areas,
        lines: Lines::new(&g.board, &filled),
    };
    state.pioneers[..n].copy_from_slice(&p.pioneers);
    let given_end = match &p.termination {
        None => None,
        Some(name) => Some(
            *TERMINATIONS
                .iter()
                .find(|t| t.name() == name)
                .ok_or_else(|| format!("unknown termination {name:?}"))?,
        ),
    };
    // The phase and the seat to act.
    let hand: i32 = in_hand.iter().sum();
    if phase == Phase::Over {
        if p.current_player != -1 {
            return Err(format!("the game is over, but seat {} is to act", p.current_player));
        }
        if action != 0 || !p.movers.is_empty() || pending_return >= 0 {
            return Err("the game is over with a turn in progress".into());
        }
        let end = state
            .termination_check(g)
            .ok_or("the phase is over, but no end condition holds")?;
        if let Some(given) = given_end.filter(|&t| t != end) {
            return Err(format!(
                "the termination is {}, but the rules end this game by {}",
                given.name(),
                end.name()
            ));
        }
        state.termination = Some(end);
        return Ok(state);
    }
    state.current_player = in_range("current_player", p.current_player, 0, n as i64 - 1)? as i32;
    if let Some(given) = given_end {
        return Err(format!(
            "a termination ({}) in the {} phase",
            given.name(),
            phase.name()
        ));
    }
    if phase == Phase::Placement {
        if p.stones.any() || p.closed.any() || action != 0 {
            return Err("stones, closed areas or actions during the placement".into());
        }
        if in_hand[state.current_player as usize] == 0 {
            return Err("the seat to place has no pioneer in hand".into());
        }
        return Ok(state);
    }
    if hand != 0 {
        return Err(format!("{hand} pioneers still in hand in the play phase"));
    }
    if action == 0 {
        // The rules end the game at the end of a turn where an end condition holds.
        if let Some(end) = state.termination_check(g) {
            return Err(format!("a turn starts, but the game is over ({})", end.name()));
        }
    }
    Ok(state)
}

#[cfg(feature = "python")]
pub use self::py_fields::{read, read_state};

#[cfg(feature = "python")]
mod py_fields {
    use super::{load, AreaFields, Position};
    use crate::common::bits::Bits;
    use crate::common::pyfields::Fields;
    use crate::terranova::state::{Game, State};
    use pyo3::prelude::*;

    /// The movers, `(cell, start cell)` pairs as tuples or lists (a JSON round trip).
    fn movers(fields: &Fields<'_>) -> PyResult<Vec<(i64, i64)>> {
        let pairs: Vec<Vec<i64>> = fields.get("movers")?;
        pairs
            .into_iter()
            .map(|pair| match pair[..] {
                [cell, start] => Ok((cell, start)),
                _ => Err(fields.error("a mover is not a (cell, start cell) pair")),
            })
            .collect()
    }

    /// The names of a scored area's fields, in `scoring.ScoredArea`'s order.
    const AREA_FIELDS: [&str; 7] = ["cells", "landscapes", "t", "value", "counts", "awards", "turn"];

    /// The scored areas: `scoring.ScoredArea` values (a Python state's) or sequences of
    /// their seven fields in order (`export()`'s tuples, or lists after a JSON round trip).
    fn areas(fields: &Fields<'_>) -> PyResult<Vec<AreaFields>> {
        let items: Vec<Bound<'_, PyAny>> = fields.get("areas")?;
        items
            .iter()
            .map(|item| {
                let values: Vec<Bound<'_, PyAny>> = if item.hasattr("cells")? {
                    AREA_FIELDS
                        .iter()
                        .map(|name| item.getattr(*name))
                        .collect::<PyResult<_>>()?
                } else {
                    fields.extract("areas", item)?
                };
                let [cells, landscapes, t, value, counts, awards, turn] = &values[..] else {
                    return Err(fields.error(format_args!("a scored area is not the seven fields {AREA_FIELDS:?}")));
                };
                Ok(AreaFields {
                    cells: fields.extract("areas", cells)?,
                    landscapes: fields.extract("areas", landscapes)?,
                    t: fields.extract("areas", t)?,
                    value: fields.extract("areas", value)?,
                    counts: fields.extract("areas", counts)?,
                    awards: fields.extract("areas", awards)?,
                    turn: fields.extract("areas", turn)?,
                })
            })
            .collect()
    }

    /// The state of game `g` at the position in `fields`.
    pub fn read_state<const W: usize>(g: &Game<W>, fields: &Fields<'_>) -> PyResult<State<W>> {
        load(g, &read(fields)?).map_err(|e| fields.error(e))
    }

    /// The position in `fields`: `export()`'s dict, or a Python engine state (whose
    /// `result` gives the termination).
    pub fn read<const W: usize>(fields: &Fields<'_>) -> PyResult<Position<W>> {
        let bits = |name: &str| fields.get_words::<W>(name).map(Bits);
        let filled = match fields.opt::<Bound<'_, PyAny>>("filled")? {
            Some(v) => Some(Bits(fields.words::<W>("filled", &v)?)),
            None => None,
        };
        let termination = match fields.opt::<String>("termination")? {
            Some(t) => Some(t),
            None => match fields.opt::<Bound<'_, PyAny>>("result")? {
                Some(result) => Some(fields.extract("result", &result.getattr("termination")?)?),
                None => None,
            },
        };
        Ok(Position {
            current_player: fields.get("current_player")?,
            phase: fields.get("phase")?,
            pioneers: fields.get_words_list::<W>("pioneers")?.into_iter().map(Bits).collect(),
            stones: bits("stones")?,
            closed: bits("closed")?,
            filled,
            turn_stones: bits("turn_stones")?,
            supply: fields.get("supply")?,
            points: fields.get("points")?,
            in_hand: fields.get("in_hand")?,
            removed: fields.get("removed")?,
            action: fields.get("action")?,
            movers: movers(fields)?,
            moves_made: fields.get("moves_made")?,
            pending_return: fields.get("pending_return")?,
            turn: fields.get("turn")?,
            ply: fields.get("ply")?,
            stall: fields.get("stall")?,
            start_player: fields.get("start_player")?,
            num_areas: fields.opt("num_areas")?,
            areas: areas(fields)?,
            termination,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::common::rng::Rng;
    use crate::terranova::setup;

    /// A 2-4 player game on a small hexagonal island (every landscape, one lake).
    fn game(players: usize) -> Game<4> {
        let mut cells = Vec::new();
        for q in -4i32..=4 {
            for r in -4i32..=4 {
                if (q + r).abs() <= 4 {
                    let land = ["a", "b", "c", "lake"][(q * 3 + r * 7).rem_euclid(4) as usize];
                    cells.push(serde_json::json!({"q": q, "r": r, "landscape": land}));
                }
            }
        }
        let setup = serde_json::json!({"initial": {
            "players": vec![0; players],
            "landscapes": [{"id": "a"}, {"id": "b"}, {"id": "c"}, {"id": "lake", "water": true}],
            "cells": cells,
            "rules": {"return_rule": "end_of_turn", "scoring_timing": "immediate", "mobility_test": "current",
                      "score_on_type_reduction": true, "lake_is_landscape": true, "end_on_player_eliminated": false,
                      "end_on_stones_exhausted": true, "stall_limit_rounds": 10},
            "start_player": 0,
        }});
        setup::from_json::<4>(&setup).expect("a valid setup").0
    }

    #[test]
    fn every_position_of_random_games_loads_as_itself() {
        let mut rng = Rng::new(7);
        let mut slides = Vec::new();
        for players in 2..=4 {
            let g = game(players);
            for _ in 0..5 {
                let mut s = g.initial(0);
                loop {
                    let loaded = load(&g, &Position::of(&g, &s)).expect("a reached position loads");
                    assert_eq!(Position::of(&g, &loaded), Position::of(&g, &s));
                    assert_eq!(loaded.legal_actions(&g), s.legal_actions(&g));
                    match s.random_move(&g, &mut rng, &mut slides) {
                        Some(mv) => {
                            assert_eq!(g.decode(g.encode(mv)), Some(mv));
                            assert!(s.is_legal(&g, mv));
                            s.play(&g, mv);
                        }
                        None => break,
                    }
                }
            }
        }
    }

    /// A position of a random game with at least two scored areas.
    fn with_areas(g: &Game<4>) -> State<4> {
        let mut rng = Rng::new(3);
        let mut slides = Vec::new();
        loop {
            let mut s = g.initial(0);
            while s.num_areas < 2 {
                match s.random_move(g, &mut rng, &mut slides) {
                    Some(mv) => s.play(g, mv),
                    None => break,
                }
            }
            if s.num_areas >= 2 {
                return s;
            }
        }
    }

    #[test]
    fn scored_areas_are_whole_components_of_the_closed_cells() {
        let g = game(2);
        let s = with_areas(&g);
        let good = Position::of(&g, &s);
        assert_eq!(good.areas.len(), s.num_areas as usize);
        let cells: Vec<i64> = good.areas.iter().flat_map(|a| a.cells.clone()).collect();
        assert_eq!(cells.len() as u32, s.closed.count());
        let mut p = good.clone();
        p.areas.swap(0, 1);
        if p.areas[0].turn != p.areas[1].turn {
            assert!(load(&g, &p).unwrap_err().contains("an area's turn"));
        }
        let mut p = good.clone();
        p.areas.pop();
        p.num_areas = None;
        assert!(load(&g, &p).unwrap_err().contains("not the closed cells"));
        let mut p = good.clone();
        p.areas[0].cells.pop();
        p.areas[0].cells.push(1_000);
        assert!(load(&g, &p).is_err());
        let mut p = good.clone();
        p.areas[1].value += 1;
        assert!(load(&g, &p)
            .unwrap_err()
            .contains("area 1's landscapes, t, value or awards"));
        let mut p = good.clone();
        p.num_areas = Some(5);
        assert!(load(&g, &p).unwrap_err().contains("num_areas is 5"));
        let mut p = good;
        p.areas = vec![p.areas[0].clone(); MAX_RECORDED_AREAS + 1];
        p.num_areas = None;
        assert!(load(&g, &p).unwrap_err().contains("records at most 32"));
    }

    #[test]
    fn a_state_past_the_recorded_areas_plays_on_without_them() {
        let g = game(2);
        let mut s = with_areas(&g);
        s.num_areas = MAX_RECORDED_AREAS as u32 + 1;
        assert!(scored_areas(&g, &s).is_none());
        let before = s.areas;
        let cell = g.board.all.minus(&s.filled).lowest().expect("an empty cell");
        s.score_parts(&g, &[Bits::single(cell)]);
        assert!(s.closed.get(cell));
        assert_eq!(s.num_areas, MAX_RECORDED_AREAS as u32 + 2);
        assert_eq!(s.areas, before);
    }

    #[test]
    fn broken_invariants_are_named() {
        let g = game(2);
        let s = g.initial(0);
        let good = Position::of(&g, &s);
        let mut p = good.clone();
        p.in_hand[0] -= 1;
        assert!(load(&g, &p).unwrap_err().contains("seat 0 has 0 pioneers"));
        let mut p = good.clone();
        p.stones = Bits::single(3);
        p.filled = None;
        assert!(load(&g, &p).unwrap_err().contains("not the 80 stones"));
        let mut p = good.clone();
        p.pioneers[1] = Bits::single(200);
        assert!(load(&g, &p).unwrap_err().contains("beyond the board"));
        let mut p = good.clone();
        p.filled = Some(Bits::EMPTY);
        p.pioneers[0] = Bits::single(5);
        assert!(load(&g, &p).unwrap_err().contains("filled is not"));
        let mut p = good.clone();
        p.phase = "over".into();
        assert!(load(&g, &p).unwrap_err().contains("over"));
        let mut p = good;
        p.phase = "middle".into();
        assert!(load(&g, &p).unwrap_err().contains("unknown phase"));
    }
}
