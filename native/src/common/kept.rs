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
    /// collected in the second (scratch, which may serve many buffers in turn) and only
    /// the changed ones written (at [`Kept::finish`], which brings the first bitset up to
    /// date); the fixed planes are left as they are, and the constant planes rewritten
    /// only where their value changed.
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
                // Never shortened: the constant planes' values follow the bits (`fill`).
                if shadow.len() < words {
                    shadow.resize(words, 0);
                }
                // One more word for `set_words` to spill into (always zero: no cell).
                fresh.clear();
                fresh.resize(words + 1, 0);
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
            // Without branches: the words' bits shifted into place, and what spills
            // over into the next word (none when `shift` is 0: `word >> 64` in two steps).
            let target = &mut fresh[first..first + words.len() + 1];
            for (i, &word) in words.iter().enumerate() {
                target[i] |= word << shift;
                target[i + 1] |= (word >> 1) >> (63 - shift);
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
            // The new bits are copied into the first bitset where they changed (the
            // second is scratch, which the caller may share among many buffers).
            let words = out.len().div_ceil(64);
            for (w, (old, &new)) in shadow[..words].iter_mut().zip(&fresh[..words]).enumerate() {
                let mut changed = *old ^ new;
                if changed == 0 {
                    continue;
                }
                *old = new;
                while changed != 0 {
                    let bit = changed.trailing_zeros() as usize;
                    changed &= changed - 1;
                    out[w * 64 + bit] = if new >> bit & 1 == 1 { 1.0 } else { 0.0 };
                }
            }
        }
    }

    /// Sets the constant plane `out[plane]` to `value`, written only if it holds another
    /// value (zeros after a full write). `index` numbers the encoding's constant planes
    /// (0, 1, ...): with `Track` and `Update` each one's value is remembered after the
    /// bits, so that an update compares with it instead of reading the buffer (which, on
    /// a thousand games' buffers, missed the cache for every plane of every step).
    #[inline]
    pub fn fill(&mut self, out: &mut [f32], plane: std::ops::Range<usize>, index: usize, value: f32) {
        let at = out.len().div_ceil(64) + index;
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

/// A constant plane's value not remembered (no `f32`'s bits).
const UNKNOWN: u64 = u64::MAX;

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
