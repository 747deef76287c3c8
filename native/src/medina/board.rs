//! Medina's board: the 18×13 grid (wall ring included), 256-bit square sets and the
//! precomputed tables, mirroring `src/tabletop/games/medina/board.py`.
//!
//! Square index `sq = row * 18 + col` (`A1` = 0, `R1` = 17, `R13` = 233), the same
//! numbering as the Python engine and the action encoding.

use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, Not};

pub const WIDTH: usize = 18;
pub const HEIGHT: usize = 13;
pub const NUM_SQUARES: usize = WIDTH * HEIGHT;

/// A set of squares: bit `sq` of four 64-bit words (only the low 234 bits are used).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Debug)]
pub struct Bits(pub [u64; 4]);

impl Bits {
    pub const EMPTY: Bits = Bits([0; 4]);

    pub const fn single(sq: usize) -> Bits {
        let mut w = [0u64; 4];
        w[sq / 64] = 1u64 << (sq % 64);
        Bits(w)
    }

    pub const fn with(self, sq: usize) -> Bits {
        let mut w = self.0;
        w[sq / 64] |= 1u64 << (sq % 64);
        Bits(w)
    }

    pub const fn or(self, o: Bits) -> Bits {
        Bits([
            self.0[0] | o.0[0],
            self.0[1] | o.0[1],
            self.0[2] | o.0[2],
            self.0[3] | o.0[3],
        ])
    }

    pub const fn and(self, o: Bits) -> Bits {
        Bits([
            self.0[0] & o.0[0],
            self.0[1] & o.0[1],
            self.0[2] & o.0[2],
            self.0[3] & o.0[3],
        ])
    }

    pub const fn andnot(self, o: Bits) -> Bits {
        Bits([
            self.0[0] & !o.0[0],
            self.0[1] & !o.0[1],
            self.0[2] & !o.0[2],
            self.0[3] & !o.0[3],
        ])
    }

    #[inline]
    pub const fn has(self, sq: usize) -> bool {
        self.0[sq / 64] >> (sq % 64) & 1 != 0
    }

    #[inline]
    pub const fn is_empty(self) -> bool {
        (self.0[0] | self.0[1] | self.0[2] | self.0[3]) == 0
    }

    #[inline]
    pub const fn any(self) -> bool {
        !self.is_empty()
    }

    #[inline]
    pub const fn count(self) -> u32 {
        self.0[0].count_ones() + self.0[1].count_ones() + self.0[2].count_ones() + self.0[3].count_ones()
    }

    /// The highest square of a non-empty set (Python's `bit_length() - 1`).
    #[inline]
    pub fn highest(self) -> usize {
        for i in (0..4).rev() {
            if self.0[i] != 0 {
                return i * 64 + 63 - self.0[i].leading_zeros() as usize;
            }
        }
        usize::MAX
    }

    /// The lowest square of a non-empty set.
    #[inline]
    pub fn lowest(self) -> usize {
        for i in 0..4 {
            if self.0[i] != 0 {
                return i * 64 + self.0[i].trailing_zeros() as usize;
            }
        }
        usize::MAX
    }

    /// The `i`-th (0-based) square in increasing order; `i < self.count()`.
    #[inline]
    pub fn nth(self, mut i: u32) -> usize {
        for w in 0..4 {
            let word = self.0[w];
            let c = word.count_ones();
            if i < c {
                return w * 64 + select64(word, i);
            }
            i -= c;
        }
        usize::MAX
    }

    /// Shift toward higher squares by `n` (< 64) bits.
    #[inline]
    pub const fn shl(self, n: u32) -> Bits {
        let w = self.0;
        Bits([
            w[0] << n,
            (w[1] << n) | (w[0] >> (64 - n)),
            (w[2] << n) | (w[1] >> (64 - n)),
            (w[3] << n) | (w[2] >> (64 - n)),
        ])
    }

    /// Shift toward lower squares by `n` (< 64) bits.
    #[inline]
    pub const fn shr(self, n: u32) -> Bits {
        let w = self.0;
        Bits([
            (w[0] >> n) | (w[1] << (64 - n)),
            (w[1] >> n) | (w[2] << (64 - n)),
            (w[2] >> n) | (w[3] << (64 - n)),
            w[3] >> n,
        ])
    }

    /// The squares in increasing order.
    pub fn iter(self) -> SquareIter {
        SquareIter { bits: self }
    }
}

/// The position of the `i`-th set bit of `x` (`i < x.count_ones()`), without branches
/// (Vigna's broadword select): the bytes' running bit counts, all at once, say which
/// byte holds the bit, and a table gives its place within the byte.
#[inline]
pub fn select64(x: u64, i: u32) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let mut s = x - ((x >> 1) & 0x5555_5555_5555_5555);
    s = (s & 0x3333_3333_3333_3333) + ((s >> 2) & 0x3333_3333_3333_3333);
    s = (s + (s >> 4)) & 0x0f0f_0f0f_0f0f_0f0f;
    // Byte b of `running`: the set bits in bytes 0..=b (at most 64: no carry between bytes).
    let running = s.wrapping_mul(ONES);
    // Bit 7 of byte b is set where `running` of byte b <= i, i.e. the bit lies beyond byte b.
    let beyond = (((i as u64 * ONES) | HIGHS) - running) & HIGHS;
    let byte = ((beyond >> 7).wrapping_mul(ONES) >> 56) as u32 * 8;
    let before = ((running << 8) >> byte) as u32 & 0xff;
    byte as usize + SELECT_IN_BYTE[((x >> byte) as usize & 0xff) * 8 + (i - before) as usize] as usize
}

/// `SELECT_IN_BYTE[b * 8 + k]`: the position of the `k`-th set bit of byte `b`.
const SELECT_IN_BYTE: [u8; 256 * 8] = {
    let mut t = [0u8; 256 * 8];
    let mut b = 0;
    while b < 256 {
        let mut k = 0;
        let mut bit = 0;
        while bit < 8 {
            if b >> bit & 1 != 0 {
                t[b * 8 + k] = bit as u8;
                k += 1;
            }
            bit += 1;
        }
        b += 1;
    }
    t
};

pub struct SquareIter {
    bits: Bits,
}

impl Iterator for SquareIter {
    type Item = usize;
    #[inline]
    fn next(&mut self) -> Option<usize> {
        for i in 0..4 {
            let w = self.bits.0[i];
            if w != 0 {
                self.bits.0[i] = w & (w - 1);
                return Some(i * 64 + w.trailing_zeros() as usize);
            }
        }
        None
    }
}

/// A set's words (`common::kept::Kept::set_planes` takes Medina's planes as sets).
impl std::borrow::Borrow<[u64; 4]> for Bits {
    fn borrow(&self) -> &[u64; 4] {
        &self.0
    }
}

impl BitAnd for Bits {
    type Output = Bits;
    #[inline]
    fn bitand(self, o: Bits) -> Bits {
        self.and(o)
    }
}
impl BitOr for Bits {
    type Output = Bits;
    #[inline]
    fn bitor(self, o: Bits) -> Bits {
        self.or(o)
    }
}
impl BitXor for Bits {
    type Output = Bits;
    #[inline]
    fn bitxor(self, o: Bits) -> Bits {
        Bits([
            self.0[0] ^ o.0[0],
            self.0[1] ^ o.0[1],
            self.0[2] ^ o.0[2],
            self.0[3] ^ o.0[3],
        ])
    }
}
impl Not for Bits {
    type Output = Bits;
    /// The complement within the board (the 234 squares).
    #[inline]
    fn not(self) -> Bits {
        ALL.andnot(self)
    }
}
impl BitAndAssign for Bits {
    #[inline]
    fn bitand_assign(&mut self, o: Bits) {
        *self = *self & o;
    }
}
impl BitOrAssign for Bits {
    #[inline]
    fn bitor_assign(&mut self, o: Bits) {
        *self = *self | o;
    }
}

pub const fn square(col: usize, row: usize) -> usize {
    row * WIDTH + col
}

const fn rect(c0: usize, c1: usize, r0: usize, r1: usize) -> Bits {
    let mut m = Bits::EMPTY;
    let mut r = r0;
    while r < r1 {
        let mut c = c0;
        while c < c1 {
            m = m.with(square(c, r));
            c += 1;
        }
        r += 1;
    }
    m
}

pub const ALL: Bits = rect(0, WIDTH, 0, HEIGHT);
/// The 176 building squares `B2`–`Q12`.
pub const BUILDING: Bits = rect(1, WIDTH - 1, 1, HEIGHT - 1);
/// The 126 inner squares `C3`–`P11`.
pub const INNER: Bits = rect(2, WIDTH - 2, 2, HEIGHT - 2);
/// Tower squares by tower slot: `A1`, `R1`, `A13`, `R13`.
pub const TOWER_SQUARES: [usize; 4] = [
    square(0, 0),
    square(WIDTH - 1, 0),
    square(0, HEIGHT - 1),
    square(WIDTH - 1, HEIGHT - 1),
];
pub const TOWERS: Bits = Bits::EMPTY
    .with(TOWER_SQUARES[0])
    .with(TOWER_SQUARES[1])
    .with(TOWER_SQUARES[2])
    .with(TOWER_SQUARES[3]);
pub const SOUTH: Bits = rect(1, WIDTH - 1, 0, 1);
pub const NORTH: Bits = rect(1, WIDTH - 1, HEIGHT - 1, HEIGHT);
pub const WEST: Bits = rect(0, 1, 1, HEIGHT - 1);
pub const EAST: Bits = rect(WIDTH - 1, WIDTH, 1, HEIGHT - 1);
pub const HORIZONTAL_WALLS: Bits = SOUTH.or(NORTH);
pub const VERTICAL_WALLS: Bits = WEST.or(EAST);
pub const WALL_SPACES: Bits = HORIZONTAL_WALLS.or(VERTICAL_WALLS);
const NOT_A: Bits = ALL.andnot(rect(0, 1, 0, HEIGHT));
const NOT_R: Bits = ALL.andnot(rect(WIDTH - 1, WIDTH, 0, HEIGHT));

/// Runs: the wall pieces contiguous with one tower along one side; run id = 2 * tower
/// slot + (0 for the tower's horizontal side, 1 for its vertical side).
pub const NUM_RUNS: usize = 8;
/// The most wall pieces one run can hold (a horizontal side has 16 spaces, one stays open).
pub const MAX_RUN: usize = 16;

/// The tower slot of each run.
pub const RUN_TOWER: [usize; NUM_RUNS] = [0, 0, 1, 1, 2, 2, 3, 3];

/// `RUN_MASKS[run][len]`: the squares of a run of `len` wall pieces.
pub const RUN_MASKS: [[Bits; MAX_RUN + 1]; NUM_RUNS] = geometry(WIDTH, HEIGHT).run_masks;

/// For a wall space, the run it joins when its neighbour toward the run's tower is
/// occupied: `(neighbour, run)` for both side neighbours.
pub const SIDE_RUNS: [[(usize, usize); 2]; NUM_SQUARES] = geometry(WIDTH, HEIGHT).side_runs;

/// The building square in front of each wall space (`usize::MAX` elsewhere).
pub const WALL_FRONT: [usize; NUM_SQUARES] = geometry(WIDTH, HEIGHT).wall_front;

/// The squares at `offsets` (column, row) from each square that lie on the grid.
const fn offset_masks(offsets: &[(isize, isize)]) -> [Bits; NUM_SQUARES] {
    let mut t = [Bits::EMPTY; NUM_SQUARES];
    let mut sq = 0;
    while sq < NUM_SQUARES {
        let mut m = Bits::EMPTY;
        let mut i = 0;
        while i < offsets.len() {
            let c = (sq % WIDTH) as isize + offsets[i].0;
            let r = (sq / WIDTH) as isize + offsets[i].1;
            if c >= 0 && c < WIDTH as isize && r >= 0 && r < HEIGHT as isize {
                m = m.with(square(c as usize, r as usize));
            }
            i += 1;
        }
        t[sq] = m;
        sq += 1;
    }
    t
}

/// Orthogonal neighbours of each square, as a set.
pub const ORTHO_MASK: [Bits; NUM_SQUARES] = offset_masks(&[(1, 0), (-1, 0), (0, 1), (0, -1)]);

/// The 3×3 block around each square.
pub const TOUCH_CLOSED: [Bits; NUM_SQUARES] = offset_masks(&[
    (-1, -1),
    (-1, 0),
    (-1, 1),
    (0, -1),
    (0, 0),
    (0, 1),
    (1, -1),
    (1, 0),
    (1, 1),
]);

/// Squares orthogonally adjacent to `m` that lie in the building area (`m` in it).
#[inline]
pub fn ortho_dilate(m: Bits) -> Bits {
    (m.shl(1) | m.shr(1) | m.shl(WIDTH as u32) | m.shr(WIDTH as u32)) & BUILDING
}

/// Every square orthogonally adjacent to a square of `m` (no wrap across rows).
#[inline]
pub fn ortho_dilate_any(m: Bits) -> Bits {
    ((m.shl(1) & NOT_A) | (m.shr(1) & NOT_R) | m.shl(WIDTH as u32) | m.shr(WIDTH as u32)) & ALL
}

/// `m` plus every square touching it, for `m` inside the building area.
#[inline]
pub fn touch_dilate(m: Bits) -> Bits {
    let row = m | m.shl(1) | m.shr(1);
    (row | row.shl(WIDTH as u32) | row.shr(WIDTH as u32)) & ALL
}

/// Squares with at least two orthogonal neighbours in `m` (`m` in the building area).
#[inline]
pub fn two_or_more_neighbors(m: Bits) -> Bits {
    let a = m.shl(1);
    let b = m.shr(1);
    let c = m.shl(WIDTH as u32);
    let ab = a | b;
    ((a & b) | (ab & c) | ((ab | c) & m.shr(WIDTH as u32))) & ALL
}

/// The orthogonally connected part of `within` that contains `seed`.  Grown from the
/// squares last added, by the neighbour table: the groups are small (a palace, a chain).
#[inline]
pub fn flood(seed: Bits, within: Bits) -> Bits {
    let mut group = seed;
    let mut added = seed;
    while added.any() {
        let mut around = Bits::EMPTY;
        // A word at a time (`Bits::iter` looks for the next word from the first at
        // every square): the encoder floods every palace of every observation.
        for (w, &word) in added.0.iter().enumerate() {
            let mut word = word;
            while word != 0 {
                around |= ORTHO_MASK[w * 64 + word.trailing_zeros() as usize];
                word &= word - 1;
            }
        }
        added = (around & within).andnot(group);
        group |= added;
    }
    group
}

/// One board side: its regions and the tables that depend on where the walls are
/// (`board.Geometry`).  The constants above are the 3–4-player board's ([`BOARD_34`]); the
/// second edition's 2-player side ([`BOARD_2P`], 16×12, building squares `B2`–`O11`) is
/// the south-west corner of the same 18-wide grid, so a square keeps its index on both.
#[derive(Debug)]
pub struct Geometry {
    pub columns: usize,
    pub rows: usize,
    pub building: Bits,
    pub inner: Bits,
    pub wall_spaces: Bits,
    pub horizontal_walls: Bits,
    pub vertical_walls: Bits,
    /// Tower squares by tower slot (SW, SE, NW, NE).
    pub towers: [usize; 4],
    pub tower_mask: Bits,
    /// Every square of the grid (walls, towers and building squares).
    pub grid: Bits,
    /// `run_masks[run][len]`: the squares of a run of `len` wall pieces.
    pub run_masks: [[Bits; MAX_RUN + 1]; NUM_RUNS],
    /// Per wall space, `(neighbour, run)` for both side neighbours (as [`SIDE_RUNS`]).
    pub side_runs: [[(usize, usize); 2]; NUM_SQUARES],
    /// The building square in front of each wall space (`usize::MAX` elsewhere).
    pub wall_front: [usize; NUM_SQUARES],
}

/// `(first wall space, step)` of each run of a `columns` × `rows` board.
const fn run_walk_on(towers: [usize; 4], run: usize) -> (isize, isize) {
    let tower = towers[run / 2] as isize;
    let vertical = run % 2 == 1;
    let col = tower % WIDTH as isize;
    let row = tower / WIDTH as isize;
    let step = if vertical {
        if row == 0 {
            WIDTH as isize
        } else {
            -(WIDTH as isize)
        }
    } else if col == 0 {
        1
    } else {
        -1
    };
    (tower + step, step)
}

/// The tables of a `columns` × `rows` grid (wall ring included) in the 18-wide indexing.
const fn geometry(columns: usize, rows: usize) -> Geometry {
    let building = rect(1, columns - 1, 1, rows - 1);
    let inner = rect(2, columns - 2, 2, rows - 2);
    let towers = [
        square(0, 0),
        square(columns - 1, 0),
        square(0, rows - 1),
        square(columns - 1, rows - 1),
    ];
    let tower_mask = Bits::EMPTY
        .with(towers[0])
        .with(towers[1])
        .with(towers[2])
        .with(towers[3]);
    let horizontal = rect(1, columns - 1, 0, 1).or(rect(1, columns - 1, rows - 1, rows));
    let vertical = rect(0, 1, 1, rows - 1).or(rect(columns - 1, columns, 1, rows - 1));
    let wall_spaces = horizontal.or(vertical);
    let mut run_masks = [[Bits::EMPTY; MAX_RUN + 1]; NUM_RUNS];
    let mut r = 0;
    while r < NUM_RUNS {
        let (first, step) = run_walk_on(towers, r);
        let mut len = 1;
        while len <= MAX_RUN {
            let sq = first + step * (len as isize - 1);
            let m = run_masks[r][len - 1];
            run_masks[r][len] = if sq >= 0 && (sq as usize) < NUM_SQUARES && wall_spaces.has(sq as usize) {
                m.with(sq as usize)
            } else {
                m
            };
            len += 1;
        }
        r += 1;
    }
    let mut side_runs = [[(usize::MAX, usize::MAX); 2]; NUM_SQUARES];
    let mut wall_front = [usize::MAX; NUM_SQUARES];
    let mut sq = 0;
    while sq < NUM_SQUARES {
        if wall_spaces.has(sq) {
            let step = if horizontal.has(sq) { 1 } else { WIDTH };
            let nbs = [sq - step, sq + step];
            let mut k = 0;
            while k < 2 {
                // The run whose tower lies beyond this neighbour.
                let mut r = 0;
                while r < NUM_RUNS {
                    let (first, st) = run_walk_on(towers, r);
                    let dir = nbs[k] as isize - sq as isize;
                    let mut i = 0;
                    let mut on_run = false;
                    while i < MAX_RUN {
                        if first + st * i as isize == sq as isize {
                            on_run = true;
                        }
                        i += 1;
                    }
                    if on_run && dir == -st {
                        side_runs[sq][k] = (nbs[k], r);
                    }
                    r += 1;
                }
                k += 1;
            }
            let col = sq % WIDTH;
            let row = sq / WIDTH;
            wall_front[sq] = if row == 0 {
                sq + WIDTH
            } else if row == rows - 1 {
                sq - WIDTH
            } else if col == 0 {
                sq + 1
            } else {
                sq - 1
            };
        }
        sq += 1;
    }
    Geometry {
        columns,
        rows,
        building,
        inner,
        wall_spaces,
        horizontal_walls: horizontal,
        vertical_walls: vertical,
        towers,
        tower_mask,
        grid: rect(0, columns, 0, rows),
        run_masks,
        side_runs,
        wall_front,
    }
}

/// The 18×13 board of the first edition (and of the second with 3–4 players).
pub static BOARD_34: Geometry = geometry(WIDTH, HEIGHT);
/// The second edition's 2-player side: 16×12, towers `A1`, `P1`, `A12`, `P12` (2e §1.3).
pub static BOARD_2P: Geometry = geometry(16, 12);

/// The board side for a player count (the 2-player side only exists in the second edition).
#[inline]
pub fn geometry_for(num_players: usize) -> &'static Geometry {
    if num_players == 2 {
        &BOARD_2P
    } else {
        &BOARD_34
    }
}

pub const FILES: &[u8; 18] = b"ABCDEFGHIJKLMNOPQR";

/// The name of a square, e.g. `A1`.
pub fn square_name(sq: usize) -> String {
    format!("{}{}", FILES[sq % WIDTH] as char, sq / WIDTH + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn region_sizes_match_the_spec() {
        assert_eq!(BUILDING.count(), 176);
        assert_eq!(INNER.count(), 126);
        assert_eq!(WALL_SPACES.count(), 54);
        assert_eq!(ALL.count(), 234);
    }

    #[test]
    fn runs_walk_away_from_their_tower() {
        // Run 0: tower A1 along the south side: B1, C1, ...
        assert_eq!(RUN_MASKS[0][2], Bits::single(1).with(2));
        // Run 1: tower A1 along the west side: A2, A3, ...
        assert_eq!(RUN_MASKS[1][1], Bits::single(18));
        // Run 7: tower R13 along the east side: R12 downward.
        assert_eq!(RUN_MASKS[7][1], Bits::single(square(17, 11)));
        assert_eq!(RUN_MASKS[0][MAX_RUN].count(), 16);
        assert_eq!(RUN_MASKS[1][MAX_RUN].count(), 11);
    }

    #[test]
    fn side_runs_name_the_tower_beyond_each_neighbour() {
        // B1: west neighbour A1 (tower, run 0), east neighbour C1 (toward R1, run 2).
        assert_eq!(SIDE_RUNS[1], [(0, 0), (2, 2)]);
        // A2: south neighbour A1 (run 1), north neighbour A3 (toward A13, run 5).
        assert_eq!(SIDE_RUNS[18], [(0, 1), (36, 5)]);
    }

    #[test]
    fn shifts_cross_word_boundaries() {
        let m = Bits::single(63);
        assert_eq!(m.shl(1), Bits::single(64));
        assert_eq!(Bits::single(64).shr(1), m);
        assert_eq!(Bits::single(60).shl(WIDTH as u32), Bits::single(78));
        assert_eq!(Bits::single(130).nth(0), 130);
        let m = Bits::single(3).with(70).with(200);
        assert_eq!(m.nth(2), 200);
        assert_eq!(m.highest(), 200);
        assert_eq!(m.iter().collect::<Vec<_>>(), vec![3, 70, 200]);
        let dense = Bits([u64::MAX, 0xF0F0_F0F0_F0F0_F0F0, 0, 1 << 40]);
        let listed: Vec<usize> = dense.iter().collect();
        for (i, &sq) in listed.iter().enumerate() {
            assert_eq!(dense.nth(i as u32), sq);
        }
    }

    #[test]
    fn select_finds_every_bit_of_every_byte_pattern() {
        let mut rng = crate::common::rng::Rng::new(3);
        for round in 0..2000u32 {
            // Sparse, dense and random words, each bit's rank checked against a scan.
            let x = match round % 4 {
                0 => rng.next_u64() & rng.next_u64() & rng.next_u64(),
                1 => rng.next_u64() | rng.next_u64(),
                2 => u64::MAX << (round % 64),
                _ => rng.next_u64(),
            };
            let mut k = 0;
            for bit in 0..64 {
                if x >> bit & 1 != 0 {
                    assert_eq!(select64(x, k), bit, "x = {x:#x}, k = {k}");
                    k += 1;
                }
            }
        }
    }

    #[test]
    fn the_geometries_match_the_tables_of_the_big_board() {
        assert_eq!(BOARD_34.building, BUILDING);
        assert_eq!(BOARD_34.wall_spaces, WALL_SPACES);
        assert_eq!(BOARD_34.run_masks, RUN_MASKS);
        assert_eq!(BOARD_34.side_runs, SIDE_RUNS);
        assert_eq!(BOARD_34.wall_front, WALL_FRONT);
        // The 2-player side: 14 × 10 building squares, 48 wall spaces, towers A1, P1, A12, P12.
        assert_eq!(BOARD_2P.building.count(), 140);
        assert_eq!(BOARD_2P.inner.count(), 96);
        assert_eq!(BOARD_2P.wall_spaces.count(), 48);
        assert_eq!(BOARD_2P.towers, [0, 15, 198, 213]);
        assert_eq!(BOARD_2P.run_masks[2][1], Bits::single(14));
        assert_eq!(BOARD_2P.wall_front[square(15, 5)], square(14, 5));
    }

    #[test]
    fn flood_stays_in_one_orthogonal_group() {
        let within = Bits::single(square(3, 3)).with(square(4, 3)).with(square(5, 4));
        assert_eq!(flood(Bits::single(square(3, 3)), within).count(), 2);
        // A snake through the word boundaries, and a diagonal neighbour left out.
        let snake: Bits = (1..17)
            .map(|c| square(c, 3))
            .chain((3..12).map(|r| square(16, r)))
            .fold(Bits::EMPTY, Bits::with);
        let within = snake.with(square(15, 12));
        assert_eq!(flood(Bits::single(square(1, 3)), within), snake);
    }
}
