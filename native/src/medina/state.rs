//! Medina's position and rules, exactly as the Python engine plays them
//! (`src/tabletop/games/medina/{rules,moves,placement,scoring}.py`; the spec is
//! `shared/rules/medina.md`, section numbers below refer to it).  The second edition's
//! additions (the well, neutral domes, tea tiles, tower merchants, the tie-break; the
//! `medina-2e.md` spec) are in `second_edition.rs`; the 2-player board is
//! `board::BOARD_2P`, read through [`State::geo`].
//!
//! A [`State`] is a `Copy` value of fixed size: square sets are 256-bit [`Bits`], and
//! every palace is a few bytes of metadata.  A palace's squares are not stored: the
//! street rule keeps the components (pieces and stables) of two palaces from ever
//! touching, so a palace's pieces are the orthogonally connected group of palace pieces
//! around its first piece (`anchor`), and its stables are the stables next to those
//! pieces.  Wall runs are contiguous from their tower (the gate rule keeps a gap on every
//! side), so a run is its length.

use super::board::{
    flood, geometry_for, ortho_dilate, ortho_dilate_any, select64, touch_dilate, two_or_more_neighbors, Bits, Geometry,
    NUM_RUNS, NUM_SQUARES, ORTHO_MASK, RUN_TOWER, TOUCH_CLOSED, WIDTH,
};

/// Supply slots per player: the four palace colours, then the other pieces.
pub const DOME: usize = 4;
pub const STABLE: usize = 5;
pub const MERCHANT: usize = 6;
pub const WALL: usize = 7;
pub const NUM_SLOTS: usize = 8;

/// Supply per player by player count (§1.2), slots as above.
pub const SUPPLY_3: [u8; NUM_SLOTS] = [6, 6, 6, 6, 4, 4, 8, 10];
pub const SUPPLY_4: [u8; NUM_SLOTS] = [5, 5, 5, 5, 4, 3, 6, 8];
/// The second edition's supplies by player count 2, 3, 4 (2e §1.2).
pub const SUPPLY_2E: [[u8; NUM_SLOTS]; 3] = [
    [8, 8, 8, 8, 4, 4, 12, 15],
    [6, 6, 6, 6, 4, 4, 8, 12],
    [5, 5, 5, 5, 4, 3, 6, 9],
];

/// The supply of each seat in a game of these rules and players.
pub fn supply_for(edition: u8, num_players: usize) -> [u8; NUM_SLOTS] {
    match (edition, num_players) {
        (2, n) => SUPPLY_2E[n - 2],
        (_, 3) => SUPPLY_3,
        _ => SUPPLY_4,
    }
}

/// Action ids (the Python `MedinaEncoding`): `block * 234 + square`.
pub const START_BLOCK: usize = 0;
pub const DOME_BLOCK: usize = 5;
pub const STABLE_BLOCK: usize = 6;
pub const MERCHANT_BLOCK: usize = 7;
pub const WALL_BLOCK: usize = 8;
/// The first edition's pass and number of actions.
pub const PASS_ACTION: usize = 9 * NUM_SQUARES;
pub const NUM_ACTIONS: usize = PASS_ACTION + 1;
/// The second edition's (`SecondEditionEncoding`): `neutral@SQ` after the wall block,
/// then `pass`, then `tea`: 2,342 actions.
pub const NEUTRAL_BLOCK: usize = 9;
pub const PASS_ACTION_2E: usize = 10 * NUM_SQUARES;
pub const TEA_ACTION: usize = PASS_ACTION_2E + 1;
pub const NUM_ACTIONS_2E: usize = TEA_ACTION + 1;
/// Action blocks (10: start, 4 palace colours, dome, stable, merchant, wall, neutral).
pub const NUM_BLOCKS: usize = 10;
/// The action blocks in the order the Python engine lists their moves (kinds in `KINDS`
/// order: the neutral domes come after the domes, though their ids come last).
pub const BLOCK_ORDER: [usize; NUM_BLOCKS] = [0, 1, 2, 3, 4, DOME_BLOCK, NEUTRAL_BLOCK, 6, 7, 8];
/// [`BLOCK_ORDER`] of the play phase (no start block).
const PLAY_ORDER: [usize; 9] = [1, 2, 3, 4, DOME_BLOCK, NEUTRAL_BLOCK, 6, 7, 8];
/// The start phase's one block, padded to the shape of [`PLAY_ORDER`].
const START_ORDER: [usize; 9] = [START_BLOCK, 1, 2, 3, 4, 5, 6, 7, 8];

/// At most one palace per palace piece: 4 colours × 20 pieces (§1.1).
pub const MAX_PALACES: usize = 80;
pub(crate) const NO_SQUARE: u8 = u8::MAX;
/// The owner of a palace claimed by a neutral dome, the holder of the tiles it took (2e).
pub const NEUTRAL: i8 = -2;
/// The palace colour whose claims award tea tiles in the second edition (2e §4.3).
pub const PURPLE: usize = 1;
/// Tea tiles in the second edition.
pub const TEA_TILES: u8 = 6;

/// The move kinds, in the order `legal_kinds` lists them (`neutral`, `tea`: second edition).
pub const KINDS: [&str; 9] = [
    "merchant_start",
    "palace",
    "dome",
    "neutral",
    "stable",
    "merchant",
    "wall",
    "tea",
    "pass",
];
/// Indices into [`KINDS`].
pub const TEA_KIND: usize = 7;
pub const PASS_KIND: usize = 8;
/// The action blocks of each kind of [`KINDS`].
const KIND_BLOCKS: [&[usize]; 9] = [&[0], &[1, 2, 3, 4], &[5], &[9], &[6], &[7], &[8], &[], &[]];

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Phase {
    Start,
    Play,
    Over,
}

impl Phase {
    pub fn name(self) -> &'static str {
        match self {
            Phase::Start => "start_merchant",
            Phase::Play => "play",
            Phase::Over => "over",
        }
    }
}

/// The rule flags that change play or scoring (`ruleset.py`; `hide_supplies` does not,
/// and the drawn `well` and `start_square` are parts of the position).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Rules {
    /// 1 (2001) or 2 (2014).
    pub edition: u8,
    pub abandoned_palace_claimable: bool,
    pub new_chain_may_touch_one: bool,
    pub tower_reconnect_per_run: bool,
    /// Tower tile value by tower slot (`A1`, `R1`, `A13`, `R13`).
    pub tower_values: [i64; 4],
    pub last_player_by_supply: bool,
    pub dome_obligation_lookahead: bool,
    pub start_merchant_anywhere: bool,
    /// A11: merchants next to a palace's stables score.
    pub stable_adjacency_scores: bool,
    /// E11: the last able player must place an own dome (off: no obligation).
    pub last_player_dome_obligation: bool,
    /// E12b: the obligation is decided again after the turn's first placement.
    pub obligation_recheck: bool,
    /// E13: a tie is won by the largest palace (else shared).
    pub tie_break_largest_palace: bool,
    /// Neutral domes per seat with 2, 3, 4 players (E1; second edition only).
    pub neutral_domes: [u8; 3],
    /// E5: the well's bonus squares are the 12 of the plaza ring (else the cross of 4).
    pub well_bonus_plaza_ring: bool,
    pub neutral_claims_tiles: bool,
    pub neutral_dome_any_unowned: bool,
    pub tea_spend_when_stuck: bool,
    pub tea_usable_turn_received: bool,
    pub tower_events_claim_only: bool,
    pub neutral_dome_satisfies_obligation: bool,
}

impl Default for Rules {
    /// The spec's default ruleset (tower values `A13:1,R1:2,R13:3,A1:4`).
    fn default() -> Rules {
        Rules {
            edition: 1,
            abandoned_palace_claimable: false,
            new_chain_may_touch_one: false,
            tower_reconnect_per_run: false,
            tower_values: [4, 2, 1, 3],
            last_player_by_supply: false,
            dome_obligation_lookahead: true,
            start_merchant_anywhere: false,
            stable_adjacency_scores: true,
            last_player_dome_obligation: true,
            obligation_recheck: false,
            tie_break_largest_palace: false,
            neutral_domes: [2, 1, 0],
            well_bonus_plaza_ring: false,
            neutral_claims_tiles: true,
            neutral_dome_any_unowned: false,
            tea_spend_when_stuck: false,
            tea_usable_turn_received: true,
            tower_events_claim_only: false,
            neutral_dome_satisfies_obligation: false,
        }
    }
}

impl Rules {
    /// A named preset (`ruleset.PRESETS`), or `None`.
    pub fn preset(name: &str) -> Option<Rules> {
        let boardspace = Rules {
            abandoned_palace_claimable: true,
            new_chain_may_touch_one: true,
            tower_reconnect_per_run: true,
            dome_obligation_lookahead: false,
            obligation_recheck: true,
            ..Rules::default()
        };
        match name {
            "default" => Some(Rules::default()),
            "boardspace" => Some(boardspace),
            "boardspace_legacy" => Some(Rules {
                stable_adjacency_scores: false,
                ..boardspace
            }),
            "second_edition" => Some(Rules {
                edition: 2,
                ..Rules::default()
            }),
            "boardspace_v2" => Some(Rules {
                edition: 2,
                tea_spend_when_stuck: true,
                neutral_dome_satisfies_obligation: true,
                ..boardspace
            }),
            _ => None,
        }
    }

    /// Whether these are the second edition's rules.
    #[inline]
    pub fn second(&self) -> bool {
        self.edition == 2
    }
}

/// Parses a `tower_values` string (`"A13:1,R1:2,R13:3,A1:4"`) as `ruleset.parse_tower_values`:
/// a corner may be named as on either board (`R1` or `P1`, `A13` or `A12`, `R13` or `P12`).
pub fn parse_tower_values(text: &str) -> Result<[i64; 4], String> {
    const ORDER: [&str; 4] = ["A1", "R1", "A13", "R13"];
    const ORDER_2P: [&str; 4] = ["A1", "P1", "A12", "P12"];
    let mut values: [Option<i64>; 4] = [None; 4];
    let bad = || {
        format!(
            "bad variant 'tower_values': {text:?} (expected each of A1, R1, A13, R13 once, e.g. 'A13:1,R1:2,R13:3,A1:4')"
        )
    };
    for part in text.split(',') {
        let (name, value) = part.split_once(':').ok_or_else(bad)?;
        let name = name.trim().to_ascii_uppercase();
        let slot = ORDER
            .iter()
            .position(|n| *n == name)
            .or_else(|| ORDER_2P.iter().position(|n| *n == name))
            .ok_or_else(bad)?;
        let value = value.trim();
        if values[slot].is_some() || value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        values[slot] = Some(value.parse::<i64>().map_err(|_| bad())?);
    }
    let mut out = [0; 4];
    for (o, v) in out.iter_mut().zip(values) {
        *o = v.ok_or_else(|| format!("bad variant 'tower_values': {text:?} names fewer than the 4 towers"))?;
    }
    Ok(out)
}

/// One palace (§3.1): a maximal orthogonally connected group of same-colour pieces.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Palace {
    /// Its first piece: its pieces are the connected palace pieces around it.
    pub anchor: u8,
    pub color: u8,
    /// The seat that domed it, [`NEUTRAL`] (a neutral dome, 2e) or -1.
    pub owner: i8,
    /// The square of its dome, or 255.
    pub dome: u8,
    /// Unowned and without extension squares (final, §3.1.4).
    pub abandoned: bool,
    /// Pieces plus stables (the palace-tile comparison).
    pub size: u8,
    /// Its place in the order of claims (2e `State.claims`, for the tie-break), or 255.
    pub claim: u8,
}

impl Default for Palace {
    fn default() -> Palace {
        Palace {
            anchor: 0,
            color: 0,
            owner: -1,
            dome: NO_SQUARE,
            abandoned: false,
            size: 0,
            claim: u8::MAX,
        }
    }
}

/// Where the current (or another) player may place each kind of piece (`moves.placement_sources`),
/// and in the play phase whether a tea tile may be spent.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq, Hash)]
pub struct Sources {
    pub palace: [Bits; 4],
    pub dome: Bits,
    pub neutral: Bits,
    pub stable: Bits,
    pub merchant: Bits,
    pub wall: Bits,
    /// A tea tile may be spent (2e; only in the kept sources of the player to move).
    pub tea: bool,
    /// Some kind is listed, tea included (a palace colour with an unfinished palace
    /// counts even if it had no square, as in Python; the rules never let that happen).
    pub any: bool,
    pub has_palace: bool,
}

impl Sources {
    /// A kind-first random action among these sources (the legal actions when no dome
    /// obligation is pending): `Legal::kinds` and `Legal::nth_of_kind` without building a
    /// `Legal`; `pass_action` when there is none.
    fn random_action(&self, pass_action: usize, below: &mut impl FnMut(u32) -> u32) -> usize {
        if !self.any {
            return pass_action;
        }
        // Kinds in order: palace (blocks 1-4), dome, neutral, stable, merchant, wall, tea.
        let singles = [
            (DOME_BLOCK, self.dome),
            (NEUTRAL_BLOCK, self.neutral),
            (STABLE_BLOCK, self.stable),
            (MERCHANT_BLOCK, self.merchant),
            (WALL_BLOCK, self.wall),
        ];
        let mut kinds = [0usize; 7];
        let mut n = 0;
        if self.has_palace {
            kinds[0] = 0;
            n = 1;
        }
        for (i, (_, bits)) in singles.iter().enumerate() {
            if bits.any() {
                kinds[n] = i + 1;
                n += 1;
            }
        }
        if self.tea {
            kinds[n] = singles.len() + 1;
            n += 1;
        }
        let kind = kinds[below(n as u32) as usize];
        if kind > singles.len() {
            return TEA_ACTION;
        }
        if kind > 0 {
            let (block, bits) = singles[kind - 1];
            return block * NUM_SQUARES + bits.nth(below(bits.count()));
        }
        let total: u32 = self.palace.iter().map(|b| b.count()).sum();
        let mut i = below(total);
        for (col, bits) in self.palace.iter().enumerate() {
            let c = bits.count();
            if i < c {
                return (col + 1) * NUM_SQUARES + bits.nth(i);
            }
            i -= c;
        }
        unreachable!("the palace kind has a move")
    }

    /// The set of action block `block` (1..=9: palace colours, dome, stable, merchant, wall, neutral).
    #[inline]
    fn block(&self, block: usize) -> Bits {
        match block {
            1..=4 => self.palace[block - 1],
            DOME_BLOCK => self.dome,
            STABLE_BLOCK => self.stable,
            MERCHANT_BLOCK => self.merchant,
            WALL_BLOCK => self.wall,
            NEUTRAL_BLOCK => self.neutral,
            _ => Bits::EMPTY,
        }
    }

    /// The sets of every action block, by block id (the start block empty).
    fn blocks(&self) -> [Bits; NUM_BLOCKS] {
        [
            Bits::EMPTY,
            self.palace[0],
            self.palace[1],
            self.palace[2],
            self.palace[3],
            self.dome,
            self.stable,
            self.merchant,
            self.wall,
            self.neutral,
        ]
    }

    /// The sets of the play phase's blocks in [`PLAY_ORDER`].
    fn play_slots(&self) -> [Bits; 9] {
        PLAY_ORDER.map(|b| self.block(b))
    }
}

/// Legal actions of one position: the squares of each action block, tea, or the one
/// pass.  Listing them in [`BLOCK_ORDER`], then tea, then pass gives the Python order.
#[derive(Clone, Copy, Debug)]
pub struct Legal {
    /// Squares per action block, by block id.
    pub blocks: [Bits; NUM_BLOCKS],
    pub pass: bool,
    pub tea: bool,
    /// Whether the palace kind is listed (possibly with no square; see [`Sources::any`]).
    pub has_palace: bool,
    /// The pass action's id (the edition's).
    pub pass_action: usize,
}

impl Legal {
    pub const NONE: Legal = Legal {
        blocks: [Bits::EMPTY; NUM_BLOCKS],
        pass: false,
        tea: false,
        has_palace: false,
        pass_action: PASS_ACTION,
    };

    /// The number of legal actions.
    pub fn count(&self) -> u32 {
        self.blocks.iter().map(|b| b.count()).sum::<u32>() + self.pass as u32 + self.tea as u32
    }

    /// Calls `f` on every legal action id, in the Python order.
    pub fn for_each(&self, mut f: impl FnMut(usize)) {
        for block in BLOCK_ORDER {
            for sq in self.blocks[block].iter() {
                f(block * NUM_SQUARES + sq);
            }
        }
        if self.tea {
            f(TEA_ACTION);
        }
        if self.pass {
            f(self.pass_action);
        }
    }

    /// The kinds with legal actions, as indices into [`KINDS`], in order.
    pub fn kinds(&self) -> ([u8; 9], usize) {
        let mut out = [0u8; 9];
        let mut n = 0;
        for (kind, blocks) in KIND_BLOCKS.iter().enumerate() {
            let listed = match kind {
                1 => self.has_palace || blocks.iter().any(|&b| self.blocks[b].any()),
                TEA_KIND => self.tea,
                PASS_KIND => self.pass,
                _ => blocks.iter().any(|&b| self.blocks[b].any()),
            };
            if listed {
                out[n] = kind as u8;
                n += 1;
            }
        }
        (out, n)
    }

    /// Calls `f` on every legal action of one kind, in order.
    pub fn for_each_of_kind(&self, kind: usize, f: impl FnMut(usize)) {
        self.of_kind(kind).for_each(f);
    }

    /// Only the actions of one kind (index into [`KINDS`]).
    pub fn of_kind(&self, kind: usize) -> Legal {
        let mut out = Legal {
            pass_action: self.pass_action,
            ..Legal::NONE
        };
        match kind {
            TEA_KIND => out.tea = self.tea,
            PASS_KIND => out.pass = self.pass,
            _ => {
                for &block in KIND_BLOCKS.get(kind).copied().unwrap_or(&[]) {
                    out.blocks[block] = self.blocks[block];
                }
            }
        }
        out
    }

    /// The `i`-th legal action in the Python order, `i < self.count()`.
    pub fn nth(&self, mut i: u32) -> usize {
        for block in BLOCK_ORDER {
            let bits = self.blocks[block];
            let c = bits.count();
            if i < c {
                return block * NUM_SQUARES + bits.nth(i);
            }
            i -= c;
        }
        if self.tea {
            TEA_ACTION
        } else {
            self.pass_action
        }
    }

    /// The number of legal actions of one kind.
    pub fn count_of_kind(&self, kind: usize) -> u32 {
        self.of_kind(kind).count()
    }

    /// The `i`-th legal action of one kind (`i < count_of_kind(kind)`).
    pub fn nth_of_kind(&self, kind: usize, i: u32) -> usize {
        self.of_kind(kind).nth(i)
    }

    /// Whether `action` is one of these.
    pub fn contains(&self, action: usize) -> bool {
        if action == self.pass_action {
            return self.pass;
        }
        if action == TEA_ACTION && self.pass_action == PASS_ACTION_2E {
            return self.tea;
        }
        action < NUM_BLOCKS * NUM_SQUARES && self.blocks[action / NUM_SQUARES].has(action % NUM_SQUARES)
    }
}

impl Legal {
    /// These actions counted once, for finding the `i`-th one many times.
    pub fn words(&self) -> LegalWords {
        // Only the start phase has start-merchant actions, and then nothing else.
        let order = if self.blocks[START_BLOCK].any() {
            &START_ORDER
        } else {
            &PLAY_ORDER
        };
        let blocks = if self.blocks[START_BLOCK].any() {
            let mut b = [Bits::EMPTY; 9];
            b[0] = self.blocks[START_BLOCK];
            b
        } else {
            PLAY_ORDER.map(|b| self.blocks[b])
        };
        LegalWords::new(blocks, order, self.tea, self.pass, self.pass_action)
    }
}

/// The actions of a [`Legal`] counted once: nine action blocks in listing order (the start
/// block, or the nine after it: no position has both) with the number of actions before
/// each block, then tea and pass.  The count is read off, and the `i`-th action is a short
/// scan of the blocks, then of the words of one, and a select in one word (a Python
/// `random.choice` reads `len`, then one item).  Smaller than a `Legal`: a loop that keeps
/// many allocates no more.
#[derive(Clone, Copy, Debug)]
pub struct LegalWords {
    /// The squares of the blocks `order` names.
    blocks: [Bits; 9],
    order: &'static [usize; 9],
    tea: bool,
    pass: bool,
    pass_action: u16,
    /// The actions in the blocks before each; `before[9]`: all but tea and pass.
    before: [u16; 10],
}

impl LegalWords {
    /// The actions of blocks `order` (squares `blocks`), then tea if `tea`, then pass if `pass`.
    fn new(blocks: [Bits; 9], order: &'static [usize; 9], tea: bool, pass: bool, pass_action: usize) -> LegalWords {
        let mut before = [0u16; 10];
        let mut total = 0u16;
        for (b, bits) in blocks.iter().enumerate() {
            before[b] = total;
            total += bits.count() as u16;
        }
        before[9] = total;
        LegalWords {
            blocks,
            order,
            tea,
            pass,
            pass_action: pass_action as u16,
            before,
        }
    }

    /// The number of actions.
    pub fn count(&self) -> usize {
        self.before[9] as usize + self.tea as usize + self.pass as usize
    }

    /// The `i`-th action in the Python order, `i < self.count()`.
    pub fn nth(&self, i: usize) -> usize {
        if i >= self.before[9] as usize {
            return if self.tea {
                TEA_ACTION
            } else {
                self.pass_action as usize
            };
        }
        // The last block with no more than `i` actions before it holds the action: every
        // later one starts after it.
        let mut b = 8;
        while self.before[b] as usize > i {
            b -= 1;
        }
        let mut rest = (i - self.before[b] as usize) as u32;
        let mut w = 0;
        loop {
            let word = self.blocks[b].0[w];
            let here = word.count_ones();
            if rest < here {
                return self.order[b] * NUM_SQUARES + w * 64 + select64(word, rest);
            }
            rest -= here;
            w += 1;
        }
    }

    /// Calls `f` on every action, in order.
    pub fn for_each(&self, mut f: impl FnMut(usize)) {
        for (b, bits) in self.blocks.iter().enumerate() {
            let base = self.order[b] * NUM_SQUARES;
            for sq in bits.iter() {
                f(base + sq);
            }
        }
        if self.tea {
            f(TEA_ACTION);
        }
        if self.pass {
            f(self.pass_action as usize);
        }
    }
}

/// A Medina position (`state.State`), a plain `Copy` value.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct State {
    pub rules: Rules,
    pub num_players: u8,
    pub phase: Phase,
    pub current_player: i8,
    pub placements_left: u8,
    pub obligation: bool,
    pub turn: u16,
    pub ply: u16,
    pub palace_mask: Bits,
    pub stables: Bits,
    pub merchants: Bits,
    pub walls: Bits,
    pub occupied: Bits,
    pub forbid: Bits,
    pub contested: Bits,
    pub chain: Bits,
    pub chain_ends: Bits,
    /// Per colour, the extension squares of its unfinished palace.
    pub ext: [Bits; 4],
    /// Per colour, the pieces of its unfinished palace.
    pub unfinished_pieces: [Bits; 4],
    /// Per colour, the pieces of every unowned palace (claimable under A1).
    pub unowned_pieces: [Bits; 4],
    /// Per colour, the id of its unfinished palace or -1.
    pub unfinished: [i8; 4],
    pub num_palaces: u8,
    pub palaces: [Palace; MAX_PALACES],
    /// `owned[p * 4 + c]`: the id of seat `p`'s colour-`c` palace, or -1.
    pub owned: [i8; 16],
    /// Wall pieces per run.
    pub run_len: [u8; NUM_RUNS],
    /// `supply[p * 8 + slot]`.
    pub supply: [u8; 4 * NUM_SLOTS],
    pub retired: [u8; 4],
    pub palace_tiles: [i8; 4],
    pub tower_tiles: [i8; 4],
    /// The starting merchant's square, or 255.
    pub start_square: u8,
    /// The well's square (2e), or 255.
    pub well: u8,
    /// The squares touching the well (no palace piece, no stable) and its bonus squares (2e).
    pub red: Bits,
    pub yellow: Bits,
    /// Neutral domes per seat (2e).
    pub neutral: [u8; 4],
    /// Tea tiles held per seat (2e), still to be awarded, and received this turn by the
    /// player to move.
    pub tea: [u8; 4],
    pub tea_pool: u8,
    pub tea_fresh: u8,
    /// Merchants still on each tower tile, by tower slot (2e §1.4).
    pub tower_merchants: [u8; 4],
    /// The first placement of a two-placement turn has been made (a tea tile may go, 2e).
    pub second_step: bool,
    /// Palaces claimed so far (2e: the length of `claims`; each palace keeps its place).
    pub num_claims: u8,
    /// In the play phase, `placement_sources(current_player)`: where the player to move
    /// may place (found anyway while ending the previous placement, kept as the Python
    /// engine keeps them); empty otherwise.  A function of the other fields.
    sources: Sources,
    /// The squares next to a merchant, and next to two or more (kept as merchants are
    /// placed: every turn's merchant squares read them).  Functions of `merchants`.
    near_merchants: Bits,
    crowded: Bits,
    /// The building squares next to a palace piece, and the wall spaces open to a wall
    /// piece (kept as pieces are placed).  Functions of `palace_mask` and `walls`.
    near_palaces: Bits,
    open_walls: Bits,
}

impl State {
    /// The position before the starting merchant (`rules.initial_state`, non-random start;
    /// a second-edition game's well is placed by [`State::place_well`]).
    pub fn new(num_players: usize, start_player: usize, rules: Rules) -> State {
        let fewest = if rules.second() { 2 } else { 3 };
        assert!((fewest..=4).contains(&num_players) && start_player < num_players);
        let per = supply_for(rules.edition, num_players);
        let mut supply = [0u8; 4 * NUM_SLOTS];
        for p in 0..num_players {
            supply[p * NUM_SLOTS..(p + 1) * NUM_SLOTS].copy_from_slice(&per);
        }
        let second = rules.second();
        let mut neutral = [0u8; 4];
        let mut tower_merchants = [0u8; 4];
        if second {
            neutral[..num_players].fill(rules.neutral_domes[num_players - 2]);
            for (m, &v) in tower_merchants.iter_mut().zip(rules.tower_values.iter()) {
                *m = (4 - v.min(4)) as u8;
            }
        }
        State {
            rules,
            num_players: num_players as u8,
            phase: Phase::Start,
            current_player: start_player as i8,
            placements_left: 1,
            obligation: false,
            turn: 0,
            ply: 0,
            palace_mask: Bits::EMPTY,
            stables: Bits::EMPTY,
            merchants: Bits::EMPTY,
            walls: Bits::EMPTY,
            occupied: Bits::EMPTY,
            forbid: Bits::EMPTY,
            contested: Bits::EMPTY,
            chain: Bits::EMPTY,
            chain_ends: Bits::EMPTY,
            ext: [Bits::EMPTY; 4],
            unfinished_pieces: [Bits::EMPTY; 4],
            unowned_pieces: [Bits::EMPTY; 4],
            unfinished: [-1; 4],
            num_palaces: 0,
            palaces: [Palace::default(); MAX_PALACES],
            owned: [-1; 16],
            run_len: [0; NUM_RUNS],
            supply,
            retired: [0; 4],
            palace_tiles: [-1; 4],
            tower_tiles: [-1; 4],
            start_square: NO_SQUARE,
            well: NO_SQUARE,
            red: Bits::EMPTY,
            yellow: Bits::EMPTY,
            neutral,
            tea: [0; 4],
            tea_pool: if second { TEA_TILES } else { 0 },
            tea_fresh: 0,
            tower_merchants,
            second_step: false,
            num_claims: 0,
            sources: Sources::default(),
            near_merchants: Bits::EMPTY,
            crowded: Bits::EMPTY,
            near_palaces: Bits::EMPTY,
            open_walls: Bits::EMPTY,
        }
        .with_open_walls()
    }

    pub fn is_terminal(&self) -> bool {
        self.phase == Phase::Over
    }

    /// The board side of this game (the 2-player side only in the second edition).
    #[inline]
    pub fn geo(&self) -> &'static Geometry {
        geometry_for(self.num_players as usize)
    }

    /// The pass action's id (the edition's encoding).
    #[inline]
    pub fn pass_action(&self) -> usize {
        if self.rules.second() {
            PASS_ACTION_2E
        } else {
            PASS_ACTION
        }
    }

    /// The number of action ids (the edition's encoding).
    #[inline]
    pub fn num_actions(&self) -> usize {
        self.pass_action() + 1 + self.rules.second() as usize
    }

    /// Sets the kept sets from the other fields (a loaded position): the squares next to
    /// merchants, and the placement sources (in play the player to act's
    /// `placement_sources`, else empty).
    pub fn reset_kept(&mut self) {
        self.near_merchants = ortho_dilate_any(self.merchants);
        self.crowded = two_or_more_neighbors(self.merchants);
        self.near_palaces = ortho_dilate(self.palace_mask) & self.geo().building;
        self.open_walls = self.wall_squares_now();
        self.sources = match self.phase {
            Phase::Play => self.placement_sources(self.current_player as usize),
            Phase::Start | Phase::Over => Sources::default(),
        };
        // Without the obligation the kept sources are the legal moves, tea included (2e).
        if self.phase == Phase::Play && !self.obligation && self.tea_legal() {
            self.sources.tea = true;
            self.sources.any = true;
        }
    }

    /// Where the starting merchant may go (§2.1, A10).
    pub fn start_squares(&self) -> Bits {
        if self.rules.start_merchant_anywhere {
            self.geo().building
        } else {
            self.geo().inner
        }
    }

    // --- placement rules (placement.py) ------------------------------------------------

    /// Empty building squares touching no palace piece and no stable (§3.1.3).
    #[inline]
    pub fn new_palace_squares(&self) -> Bits {
        self.geo().building.andnot(self.occupied).andnot(self.forbid)
    }

    /// Empty squares next to a palace piece that touch no other palace (§3.3).
    #[inline]
    pub fn stable_squares(&self) -> Bits {
        self.near_palaces.andnot(self.occupied).andnot(self.contested)
    }

    /// The active chain's extensions, else the squares of a new chain (§3.4, A2).
    #[inline]
    pub fn merchant_squares(&self) -> Bits {
        let free = self.geo().building.andnot(self.occupied);
        let m = if self.chain_ends.any() {
            // The chain has one or two ends.
            let ends = ORTHO_MASK[self.chain_ends.lowest()] | ORTHO_MASK[self.chain_ends.highest()];
            (ends & free).andnot(self.crowded)
        } else {
            Bits::EMPTY
        };
        if m.any() {
            m
        } else if self.rules.new_chain_may_touch_one {
            free.andnot(self.crowded)
        } else {
            free.andnot(self.near_merchants)
        }
    }

    /// Empty wall spaces next to exactly one of {tower, wall piece} along their side (§3.5).
    #[inline]
    pub fn wall_squares(&self) -> Bits {
        self.open_walls
    }

    /// `self` with its open wall spaces found (a new position's: next to the towers).
    fn with_open_walls(mut self) -> State {
        self.open_walls = self.wall_squares_now();
        self
    }

    /// [`State::wall_squares`] from the wall pieces.
    fn wall_squares_now(&self) -> Bits {
        let geo = self.geo();
        let occ = self.walls | geo.tower_mask;
        let w = WIDTH as u32;
        ((geo.horizontal_walls & (occ.shl(1) ^ occ.shr(1))) | (geo.vertical_walls & (occ.shl(w) ^ occ.shr(w))))
            .andnot(self.walls)
    }

    /// Palace pieces `player` may dome: claimable palaces of colours they don't own (§3.2, A1).
    #[inline]
    pub fn dome_targets(&self, player: usize) -> Bits {
        let claim = if self.rules.abandoned_palace_claimable {
            &self.unowned_pieces
        } else {
            &self.unfinished_pieces
        };
        let mut m = Bits::EMPTY;
        for (c, pieces) in claim.iter().enumerate() {
            if self.owned[player * 4 + c] < 0 {
                m |= *pieces;
            }
        }
        m
    }

    #[inline]
    pub(crate) fn sup(&self, player: usize, slot: usize) -> u8 {
        self.supply[player * NUM_SLOTS + slot]
    }

    /// Whether `player` has a legal placement for some piece in supply (§5.1).
    pub fn is_able(&self, player: usize) -> bool {
        let mut newpal: Option<Bits> = None;
        for col in 0..4 {
            if self.sup(player, col) > 0 {
                if self.unfinished[col] >= 0 {
                    return true;
                }
                if newpal.get_or_insert_with(|| self.new_palace_squares()).any() {
                    return true;
                }
            }
        }
        (self.sup(player, DOME) > 0 && self.dome_targets(player).any())
            || (self.sup(player, STABLE) > 0 && self.stable_squares().any())
            || (self.sup(player, MERCHANT) > 0 && self.merchant_squares().any())
            || (self.sup(player, WALL) > 0 && self.wall_squares().any())
            || (self.neutral[player] > 0 && self.neutral_targets().any())
    }

    /// Where `player` may place each kind of piece, ignoring the dome obligation.
    pub fn placement_sources(&self, player: usize) -> Sources {
        let mut out = Sources::default();
        let mut newpal: Option<Bits> = None;
        for col in 0..4 {
            if self.sup(player, col) > 0 {
                if self.unfinished[col] >= 0 {
                    out.palace[col] = self.ext[col];
                    out.has_palace = true;
                } else {
                    let m = *newpal.get_or_insert_with(|| self.new_palace_squares());
                    if m.any() {
                        out.palace[col] = m;
                        out.has_palace = true;
                    }
                }
            }
        }
        if self.sup(player, DOME) > 0 {
            out.dome = self.dome_targets(player);
        }
        if self.neutral[player] > 0 {
            out.neutral = self.neutral_targets();
        }
        if self.sup(player, STABLE) > 0 {
            out.stable = self.stable_squares();
        }
        if self.sup(player, MERCHANT) > 0 {
            out.merchant = self.merchant_squares();
        }
        if self.sup(player, WALL) > 0 {
            out.wall = self.wall_squares();
        }
        out.any = out.has_palace
            || out.dome.any()
            || out.neutral.any()
            || out.stable.any()
            || out.merchant.any()
            || out.wall.any();
        out
    }

    // --- legal moves (moves.py) ----------------------------------------------------------

    /// The current player's legal actions, the dome obligation applied (`moves.legal_by_kind`).
    pub fn legal(&self) -> Legal {
        let mut out = Legal {
            pass_action: self.pass_action(),
            ..Legal::NONE
        };
        match self.phase {
            Phase::Over => {}
            Phase::Start => out.blocks[START_BLOCK] = self.start_squares().andnot(self.occupied),
            Phase::Play => {
                let player = self.current_player as usize;
                let src = self.sources;
                if !self.obligation {
                    if !src.any {
                        out.pass = true;
                        return out;
                    }
                    out.blocks = src.blocks();
                    out.has_palace = src.has_palace;
                    out.tea = src.tea;
                    return out;
                }
                // The kept sources are the placements; tea is decided here.
                let mut blocks = src.blocks();
                let mut has_palace = src.has_palace;
                if self.placements_left == 1 {
                    // The first placement was not a dome: the second must be (waived
                    // when no dome placement is left).
                    if src.dome.any() {
                        blocks = [Bits::EMPTY; NUM_BLOCKS];
                        blocks[DOME_BLOCK] = src.dome;
                        has_palace = false;
                    }
                } else if self.rules.dome_obligation_lookahead {
                    // A8: a first placement must leave a dome placement.
                    let neutral_satisfies = self.rules.neutral_dome_satisfies_obligation;
                    for (block, bits) in blocks.iter_mut().enumerate() {
                        if block == DOME_BLOCK || (block == NEUTRAL_BLOCK && neutral_satisfies) {
                            continue;
                        }
                        let mut keep = Bits::EMPTY;
                        for sq in bits.iter() {
                            let mut next = *self;
                            next.place_piece(player, block * NUM_SQUARES + sq);
                            if next.dome_targets(player).any() {
                                keep = keep.with(sq);
                            }
                        }
                        *bits = keep;
                    }
                    // A filtered kind with no move left is dropped (Python keeps only
                    // non-empty kinds here).
                    has_palace = false;
                }
                let tea = self.tea_legal();
                if !has_palace && !tea && blocks.iter().all(|b| b.is_empty()) {
                    out.pass = true;
                    return out;
                }
                out.blocks = blocks;
                out.has_palace = has_palace;
                out.tea = tea;
            }
        }
        out
    }

    /// `self.legal().words()`, read straight from the kept sources when no dome
    /// obligation is pending (they are then the legal actions).
    pub fn legal_words(&self) -> LegalWords {
        if self.phase == Phase::Play && !self.obligation {
            let src = &self.sources;
            return LegalWords::new(src.play_slots(), &PLAY_ORDER, src.tea, !src.any, self.pass_action());
        }
        self.legal().words()
    }

    /// `self.legal().of_kind(kind).words()` (`kind` an index into [`KINDS`]), read
    /// straight from the kept sources when no dome obligation is pending.
    pub fn legal_words_of_kind(&self, kind: usize) -> LegalWords {
        if self.phase == Phase::Play && !self.obligation {
            let src = &self.sources;
            let blocks = KIND_BLOCKS.get(kind).copied().unwrap_or(&[]);
            let slots = PLAY_ORDER.map(|b| {
                if b > START_BLOCK && blocks.contains(&b) {
                    src.block(b)
                } else {
                    Bits::EMPTY
                }
            });
            let tea = kind == TEA_KIND && src.tea;
            let pass = kind == PASS_KIND && !src.any;
            return LegalWords::new(slots, &PLAY_ORDER, tea, pass, self.pass_action());
        }
        self.legal().of_kind(kind).words()
    }

    /// Whether `action` may be applied now.
    pub fn is_legal(&self, action: usize) -> bool {
        if action >= self.num_actions() {
            return false;
        }
        if self.phase == Phase::Play && !self.obligation {
            // A bitset test on the kept sources, as `moves.is_legal`.
            if action == self.pass_action() {
                return !self.sources.any;
            }
            if action == TEA_ACTION {
                return self.sources.tea;
            }
            let block = action / NUM_SQUARES;
            return block > 0 && self.sources.block(block).has(action % NUM_SQUARES);
        }
        self.legal().contains(action)
    }

    // --- applying moves (rules.py) --------------------------------------------------------

    /// Applies a legal action; `Err` (state unchanged) if it is not legal.
    pub fn apply(&mut self, action: usize) -> Result<(), String> {
        if !self.is_legal(action) {
            return Err(format!("illegal action {action}"));
        }
        self.apply_legal(action);
        Ok(())
    }

    /// Applies an action known to be legal (the turn order, game end and obligation included).
    pub fn apply_legal(&mut self, action: usize) {
        let player = self.current_player as usize;
        if action == self.pass_action() {
            self.ply += 1;
            self.start_next_turn(player);
            return;
        }
        if action == TEA_ACTION && self.rules.second() {
            // A tea tile instead of the second placement (2e §2.2).
            self.ply += 1;
            self.tea[player] -= 1;
            self.start_next_turn(player);
            return;
        }
        let block = action / NUM_SQUARES;
        if block == START_BLOCK {
            self.place_start(action % NUM_SQUARES);
            return;
        }
        let first = self.placements_left == 2;
        self.place_piece(player, action);
        if first {
            self.placements_left = 1;
            let satisfied =
                block == DOME_BLOCK || (block == NEUTRAL_BLOCK && self.rules.neutral_dome_satisfies_obligation);
            if satisfied {
                self.obligation = false;
            }
            if self.rules.second() {
                self.second_step = true;
            }
            if self.rules.obligation_recheck && self.rules.last_player_dome_obligation {
                // E12b (Boardspace): the obligation of the second placement is decided now.
                self.obligation = !satisfied && self.alone_with_dome(player);
            }
            if self.can_continue(player) {
                return;
            }
        }
        self.start_next_turn(player);
    }

    /// Whether `player` has a legal second action (a placement, or with
    /// `tea_spend_when_stuck` a tea tile, 2e E6); keeps the sources of that action.
    fn can_continue(&mut self, player: usize) -> bool {
        if self.obligation {
            let able = (self.sup(player, DOME) > 0 && self.dome_targets(player).any())
                || self.is_able(player)
                || (self.rules.tea_spend_when_stuck && self.tea_usable(player) > 0);
            if able {
                self.sources = self.placement_sources(player);
            }
            return able;
        }
        // Without the obligation, the player's placements are exactly the legal moves if
        // they go on.
        let mut src = self.placement_sources(player);
        if self.second_step && self.tea_usable(player) > 0 && (src.any || self.rules.tea_spend_when_stuck) {
            src.tea = true;
            src.any = true;
        }
        self.sources = src;
        src.any
    }

    /// Moves to the start of the next turn, or ends the game (§5.1-5.3).
    fn start_next_turn(&mut self, previous: usize) {
        let n = self.num_players as usize;
        let nxt = (previous + 1) % n;
        let others = (1..n).map(|k| (nxt + k) % n);
        self.sources = self.placement_sources(nxt);
        let alone = if !self.sources.any {
            if !others.clone().any(|q| self.is_able(q)) {
                self.sources = Sources::default();
                self.phase = Phase::Over;
                self.current_player = -1;
                self.placements_left = 0;
                self.obligation = false;
                return;
            }
            false // nxt must pass
        } else if self.sources.dome.any() && self.rules.last_player_dome_obligation {
            if self.rules.last_player_by_supply {
                others.clone().all(|q| self.supply_count(q) == 0)
            } else {
                !others.clone().any(|q| self.is_able(q))
            }
        } else {
            false
        };
        self.current_player = nxt as i8;
        self.turn += 1;
        // 2e §2.2: with 3-4 players the second turn has one placement too (the first is
        // the starting merchant's turn, set up by `place_start`).
        let opening = self.rules.second() && self.turn == 2 && n >= 3;
        self.placements_left = if opening { 1 } else { 2 };
        self.second_step = false;
        self.tea_fresh = 0;
        self.obligation = alone && !opening;
    }

    /// The starting merchant on `sq` (§2.1).
    pub fn place_start(&mut self, sq: usize) {
        let bit = Bits::single(sq);
        self.merchants = bit;
        self.near_merchants = ORTHO_MASK[sq];
        self.occupied |= bit;
        self.chain = bit;
        self.chain_ends = bit;
        self.start_square = sq as u8;
        self.phase = Phase::Play;
        // 2e §2.2: the first turn has one placement.
        self.placements_left = if self.rules.second() { 1 } else { 2 };
        self.turn = 1;
        self.ply += 1;
        self.sources = self.placement_sources(self.current_player as usize);
    }

    /// The pieces of palace `pid`.
    #[inline]
    pub fn palace_pieces(&self, pid: usize) -> Bits {
        let pal = &self.palaces[pid];
        if pal.owner < 0 && self.unfinished[pal.color as usize] == pid as i8 {
            return self.unfinished_pieces[pal.color as usize];
        }
        flood(Bits::single(pal.anchor as usize), self.palace_mask)
    }

    /// The stables of a palace with these pieces.
    #[inline]
    fn stables_of(&self, pieces: Bits) -> Bits {
        ortho_dilate(pieces) & self.stables
    }

    /// The palace with a piece on `sq` or next to `sq`, and its pieces.
    fn palace_around(&self, sq: usize) -> (usize, Bits) {
        let seed = if self.palace_mask.has(sq) {
            Bits::single(sq)
        } else {
            // `sq` holds a stable or is empty: its neighbouring pieces are one palace's.
            let around = ORTHO_MASK[sq] & self.palace_mask;
            Bits::single(around.lowest())
        };
        // An unfinished palace keeps its pieces.
        for col in 0..4 {
            if self.unfinished[col] >= 0 && (self.unfinished_pieces[col] & seed).any() {
                return (self.unfinished[col] as usize, self.unfinished_pieces[col]);
            }
        }
        let pieces = flood(seed, self.palace_mask);
        for pid in 0..self.num_palaces as usize {
            if pieces.has(self.palaces[pid].anchor as usize) {
                return (pid, pieces);
            }
        }
        unreachable!("every palace piece belongs to a palace")
    }

    /// The runs (or their towers, without A4) whose wall pieces touch `components`.
    fn connection_keys(&self, components: Bits) -> u8 {
        let near = ortho_dilate_any(components) & self.walls;
        if near.is_empty() {
            return 0;
        }
        let mut keys = 0u8;
        let run_masks = &self.geo().run_masks;
        for (r, &len) in self.run_len.iter().enumerate() {
            if (run_masks[r][len as usize] & near).any() {
                keys |= 1 << self.key_of_run(r);
            }
        }
        keys
    }

    #[inline]
    fn key_of_run(&self, run: usize) -> usize {
        if self.rules.tower_reconnect_per_run {
            run
        } else {
            RUN_TOWER[run]
        }
    }

    /// Connection events of `owner`'s palace (a seat or [`NEUTRAL`]) at these towers
    /// (runs, A4): the tower tiles, and the merchants still on them (2e §4.2: to the
    /// owner's supply, or the box).
    fn take_towers(&mut self, owner: i8, keys: u8) {
        for (key, &run_tower) in RUN_TOWER.iter().enumerate() {
            if keys >> key & 1 != 0 {
                let tower = if self.rules.tower_reconnect_per_run {
                    run_tower
                } else {
                    key
                };
                self.tower_tiles[tower] = owner;
                let on_tile = self.tower_merchants[tower];
                if on_tile > 0 {
                    if owner >= 0 {
                        self.supply[owner as usize * NUM_SLOTS + MERCHANT] += on_tile;
                    }
                    self.tower_merchants[tower] = 0;
                }
            }
        }
    }

    /// Whether a palace of `owner` (a seat or [`NEUTRAL`]) takes tiles (2e E2).
    #[inline]
    fn tile_events(&self, owner: i8) -> bool {
        owner >= 0 || (owner == NEUTRAL && self.rules.neutral_claims_tiles)
    }

    /// 2e E10: only claims cause tower events (no effect in the first edition).
    #[inline]
    fn claim_only(&self) -> bool {
        self.rules.tower_events_claim_only && self.rules.second()
    }

    /// Gives the palace tile of `pid`'s colour to its owner if it is now strictly the largest (§4.1).
    fn check_palace_tile(&mut self, pid: usize) {
        let pal = self.palaces[pid];
        let col = pal.color as usize;
        let holder = self.palace_tiles[col];
        if holder == pal.owner {
            return;
        }
        if holder >= 0 {
            let rival = self.palaces[self.owned[holder as usize * 4 + col] as usize];
            if pal.size <= rival.size {
                return;
            }
        } else if holder == NEUTRAL {
            // A tile held by nobody in particular (2e §4.1): the largest neutral palace's.
            let largest = (0..self.num_palaces as usize)
                .filter(|&i| i != pid && self.palaces[i].owner == NEUTRAL && self.palaces[i].color as usize == col)
                .map(|i| self.palaces[i].size)
                .max()
                .unwrap_or(0);
            if pal.size <= largest {
                return;
            }
        }
        self.palace_tiles[col] = pal.owner;
    }

    /// Adds a piece or stable of palace `pid` (with `pieces` before) on `sq`; the street-rule sets follow.
    fn add_component(&mut self, sq: usize, pid: usize, pieces: Bits, is_stable: bool) {
        let touch = touch_dilate(pieces | self.stables_of(pieces));
        let zone = TOUCH_CLOSED[sq];
        let bit = Bits::single(sq);
        self.contested |= (zone & self.forbid).andnot(touch);
        self.forbid |= zone;
        self.occupied |= bit;
        if is_stable {
            self.stables |= bit;
        } else {
            self.palace_mask |= bit;
        }
        self.palaces[pid].size += 1;
    }

    fn abandon(&mut self, col: usize) {
        let pid = self.unfinished[col] as usize;
        self.palaces[pid].abandoned = true;
        self.unfinished[col] = -1;
        self.unfinished_pieces[col] = Bits::EMPTY;
    }

    /// Updates the unfinished palaces' extension squares (the free squares next to their
    /// pieces) after a placement, `grown` naming the colour and square of a new palace
    /// piece (none for a stable); abandons the palaces left with none (§3.1.4).  Free
    /// squares only ever become taken or contested, so each set is narrowed, not
    /// recomputed (a colour with no unfinished palace has none, so a new palace starts
    /// from its first piece's neighbours).
    fn update_status(&mut self, grown: Option<(usize, usize)>) {
        if let Some((col, sq)) = grown {
            self.ext[col] |= ORTHO_MASK[sq];
        }
        if self.unfinished == [-1; 4] {
            return;
        }
        let free = self.geo().building.andnot(self.occupied).andnot(self.contested);
        for col in 0..4 {
            if self.unfinished[col] < 0 {
                continue;
            }
            let e = self.ext[col] & free;
            self.ext[col] = e;
            if e.is_empty() {
                self.abandon(col);
            }
        }
    }

    /// `update_status` after a placement that only occupies `bit` (a merchant).
    fn shrink_status(&mut self, bit: Bits) {
        if self.unfinished == [-1; 4] {
            return;
        }
        for col in 0..4 {
            self.ext[col] = self.ext[col].andnot(bit);
            if self.unfinished[col] >= 0 && self.ext[col].is_empty() {
                self.abandon(col);
            }
        }
    }

    /// Removes every colour-`col` palace piece left in a supply from the game (§3.2.3).
    fn retire(&mut self, col: usize) {
        let mut removed = 0u8;
        for q in 0..self.num_players as usize {
            removed += self.supply[q * NUM_SLOTS + col];
            self.supply[q * NUM_SLOTS + col] = 0;
        }
        self.retired[col] += removed;
    }

    /// Puts `action`'s piece on the board for `player` (no turn bookkeeping; `rules.place_piece`):
    /// the kept sources are left as they were, for the caller to update.
    fn place_piece(&mut self, player: usize, action: usize) {
        self.ply += 1;
        let (block, sq) = (action / NUM_SQUARES, action % NUM_SQUARES);
        let bit = Bits::single(sq);
        let slot = match block {
            1..=4 => block - 1,
            DOME_BLOCK => DOME,
            STABLE_BLOCK => STABLE,
            MERCHANT_BLOCK => MERCHANT,
            WALL_BLOCK => WALL,
            _ => NUM_SLOTS, // a neutral dome comes from its own count
        };
        if slot < NUM_SLOTS {
            self.supply[player * NUM_SLOTS + slot] -= 1;
        } else {
            self.neutral[player] -= 1;
        }
        match block {
            1..=4 => {
                let col = block - 1;
                let pid = if self.unfinished[col] >= 0 {
                    self.unfinished[col] as usize
                } else {
                    let pid = self.num_palaces as usize;
                    self.palaces[pid] = Palace {
                        anchor: sq as u8,
                        color: col as u8,
                        owner: -1,
                        dome: NO_SQUARE,
                        abandoned: false,
                        size: 0,
                        claim: u8::MAX,
                    };
                    self.num_palaces += 1;
                    self.unfinished[col] = pid as i8;
                    pid
                };
                self.add_component(sq, pid, self.unfinished_pieces[col], false);
                self.near_palaces |= ORTHO_MASK[sq] & self.geo().building;
                self.unfinished_pieces[col] |= bit;
                self.unowned_pieces[col] |= bit;
                self.update_status(Some((col, sq)));
            }
            MERCHANT_BLOCK => {
                let merchants_before = self.merchants;
                self.merchants |= bit;
                self.crowded |= ORTHO_MASK[sq] & self.near_merchants;
                self.near_merchants |= ORTHO_MASK[sq];
                self.occupied |= bit;
                let end = ORTHO_MASK[sq] & self.chain_ends;
                if end.any() {
                    let mut ends = self.chain_ends.andnot(end) | bit;
                    if (ORTHO_MASK[end.highest()] & merchants_before).is_empty() {
                        ends |= end; // a one-merchant chain keeps its first merchant as the other end
                    }
                    self.chain_ends = ends;
                    self.chain |= bit;
                } else {
                    self.chain_ends = bit;
                    self.chain = flood(bit, self.merchants);
                }
                self.shrink_status(bit);
            }
            WALL_BLOCK => {
                let geo = self.geo();
                let [(nb, near_run), (_, far_run)] = geo.side_runs[sq];
                let run = if (self.walls | geo.tower_mask).has(nb) {
                    near_run
                } else {
                    far_run
                };
                let front = geo.wall_front[sq];
                let mut taken = None;
                if (self.palace_mask | self.stables).has(front) && !self.claim_only() {
                    let (pid, pieces) = self.palace_around(front);
                    let owner = self.palaces[pid].owner;
                    if self.tile_events(owner) {
                        let key = self.key_of_run(run);
                        if self.connection_keys(pieces | self.stables_of(pieces)) >> key & 1 == 0 {
                            taken = Some((owner, 1u8 << key));
                        }
                    }
                }
                self.walls |= bit;
                self.open_walls = self.wall_squares_now();
                self.run_len[run] += 1;
                if let Some((owner, keys)) = taken {
                    self.take_towers(owner, keys);
                }
            }
            STABLE_BLOCK => {
                let (pid, pieces) = self.palace_around(sq);
                self.add_component(sq, pid, pieces, true);
                self.update_status(None);
                let owner = self.palaces[pid].owner;
                if self.tile_events(owner) {
                    self.check_palace_tile(pid);
                    if (ORTHO_MASK[sq] & self.walls).any() && !self.claim_only() {
                        let comps = pieces | self.stables_of(pieces);
                        let before = self.connection_keys(comps.andnot(bit));
                        let after = self.connection_keys(comps);
                        self.take_towers(owner, after & !before);
                    }
                }
            }
            _ => {
                // A dome, or a neutral dome (2e): the palace is finished for nobody.
                let neutral = block == NEUTRAL_BLOCK;
                let owner = if neutral { NEUTRAL } else { player as i8 };
                let (pid, pieces) = self.palace_around(sq);
                let col = self.palaces[pid].color as usize;
                self.palaces[pid].owner = owner;
                self.palaces[pid].dome = sq as u8;
                if !neutral {
                    self.owned[player * 4 + col] = pid as i8;
                }
                if self.unfinished[col] == pid as i8 {
                    self.unfinished[col] = -1;
                    self.ext[col] = Bits::EMPTY;
                    self.unfinished_pieces[col] = Bits::EMPTY;
                }
                self.unowned_pieces[col] = self.unowned_pieces[col].andnot(pieces);
                if self.tile_events(owner) {
                    self.check_palace_tile(pid);
                    let keys = self.connection_keys(pieces | self.stables_of(pieces));
                    self.take_towers(owner, keys);
                }
                if !neutral && (0..self.num_players as usize).all(|q| self.owned[q * 4 + col] >= 0) {
                    self.retire(col); // every player owns a palace of this colour
                }
                if self.rules.second() {
                    self.record_claim(pid, owner);
                }
            }
        }
    }

    // --- scoring (scoring.py) -----------------------------------------------------------

    /// Each seat's score if the game ended now (§5.4).
    pub fn scores(&self) -> [i64; 4] {
        let mut totals = [0i64; 4];
        for (col, &holder) in self.palace_tiles.iter().enumerate() {
            if holder >= 0 {
                totals[holder as usize] += col as i64 + 1;
            }
        }
        for (slot, &holder) in self.tower_tiles.iter().enumerate() {
            if holder >= 0 {
                totals[holder as usize] += self.rules.tower_values[slot];
            }
        }
        for pid in 0..self.num_palaces as usize {
            let pal = self.palaces[pid];
            if pal.owner < 0 {
                continue;
            }
            let pieces = self.palace_pieces(pid);
            let stables = self.stables_of(pieces);
            let comps = pieces | stables;
            let reach = if self.rules.stable_adjacency_scores {
                comps
            } else {
                pieces
            };
            totals[pal.owner as usize] += (pieces.count()
                + stables.count()
                + (ortho_dilate(reach) & self.merchants).count()
                + (ortho_dilate_any(comps) & self.walls).count()
                + 4 * (comps & self.yellow).count()) as i64;
        }
        totals
    }

    /// The seats with the top score (the winners once the game is over), or the one the
    /// tie-break picks among them (2e E13, `tie_break="largest_palace"`).
    pub fn winners(&self) -> ([u8; 4], usize) {
        let scores = self.scores();
        let n = self.num_players as usize;
        let top = scores[..n].iter().copied().max().unwrap_or(0);
        let mut out = [0u8; 4];
        let mut k = 0;
        for (seat, &s) in scores[..n].iter().enumerate() {
            if s == top {
                out[k] = seat as u8;
                k += 1;
            }
        }
        if k > 1 && self.rules.tie_break_largest_palace {
            return ([self.tie_break_winner(&out[..k]), 0, 0, 0], 1);
        }
        (out, k)
    }

    /// Win shares once over (1/k to each of k winners), zeros before.
    pub fn returns(&self) -> [f64; 4] {
        let mut out = [0.0; 4];
        if self.phase != Phase::Over {
            return out;
        }
        let (winners, k) = self.winners();
        for &w in &winners[..k] {
            out[w as usize] = 1.0 / k as f64;
        }
        out
    }

    // --- random play -------------------------------------------------------------------

    /// One kind-first random legal action (kind uniform, then move uniform within it),
    /// `below(n)` giving a uniform number in `0..n`; `None` when the game is over.
    pub fn random_action(&self, below: &mut impl FnMut(u32) -> u32) -> Option<usize> {
        match self.phase {
            Phase::Over => None,
            Phase::Play if !self.obligation => Some(self.sources.random_action(self.pass_action(), below)),
            _ => {
                let legal = self.legal();
                let (kinds, n) = legal.kinds();
                let kind = kinds[below(n as u32) as usize] as usize;
                let count = legal.count_of_kind(kind);
                Some(legal.nth_of_kind(kind, below(count)))
            }
        }
    }

    /// Plays kind-first random moves to the end; returns the number of actions.
    pub fn playout(&mut self, below: &mut impl FnMut(u32) -> u32) -> u64 {
        let mut actions = 0;
        while let Some(action) = self.random_action(below) {
            self.apply_legal(action);
            actions += 1;
        }
        actions
    }
}

/// The state's wall pieces per run, as the Python `runs` masks.
pub fn run_masks(state: &State) -> [Bits; NUM_RUNS] {
    let mut out = [Bits::EMPTY; NUM_RUNS];
    for (r, o) in out.iter_mut().enumerate() {
        *o = state.geo().run_masks[r][state.run_len[r] as usize];
    }
    out
}

/// The touch zone of a palace (its components plus every square touching one).
pub fn palace_touch(state: &State, pid: usize) -> Bits {
    let pieces = state.palace_pieces(pid);
    touch_dilate(pieces | state.stables_of(pieces))
}

/// The stables of palace `pid`.
pub fn palace_stables(state: &State, pid: usize) -> Bits {
    state.stables_of(state.palace_pieces(pid))
}

/// Medina for the generic tree search (`common::mcts`): actions are the encoding's ids,
/// rollouts kind-first random play to the end.
pub struct Search {
    pub num_players: usize,
}

impl crate::common::mcts::SearchGame for Search {
    type State = State;

    fn num_players(&self) -> usize {
        self.num_players
    }

    fn to_act(&self, state: &State) -> i32 {
        state.current_player as i32
    }

    fn actions(&self, state: &State, out: &mut Vec<u32>) {
        state.legal().for_each(|a| out.push(a as u32));
    }

    fn play(&self, state: &State, action: u32) -> State {
        let mut next = *state;
        next.apply_legal(action as usize);
        next
    }

    fn rollout(&self, state: &State, rng: &mut crate::common::rng::Rng, returns: &mut [f64]) {
        let mut end = *state;
        end.playout(&mut |k| rng.below(k));
        let shares = end.returns();
        returns.copy_from_slice(&shares[..returns.len()]);
    }

    fn rollout_scores(
        &self,
        state: &State,
        rng: &mut crate::common::rng::Rng,
        returns: &mut [f64],
        scores: &mut [f64],
    ) -> bool {
        let mut end = *state;
        end.playout(&mut |k| rng.below(k));
        let shares = end.returns();
        returns.copy_from_slice(&shares[..returns.len()]);
        let points = end.scores();
        scores.iter_mut().zip(points.iter()).for_each(|(s, &p)| *s = p as f64);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::common::rng::Rng;

    #[test]
    fn the_kept_sets_are_those_recomputed_from_the_position_after_every_action() {
        let mut rng = Rng::new(5);
        for (players, preset) in [
            (3, "default"),
            (4, "boardspace"),
            (3, "boardspace_legacy"),
            (4, "default"),
            (2, "second_edition"),
            (3, "boardspace_v2"),
            (4, "second_edition"),
        ] {
            let mut rules = Rules::preset(preset).expect("a preset");
            rules.new_chain_may_touch_one = players == 4;
            for game in 0..6 {
                let mut s = State::new(players, 0, rules);
                if rules.second() {
                    s.place_well(2 * WIDTH + 4 + game);
                    s.place_start(5 * WIDTH + 3);
                }
                while let Some(action) = s.random_action(&mut |k| rng.below(k)) {
                    s.apply_legal(action);
                    let mut recomputed = s;
                    recomputed.reset_kept();
                    assert_eq!(recomputed, s, "{preset}, {players} players, ply {}", s.ply);
                    // Each unfinished palace's extension squares, from its pieces.
                    let free = s.geo().building.andnot(s.occupied).andnot(s.contested);
                    for col in 0..4 {
                        assert_eq!(
                            s.ext[col],
                            ortho_dilate(s.unfinished_pieces[col]) & free,
                            "{preset}, ply {}",
                            s.ply
                        );
                    }
                    // A palace is abandoned only when no free square is next to it.
                    for pid in 0..s.num_palaces as usize {
                        if s.palaces[pid].abandoned {
                            assert!(
                                (ortho_dilate(s.palace_pieces(pid)) & free).is_empty(),
                                "{preset}, ply {}",
                                s.ply
                            );
                        }
                    }
                }
            }
        }
    }
}
