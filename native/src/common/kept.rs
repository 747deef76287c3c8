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
