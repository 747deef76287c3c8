//! Observation planes rewritten in place: a vector env writes every game's planes each
//! step, and writing them whole (20-27 kB a game) was most of its time on large batches,
//! while a step changes a few cells. The encoders (`terranova::encode`, `medina::encode`)
//! write their single cells through [`Kept`], which keeps a bitset of the cells that are
//! 1 in the buffer (one bit per float: under 1 kB a game), so that a new write builds the
//! new bitset and writes only the cells whose bit changed: a few cache lines of the
//! buffer a step, not the hundred or so that clearing and setting every cell touched.

/// How a write treats what its buffer held (`terranova::encode::Layout::write_planes_kept`,
/// `medina::encode::observe`).
pub enum Kept<'a> {
    /// Everything written; nothing remembered.
    Full,
    /// Everything written; the cells set to 1 remembered in the bitset.
    Track(&'a mut Vec<u64>),
    /// The buffer holds the write that the first bitset remembers: the single cells are
    /// collected in the second (scratch) and only the changed ones written (at
    /// [`Kept::finish`]); the fixed planes are left as they are, and the constant planes
    /// rewritten only where their value changed.
    Update(&'a mut Vec<u64>, &'a mut Vec<u64>),
}

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
                shadow.resize(words, 0);
                out[..base].copy_from_slice(fixed);
                out[base..].fill(0.0);
            }
            Kept::Update(shadow, fresh) => {
                shadow.resize(words, 0);
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
                shadow[p / 64] |= 1 << (p % 64);
            }
            Kept::Update(_, fresh) => fresh[p / 64] |= 1 << (p % 64),
        }
    }

    /// Sets the cells `base + i` for every bit `i` of `words` (bit `i % 64` of word
    /// `i / 64`): with `Update` a word at a time, shifted into place, where one call
    /// per cell was most of a Medina observation's time (`medina::encode`).
    #[inline]
    pub fn set_words(&mut self, out: &mut [f32], base: usize, words: &[u64]) {
        if let Kept::Update(_, fresh) = self {
            let (first, shift) = (base / 64, base % 64);
            for (i, &word) in words.iter().enumerate() {
                if word == 0 {
                    continue;
                }
                fresh[first + i] |= word << shift;
                if shift != 0 {
                    let spill = word >> (64 - shift);
                    if spill != 0 {
                        fresh[first + i + 1] |= spill;
                    }
                }
            }
            return;
        }
        for (w, &word) in words.iter().enumerate() {
            let mut word = word;
            while word != 0 {
                self.set(out, base + w * 64 + word.trailing_zeros() as usize);
                word &= word - 1;
            }
        }
    }

    /// Writes what an `Update` collected: each cell whose bit changed.
    pub fn finish(&mut self, out: &mut [f32]) {
        if let Kept::Update(shadow, fresh) = self {
            for (w, (old, new)) in shadow.iter().zip(fresh.iter()).enumerate() {
                let mut changed = old ^ new;
                while changed != 0 {
                    let bit = changed.trailing_zeros() as usize;
                    changed &= changed - 1;
                    out[w * 64 + bit] = if new >> bit & 1 == 1 { 1.0 } else { 0.0 };
                }
            }
            std::mem::swap(*shadow, *fresh);
        }
    }
}

/// Sets a constant plane to `value`, written only if it holds another value (a constant
/// plane holds one value throughout, zeros after a full write).
#[inline]
pub fn fill(plane: &mut [f32], value: f32) {
    if plane.first().is_some_and(|&v| v != value) {
        plane.fill(value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setting_words_sets_the_cells_of_their_bits_in_every_mode() {
        let words = [0x8000_0000_0000_0001u64, 0, 0x10];
        let cells = [70usize, 70 + 63, 70 + 128 + 4];
        for mode in 0..3 {
            let (mut shadow_a, mut fresh_a, mut shadow_b, mut fresh_b) = (vec![0; 5], vec![], vec![0; 5], vec![]);
            let mut by_words = vec![0.0f32; 300];
            let mut by_cells = vec![0.0f32; 300];
            let (mut a, mut b) = match mode {
                0 => (Kept::Full, Kept::Full),
                1 => (Kept::Track(&mut shadow_a), Kept::Track(&mut shadow_b)),
                _ => (
                    Kept::Update(&mut shadow_a, &mut fresh_a),
                    Kept::Update(&mut shadow_b, &mut fresh_b),
                ),
            };
            a.start(&mut by_words, 0, &[]);
            b.start(&mut by_cells, 0, &[]);
            a.set_words(&mut by_words, 70, &words);
            for p in cells {
                b.set(&mut by_cells, p);
            }
            a.finish(&mut by_words);
            b.finish(&mut by_cells);
            assert_eq!(by_words, by_cells, "mode {mode}");
            assert_eq!(by_words.iter().filter(|&&v| v == 1.0).count(), 3);
        }
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
