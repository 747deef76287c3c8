//! Observation planes rewritten in place: a vector env writes every game's planes each
//! step, and writing them whole (20-27 kB a game) was most of its time on large batches,
//! while a step changes a few cells. The encoders (`terranova::encode`, `medina::encode`)
//! write through [`Kept`], which remembers the single cells set, so that the next write
//! clears those and leaves the rest.

/// How a write treats what its buffer held (`terranova::encode::Layout::write_planes_kept`,
/// `medina::encode::write_planes_kept`).
pub enum Kept<'a> {
    /// Everything written; nothing remembered.
    Full,
    /// Everything written; the single cells set remembered in the vector.
    Track(&'a mut Vec<u32>),
    /// The buffer holds the write that the vector remembers: the cells set then are
    /// cleared, the fixed planes left as they are, and the constant planes rewritten
    /// only where their value changed.
    Update(&'a mut Vec<u32>),
}

impl Kept<'_> {
    /// Readies `out` (`fixed` the first `base` floats, which never change).
    pub fn start(&mut self, out: &mut [f32], base: usize, fixed: &[f32]) {
        match self {
            Kept::Full => {
                out[..base].copy_from_slice(fixed);
                out[base..].fill(0.0);
            }
            Kept::Track(undo) => {
                undo.clear();
                out[..base].copy_from_slice(fixed);
                out[base..].fill(0.0);
            }
            Kept::Update(undo) => {
                for &p in undo.iter() {
                    out[p as usize] = 0.0;
                }
                undo.clear();
            }
        }
    }

    /// Sets one cell to 1.
    #[inline]
    pub fn set(&mut self, out: &mut [f32], p: usize) {
        out[p] = 1.0;
        if let Kept::Track(undo) | Kept::Update(undo) = self {
            undo.push(p as u32);
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
