//! Terra Nova (stub, being written).

#[cfg(feature = "python")]
pub mod py;
