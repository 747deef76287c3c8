//! Random playouts on a disc map, for profiling: `cargo run --release --example playouts`.

use _native::common::rng::Rng;
use _native::terranova::board::{Board, Rules};
use _native::terranova::state::Game;

fn main() {
    let mut cells = Vec::new();
    for r in -7i32..=7 {
        for q in -7i32..=7 {
            if (q + r).abs() <= 7 {
                cells.push((q, r, ((q * 3 + r * 5).rem_euclid(7)) as u8));
            }
        }
    }
    let water = [false, false, false, false, false, false, true];
    let board = Board::<4>::new(&cells, &water).expect("a valid board");
    let game = Game {
        board,
        rules: Rules::default(),
        num_players: 2,
    };
    let start = game.initial(0);
    let mut rng = Rng::new(1);
    let mut slides = Vec::new();
    let mut actions = 0;
    let t = std::time::Instant::now();
    for _ in 0..20_000 {
        actions += start.playout(&game, &mut rng, &mut slides).1;
    }
    let secs = t.elapsed().as_secs_f64();
    println!("{actions} actions, {:.0} actions/s", actions as f64 / secs);
}
