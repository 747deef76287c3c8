//! Random playouts on a disc map, for profiling and for checking that a change to the
//! engine plays the same games: `cargo run --release --example playouts [GAMES]`.
//!
//! For 2, 3 and 4 players it plays `GAMES` (20,000 by default) kind-first random games
//! from the initial position and prints the actions per CPU second and a fingerprint of
//! every game's length, scores and end: a change that keeps the fingerprints keeps the
//! games (the same seeds draw the same moves).
//!
//! Then, on the positions of a few 2-player games, the CPU nanoseconds per position of
//! what a Python loop asks of the engine each step: the legal kinds and their actions
//! counted (`State::action_runs`) and one of them found (`ActionRuns::get`), the actions
//! listed instead (`State::legal_actions`), and one action checked and played on a copy.

use _native::common::rng::Rng;
use _native::terranova::board::{Board, Rules};
use _native::terranova::state::{Game, State};

/// CPU seconds of this process (`CLOCK_PROCESS_CPUTIME_ID`): the machine is shared.
fn cpu_seconds() -> f64 {
    let mut t = libc_timespec { tv_sec: 0, tv_nsec: 0 };
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
            learned: None,
        };
        let start = game.initial(0);
        let mut rng = Rng::new(1);
        let mut actions = 0;
        let mut fingerprint: u64 = 0xcbf2_9ce4_8422_2325;
        let mut mix = |v: u64| {
            fingerprint ^= v;
            fingerprint = fingerprint.wrapping_mul(0x100_0000_01b3);
        };
        let t = cpu_seconds();
        for _ in 0..games {
            let mut end = start;
            let moved = _native::game::Game::playout(&game, &mut end, &mut rng, u32::MAX);
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
    legal_actions_per_position(&cells, &water);
}

/// Few enough games that their positions stay in the caches, as a Python loop's one
/// position does.
const POSITION_GAMES: usize = 8;

/// The step's engine calls over the positions of random 2-player games, CPU ns each.
fn legal_actions_per_position(cells: &[(i32, i32, u8)], water: &[bool]) {
    let game = Game {
        board: Board::<4>::new(cells, water).expect("a valid board"),
        rules: Rules::default(),
        num_players: 2,
        learned: None,
    };
    let mut rng = Rng::new(2);
    let mut slides = Vec::new();
    let mut positions: Vec<State<4>> = Vec::new();
    for _ in 0..POSITION_GAMES {
        let mut state = game.initial(0);
        while !state.is_terminal() {
            positions.push(state);
            let mv = state.random_move(&game, &mut rng, &mut slides).expect("a move");
            state.play(&game, mv);
        }
    }
    let per_position = |label: &str, f: &mut dyn FnMut(&State<4>) -> usize| {
        let t = cpu_seconds();
        let mut checksum = 0;
        for _ in 0..100 {
            for s in &positions {
                checksum += f(s);
            }
        }
        let ns = (cpu_seconds() - t) * 1e9 / (100 * positions.len()) as f64;
        println!(
            "{label}: {ns:.0} ns a position ({} positions, checksum {checksum})",
            positions.len()
        );
    };
    per_position("legal kinds + counted actions + the middle one", &mut |s| {
        let runs = s.action_runs(&game, s.legal_kinds(&game).as_slice()).expect("lines");
        runs.len()
            + if runs.is_empty() {
                0
            } else {
                runs.get(&game.board, runs.len() / 2) as usize
            }
    });
    per_position("legal actions listed", &mut |s| s.legal_actions(&game).len());
    // One action per position, chosen before the clock starts.
    let chosen: Vec<usize> = positions
        .iter()
        .map(|s| {
            let listed = s.legal_actions(&game);
            listed[listed.len() / 2] as usize
        })
        .collect();
    let mut next = chosen.iter().cycle();
    per_position("the middle action checked and played on a copy", &mut |s| {
        let mv = game.decode(*next.next().unwrap_or(&0)).expect("an action of the board");
        let mut after = *s;
        if after.is_legal(&game, mv) {
            after.play(&game, mv);
        }
        after.ply as usize
    });
}
