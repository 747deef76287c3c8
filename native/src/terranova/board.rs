//! The static part of a Terra Nova game: the map's cells, neighbours, landscapes, the
//! slide order and the action ids (as `games/terranova/board.py` and `encoding.py`).

use crate::common::bits::Bits;

/// E, NE, NW, W, SW, SE as (dq, dr), as `tabletop.grid.hex.DIRECTIONS`.
pub const DIRECTIONS: [(i32, i32); 6] = [(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)];

/// The rule flags of spec §6 (`ruleset.py`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rules {
    pub return_rule: ReturnRule,
    pub immediate_scoring: bool,
    pub score_on_type_reduction: bool,
    pub lake_is_landscape: bool,
    pub end_on_player_eliminated: bool,
    pub potential_mobility: bool,
    pub end_on_stones_exhausted: bool,
    /// `stall_limit_rounds`, 0 for none.
    pub stall_limit_rounds: u32,
}

/// §3.5: when a moved pioneer may stand on its turn-start cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReturnRule {
    EndOfTurn,
    Strict,
    ThreeMovesOnly,
}

impl Default for Rules {
    fn default() -> Self {
        Rules {
            return_rule: ReturnRule::EndOfTurn,
            immediate_scoring: true,
            score_on_type_reduction: true,
            lake_is_landscape: true,
            end_on_player_eliminated: false,
            potential_mobility: false,
            end_on_stones_exhausted: true,
            stall_limit_rounds: 10,
        }
    }
}

/// The runs of set bits of a 6-bit direction pattern, read cyclically (`RING_ARCS`).
fn ring_arcs(pattern: u8) -> Vec<u8> {
    if pattern == 0b11_1111 {
        return vec![pattern];
    }
    let mut arcs = Vec::new();
    for d in 0..6 {
        if pattern >> d & 1 != 0 && pattern >> ((d + 5) % 6) & 1 == 0 {
            let mut arc = 0u8;
            let mut k = d;
            while pattern >> k & 1 != 0 {
                arc |= 1 << k;
                k = (k + 1) % 6;
            }
            arcs.push(arc);
        }
    }
    arcs
}

/// Precomputed tables of one map, shared by every state on it.
#[derive(Clone, Debug)]
pub struct Board<const W: usize> {
    pub num_cells: usize,
    pub coords: Vec<(i32, i32)>,
    /// Landscape index per cell.
    pub land: Vec<u8>,
    pub num_lands: usize,
    /// The id of each landscape (the setup's; the index where a board is made without).
    pub land_ids: Vec<String>,
    /// Bitset over landscape indices of the water landscapes.
    pub water_lands: u32,
    pub dry_landscapes: u32,
    pub land_masks: Vec<Bits<W>>,
    pub all: Bits<W>,
    /// `next[d][i]`: the neighbour of `i` in direction `d`, or -1.
    pub next: [Vec<i32>; 6],
    pub neighbor_masks: Vec<Bits<W>>,
    /// Cells at distance 1 or 2 (the scoring window).
    pub near: Vec<Bits<W>>,
    /// Neighbours of the same landscape.
    pub same_land: Vec<Bits<W>>,
    /// `line_pos[d][i]`: the position of cell `i` in the Python engine's lines layout,
    /// copy `d`: the legal slides are listed in the order of these keys.
    pub line_pos: [Vec<u32>; 6],
    /// `cell_line_pos[i][d]`: `line_pos[d][i]`, the six of a cell side by side.
    pub cell_line_pos: Vec<[u32; 6]>,
    /// One more than the highest position of the lines layout (its bits, padding
    /// included: a padding bit follows every line and stands in every gap).
    pub line_bits: usize,
    /// `line_masks[i * line_words + k]`: word `k` of cell `i`'s six layout bits. The
    /// slide sources are these words OR-ed in registers; setting six bits per pioneer
    /// in a word array read-modify-wrote the same words back to back, and waited on
    /// each store (about a twentieth of a Terra Nova step in a Python loop).
    pub line_masks: Vec<u64>,
    /// The 64-bit words of the lines layout (`line_bits` rounded up).
    pub line_words: usize,
    /// Whether a state can keep its empty cells in the lines layout (`state::Lines`):
    /// the layout fits its words with one to spare, and no ray is over 56 cells long
    /// (a run is read in one 64-bit read from any bit).
    pub lines_fit: bool,
    /// `line_cell[p]`: the cell and the direction (copy) of layout position `p`.
    pub line_cell: Vec<(u16, u8)>,
    /// `L`: the longest ray (at least 1), the encoding's slide stride.
    pub line: usize,
    pub ring_arcs: Vec<Vec<u8>>,
    /// Where each cell lies in the encoding's planes, and its fixed planes
    /// (`encoding.py`'s `_pos` and `_template`), made once with the board.
    pub layout: super::encode::Layout,
}

/// Something wrong with the setup sent from Python.
pub type SetupError = String;

impl<const W: usize> Board<W> {
    /// The board of cells `(q, r, landscape index)` in index order.
    pub fn new(cells: &[(i32, i32, u8)], water: &[bool]) -> Result<Self, SetupError> {
        let n = cells.len();
        if n == 0 || n > Bits::<W>::CAPACITY {
            return Err(format!(
                "a board of {n} cells does not fit {} bits",
                Bits::<W>::CAPACITY
            ));
        }
        if water.len() > 32 {
            return Err("at most 32 landscapes".into());
        }
        let coords: Vec<(i32, i32)> = cells.iter().map(|&(q, r, _)| (q, r)).collect();
        let land: Vec<u8> = cells.iter().map(|&(_, _, l)| l).collect();
        if land.iter().any(|&l| l as usize >= water.len()) {
            return Err("a cell names an unknown landscape".into());
        }
        let index: std::collections::HashMap<(i32, i32), usize> =
            coords.iter().enumerate().map(|(i, &c)| (c, i)).collect();
        if index.len() != n {
            return Err("two cells share coordinates".into());
        }
        let next: [Vec<i32>; 6] = std::array::from_fn(|d| {
            let (dq, dr) = DIRECTIONS[d];
            coords
                .iter()
                .map(|&(q, r)| index.get(&(q + dq, r + dr)).map_or(-1, |&j| j as i32))
                .collect()
        });
        let neighbor_masks: Vec<Bits<W>> = (0..n)
            .map(|i| {
                let mut m = Bits::EMPTY;
                for nd in next.iter() {
                    if nd[i] >= 0 {
                        m.set(nd[i] as usize);
                    }
                }
                m
            })
            .collect();
        let near = (0..n)
            .map(|i| {
                let mut m = neighbor_masks[i];
                for j in neighbor_masks[i].iter() {
                    m |= neighbor_masks[j];
                }
                m.clear(i);
                m
            })
            .collect();
        let same_land = (0..n)
            .map(|i| {
                let mut m = Bits::EMPTY;
                for j in neighbor_masks[i].iter() {
                    if land[j] == land[i] {
                        m.set(j);
                    }
                }
                m
            })
            .collect();
        let num_lands = water.len();
        let mut land_masks = vec![Bits::EMPTY; num_lands];
        for (i, &l) in land.iter().enumerate() {
            land_masks[l as usize].set(i);
        }
        let water_lands = water
            .iter()
            .enumerate()
            .filter(|(_, &w)| w)
            .map(|(i, _)| 1u32 << i)
            .sum();
        let dry_landscapes = water.iter().filter(|&&w| !w).count() as u32;
        let line_pos = line_positions(&coords);
        let cell_line_pos: Vec<[u32; 6]> = (0..n).map(|i| std::array::from_fn(|d| line_pos[d][i])).collect();
        let line_bits = line_pos.iter().flatten().max().map_or(0, |&p| p as usize + 2);
        let line_words = line_bits.div_ceil(64);
        let mut line_masks = vec![0u64; n * line_words];
        for (i, positions) in cell_line_pos.iter().enumerate() {
            for &p in positions {
                line_masks[i * line_words + p as usize / 64] |= 1 << (p % 64);
            }
        }
        let mut line_cell = vec![(0, 0); line_bits];
        for (d, positions) in line_pos.iter().enumerate() {
            for (cell, &p) in positions.iter().enumerate() {
                line_cell[p as usize] = (cell as u16, d as u8);
            }
        }
        let mut line = 0;
        for nd in next.iter() {
            for i in 0..n {
                let mut len = 0;
                let mut c = nd[i];
                while c >= 0 {
                    len += 1;
                    c = nd[c as usize];
                }
                line = line.max(len);
            }
        }
        let mut board = Board {
            num_cells: n,
            coords,
            land,
            num_lands,
            land_ids: (0..num_lands).map(|i| i.to_string()).collect(),
            water_lands,
            dry_landscapes,
            land_masks,
            all: Bits::first(n),
            next,
            neighbor_masks,
            near,
            same_land,
            line_pos,
            cell_line_pos,
            line_bits,
            line_masks,
            line_words,
            line_cell,
            lines_fit: line <= 56 && line_bits / 64 + 2 <= super::state::LINE_WORDS_PER_W * W,
            line: line.max(1),
            ring_arcs: (0..64u8).map(ring_arcs).collect(),
            layout: super::encode::Layout::default(),
        };
        board.layout = super::encode::Layout::new(&board);
        Ok(board)
    }

    /// Every cell next to one of `cells`.
    #[inline]
    pub fn spread(&self, cells: &Bits<W>) -> Bits<W> {
        let mut out = Bits::EMPTY;
        for c in cells.iter() {
            out |= self.neighbor_masks[c];
        }
        out
    }

    /// The cells of `allowed` connected to `seed` (`seed & allowed` included).
    pub fn flood_fill(&self, seed: &Bits<W>, allowed: &Bits<W>) -> Bits<W> {
        let mut reached = *seed & *allowed;
        let mut frontier = reached;
        while frontier.any() {
            frontier = self.spread(&frontier) & allowed.minus(&reached);
            reached |= frontier;
        }
        reached
    }

    /// Bitset over landscape indices of the landscapes present in `cells`.
    #[inline]
    pub fn lands_of(&self, cells: &Bits<W>) -> u32 {
        let mut lands = 0;
        for c in cells.iter() {
            lands |= 1 << self.land[c];
        }
        lands
    }

    // -- action ids (encoding.py) ------------------------------------------------------

    pub fn slide_base(&self) -> usize {
        self.num_cells
    }

    pub fn stone_base(&self) -> usize {
        self.num_cells + 6 * self.num_cells * self.line
    }

    pub fn pass_action(&self) -> usize {
        self.stone_base() + self.num_cells
    }

    pub fn num_actions(&self) -> usize {
        self.pass_action() + 1
    }

    #[inline]
    pub fn slide_action(&self, src: usize, direction: usize, steps: usize) -> usize {
        self.num_cells + (src * 6 + direction) * self.line + steps - 1
    }

    /// The direction and the number of steps of the straight line from `src` to `dst`
    /// (by coordinates, whatever lies between), or `None` if they are not on one line.
    pub fn direction_steps(&self, src: usize, dst: usize) -> Option<(usize, usize)> {
        let (q0, r0) = self.coords[src];
        let (q1, r1) = self.coords[dst];
        let (dq, dr) = (q1 - q0, r1 - r0);
        let steps = dq.abs().max(dr.abs()).max((dq + dr).abs());
        if steps == 0 {
            return None;
        }
        DIRECTIONS
            .iter()
            .position(|&(uq, ur)| uq * steps == dq && ur * steps == dr)
            .map(|direction| (direction, steps as usize))
    }
}

/// The lines layout of `board.py` (`_build_lines`): six copies of the board, copy `d` laid
/// out line by line along direction `d`, one padding bit per gap and after every line.
fn line_positions(coords: &[(i32, i32)]) -> [Vec<u32>; 6] {
    type Key = fn(i32, i32) -> (i32, i32);
    let keys: [Key; 6] = [
        |q, r| (r, q),
        |q, r| (q + r, -r),
        |q, r| (q, -r),
        |q, r| (r, -q),
        |q, r| (q + r, r),
        |q, r| (q, r),
    ];
    let mut position: u32 = 1;
    std::array::from_fn(|d| {
        let mut lines: std::collections::BTreeMap<i32, Vec<(i32, usize)>> = Default::default();
        for (i, &(q, r)) in coords.iter().enumerate() {
            let (line, along) = keys[d](q, r);
            lines.entry(line).or_default().push((along, i));
        }
        let mut positions = vec![0u32; coords.len()];
        for (_, mut cells) in lines {
            cells.sort();
            let mut previous: Option<i32> = None;
            for (along, i) in cells {
                if let Some(p) = previous {
                    if along != p + 1 {
                        position += 1;
                    }
                }
                positions[i] = position;
                position += 1;
                previous = Some(along);
            }
            position += 1;
        }
        positions
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 37-cell disc D3-7 of board.py's docstring, in (r, q) order.
    pub fn disc(radius: i32) -> Board<1> {
        let mut cells = Vec::new();
        for r in -radius..=radius {
            for q in -radius..=radius {
                if (q + r).abs() <= radius {
                    cells.push((q, r, ((q + 2 * r).rem_euclid(4)) as u8));
                }
            }
        }
        Board::new(&cells, &[false, false, false, true]).unwrap()
    }

    #[test]
    fn the_disc_has_the_python_tables() {
        let b = disc(3);
        assert_eq!(b.num_cells, 37);
        assert_eq!(b.neighbor_masks[18].count(), 6);
        assert_eq!(b.neighbor_masks[0].count(), 3);
        assert_eq!(b.line, 6);
        assert_eq!(b.ring_arcs[0b10_1101], vec![0b1100, 0b10_0001]);
    }
}
