//! Loading a Medina position: the inverse of the Python binding's `export()`.
//!
//! A [`Position`] holds the fields of the Python `state.State` (as `export()` gives them);
//! [`load`] checks that they describe a position of this game that the rules can reach
//! in every respect a state can check by itself (pieces on their squares, one piece a
//! square, palaces that are whole groups with their own stables, owners, tiles and wall
//! runs that agree, every piece of every supply accounted for, a phase that fits the
//! seat to act) and returns the equal [`State`]. The derived fields (`occupied`,
//! `forbid`, `contested`, `ext`, each palace's `stables` and `touch`) are computed and
//! checked against those given.

use super::board::{flood, geometry_for, ortho_dilate, touch_dilate, Bits, MAX_RUN, NUM_RUNS, NUM_SQUARES, WIDTH};
use super::moves::{DOME, MERCHANT, NUM_SLOTS, STABLE, WALL};
use super::rules::supply_for;
use super::ruleset::Rules;
use super::second_edition::well_squares;
use super::state::{Palace, Phase, State, MAX_PALACES, NEUTRAL, TEA_TILES};

/// One palace as the Python `state.Palace` holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PalaceFields {
    pub color: i64,
    pub pieces: Bits,
    pub stables: Bits,
    pub touch: Bits,
    pub owner: i64,
    pub dome: i64,
    pub abandoned: bool,
}

/// The fields of a Medina position (`export()`; numbers as read, checked by [`load`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    pub num_players: i64,
    pub phase: String,
    pub current_player: i64,
    pub placements_left: i64,
    pub obligation: bool,
    pub turn: i64,
    pub ply: i64,
    pub palace_mask: Bits,
    pub stables: Bits,
    pub merchants: Bits,
    pub walls: Bits,
    pub occupied: Bits,
    pub forbid: Bits,
    pub contested: Bits,
    pub chain: Bits,
    pub chain_ends: Bits,
    pub palaces: Vec<PalaceFields>,
    pub unfinished: Vec<i64>,
    pub ext: Vec<Bits>,
    pub owned: Vec<i64>,
    pub runs: Vec<Bits>,
    pub supply: Vec<i64>,
    pub retired: Vec<i64>,
    pub palace_tiles: Vec<i64>,
    pub tower_tiles: Vec<i64>,
    pub start_square: i64,
    /// The second edition's fields (`-1`, empty and zeros in the first).
    pub well: i64,
    pub red: Bits,
    pub yellow: Bits,
    pub neutral: Vec<i64>,
    pub tea: Vec<i64>,
    pub tea_pool: i64,
    pub tea_fresh: i64,
    pub tower_merchants: Vec<i64>,
    pub second_step: bool,
    pub claims: Vec<i64>,
}

const PHASES: [Phase; 3] = [Phase::Start, Phase::Play, Phase::Over];

impl Position {
    /// The fields of `s` (what `export()` gives).
    pub fn of(s: &State) -> Self {
        let n = s.num_players as usize;
        let wide = |v: &[i8]| v.iter().map(|&x| i64::from(x)).collect::<Vec<_>>();
        let palaces = (0..s.num_palaces as usize)
            .map(|pid| {
                let p = s.palaces[pid];
                let pieces = s.palace_pieces(pid);
                let stables = ortho_dilate(pieces) & s.stables;
                PalaceFields {
                    color: i64::from(p.color),
                    pieces,
                    stables,
                    touch: touch_dilate(pieces | stables),
                    owner: i64::from(p.owner),
                    dome: if p.dome as usize >= NUM_SQUARES {
                        -1
                    } else {
                        i64::from(p.dome)
                    },
                    abandoned: p.abandoned,
                }
            })
            .collect();
        Position {
            num_players: n as i64,
            phase: s.phase.name().to_owned(),
            current_player: i64::from(s.current_player),
            placements_left: i64::from(s.placements_left),
            obligation: s.obligation,
            turn: i64::from(s.turn),
            ply: i64::from(s.ply),
            palace_mask: s.palace_mask,
            stables: s.stables,
            merchants: s.merchants,
            walls: s.walls,
            occupied: s.occupied,
            forbid: s.forbid,
            contested: s.contested,
            chain: s.chain,
            chain_ends: s.chain_ends,
            palaces,
            unfinished: wide(&s.unfinished),
            ext: s.ext.to_vec(),
            owned: wide(&s.owned[..4 * n]),
            runs: super::state::run_masks(s).to_vec(),
            supply: s.supply[..NUM_SLOTS * n].iter().map(|&c| i64::from(c)).collect(),
            retired: s.retired.iter().map(|&c| i64::from(c)).collect(),
            palace_tiles: wide(&s.palace_tiles),
            tower_tiles: wide(&s.tower_tiles),
            start_square: if s.start_square as usize >= NUM_SQUARES {
                -1
            } else {
                i64::from(s.start_square)
            },
            well: if s.well as usize >= NUM_SQUARES {
                -1
            } else {
                i64::from(s.well)
            },
            red: s.red,
            yellow: s.yellow,
            neutral: s.neutral[..n].iter().map(|&c| i64::from(c)).collect(),
            tea: s.tea[..n].iter().map(|&c| i64::from(c)).collect(),
            tea_pool: i64::from(s.tea_pool),
            tea_fresh: i64::from(s.tea_fresh),
            tower_merchants: s.tower_merchants.iter().map(|&c| i64::from(c)).collect(),
            second_step: s.second_step,
            claims: s.claims().into_iter().map(|pid| pid as i64).collect(),
        }
    }
}

/// A number that must lie in `lo..=hi`.
fn in_range(name: &str, value: i64, lo: i64, hi: i64) -> Result<i64, String> {
    if (lo..=hi).contains(&value) {
        Ok(value)
    } else {
        Err(format!("{name} is {value}, not in {lo}..={hi}"))
    }
}

/// A list that must have `len` entries.
fn sized<'a, T>(name: &str, values: &'a [T], len: usize) -> Result<&'a [T], String> {
    if values.len() == len {
        Ok(values)
    } else {
        Err(format!("{name} has {} entries, not {len}", values.len()))
    }
}

/// The position `p` of a game with these rules and players, or why it is not one.
pub fn load(rules: Rules, num_players: usize, p: &Position) -> Result<State, String> {
    load_checked(rules, num_players, p, true)
}

/// [`load`] of a hand-made position (the spec scenarios' test positions): every check the
/// rules rely on (pieces where they may stand, whole palaces, the street-rule sets, owners,
/// tile holders with a palace, wall runs, the chain, the seat to act), but not the
/// accounting of a game played from the start (every piece from a supply, the starting
/// merchant, the largest palace with its tile, retired colours, the neutral domes and tea
/// tiles dealt).
pub fn load_position(rules: Rules, num_players: usize, p: &Position) -> Result<State, String> {
    load_checked(rules, num_players, p, false)
}

/// [`load`], with the accounting of a game played from the start where `reachable`.
fn load_checked(rules: Rules, num_players: usize, p: &Position, reachable: bool) -> Result<State, String> {
    let n = num_players;
    if p.num_players != n as i64 {
        return Err(format!("a {}-player position in a {n}-player game", p.num_players));
    }
    let phase = *PHASES
        .iter()
        .find(|ph| ph.name() == p.phase)
        .ok_or_else(|| format!("unknown phase {:?}", p.phase))?;
    let fewest = if rules.second() { 2 } else { 3 };
    if !(fewest..=4).contains(&n) {
        return Err(format!("a {n}-player game of edition {}", rules.edition));
    }
    let geo = geometry_for(n);
    let mut s = State::new(n, 0, rules);
    // The well (2e), the squares it colours, and the pieces the setup gives.
    let well = in_range("well", p.well, -1, NUM_SQUARES as i64 - 1)?;
    let (well_bit, red, yellow) = if well >= 0 {
        if !rules.second() || !geo.inner.has(well as usize) {
            return Err(format!(
                "a well on square {well} (only an inner square, in the second edition)"
            ));
        }
        let (red, yellow) = well_squares(well as usize, rules.well_bonus_plaza_ring, geo.building);
        (Bits::single(well as usize), red, yellow)
    } else {
        (Bits::EMPTY, Bits::EMPTY, Bits::EMPTY)
    };
    if p.red != red || p.yellow != yellow {
        return Err("red or yellow is not the squares of the well".into());
    }
    if well >= 0 {
        s.well = well as u8;
        s.red = red;
        s.yellow = yellow;
    }
    let seats = |name: &str, values: &[i64], most: i64| -> Result<[u8; 4], String> {
        let mut out = [0u8; 4];
        for (o, &v) in out.iter_mut().zip(sized(name, values, n)?) {
            *o = in_range(name, v, 0, most)? as u8;
        }
        Ok(out)
    };
    let neutral_each = if rules.second() {
        i64::from(rules.neutral_domes[n - 2])
    } else {
        0
    };
    s.neutral = seats("neutral", &p.neutral, neutral_each)?;
    s.tea = seats("tea", &p.tea, i64::from(TEA_TILES))?;
    let tea_most = if rules.second() { i64::from(TEA_TILES) } else { 0 };
    s.tea_pool = in_range("tea_pool", p.tea_pool, 0, tea_most)? as u8;
    if reachable && s.tea.iter().map(|&t| i64::from(t)).sum::<i64>() + i64::from(s.tea_pool) > tea_most {
        return Err("more tea tiles held and in the pool than the game has".into());
    }
    s.tea_fresh = in_range("tea_fresh", p.tea_fresh, 0, tea_most)? as u8;
    let tower_merchants_before = s.tower_merchants;
    for (t, &m) in sized("tower_merchants", &p.tower_merchants, 4)?.iter().enumerate() {
        s.tower_merchants[t] = in_range("tower_merchants", m, 0, i64::from(tower_merchants_before[t]))? as u8;
    }
    if p.second_step && !rules.second() {
        return Err("second_step in the first edition".into());
    }
    s.second_step = p.second_step;
    // The pieces on the board, one a square, each where it may stand.
    for (name, bits, within) in [
        ("palace_mask", p.palace_mask, geo.building.andnot(red | well_bit)),
        ("stables", p.stables, geo.building.andnot(red | well_bit)),
        ("merchants", p.merchants, geo.building.andnot(well_bit)),
        ("walls", p.walls, geo.wall_spaces),
        ("chain", p.chain, p.merchants),
        ("chain_ends", p.chain_ends, p.chain),
    ] {
        if bits.andnot(within).any() {
            return Err(format!("{name} has a square where it cannot stand"));
        }
    }
    if (p.palace_mask & p.stables).any() || ((p.palace_mask | p.stables) & p.merchants).any() {
        return Err("two pieces on one square".into());
    }
    let occupied = p.palace_mask | p.stables | p.merchants | well_bit;
    if p.occupied != occupied {
        return Err("occupied is not the squares of the palace pieces, stables, merchants and the well".into());
    }
    // The phase and the starting merchant.
    let start_placed = p.start_square >= 0;
    // A hand-made position may be in play without its starting merchant.
    if start_placed != (phase != Phase::Start) && (reachable || phase == Phase::Start) {
        return Err(format!(
            "the starting merchant at {} in the {} phase",
            p.start_square,
            phase.name()
        ));
    }
    if start_placed {
        let sq = in_range("start_square", p.start_square, 0, NUM_SQUARES as i64 - 1)? as usize;
        if !p.merchants.has(sq) || !s.start_squares().has(sq) {
            return Err(format!(
                "the starting merchant's square {sq} has no merchant or is not a start square"
            ));
        }
        s.start_square = sq as u8;
    } else if phase == Phase::Start && ((occupied.andnot(well_bit) | p.walls).any() || !p.palaces.is_empty()) {
        return Err("pieces on the board before the starting merchant".into());
    }
    // The palaces: whole groups of one colour's pieces with their stables.
    if p.palaces.len() > MAX_PALACES {
        return Err(format!("{} palaces (at most {MAX_PALACES})", p.palaces.len()));
    }
    let unfinished = sized("unfinished", &p.unfinished, 4)?;
    let owned = sized("owned", &p.owned, 4 * n)?;
    let mut pieces_seen = Bits::EMPTY;
    let mut stables_seen = Bits::EMPTY;
    // No palace piece or stable may go on a red square: they start in both sets.
    let mut forbid = red;
    let mut contested = red;
    let mut pieces_of_color = [0i64; 4];
    let mut domes = 0i64;
    let mut neutral_palaces = 0i64;
    let mut claim_of = [u8::MAX; MAX_PALACES];
    for (order, &pid) in p.claims.iter().enumerate() {
        let pid = in_range("claims", pid, 0, p.palaces.len() as i64 - 1)? as usize;
        if claim_of[pid] != u8::MAX || p.palaces[pid].owner == -1 || !rules.second() {
            return Err(format!(
                "claims names palace {pid} twice, unclaimed, or in the first edition"
            ));
        }
        claim_of[pid] = order as u8;
    }
    for (pid, pal) in p.palaces.iter().enumerate() {
        let color = in_range("a palace's color", pal.color, 0, 3)? as usize;
        let lowest_owner = if rules.second() { i64::from(NEUTRAL) } else { -1 };
        let owner = in_range("a palace's owner", pal.owner, lowest_owner, n as i64 - 1)?;
        if pal.pieces.is_empty() || flood(Bits::single(pal.pieces.lowest()), p.palace_mask) != pal.pieces {
            return Err(format!("palace {pid} is not a whole group of palace pieces"));
        }
        if (pal.pieces & pieces_seen).any() {
            return Err(format!("palace {pid} shares pieces with another palace"));
        }
        let stables = ortho_dilate(pal.pieces) & p.stables;
        let touch = touch_dilate(pal.pieces | stables);
        if pal.stables != stables || pal.touch != touch {
            return Err(format!(
                "palace {pid}'s stables or touch zone are not those of its pieces"
            ));
        }
        if ((pal.pieces | stables) & forbid).any() {
            return Err(format!("palace {pid} touches another palace (the street rule)"));
        }
        pieces_seen |= pal.pieces;
        stables_seen |= stables;
        contested |= forbid & touch;
        forbid |= touch;
        pieces_of_color[color] += i64::from(pal.pieces.count());
        let dome = in_range("a palace's dome", pal.dome, -1, NUM_SQUARES as i64 - 1)?;
        if (owner != -1) != (dome >= 0) || (dome >= 0 && !pal.pieces.has(dome as usize)) {
            return Err(format!("palace {pid}'s dome and owner disagree"));
        }
        let is_unfinished = unfinished[color] == pid as i64;
        if (owner != -1) != (claim_of[pid] != u8::MAX) && rules.second() {
            return Err(format!(
                "palace {pid} is claimed, but claims does not say so (or the reverse)"
            ));
        }
        if owner == i64::from(NEUTRAL) {
            neutral_palaces += 1;
        }
        if owner >= 0 {
            domes += 1;
            if owned[owner as usize * 4 + color] != pid as i64 {
                return Err(format!(
                    "palace {pid} is domed by seat {owner}, but owned does not say so"
                ));
            }
        }
        // Abandoned and then domed only where abandoned palaces are claimable (A1).
        let claimed_abandoned = pal.abandoned && owner != -1;
        let may_claim_abandoned =
            rules.abandoned_palace_claimable || (owner == i64::from(NEUTRAL) && rules.neutral_dome_any_unowned);
        if (owner == -1 && !pal.abandoned) != is_unfinished || (claimed_abandoned && !may_claim_abandoned) {
            return Err(format!(
                "palace {pid} is not exactly one of owned, unfinished and abandoned"
            ));
        }
        s.palaces[pid] = Palace {
            anchor: pal.pieces.lowest() as u8,
            color: color as u8,
            owner: owner as i8,
            dome: if owner != -1 { dome as u8 } else { u8::MAX },
            abandoned: pal.abandoned,
            size: (pal.pieces.count() + stables.count()) as u8,
            claim: claim_of[pid],
        };
        if owner == -1 {
            s.unowned_pieces[color] |= pal.pieces;
        }
        if is_unfinished {
            s.unfinished_pieces[color] = pal.pieces;
        }
    }
    s.num_palaces = p.palaces.len() as u8;
    s.num_claims = p.claims.len() as u8;
    if reachable && s.neutral.iter().map(|&c| i64::from(c)).sum::<i64>() + neutral_palaces != neutral_each * n as i64 {
        return Err("the neutral domes held and placed are not those of the game".into());
    }
    if pieces_seen != p.palace_mask || stables_seen != p.stables {
        return Err("a palace piece or stable belongs to no palace".into());
    }
    if p.forbid != forbid || p.contested != contested {
        return Err("forbid or contested is not what the palaces' touch zones give".into());
    }
    for (col, &pid) in unfinished.iter().enumerate() {
        let pid = in_range("unfinished", pid, -1, p.palaces.len() as i64 - 1)?;
        if pid >= 0 && p.palaces[pid as usize].color != col as i64 {
            return Err(format!("the unfinished palace of colour {col} is of another colour"));
        }
        s.unfinished[col] = pid as i8;
    }
    for (slot, &pid) in owned.iter().enumerate() {
        let pid = in_range("owned", pid, -1, p.palaces.len() as i64 - 1)?;
        if pid >= 0 {
            let pal = &p.palaces[pid as usize];
            if pal.owner * 4 + pal.color != slot as i64 {
                return Err(format!("owned[{slot}] names palace {pid}, not of that seat and colour"));
            }
        }
        s.owned[slot] = pid as i8;
    }
    // An unfinished palace has its extension squares (with none it is abandoned at once).
    let ext = sized("ext", &p.ext, 4)?;
    let free = geo.building.andnot(occupied).andnot(contested);
    for (col, given) in ext.iter().enumerate() {
        let m = s.unfinished_pieces[col];
        let w = WIDTH as u32;
        let e = (m.shl(1) | m.shr(1) | m.shl(w) | m.shr(w)) & free;
        if *given != e || (s.unfinished[col] >= 0 && e.is_empty()) {
            return Err(format!(
                "ext[{col}] is not the free squares next to the unfinished palace"
            ));
        }
        s.ext[col] = e;
    }
    // The wall runs, each contiguous from its tower.
    let runs = sized("runs", &p.runs, NUM_RUNS)?;
    let mut walls = Bits::EMPTY;
    for (r, run) in runs.iter().enumerate() {
        let len = run.count() as usize;
        if len > MAX_RUN || geo.run_masks[r][len] != *run || (*run & walls).any() {
            return Err(format!("runs[{r}] is not a run of wall pieces from its tower"));
        }
        walls |= *run;
        s.run_len[r] = len as u8;
    }
    if walls != p.walls {
        return Err("walls is not the union of the runs".into());
    }
    // Every piece accounted for: on the board, in a supply or retired.
    let supply = sized("supply", &p.supply, NUM_SLOTS * n)?;
    for (i, &c) in supply.iter().enumerate() {
        s.supply[i] = in_range("a supply count", c, 0, 20)? as u8;
    }
    let retired = sized("retired", &p.retired, 4)?;
    for (col, &c) in retired.iter().enumerate() {
        s.retired[col] = in_range("retired", c, 0, 80)? as u8;
    }
    let each = supply_for(rules.edition, n);
    // Merchants taken from the tower tiles (2e §4.2) went to a supply or, a neutral
    // palace's, to the box.
    let from_towers: i64 = (0..4)
        .map(|t| i64::from(tower_merchants_before[t]) - i64::from(s.tower_merchants[t]))
        .sum();
    for slot in 0..NUM_SLOTS {
        let held: i64 = (0..n).map(|q| supply[q * NUM_SLOTS + slot]).sum();
        let placed = match slot {
            0..=3 => pieces_of_color[slot] + retired[slot],
            DOME => domes,
            STABLE => i64::from(p.stables.count()),
            MERCHANT => i64::from(p.merchants.count()) - i64::from(start_placed),
            WALL => i64::from(p.walls.count()),
            _ => unreachable!("eight slots"),
        };
        let dealt = i64::from(each[slot]) * n as i64;
        let extra = if slot == MERCHANT { from_towers } else { 0 };
        if reachable && !(dealt..=dealt + extra).contains(&(held + placed)) {
            return Err(format!(
                "supply slot {slot}: {held} in the supplies and {placed} placed or retired, not the {} of a {n}-player game",
                i64::from(each[slot]) * n as i64
            ));
        }
    }
    for (name, tiles, into) in [
        ("palace_tiles", &p.palace_tiles, &mut s.palace_tiles),
        ("tower_tiles", &p.tower_tiles, &mut s.tower_tiles),
    ] {
        let lowest = if rules.second() { i64::from(NEUTRAL) } else { -1 };
        for (t, &holder) in sized(name, tiles, 4)?.iter().enumerate() {
            into[t] = in_range(name, holder, lowest, n as i64 - 1)? as i8;
        }
    }
    for col in 0..4 {
        if rules.second() {
            // Held by a seat with a palace of the colour, by the neutral palaces, or by nobody.
            let holder = s.palace_tiles[col];
            let fits = match holder {
                -1 => true,
                NEUTRAL => (0..s.num_palaces as usize)
                    .any(|pid| s.palaces[pid].owner == NEUTRAL && s.palaces[pid].color as usize == col),
                seat => s.owned[seat as usize * 4 + col] >= 0,
            };
            if !fits {
                return Err(format!(
                    "the palace tile of colour {col} is with a holder of no such palace"
                ));
            }
        } else {
            // The tile goes to a colour's first domed palace, then to a strictly larger one.
            let sizes = (0..n).filter_map(|q| {
                usize::try_from(s.owned[q * 4 + col])
                    .ok()
                    .map(|pid| s.palaces[pid].size)
            });
            let largest = sizes.max();
            let holder = s.palace_tiles[col];
            let held = usize::try_from(holder)
                .ok()
                .and_then(|h| usize::try_from(s.owned[h * 4 + col]).ok());
            let not_largest = reachable && held.map(|pid| s.palaces[pid].size) != largest;
            if (holder >= 0 && held.is_none()) || not_largest {
                return Err(format!(
                    "the palace tile of colour {col} is not with a largest domed palace of it"
                ));
            }
        }
        // A colour every seat owns is retired from the supplies (§3.2.3), and only then.
        let all_own = (0..n).all(|q| s.owned[q * 4 + col] >= 0);
        let misretired =
            (all_own && (0..n).any(|q| s.supply[q * NUM_SLOTS + col] > 0)) || (s.retired[col] > 0 && !all_own);
        if reachable && misretired {
            return Err(format!(
                "colour {col} is retired where not every seat owns one, or left in a supply"
            ));
        }
    }
    if start_placed
        && (p.chain_ends.is_empty()
            || p.chain_ends.count() > 2
            || flood(Bits::single(p.chain_ends.lowest()), p.chain) != p.chain)
    {
        return Err("the merchant chain is not one group with one or two ends".into());
    }
    s.palace_mask = p.palace_mask;
    s.stables = p.stables;
    s.merchants = p.merchants;
    s.walls = p.walls;
    s.occupied = occupied;
    s.forbid = forbid;
    s.contested = contested;
    s.chain = p.chain;
    s.chain_ends = p.chain_ends;
    s.turn = in_range("turn", p.turn, 0, i64::from(u16::MAX))? as u16;
    s.ply = in_range("ply", p.ply, 0, i64::from(u16::MAX))? as u16;
    s.phase = phase;
    s.obligation = p.obligation;
    // The seat to act.
    let placements = match phase {
        Phase::Over => 0,
        Phase::Start => 1,
        Phase::Play => 2,
    };
    s.placements_left = in_range("placements_left", p.placements_left, placements.min(1), placements)? as u8;
    if phase == Phase::Over {
        if p.current_player != -1 || p.obligation {
            return Err("the game is over, but a seat is to act".into());
        }
        s.current_player = -1;
    } else {
        s.current_player = in_range("current_player", p.current_player, 0, n as i64 - 1)? as i8;
        if p.obligation && phase != Phase::Play {
            return Err("a dome obligation before the starting merchant".into());
        }
    }
    s.reset_kept();
    Ok(s)
}

#[cfg(feature = "python")]
pub use self::py_fields::{read, read_position, read_state};

#[cfg(feature = "python")]
mod py_fields {
    use super::{load, PalaceFields, Position};
    use crate::common::pyfields::Fields;
    use crate::medina::board::Bits;
    use crate::medina::ruleset::Rules;
    use crate::medina::state::State;
    use pyo3::prelude::*;

    /// The state of a game with these rules and players at the position in `fields`.
    pub fn read_state(rules: Rules, num_players: usize, fields: &Fields<'_>) -> PyResult<State> {
        load(rules, num_players, &read(fields)?).map_err(|e| fields.error(e))
    }

    /// The hand-made position in `fields` ([`super::load_position`]).
    pub fn read_position(rules: Rules, num_players: usize, fields: &Fields<'_>) -> PyResult<State> {
        super::load_position(rules, num_players, &read(fields)?).map_err(|e| fields.error(e))
    }

    /// The position in `fields`: `export()`'s dict, or a Python engine state.
    pub fn read(fields: &Fields<'_>) -> PyResult<Position> {
        let bits = |name: &str| fields.get_words::<4>(name).map(Bits);
        let bits_list = |name: &str| {
            fields
                .get_words_list::<4>(name)
                .map(|v| v.into_iter().map(Bits).collect())
        };
        let mut palaces = Vec::new();
        for item in fields.get::<Vec<Bound<'_, PyAny>>>("palaces")? {
            // (color, pieces, stables, touch, owner, dome, abandoned): a list or a tuple.
            let parts: Vec<Bound<'_, PyAny>> = fields.extract("palaces", &item)?;
            let [color, pieces, stables, touch, owner, dome, abandoned] = <[_; 7]>::try_from(parts)
                .map_err(|parts| fields.error(format_args!("a palace has {} fields, not 7", parts.len())))?;
            palaces.push(PalaceFields {
                color: fields.extract("palaces", &color)?,
                pieces: Bits(fields.words::<4>("palaces", &pieces)?),
                stables: Bits(fields.words::<4>("palaces", &stables)?),
                touch: Bits(fields.words::<4>("palaces", &touch)?),
                owner: fields.extract("palaces", &owner)?,
                dome: fields.extract("palaces", &dome)?,
                abandoned: fields.extract("palaces", &abandoned)?,
            });
        }
        Ok(Position {
            num_players: fields.get("num_players")?,
            phase: fields.get("phase")?,
            current_player: fields.get("current_player")?,
            placements_left: fields.get("placements_left")?,
            obligation: fields.get("obligation")?,
            turn: fields.get("turn")?,
            ply: fields.get("ply")?,
            palace_mask: bits("palace_mask")?,
            stables: bits("stables")?,
            merchants: bits("merchants")?,
            walls: bits("walls")?,
            occupied: bits("occupied")?,
            forbid: bits("forbid")?,
            contested: bits("contested")?,
            chain: bits("chain")?,
            chain_ends: bits("chain_ends")?,
            palaces,
            unfinished: fields.get("unfinished")?,
            ext: bits_list("ext")?,
            owned: fields.get("owned")?,
            runs: bits_list("runs")?,
            supply: fields.get("supply")?,
            retired: fields.get("retired")?,
            palace_tiles: fields.get("palace_tiles")?,
            tower_tiles: fields.get("tower_tiles")?,
            start_square: fields.get("start_square")?,
            well: fields.get("well")?,
            red: bits("red")?,
            yellow: bits("yellow")?,
            neutral: fields.get("neutral")?,
            tea: fields.get("tea")?,
            tea_pool: fields.get("tea_pool")?,
            tea_fresh: fields.get("tea_fresh")?,
            tower_merchants: fields.get("tower_merchants")?,
            second_step: fields.get("second_step")?,
            claims: fields.get("claims")?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::common::rng::Rng;

    #[test]
    fn every_position_of_random_games_loads_as_itself() {
        let mut rng = Rng::new(11);
        for (players, preset) in [
            (3, "default"),
            (4, "boardspace"),
            (3, "boardspace_legacy"),
            (4, "default"),
        ] {
            let rules = Rules::preset(preset).expect("a preset");
            for _ in 0..4 {
                let mut s = State::new(players, 1, rules);
                loop {
                    let loaded = load(rules, players, &Position::of(&s)).unwrap_or_else(|e| panic!("{preset} {e}"));
                    assert_eq!(Position::of(&loaded), Position::of(&s));
                    let (mut a, mut b) = (Vec::new(), Vec::new());
                    loaded.legal().for_each(|x| a.push(x));
                    s.legal().for_each(|x| b.push(x));
                    assert_eq!(a, b);
                    assert_eq!(loaded.scores(), s.scores());
                    match s.random_action(&mut |k| rng.below(k)) {
                        Some(action) => s.apply_legal(action),
                        None => break,
                    }
                }
            }
        }
    }

    #[test]
    fn broken_invariants_are_named() {
        let rules = Rules::default();
        let mut s = State::new(3, 0, rules);
        s.apply(NUM_SQUARES / 2).expect("a start square");
        s.apply(NUM_SQUARES + NUM_SQUARES / 2 + 2).expect("a palace piece");
        let good = Position::of(&s);
        assert!(load(rules, 4, &good).unwrap_err().contains("3-player position"));
        let mut p = good.clone();
        p.supply[0] += 1;
        assert!(load(rules, 3, &p).unwrap_err().contains("supply slot 0"));
        let mut p = good.clone();
        p.palaces[0].owner = 2;
        assert!(load(rules, 3, &p).unwrap_err().contains("dome and owner"));
        let mut p = good.clone();
        p.forbid = Bits::EMPTY;
        assert!(load(rules, 3, &p).unwrap_err().contains("forbid"));
        let mut p = good.clone();
        p.palaces[0].abandoned = true;
        assert!(load(rules, 3, &p).unwrap_err().contains("unfinished and abandoned"));
        let mut p = good.clone();
        let far = p.palaces[0].pieces.lowest() + WIDTH + 1; // diagonally next to the piece
        let (pieces, touch) = (Bits::single(far), touch_dilate(Bits::single(far)));
        p.palaces.push(PalaceFields {
            color: 1,
            pieces,
            stables: Bits::EMPTY,
            touch,
            ..p.palaces[0]
        });
        p.palace_mask = p.palace_mask.with(far);
        p.occupied = p.occupied.with(far);
        let err = load(rules, 3, &p).unwrap_err();
        assert!(err.contains("palace 1 touches another palace"), "{err}");
        let mut p = good.clone();
        p.palaces[0].abandoned = true;
        assert!(load(rules, 3, &p).unwrap_err().contains("unfinished and abandoned"));
        let mut p = good;
        p.phase = "start_merchant".into();
        assert!(load(rules, 3, &p).unwrap_err().contains("starting merchant"));
    }
}
