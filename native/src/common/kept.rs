//! Observation planes rewritten in place: a vector env writes every game's planes each
//! step, and writing them whole (20-27 kB a game) was most of its time on large batches,
//! while a step changes a few cells. The encoders (`terranova::encode`, `medina::encode`)
//! write their single cells through [`Kept`], which keeps a bitset of the cells that are
//! 1 in the buffer (one bit per float: under 1 kB a game), so that a new write builds the
//! new bitset and writes only the cells whose bit changed: a few cache lines of the
//! buffer a step, not the hundred or so that clearing and setting every cell touched.
//! The kept words are the constant planes' values ([`Kept::fill`]), then the cells'
//! bits: one a cell in order (Terra Nova: [`Kept::set`], [`Kept::finish`]), or a few
//! words for each plane (Medina: [`Kept::set_planes`]).

/// How a write treats what its buffer held (`terranova::encode::Layout::write_planes_kept`,
/// `medina::encode::observe`).
pub enum Kept<'a> {
    /// Everything written; nothing remembered.
    Full,
    /// Everything written; the cells set to 1 remembered in the bitset.
    Track(&'a mut Vec<u64>),
    /// The buffer holds the write that the first bitset remembers: the single cells are
    /// collected in the second (scratch, which may serve many buffers in turn) and only
    /// the changed ones written (at [`Kept::finish`], which brings the first bitset up to
    /// date; or all planes at once by [`Kept::set_planes`]); the fixed planes are left as
    /// they are, and the constant planes rewritten only where their value changed.
    Update(&'a mut Vec<u64>, &'a mut Vec<u64>),
}

/// The kept values of an encoding's constant planes ([`Kept::fill`]): the first words of
/// the kept bitset, before the cells' bits.
const CONSTANTS: usize = 8;

impl Kept<'_> {
    /// Readies `out` (`fixed` the first `base` floats, which never change).
    pub fn start(&mut self, out: &mut [f32], base: usize, fixed: &[f32]) {
        let words = out.len().div_ceil(64);
        match self {
            Kept::Full => {
                out[..base].copy_from_slice(fixed);
                out[base..].fill(0.0);
            }
            Kept::Track(shadow) => {
                shadow.clear();
                shadow.resize(CONSTANTS, UNKNOWN);
                shadow.resize(CONSTANTS + words, 0);
                out[..base].copy_from_slice(fixed);
                out[base..].fill(0.0);
            }
            Kept::Update(shadow, fresh) => {
                if shadow.len() < CONSTANTS {
                    shadow.resize(CONSTANTS, UNKNOWN);
                }
                if shadow.len() < CONSTANTS + words {
                    shadow.resize(CONSTANTS + words, 0);
                }
                fresh.clear();
                fresh.resize(words, 0);
            }
        }
    }

    /// Sets one cell to 1 (with `Update`: at [`Kept::finish`], if it is not 1 already).
    #[inline]
    pub fn set(&mut self, out: &mut [f32], p: usize) {
        match self {
            Kept::Full => out[p] = 1.0,
            Kept::Track(shadow) => {
                out[p] = 1.0;
                shadow[CONSTANTS + p / 64] |= 1 << (p % 64);
            }
            Kept::Update(_, fresh) => fresh[p / 64] |= 1 << (p % 64),
        }
    }

    /// Sets the cells of single-cell planes at once: `planes[k]` is plane `first + k` of
    /// `out`, each of `cells` cells (at most `64 * W`; bit `i % 64` of word `i / 64` is
    /// cell `i`), and the cells are written as [`Kept::finish`] would write them, which
    /// it replaces: Medina's planes of 234 squares, a word at a time. The bitset then
    /// keeps each plane in `W` words of its own (not one bit a cell as [`Kept::set`]: an
    /// encoder uses one or the other), so that each word is compared with the kept one
    /// as it is, with no shifting into a packed bitset (OR-ing shifted words into a
    /// scratch bitset read back words just stored, which the processor could not
    /// forward: a stall at each plane).
    pub fn set_planes<const W: usize, P: std::borrow::Borrow<[u64; W]>>(
        &mut self,
        out: &mut [f32],
        first: usize,
        planes: &[P],
        cells: usize,
    ) {
        debug_assert!(cells <= 64 * W && (first + planes.len()) * cells <= out.len());
        let end = CONSTANTS + (first + planes.len()) * W;
        if let Kept::Track(shadow) | Kept::Update(shadow, _) = self {
            if shadow.len() < end {
                shadow.resize(end, 0);
            }
        }
        for (k, plane) in planes.iter().enumerate() {
            let p = first + k;
            for (j, &new) in plane.borrow().iter().enumerate() {
                let base = p * cells + j * 64;
                match self {
                    Kept::Full => write_cells(out, base, new, new),
                    Kept::Track(shadow) => {
                        shadow[CONSTANTS + p * W + j] = new;
                        write_cells(out, base, new, new);
                    }
                    Kept::Update(shadow, _) => {
                        let old = std::mem::replace(&mut shadow[CONSTANTS + p * W + j], new);
                        write_cells(out, base, old ^ new, new);
                    }
                }
            }
        }
    }

    /// Writes what an `Update` collected: each cell whose bit changed.
    pub fn finish(&mut self, out: &mut [f32]) {
        if let Kept::Update(shadow, fresh) = self {
            // The new bits are copied into the first bitset where they changed (the
            // second is scratch, which the caller may share among many buffers).
            let words = out.len().div_ceil(64);
            let bits = &mut shadow[CONSTANTS..CONSTANTS + words];
            for (w, (old, &new)) in bits.iter_mut().zip(&fresh[..words]).enumerate() {
                let changed = *old ^ new;
                if changed != 0 {
                    *old = new;
                    write_cells(out, w * 64, changed, new);
                }
            }
        }
    }

    /// Sets the constant plane `out[plane]` to `value`, written only if it holds another
    /// value (zeros after a full write). `index` numbers the encoding's constant planes
    /// (0, 1, ..., fewer than 8): with `Track` and `Update` each one's value is kept with
    /// the bits, so that an update compares with it instead of reading the buffer
    /// (which, on a thousand games' buffers, missed the cache for every plane of every
    /// step).
    #[inline]
    pub fn fill(&mut self, out: &mut [f32], plane: std::ops::Range<usize>, index: usize, value: f32) {
        assert!(
            index < CONSTANTS,
            "constant plane {index}: at most {CONSTANTS} are kept"
        );
        let at = index;
        let plane = &mut out[plane];
        let held = match self {
            Kept::Full | Kept::Track(_) => 0.0,
            Kept::Update(shadow, _) => match shadow.get(at) {
                Some(&bits) if bits != UNKNOWN => f32::from_bits(bits as u32),
                _ => f32::NAN,
            },
        };
        if held != value {
            plane.fill(value);
        }
        if let Kept::Track(shadow) | Kept::Update(shadow, _) = self {
            if shadow.len() <= at {
                shadow.resize(at + 1, UNKNOWN);
            }
            shadow[at] = u64::from(value.to_bits());
        }
    }
}

/// Writes the cells `base + bit` of the bits set in `write`: 1 where `new` has the bit,
/// else 0.
#[inline]
fn write_cells(out: &mut [f32], base: usize, mut write: u64, new: u64) {
    while write != 0 {
        let bit = write.trailing_zeros() as usize;
        write &= write - 1;
        out[base + bit] = if new >> bit & 1 == 1 { 1.0 } else { 0.0 };
    }
}

/// A constant plane's value not remembered (no `f32`'s bits).
const UNKNOWN: u64 = u64::MAX;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setting_planes_writes_what_setting_their_cells_would_in_every_mode() {
        // Three planes of 70 cells (two words each), with a first write and an update.
        let writes: [[[u64; 2]; 3]; 2] = [
            [[1 | 1 << 63, 0x3f], [0, 1 << 5], [0x8000_0000_0000_0000, 0x20]],
            [[1 << 63, 0x21], [0xff, 0], [0, 0x3f]],
        ];
        let cells_of = |planes: &[[u64; 2]; 3]| {
            let mut cells = Vec::new();
            for (p, plane) in planes.iter().enumerate() {
                for (k, &word) in plane.iter().enumerate() {
                    cells.extend((0..64).filter(|b| word >> b & 1 == 1).map(|b| p * 70 + k * 64 + b));
                }
            }
            cells
        };
        for mode in 0..3 {
            let (mut shadow_a, mut fresh_a, mut shadow_b, mut fresh_b) = (vec![], vec![], vec![], vec![]);
            let mut by_planes = vec![0.5f32; 210];
            let mut by_cells = vec![0.5f32; 210];
            for (i, planes) in writes.iter().enumerate() {
                let (mut a, mut b) = match (mode, i) {
                    (0, _) => (Kept::Full, Kept::Full),
                    (1, _) | (2, 0) => (Kept::Track(&mut shadow_a), Kept::Track(&mut shadow_b)),
                    _ => (
                        Kept::Update(&mut shadow_a, &mut fresh_a),
                        Kept::Update(&mut shadow_b, &mut fresh_b),
                    ),
                };
                a.start(&mut by_planes, 0, &[]);
                b.start(&mut by_cells, 0, &[]);
                a.set_planes(&mut by_planes, 0, planes, 70);
                for p in cells_of(planes) {
                    b.set(&mut by_cells, p);
                }
                b.finish(&mut by_cells);
                assert_eq!(by_planes, by_cells, "mode {mode}, write {i}");
                let ones: Vec<usize> = (0..210).filter(|&c| by_planes[c] == 1.0).collect();
                assert_eq!(ones, cells_of(planes), "mode {mode}, write {i}");
            }
        }
    }

    #[test]
    fn an_update_rewrites_a_constant_plane_only_where_its_value_changed() {
        let mut shadow = Vec::new();
        let mut fresh = Vec::new();
        let mut out = vec![0.0f32; 100];
        let mut kept = Kept::Track(&mut shadow);
        kept.start(&mut out, 0, &[]);
        kept.fill(&mut out, 10..20, 0, 0.5);
        kept.fill(&mut out, 20..30, 1, 0.25);
        kept.finish(&mut out);
        // Marks in the buffer that only a rewrite would clear.
        out[10] = 9.0;
        out[20] = 9.0;
        let mut kept = Kept::Update(&mut shadow, &mut fresh);
        kept.start(&mut out, 0, &[]);
        kept.fill(&mut out, 10..20, 0, 0.5);
        kept.fill(&mut out, 20..30, 1, 1.0);
        kept.finish(&mut out);
        assert_eq!(out[10], 9.0, "an unchanged plane is left as it is");
        assert!(out[20..30].iter().all(|&v| v == 1.0));
        assert!(out[11..20].iter().all(|&v| v == 0.5));
    }

    #[test]
    fn an_update_writes_what_a_full_write_would() {
        let mut shadow = Vec::new();
        let mut fresh = Vec::new();
        let mut out = vec![0.5f32; 200];
        let mut kept = Kept::Track(&mut shadow);
        kept.start(&mut out, 10, &[7.0; 10]);
        for p in [12, 70, 130] {
            kept.set(&mut out, p);
        }
        kept.finish(&mut out);
        let mut kept = Kept::Update(&mut shadow, &mut fresh);
        kept.start(&mut out, 10, &[7.0; 10]);
        for p in [70, 131, 199] {
            kept.set(&mut out, p);
        }
        kept.finish(&mut out);
        let mut expected = vec![0.0f32; 200];
        expected[..10].fill(7.0);
        for p in [70, 131, 199] {
            expected[p] = 1.0;
        }
        assert_eq!(out, expected);
    }
}
