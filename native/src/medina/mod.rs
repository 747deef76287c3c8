//! Medina (stub: the Medina engine is written on the branch `native-medina`).

#[cfg(feature = "python")]
pub mod py;
