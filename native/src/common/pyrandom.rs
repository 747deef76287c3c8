//! What CPython's `random.Random(seed)` draws, for an int seed, exactly: the Mersenne
//! Twister (MT19937) seeded by `init_by_array` from the seed's 32-bit words, as
//! CPython's `_randommodule.c` seeds it, and `randrange(n)` as `random.py` draws it
//! (`getrandbits` of `n`'s bit length until below `n`).
//!
//! Terra Nova draws its start player from the config's seed this way (the Python
//! engine's rule); the native game draws it here to find a kept initial position
//! (`TerraNovaState.initial_draw`): from Python, seeding a generator and drawing cost
//! about 5 µs, a thirtieth of a random two-player game.

use std::sync::OnceLock;

const N: usize = 624;
const M: usize = 397;

/// A Mersenne Twister in CPython's state after `random.Random(seed)`.
pub struct PyRandom {
    mt: [u32; N],
    index: usize,
}

/// `init_genrand(19650218)`, where every `init_by_array` starts.
fn genrand_base() -> &'static [u32; N] {
    static BASE: OnceLock<[u32; N]> = OnceLock::new();
    BASE.get_or_init(|| {
        let mut mt = [0u32; N];
        mt[0] = 19_650_218;
        for i in 1..N {
            mt[i] = 1_812_433_253u32
                .wrapping_mul(mt[i - 1] ^ (mt[i - 1] >> 30))
                .wrapping_add(i as u32);
        }
        mt
    })
}

impl PyRandom {
    /// `random.Random(seed)` (CPython seeds with the absolute value's 32-bit words, low
    /// first, at least one).
    pub fn new(seed: i64) -> Self {
        let n = seed.unsigned_abs();
        let words = [n as u32, (n >> 32) as u32];
        let key = if n >> 32 == 0 { &words[..1] } else { &words[..] };
        let mut mt = *genrand_base();
        let (mut i, mut j) = (1usize, 0usize);
        for _ in 0..N.max(key.len()) {
            let previous = mt[i - 1] ^ (mt[i - 1] >> 30);
            mt[i] = (mt[i] ^ previous.wrapping_mul(1_664_525))
                .wrapping_add(key[j])
                .wrapping_add(j as u32);
            i += 1;
            j += 1;
            if i >= N {
                mt[0] = mt[N - 1];
                i = 1;
            }
            if j >= key.len() {
                j = 0;
            }
        }
        for _ in 0..N - 1 {
            let previous = mt[i - 1] ^ (mt[i - 1] >> 30);
            mt[i] = (mt[i] ^ previous.wrapping_mul(1_566_083_941)).wrapping_sub(i as u32);
            i += 1;
            if i >= N {
                mt[0] = mt[N - 1];
                i = 1;
            }
        }
        mt[0] = 0x8000_0000;
        PyRandom { mt, index: N }
    }

    /// The next 32 bits (`genrand_uint32`).
    fn next_u32(&mut self) -> u32 {
        if self.index >= N {
            let twist = |upper: u32, lower: u32, far: u32| {
                let y = (upper & 0x8000_0000) | (lower & 0x7fff_ffff);
                far ^ (y >> 1) ^ if y & 1 == 1 { 0x9908_b0df } else { 0 }
            };
            for k in 0..N {
                self.mt[k] = twist(self.mt[k], self.mt[(k + 1) % N], self.mt[(k + M) % N]);
            }
            self.index = 0;
        }
        let mut y = self.mt[self.index];
        self.index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }

    /// `randrange(n)` for `1 <= n < 2^32`: `getrandbits(n.bit_length())` until below `n`.
    pub fn randrange(&mut self, n: u32) -> u32 {
        debug_assert!(n >= 1);
        let bits = 32 - n.leading_zeros();
        loop {
            let drawn = self.next_u32() >> (32 - bits);
            if drawn < n {
                return drawn;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::PyRandom;

    #[test]
    fn draws_as_cpython_does() {
        // From CPython 3.11: `random.Random(seed).getrandbits(32)` and
        // `[random.Random(seed).randrange(n) for n in (1, 2, 3, 4)]`.
        let cases: [(i64, u32, [u32; 4]); 9] = [
            (0, 3_626_764_237, [0, 1, 1, 3]),
            (1, 577_090_037, [0, 0, 0, 1]),
            (5, 2_675_342_405, [0, 1, 2, 2]),
            (-5, 2_675_342_405, [0, 1, 2, 2]),
            (7, 1_390_851_128, [0, 1, 1, 2]),
            (1 << 32, 485_306_839, [0, 0, 0, 0]),
            ((1 << 40) + 3, 943_978_446, [0, 0, 0, 1]),
            (i64::MIN, 2_377_109_768, [0, 1, 2, 3]),
            (i64::MAX, 1_359_979_423, [0, 1, 1, 2]),
        ];
        for (seed, first, ranges) in cases {
            assert_eq!(PyRandom::new(seed).next_u32(), first, "seed {seed}");
            for (n, expected) in (1..=4).zip(ranges) {
                assert_eq!(
                    PyRandom::new(seed).randrange(n),
                    expected,
                    "seed {seed}, randrange({n})"
                );
            }
        }
        // Past the first twist: the 698th to 700th of `random.Random(9).getrandbits(32)`.
        let mut drawn = PyRandom::new(9);
        let last: Vec<u32> = (0..700).map(|_| drawn.next_u32()).skip(697).collect();
        assert_eq!(last, [1_463_434_620, 905_337_880, 3_211_918_798]);
    }
}
