//! Medina's observation in Rust: the planes and the vector of
//! `src/tabletop/games/medina/encoding.py` (`MedinaEncoding.observe`), value for value,
//! written into buffers the caller owns. The Python encoding stays the readable
//! definition; `tests/envs/test_native_encoding.py` compares the two on random positions.
//!
//! Reads the position through the fields named in [`write_planes`] and [`write_vector`]
//! and the functions `State::palace_pieces`, `State::stables_of`, `State::scores_with`.

use super::board::{geometry_for, Bits, Geometry, NUM_SQUARES};
use super::moves::NUM_SLOTS;
use super::state::{Phase, State, MAX_PALACES, NEUTRAL};
use crate::common::kept::Kept;

/// Score planes hold `score / SCORE_SCALE` (`encoding.SCORE_SCALE`).
pub const SCORE_SCALE: f64 = 100.0;
/// Planes (`encoding.PLANES`).
pub const NUM_PLANES: usize = 29;
/// Floats of the planes.
pub const PLANES_LEN: usize = NUM_PLANES * NUM_SQUARES;
/// Entries of the vector (`encoding.VECTOR`).
pub const VECTOR_LEN: usize = 90;

// Plane indices, in `encoding.PLANES` order.
const BUILDING_PLANE: usize = 0;
const WALL_SPACE_PLANE: usize = 1;
const TOWER_PLANE: usize = 2;
const PALACE0: usize = 3;
/// The planes before `PALACE0` never change.
const FIXED_PLANES: usize = PALACE0;
const STABLE_PLANE: usize = 7;
const MERCHANT_PLANE: usize = 8;
const WALL_PLANE: usize = 9;
const START_PLANE: usize = 10;
const OWNED0: usize = 11;
const DOME0: usize = 15;
const UNFINISHED_PLANE: usize = 19;
const EXTENSION_PLANE: usize = 20;
const ABANDONED_PLANE: usize = 21;
const CHAIN_PLANE: usize = 22;
const CHAIN_ENDS_PLANE: usize = 23;
const PLACEMENTS_PLANE: usize = 24;
const SCORE0: usize = 25;

// Vector indices, in `encoding.VECTOR` order.
const V_TO_MOVE0: usize = 3;
const V_PLACEMENTS: usize = 7;
const V_OBLIGATION: usize = 8;
const V_SUPPLY0: usize = 9;
const V_PALACE_TILE0: usize = V_SUPPLY0 + 4 * NUM_SLOTS;
const V_TOWER_TILE0: usize = V_PALACE_TILE0 + 20;
const V_SCORE0: usize = V_TOWER_TILE0 + 20;
const V_RETIRED0: usize = V_SCORE0 + 4;
const V_NUM_PLAYERS: usize = V_RETIRED0 + 4;

/// The second edition's planes after the first's (`encoding.PLANES_2E`: well, red,
/// yellow, neutral_owned, neutral_dome) and its vector entries after the first's
/// (`encoding.VECTOR_2E`), for `SecondEditionEncoding`.
pub const NUM_PLANES_2E: usize = NUM_PLANES + 5;
pub const PLANES_LEN_2E: usize = NUM_PLANES_2E * NUM_SQUARES;
pub const VECTOR_LEN_2E: usize = VECTOR_LEN + 22;
const WELL_PLANE: usize = NUM_PLANES;
const RED_PLANE: usize = NUM_PLANES + 1;
const YELLOW_PLANE: usize = NUM_PLANES + 2;
const NEUTRAL_OWNED_PLANE: usize = NUM_PLANES + 3;
const NEUTRAL_DOME_PLANE: usize = NUM_PLANES + 4;
const V_NEUTRAL0: usize = VECTOR_LEN;
const V_TEA0: usize = V_NEUTRAL0 + 4;
const V_TEA_POOL: usize = V_TEA0 + 4;
const V_TOWER_MERCHANTS0: usize = V_TEA_POOL + 1;
const V_PALACE_TILE_NEUTRAL0: usize = V_TOWER_MERCHANTS0 + 4;
const V_TOWER_TILE_NEUTRAL0: usize = V_PALACE_TILE_NEUTRAL0 + 4;
const V_TEA_ALLOWED: usize = V_TOWER_TILE_NEUTRAL0 + 4;

/// The floats of the planes of `s`'s encoding (its edition's).
pub fn planes_len(s: &State) -> usize {
    if s.rules.second() {
        PLANES_LEN_2E
    } else {
        PLANES_LEN
    }
}

/// The entries of the vector of `s`'s encoding (its edition's).
pub fn vector_len(s: &State) -> usize {
    if s.rules.second() {
        VECTOR_LEN_2E
    } else {
        VECTOR_LEN
    }
}

/// `(player - seat) % n`: seats counted from the observer, for every player (made once
/// an observation: a division by `n` at every palace and entry showed in its profile).
#[inline]
fn relative_seats(seat: usize, n: usize) -> [usize; 4] {
    std::array::from_fn(|player| (player + n - seat % n) % n)
}

/// Fills constant plane `plane` (`PLACEMENTS_PLANE` or a score plane) with `value`.
fn fill(out: &mut [f32], kept: &mut Kept<'_>, plane: usize, value: f64) {
    let cells = plane * NUM_SQUARES..(plane + 1) * NUM_SQUARES;
    kept.fill(out, cells, plane - PLACEMENTS_PLANE, value as f32);
}

/// The fixed planes (`building`, `wall_space`, `tower`) of a board side, which no move changes.
fn fixed_planes(geo: &Geometry) -> Vec<f32> {
    let mut out = vec![0.0; FIXED_PLANES * NUM_SQUARES];
    for (plane, squares) in [
        (BUILDING_PLANE, geo.building),
        (WALL_SPACE_PLANE, geo.wall_spaces),
        (TOWER_PLANE, geo.tower_mask),
    ] {
        for sq in squares.iter() {
            out[plane * NUM_SQUARES + sq] = 1.0;
        }
    }
    out
}

/// The fixed planes of the 3-4-player board and of the second edition's 2-player board.
static FIXED: std::sync::OnceLock<Vec<f32>> = std::sync::OnceLock::new();
static FIXED_2P: std::sync::OnceLock<Vec<f32>> = std::sync::OnceLock::new();

/// Placements left this turn as the encoding counts them (0 once over).
fn placements(s: &State) -> u8 {
    if s.phase == Phase::Over {
        0
    } else {
        s.placements_left
    }
}

/// Writes `s` seen by `seat`: the planes into `planes` ([`planes_len`] floats; all of
/// them, or with `Kept::Update` only what changed since the write that filled them,
/// `common::kept`) and the vector into `vector` ([`vector_len`] floats, every one).
/// Each palace is flooded once for the planes and the scores they and the vector show
/// (flooding was most of an observation's time when each asked again).
pub fn observe(s: &State, seat: usize, planes: &mut [f32], vector: &mut [f32], kept: &mut Kept<'_>) {
    // Each palace's pieces and their components (pieces and stables), once for the
    // planes and the scores.
    let mut pieces = [Bits::EMPTY; MAX_PALACES];
    let mut components = [Bits::EMPTY; MAX_PALACES];
    let palaces = s.num_palaces as usize;
    for pid in 0..palaces {
        pieces[pid] = s.palace_pieces(pid);
        components[pid] = pieces[pid] | s.stables_of(pieces[pid]);
    }
    let scores = s.scores_with(|pid| (pieces[pid], components[pid]));
    write_planes(
        s,
        seat,
        &scores,
        &pieces[..palaces],
        &components[..palaces],
        planes,
        kept,
    );
    write_vector(s, seat, &scores, vector);
}

/// The planes of [`observe`]: reads `palaces`, `num_palaces`, `unfinished`, `ext`,
/// `stables`, `merchants`, `walls`, `start_square`, `chain`, `chain_ends`, `phase`,
/// `placements_left`, the scores and each palace's `pieces`; in the second edition also
/// `well`, `red` and `yellow`.
fn write_planes(
    s: &State,
    seat: usize,
    scores: &[i64; 4],
    pieces: &[Bits],
    components: &[Bits],
    out: &mut [f32],
    kept: &mut Kept<'_>,
) {
    let out = &mut out[..planes_len(s)];
    let fixed = if s.num_players == 2 {
        FIXED_2P.get_or_init(|| fixed_planes(geometry_for(2)))
    } else {
        FIXED.get_or_init(|| fixed_planes(geometry_for(3)))
    };
    kept.start(out, fixed.len(), fixed);
    // Each plane's squares gathered first, then handed to `kept` a plane at a time: one
    // call per palace and plane was most of `Kept`'s time.
    let mut squares = [Bits::EMPTY; NUM_PLANES_2E];
    let n = s.num_players as usize;
    let rel_of = relative_seats(seat, n);
    for pid in 0..s.num_palaces as usize {
        let palace = s.palaces[pid];
        let (pieces, components) = (pieces[pid], components[pid]);
        squares[PALACE0 + palace.color as usize] |= pieces;
        if palace.owner >= 0 {
            let rel = rel_of[palace.owner as usize];
            squares[OWNED0 + rel] |= components;
            if palace.dome != u8::MAX {
                squares[DOME0 + rel] = squares[DOME0 + rel].with(palace.dome as usize);
            }
        } else if palace.abandoned {
            squares[ABANDONED_PLANE] |= components;
        }
    }
    for (color, &pid) in s.unfinished.iter().enumerate() {
        if pid >= 0 {
            squares[UNFINISHED_PLANE] |= components[pid as usize];
        }
        squares[EXTENSION_PLANE] |= s.ext[color];
    }
    squares[STABLE_PLANE] = s.stables;
    squares[MERCHANT_PLANE] = s.merchants;
    squares[WALL_PLANE] = s.walls;
    if s.start_square != u8::MAX {
        squares[START_PLANE] = Bits::single(s.start_square as usize);
    }
    squares[CHAIN_PLANE] = s.chain;
    squares[CHAIN_ENDS_PLANE] = s.chain_ends;
    let k = kept;
    fill(out, k, PLACEMENTS_PLANE, f64::from(placements(s)) / 2.0);
    let mut relative_scores = [0.0f64; 4];
    for (player, &score) in scores[..n].iter().enumerate() {
        relative_scores[rel_of[player]] = score as f64 / SCORE_SCALE;
    }
    for (rel, &score) in relative_scores.iter().enumerate() {
        fill(out, k, SCORE0 + rel, score);
    }
    let mut num_planes = NUM_PLANES;
    if s.rules.second() {
        num_planes = NUM_PLANES_2E;
        if s.well != u8::MAX {
            squares[WELL_PLANE] = Bits::single(s.well as usize);
        }
        squares[RED_PLANE] = s.red;
        squares[YELLOW_PLANE] = s.yellow;
        for (palace, &components) in s.palaces.iter().zip(components) {
            if palace.owner == NEUTRAL {
                squares[NEUTRAL_OWNED_PLANE] |= components;
                squares[NEUTRAL_DOME_PLANE] = squares[NEUTRAL_DOME_PLANE].with(palace.dome as usize);
            }
        }
    }
    // The planes of single cells: not the fixed ones (written by `start`) nor the
    // constant ones (by `fill`).
    k.set_planes(out, PALACE0, &squares[PALACE0..PLACEMENTS_PLANE], NUM_SQUARES);
    if num_planes > WELL_PLANE {
        k.set_planes(out, WELL_PLANE, &squares[WELL_PLANE..num_planes], NUM_SQUARES);
    }
}

/// Where the planes of `s`'s game are the same for every position (the board's fixed
/// planes) and which planes are one value throughout (placements, scores), as ranges of
/// floats: the network's first layer sums those rows of its weights once
/// (`common::network::InputLayout`).
pub fn input_layout() -> (std::ops::Range<usize>, Vec<std::ops::Range<usize>>) {
    let planes = std::iter::once(PLACEMENTS_PLANE).chain(SCORE0..SCORE0 + 4);
    (
        0..FIXED_PLANES * NUM_SQUARES,
        planes.map(|p| p * NUM_SQUARES..(p + 1) * NUM_SQUARES).collect(),
    )
}

/// The vector of [`observe`] (every one of its floats).
/// Reads `phase`, `current_player`, `placements_left`, `obligation`, `supply`,
/// `palace_tiles`, `tower_tiles`, `retired` and the scores; in the second edition also
/// `neutral`, `tea`, `tea_pool`, `tower_merchants`, `second_step`.
fn write_vector(s: &State, seat: usize, scores: &[i64; 4], out: &mut [f32]) {
    let out = &mut out[..vector_len(s)];
    out.fill(0.0);
    let n = s.num_players as usize;
    let rel_of = relative_seats(seat, n);
    out[match s.phase {
        Phase::Start => 0,
        Phase::Play => 1,
        Phase::Over => 2,
    }] = 1.0;
    if s.phase != Phase::Over {
        out[V_TO_MOVE0 + rel_of[s.current_player as usize]] = 1.0;
    }
    out[V_PLACEMENTS] = f32::from(placements(s));
    out[V_OBLIGATION] = if s.obligation { 1.0 } else { 0.0 };
    for (player, &score) in scores[..n].iter().enumerate() {
        let rel = rel_of[player];
        let supply = &s.supply[player * NUM_SLOTS..(player + 1) * NUM_SLOTS];
        for (slot, &count) in supply.iter().enumerate() {
            out[V_SUPPLY0 + rel * NUM_SLOTS + slot] = f32::from(count);
        }
        out[V_SCORE0 + rel] = score as f32;
    }
    for (base, holders) in [(V_PALACE_TILE0, &s.palace_tiles), (V_TOWER_TILE0, &s.tower_tiles)] {
        for (i, &holder) in holders.iter().enumerate() {
            let h = if holder < 0 { 0 } else { 1 + rel_of[holder as usize] };
            out[base + 5 * i + h] = 1.0;
        }
    }
    for (color, &count) in s.retired.iter().enumerate() {
        out[V_RETIRED0 + color] = f32::from(count);
    }
    out[V_NUM_PLAYERS] = n as f32;
    if s.rules.second() {
        for (player, &rel) in rel_of[..n].iter().enumerate() {
            out[V_NEUTRAL0 + rel] = f32::from(s.neutral[player]);
            out[V_TEA0 + rel] = f32::from(s.tea[player]);
        }
        out[V_TEA_POOL] = f32::from(s.tea_pool);
        for (t, &count) in s.tower_merchants.iter().enumerate() {
            out[V_TOWER_MERCHANTS0 + t] = f32::from(count);
        }
        for (c, &holder) in s.palace_tiles.iter().enumerate() {
            out[V_PALACE_TILE_NEUTRAL0 + c] = f32::from(u8::from(holder == NEUTRAL));
        }
        for (t, &holder) in s.tower_tiles.iter().enumerate() {
            out[V_TOWER_TILE_NEUTRAL0 + t] = f32::from(u8::from(holder == NEUTRAL));
        }
        out[V_TEA_ALLOWED] = f32::from(u8::from(s.second_step && s.placements_left == 1));
    }
}

/// The legal actions of `s` into `out` (cleared first): ascending in the first edition;
/// the second's come in the engine's order.
pub fn legal_actions_into(s: &State, out: &mut Vec<u32>) {
    out.clear();
    s.legal().append_to(out);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::common::rng::Rng;
    use crate::medina::ruleset::Rules;

    #[test]
    fn vector_one_hots_hold_through_a_game() {
        let mut s = State::new(3, 0, Rules::preset("default").expect("the default preset"));
        let mut rng = Rng::new(5);
        let mut planes = vec![0.0; PLANES_LEN];
        let mut vector = vec![0.0; VECTOR_LEN];
        while let Some(action) = s.random_action(&mut |n| rng.below(n)) {
            s.apply_legal(action);
            observe(&s, 2, &mut planes, &mut vector, &mut Kept::Full);
            assert_eq!(vector[..3].iter().sum::<f32>(), 1.0);
            for tile in 0..8 {
                assert_eq!(
                    vector[V_PALACE_TILE0 + 5 * tile..V_PALACE_TILE0 + 5 * tile + 5]
                        .iter()
                        .sum::<f32>(),
                    1.0
                );
            }
            let merchants: f32 = planes[MERCHANT_PLANE * NUM_SQUARES..(MERCHANT_PLANE + 1) * NUM_SQUARES]
                .iter()
                .sum();
            assert_eq!(merchants, s.merchants.count() as f32);
        }
        assert_eq!(vector[V_NUM_PLAYERS], 3.0);
    }
}
