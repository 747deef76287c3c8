//! Random playouts on a disc map, for profiling and for checking that a change to the
//! engine plays the same games: `cargo run --release --example playouts [GAMES]`.
//!
//! For 2, 3 and 4 players it plays `GAMES` (20,000 by default) kind-first random games
//! from the initial position and prints the actions per CPU second and a fingerprint of
//! every game's length, scores and end: a change that keeps the fingerprints keeps the
//! games (the same seeds draw the same moves).

use _native::common::rng::Rng;
use _native::terranova::board::{Board, Rules};
use _native::terranova::state::Game;

/// CPU seconds of this process (`CLOCK_PROCESS_CPUTIME_ID`): the machine is shared.
fn cpu_seconds() -> f64 {
    let mut t = libc_timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec into `t`, which outlives the call.
    unsafe { clock_gettime(2, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

#[repr(C)]
struct libc_timespec {
    tv_sec: i64,
    tv_nsec: i64,
}

extern "C" {
    fn clock_gettime(clock: i32, t: *mut libc_timespec) -> i32;
}

fn main() {
    let games: u64 = std::env::args()
        .nth(1)
        .map(|a| a.parse().expect("GAMES is a number"))
        .unwrap_or(20_000);
    let mut cells = Vec::new();
    for r in -7i32..=7 {
        for q in -7i32..=7 {
            if (q + r).abs() <= 7 {
                cells.push((q, r, ((q * 3 + r * 5).rem_euclid(7)) as u8));
            }
        }
    }
    let water = [false, false, false, false, false, false, true];
    for num_players in 2..=4 {
        let board = Board::<4>::new(&cells, &water).expect("a valid board");
        let game = Game {
            board,
            rules: Rules::default(),
            num_players,
        };
        let start = game.initial(0);
        let mut rng = Rng::new(1);
        let mut slides = Vec::new();
        let mut actions = 0;
        let mut fingerprint: u64 = 0xcbf2_9ce4_8422_2325;
        let mut mix = |v: u64| {
            fingerprint ^= v;
            fingerprint = fingerprint.wrapping_mul(0x100_0000_01b3);
        };
        let t = cpu_seconds();
        for _ in 0..games {
            let (end, moved) = start.playout(&game, &mut rng, &mut slides);
            actions += moved;
            mix(moved);
            for &p in &end.points[..num_players] {
                mix(p as u64);
            }
            mix(end.termination.map_or(9, |t| t as u64));
        }
        let secs = cpu_seconds() - t;
        println!(
            "{num_players} players: {games} games, {actions} actions, {:.0} actions per CPU s, fingerprint {fingerprint:016x}",
            actions as f64 / secs
        );
    }
}
