//! Terra Nova zones and scoring (`scoring.py`, spec §4): the areas a stone closes, found
//! without walking the whole board (`parts_after_stone`), and their scoring
//! (`State::score_parts`). The flood fills work on the board's bitsets (`board.rs`).

use super::state::{AreaRecord, Game, State, MAX_SEATS};
use crate::common::bits::Bits;

/// Up to three scored parts (a stone touches at most three arcs of open ground).
pub(super) struct Parts<const W: usize> {
    parts: [Bits<W>; 3],
    pub(super) len: usize,
}

impl<const W: usize> Parts<W> {
    fn new() -> Self {
        Parts {
            parts: [Bits::EMPTY; 3],
            len: 0,
        }
    }
    fn push(&mut self, part: Bits<W>) {
        self.parts[self.len] = part;
        self.len += 1;
    }
    pub(super) fn as_slice(&self) -> &[Bits<W>] {
        &self.parts[..self.len]
    }
}

/// t(Z) for the landscapes `lands` (A2 aware).
fn landscape_count<const W: usize>(g: &Game<W>, lands: u32) -> u32 {
    if g.rules.lake_is_landscape {
        return lands.count_ones();
    }
    let t = (lands & !g.board.water_lands).count_ones();
    if t > 0 || lands == 0 {
        t
    } else {
        1
    }
}

pub(super) fn is_area<const W: usize>(g: &Game<W>, cells: &Bits<W>) -> bool {
    landscape_count(g, g.board.lands_of(cells)) <= 3
}

/// `parts_after_stone`: the parts of x's old zone to score after a stone on `x`.
pub(super) fn parts_after_stone<const W: usize>(g: &Game<W>, x: usize, open_after: &Bits<W>) -> Parts<W> {
    let b = &g.board;
    let rules = &g.rules;
    let mut out = Parts::new();
    let mut pattern = 0u8;
    let mut neighbor_bits = [(0u8, 0usize); 6];
    let mut num_neighbors = 0;
    for d in 0..6 {
        let nb = b.next[d][x];
        if nb >= 0 {
            neighbor_bits[num_neighbors] = (1 << d, nb as usize);
            num_neighbors += 1;
            if open_after.get(nb as usize) {
                pattern |= 1 << d;
            }
        }
    }
    let neighbors = &neighbor_bits[..num_neighbors];
    let arcs = &b.ring_arcs[pattern as usize];
    if arcs.is_empty() {
        return out;
    }
    let reduce_types = rules.score_on_type_reduction;
    let invariant = reduce_types && (rules.lake_is_landscape || b.dry_landscapes >= 4);
    if arcs.len() == 1 && (!reduce_types || (invariant && open_after.intersects(&b.same_land[x]))) {
        return out;
    }
    let mut seeds: [Bits<W>; 4] = [Bits::EMPTY; 4];
    let mut num_seeds = 0;
    for &arc in arcs.iter() {
        let mut seed = Bits::EMPTY;
        for &(direction_bit, cell) in neighbors {
            if arc & direction_bit != 0 {
                seed.set(cell);
            }
        }
        seeds[num_seeds] = seed;
        num_seeds += 1;
    }
    let x_land_cells = b.land_masks[b.land[x] as usize];
    let stop = if invariant { x_land_cells } else { Bits::EMPTY };
    let window = b.near[x] & *open_after;
    let mut near = seeds[0];
    let mut frontier = seeds[0];
    while frontier.any() {
        frontier = (b.spread(&frontier) & window).minus(&near);
        near |= frontier;
    }
    if seeds[..num_seeds].iter().all(|s| s.intersects(&near)) {
        if !reduce_types || (invariant && near.intersects(&x_land_cells)) {
            return out;
        }
        explore_one_part(g, near, open_after, &stop, &mut out);
        return out;
    }
    if num_seeds == 1 {
        explore_one_part(g, seeds[0], open_after, &stop, &mut out);
        return out;
    }
    let mut joined: [Bits<W>; 4] = [Bits::EMPTY; 4];
    joined[0] = near;
    let mut num_joined = 1;
    for seed in seeds[..num_seeds].iter() {
        if !seed.intersects(&near) {
            joined[num_joined] = *seed;
            num_joined += 1;
        }
    }
    if num_joined == 2 {
        two_parts(g, joined[0], joined[1], open_after, &stop, &mut out);
        return out;
    }
    // [reached, frontier, alive] per growing part.
    let mut groups: [(Bits<W>, Bits<W>, bool); 4] = [(Bits::EMPTY, Bits::EMPTY, false); 4];
    for i in 0..num_joined {
        groups[i] = (joined[i], joined[i], true);
    }
    let groups = &mut groups[..num_joined];
    loop {
        let mut active = [0usize; 4];
        let mut num_active = 0;
        let mut alive = 0;
        for (i, g_) in groups.iter().enumerate() {
            if g_.2 {
                alive += 1;
                if g_.1.any() {
                    active[num_active] = i;
                    num_active += 1;
                }
            }
        }
        if num_active == 0 {
            break;
        }
        if alive == 1 {
            if !reduce_types {
                return out;
            }
            let only = groups.iter().find(|g_| g_.2).map(|g_| g_.0).unwrap_or_default();
            explore_one_part(g, only, open_after, &stop, &mut out);
            return out;
        }
        if num_active == 1 && !is_area(g, &groups[active[0]].0) {
            for g_ in groups.iter() {
                if g_.2 && g_.1.is_empty() && is_area(g, &g_.0) {
                    out.push(g_.0);
                }
            }
            return out;
        }
        for &i in active[..num_active].iter() {
            if !groups[i].2 {
                continue; // merged into another group earlier in this round
            }
            let frontier = (b.spread(&groups[i].1) & *open_after).minus(&groups[i].0);
            groups[i].0 |= frontier;
            groups[i].1 = frontier;
            for j in 0..groups.len() {
                if j != i && groups[j].2 && groups[j].0.intersects(&groups[i].0) {
                    let (reached, front) = (groups[j].0, groups[j].1);
                    groups[i].0 |= reached;
                    groups[i].1 |= front;
                    groups[j].2 = false;
                }
            }
        }
    }
    for g_ in groups.iter() {
        if g_.2 && is_area(g, &g_.0) {
            out.push(g_.0);
        }
    }
    out
}

/// `_two_parts`.
fn two_parts<const W: usize>(
    g: &Game<W>,
    mut a: Bits<W>,
    mut b_: Bits<W>,
    open_after: &Bits<W>,
    stop: &Bits<W>,
    out: &mut Parts<W>,
) {
    let b = &g.board;
    let (mut a_new, mut b_new) = (a, b_);
    loop {
        a_new = (b.spread(&a_new) & *open_after).minus(&a);
        a |= a_new;
        if a.intersects(&b_) {
            break;
        }
        b_new = (b.spread(&b_new) & *open_after).minus(&b_);
        b_ |= b_new;
        if a.intersects(&b_) {
            break;
        }
        if a_new.is_empty() || b_new.is_empty() {
            let (done, other) = if a_new.is_empty() { (a, b_) } else { (b_, a) };
            if is_area(g, &done) {
                out.push(done);
            }
            explore_one_part(g, other, open_after, &Bits::EMPTY, out);
            return;
        }
    }
    if !g.rules.score_on_type_reduction {
        return;
    }
    explore_one_part(g, a | b_, open_after, stop, out);
}

/// `_explore_one_part`: the part containing `reached` if it is an area (else nothing).
fn explore_one_part<const W: usize>(
    g: &Game<W>,
    mut reached: Bits<W>,
    open_after: &Bits<W>,
    stop: &Bits<W>,
    out: &mut Parts<W>,
) {
    let b = &g.board;
    let count_water = g.rules.lake_is_landscape;
    let mut seen = 0u32;
    let mut frontier = reached;
    loop {
        if reached.intersects(stop) {
            return;
        }
        let lands = b.lands_of(&frontier);
        if lands & !seen != 0 {
            seen |= lands;
            let t = if count_water {
                seen.count_ones()
            } else {
                (seen & !b.water_lands).count_ones()
            };
            if t >= 4 {
                return;
            }
        }
        frontier = (b.spread(&frontier) & *open_after).minus(&reached);
        if frontier.is_empty() {
            out.push(reached);
            return;
        }
        reached |= frontier;
    }
}

/// A scored area as `scoring.ScoredArea` has it, rebuilt from its [`AreaRecord`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScoredArea<const W: usize> {
    pub cells: Bits<W>,
    /// The landscape indices present (a bitset).
    pub lands: u32,
    pub t: u32,
    pub value: i32,
    pub counts: [i32; MAX_SEATS],
    pub awards: [i32; MAX_SEATS],
    pub turn: u32,
}

/// The landscapes (as a bitset), t and value V = n × (4 − t) of the area `cells`.
fn valued<const W: usize>(g: &Game<W>, cells: &Bits<W>) -> (u32, u32, i32) {
    let lands = g.board.lands_of(cells);
    let t = landscape_count(g, lands);
    (lands, t, cells.count() as i32 * (4 - t as i32))
}

/// The points of each seat for an area worth `value` with `counts` pioneers per seat:
/// the seats with the most (at least one) share it, rounded down.
fn awards(value: i32, counts: &[i32]) -> [i32; MAX_SEATS] {
    let mut out = [0; MAX_SEATS];
    let top = counts.iter().copied().max().unwrap_or(0);
    if top > 0 {
        let leaders = counts.iter().filter(|&&c| c == top).count() as i32;
        for (award, &count) in out.iter_mut().zip(counts) {
            if count == top {
                *award = value.div_euclid(leaders);
            }
        }
    }
    out
}

/// The cells of `within` connected to `cell` (`cell` included).
pub(super) fn component<const W: usize>(g: &Game<W>, cell: usize, within: &Bits<W>) -> Bits<W> {
    let mut reached = Bits::single(cell);
    let mut frontier = reached;
    while frontier.any() {
        frontier = (g.board.spread(&frontier) & *within).minus(&reached);
        reached |= frontier;
    }
    reached
}

/// The area `record` describes in a position whose scored cells are `closed`.
pub fn scored_area<const W: usize>(g: &Game<W>, record: &AreaRecord, closed: &Bits<W>) -> ScoredArea<W> {
    let cells = component(g, usize::from(record.cell), closed);
    let (lands, t, value) = valued(g, &cells);
    let mut counts = [0; MAX_SEATS];
    for (p, count) in counts.iter_mut().enumerate().take(g.num_players) {
        *count = record.count(p);
    }
    ScoredArea {
        cells,
        lands,
        t,
        value,
        counts,
        awards: awards(value, &counts[..g.num_players]),
        turn: record.turn,
    }
}

/// `state.areas`: every scored area in the order scored, or `None` where more were
/// scored than a state records (`MAX_RECORDED_AREAS`).
pub fn scored_areas<const W: usize>(g: &Game<W>, s: &State<W>) -> Option<Vec<ScoredArea<W>>> {
    let records = s.areas.get(..s.num_areas as usize)?;
    Some(records.iter().map(|r| scored_area(g, r, &s.closed)).collect())
}

impl<const W: usize> State<W> {
    /// `score_parts`: scores and closes each area.
    pub(super) fn score_parts(&mut self, g: &Game<W>, parts: &[Bits<W>]) {
        let n = g.num_players;
        for cells in parts {
            let (_, _, value) = valued(g, cells);
            let mut counts = [0i32; MAX_SEATS];
            for (p, count) in counts.iter_mut().enumerate().take(n) {
                *count = (self.pioneers[p] & *cells).count() as i32;
            }
            for (points, award) in self.points.iter_mut().zip(awards(value, &counts[..n])) {
                *points += award;
            }
            for (p, &count) in counts.iter().enumerate().take(n) {
                if count > 0 {
                    self.pioneers[p] = self.pioneers[p].minus(cells);
                    self.removed[p] += count;
                }
            }
            if let Some(record) = self.areas.get_mut(self.num_areas as usize) {
                *record = AreaRecord {
                    turn: self.turn,
                    cell: cells.lowest().unwrap_or(0) as u16,
                    counts: AreaRecord::pack_counts(&counts[..n]),
                };
            }
            self.closed |= *cells;
            self.num_areas += 1;
        }
    }
}
