//! Medina's position and rules, exactly as the Python engine plays them
//! (`src/tabletop/games/medina/{rules,moves,placement,scoring}.py`; the spec is
//! `shared/rules/medina.md`, section numbers below refer to it).
//!
//! A [`State`] is a `Copy` value of fixed size: square sets are 256-bit [`Bits`], and
//! every palace is a few bytes of metadata.  A palace's squares are not stored: the
//! street rule keeps the components (pieces and stables) of two palaces from ever
//! touching, so a palace's pieces are the orthogonally connected group of palace pieces
//! around its first piece (`anchor`), and its stables are the stables next to those
//! pieces.  Wall runs are contiguous from their tower (the gate rule keeps a gap on every
//! side), so a run is its length.

use super::board::{
    flood, ortho_dilate, ortho_dilate_any, select64, touch_dilate, two_or_more_neighbors, Bits, BUILDING,
    HORIZONTAL_WALLS, INNER, NUM_RUNS, NUM_SQUARES, ORTHO_MASK, RUN_MASKS, RUN_TOWER, SIDE_RUNS, TOUCH_CLOSED, TOWERS,
    VERTICAL_WALLS, WALL_FRONT, WALL_SPACES, WIDTH,
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

/// Action ids (the Python `MedinaEncoding`): `block * 234 + square`.
pub const START_BLOCK: usize = 0;
pub const DOME_BLOCK: usize = 5;
pub const STABLE_BLOCK: usize = 6;
pub const MERCHANT_BLOCK: usize = 7;
pub const WALL_BLOCK: usize = 8;
pub const PASS_ACTION: usize = 9 * NUM_SQUARES;
pub const NUM_ACTIONS: usize = PASS_ACTION + 1;

/// At most one palace per palace piece: 4 colours × 20 pieces (§1.1).
pub const MAX_PALACES: usize = 80;
const NO_SQUARE: u8 = u8::MAX;

/// The move kinds, in the order `legal_kinds` lists them.
pub const KINDS: [&str; 7] = ["merchant_start", "palace", "dome", "stable", "merchant", "wall", "pass"];

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

/// The rule flags that change play or scoring (`ruleset.py`; `edition` and `hide_supplies` do not).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Rules {
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
}

impl Default for Rules {
    /// The spec's default ruleset (tower values `A13:1,R1:2,R13:3,A1:4`).
    fn default() -> Rules {
        Rules {
            abandoned_palace_claimable: false,
            new_chain_may_touch_one: false,
            tower_reconnect_per_run: false,
            tower_values: [4, 2, 1, 3],
            last_player_by_supply: false,
            dome_obligation_lookahead: true,
            start_merchant_anywhere: false,
            stable_adjacency_scores: true,
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
            ..Rules::default()
        };
        match name {
            "default" => Some(Rules::default()),
            "boardspace" => Some(boardspace),
            "boardspace_legacy" => Some(Rules {
                stable_adjacency_scores: false,
                ..boardspace
            }),
            _ => None,
        }
    }
}

/// Parses a `tower_values` string (`"A13:1,R1:2,R13:3,A1:4"`) as `ruleset.parse_tower_values`.
pub fn parse_tower_values(text: &str) -> Result<[i64; 4], String> {
    const ORDER: [&str; 4] = ["A1", "R1", "A13", "R13"];
    let mut values: [Option<i64>; 4] = [None; 4];
    let bad = || {
        format!(
            "bad variant 'tower_values': {text:?} (expected each of A1, R1, A13, R13 once, e.g. 'A13:1,R1:2,R13:3,A1:4')"
        )
    };
    for part in text.split(',') {
        let (name, value) = part.split_once(':').ok_or_else(bad)?;
        let name = name.trim().to_ascii_uppercase();
        let slot = ORDER.iter().position(|n| *n == name).ok_or_else(bad)?;
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
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Palace {
    /// Its first piece: its pieces are the connected palace pieces around it.
    pub anchor: u8,
    pub color: u8,
    /// The seat that domed it, or -1.
    pub owner: i8,
    /// The square of its dome, or 255.
    pub dome: u8,
    /// Unowned and without extension squares (final, §3.1.4).
    pub abandoned: bool,
    /// Pieces plus stables (the palace-tile comparison).
    pub size: u8,
}

/// Where the current (or another) player may place each kind of piece (`moves.placement_sources`).
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq, Hash)]
pub struct Sources {
    pub palace: [Bits; 4],
    pub dome: Bits,
    pub stable: Bits,
    pub merchant: Bits,
    pub wall: Bits,
    /// Some kind is listed (a palace colour with an unfinished palace counts even if it
    /// had no square, as in Python; the rules never let that happen).
    pub any: bool,
    pub has_palace: bool,
}

impl Sources {
    /// A kind-first random action among these sources (the legal actions when no dome
    /// obligation is pending): `Legal::kinds` and `Legal::nth_of_kind` without building a `Legal`.
    fn random_action(&self, below: &mut impl FnMut(u32) -> u32) -> usize {
        if !self.any {
            return PASS_ACTION;
        }
        // Kinds in order: palace (blocks 1-4), dome, stable, merchant, wall (blocks 5-8).
        let singles = [self.dome, self.stable, self.merchant, self.wall];
        let mut kinds = [0usize; 5];
        let mut n = 0;
        if self.has_palace {
            kinds[0] = 0;
            n = 1;
        }
        for (i, bits) in singles.iter().enumerate() {
            if bits.any() {
                kinds[n] = i + 1;
                n += 1;
            }
        }
        let kind = kinds[below(n as u32) as usize];
        if kind > 0 {
            let bits = singles[kind - 1];
            return (kind + 4) * NUM_SQUARES + bits.nth(below(bits.count()));
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

    /// The set of action block `block` (1..=8: palace colours, dome, stable, merchant, wall).
    #[inline]
    fn block(&self, block: usize) -> Bits {
        match block {
            1..=4 => self.palace[block - 1],
            DOME_BLOCK => self.dome,
            STABLE_BLOCK => self.stable,
            MERCHANT_BLOCK => self.merchant,
            _ => self.wall,
        }
    }

    /// The sets of each action block 1..=8 (palace colours, dome, stable, merchant, wall).
    fn blocks(&self) -> [Bits; 8] {
        [
            self.palace[0],
            self.palace[1],
            self.palace[2],
            self.palace[3],
            self.dome,
            self.stable,
            self.merchant,
            self.wall,
        ]
    }
}

/// Legal actions of one position: the squares of each action block, or the one pass /
/// start-merchant set.  Listing them in block order and square order gives the Python order.
#[derive(Clone, Copy, Debug)]
pub struct Legal {
    /// Squares per action block 0..=8.
    pub blocks: [Bits; 9],
    pub pass: bool,
    /// Whether the palace kind is listed (possibly with no square; see [`Sources::any`]).
    pub has_palace: bool,
}

impl Legal {
    pub const NONE: Legal = Legal {
        blocks: [Bits::EMPTY; 9],
        pass: false,
        has_palace: false,
    };

    /// The number of legal actions.
    pub fn count(&self) -> u32 {
        self.blocks.iter().map(|b| b.count()).sum::<u32>() + self.pass as u32
    }

    /// Calls `f` on every legal action id, in the Python order.
    pub fn for_each(&self, mut f: impl FnMut(usize)) {
        for (block, bits) in self.blocks.iter().enumerate() {
            for sq in bits.iter() {
                f(block * NUM_SQUARES + sq);
            }
        }
        if self.pass {
            f(PASS_ACTION);
        }
    }

    /// The kinds with legal actions, as indices into [`KINDS`], in order.
    pub fn kinds(&self) -> ([u8; 7], usize) {
        let mut out = [0u8; 7];
        let mut n = 0;
        let mut push = |k: u8| {
            out[n] = k;
            n += 1;
        };
        if self.blocks[0].any() {
            push(0);
        }
        if self.has_palace || self.blocks[1..5].iter().any(|b| b.any()) {
            push(1);
        }
        for (k, block) in [(2u8, 5usize), (3, 6), (4, 7), (5, 8)] {
            if self.blocks[block].any() {
                push(k);
            }
        }
        if self.pass {
            push(6);
        }
        (out, n)
    }

    /// The action blocks of one kind (index into [`KINDS`]).
    fn kind_blocks(kind: usize) -> core::ops::Range<usize> {
        match kind {
            0 => 0..1,
            1 => 1..5,
            k @ 2..=5 => k + 3..k + 4,
            _ => 0..0,
        }
    }

    /// Calls `f` on every legal action of one kind, in order.
    pub fn for_each_of_kind(&self, kind: usize, mut f: impl FnMut(usize)) {
        if kind == 6 {
            if self.pass {
                f(PASS_ACTION);
            }
            return;
        }
        for block in Legal::kind_blocks(kind) {
            for sq in self.blocks[block].iter() {
                f(block * NUM_SQUARES + sq);
            }
        }
    }

    /// Only the actions of one kind (index into [`KINDS`]).
    pub fn of_kind(&self, kind: usize) -> Legal {
        let mut out = Legal::NONE;
        if kind == 6 {
            out.pass = self.pass;
        } else {
            for block in Legal::kind_blocks(kind) {
                out.blocks[block] = self.blocks[block];
            }
        }
        out
    }

    /// The `i`-th legal action in the Python order, `i < self.count()`.
    pub fn nth(&self, mut i: u32) -> usize {
        for (block, bits) in self.blocks.iter().enumerate() {
            let c = bits.count();
            if i < c {
                return block * NUM_SQUARES + bits.nth(i);
            }
            i -= c;
        }
        PASS_ACTION
    }

    /// The number of legal actions of one kind.
    pub fn count_of_kind(&self, kind: usize) -> u32 {
        if kind == 6 {
            return self.pass as u32;
        }
        Legal::kind_blocks(kind).map(|b| self.blocks[b].count()).sum()
    }

    /// The `i`-th legal action of one kind (`i < count_of_kind(kind)`).
    pub fn nth_of_kind(&self, kind: usize, mut i: u32) -> usize {
        if kind == 6 {
            return PASS_ACTION;
        }
        for block in Legal::kind_blocks(kind) {
            let c = self.blocks[block].count();
            if i < c {
                return block * NUM_SQUARES + self.blocks[block].nth(i);
            }
            i -= c;
        }
        usize::MAX
    }

    /// Whether `action` is one of these.
    pub fn contains(&self, action: usize) -> bool {
        if action == PASS_ACTION {
            return self.pass;
        }
        action < PASS_ACTION && self.blocks[action / NUM_SQUARES].has(action % NUM_SQUARES)
    }
}

impl Legal {
    /// These actions counted once, for finding the `i`-th one many times.
    pub fn words(&self) -> LegalWords {
        // Only the start phase has start-merchant actions, and then nothing else.
        let first_block = if self.blocks[START_BLOCK].any() {
            START_BLOCK
        } else {
            START_BLOCK + 1
        };
        let mut blocks = [Bits::EMPTY; 8];
        blocks.copy_from_slice(&self.blocks[first_block..first_block + 8]);
        LegalWords::new(blocks, first_block, self.pass)
    }
}

/// The actions of a [`Legal`] counted once: eight action blocks (the start block, or the
/// eight after it: no position has both) with the number of actions before each block.
/// The count is read off, and the `i`-th action is a short scan of the blocks, then of
/// the words of one, and a select in one word (a Python `random.choice` reads `len`,
/// then one item).  Smaller than a `Legal`: a loop that keeps many allocates no more.
#[derive(Clone, Copy, Debug)]
pub struct LegalWords {
    /// The squares of action blocks `first_block..first_block + 8`.
    blocks: [Bits; 8],
    first_block: u8,
    pass: bool,
    /// The actions in the blocks before each; `before[8]`: all but the pass action.
    before: [u16; 9],
}

impl LegalWords {
    /// The actions of action blocks `first_block..first_block + 8`, then pass if `pass`.
    fn new(blocks: [Bits; 8], first_block: usize, pass: bool) -> LegalWords {
        let mut before = [0u16; 9];
        let mut total = 0u16;
        for (b, bits) in blocks.iter().enumerate() {
            before[b] = total;
            total += bits.count() as u16;
        }
        before[8] = total;
        LegalWords {
            blocks,
            first_block: first_block as u8,
            pass,
            before,
        }
    }

    /// The number of actions.
    pub fn count(&self) -> usize {
        self.before[8] as usize + self.pass as usize
    }

    /// The `i`-th action in the Python order, `i < self.count()`.
    pub fn nth(&self, i: usize) -> usize {
        if i >= self.before[8] as usize {
            return PASS_ACTION;
        }
        // The last block with no more than `i` actions before it holds the action: every
        // later one starts after it.
        let mut b = 7;
        while self.before[b] as usize > i {
            b -= 1;
        }
        let mut rest = (i - self.before[b] as usize) as u32;
        let mut w = 0;
        loop {
            let word = self.blocks[b].0[w];
            let here = word.count_ones();
            if rest < here {
                return (b + self.first_block as usize) * NUM_SQUARES + w * 64 + select64(word, rest);
            }
            rest -= here;
            w += 1;
        }
    }

    /// Calls `f` on every action, in order.
    pub fn for_each(&self, mut f: impl FnMut(usize)) {
        for (b, bits) in self.blocks.iter().enumerate() {
            let base = (b + self.first_block as usize) * NUM_SQUARES;
            for sq in bits.iter() {
                f(base + sq);
            }
        }
        if self.pass {
            f(PASS_ACTION);
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
    /// The position before the starting merchant (`rules.initial_state`, non-random start).
    pub fn new(num_players: usize, start_player: usize, rules: Rules) -> State {
        assert!((3..=4).contains(&num_players) && start_player < num_players);
        let per = if num_players == 3 { SUPPLY_3 } else { SUPPLY_4 };
        let mut supply = [0u8; 4 * NUM_SLOTS];
        for p in 0..num_players {
            supply[p * NUM_SLOTS..(p + 1) * NUM_SLOTS].copy_from_slice(&per);
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

    /// Sets the kept sets from the other fields (a loaded position): the squares next to
    /// merchants, and the placement sources (in play the player to act's
    /// `placement_sources`, else empty).
    pub fn reset_kept(&mut self) {
        self.near_merchants = ortho_dilate_any(self.merchants);
        self.crowded = two_or_more_neighbors(self.merchants);
        self.near_palaces = ortho_dilate(self.palace_mask);
        self.open_walls = self.wall_squares_now();
        self.sources = match self.phase {
            Phase::Play => self.placement_sources(self.current_player as usize),
            Phase::Start | Phase::Over => Sources::default(),
        };
    }

    /// Where the starting merchant may go (§2.1, A10).
    pub fn start_squares(&self) -> Bits {
        if self.rules.start_merchant_anywhere {
            BUILDING
        } else {
            INNER
        }
    }

    // --- placement rules (placement.py) ------------------------------------------------

    /// Empty building squares touching no palace piece and no stable (§3.1.3).
    #[inline]
    pub fn new_palace_squares(&self) -> Bits {
        BUILDING.andnot(self.occupied).andnot(self.forbid)
    }

    /// Empty squares next to a palace piece that touch no other palace (§3.3).
    #[inline]
    pub fn stable_squares(&self) -> Bits {
        self.near_palaces.andnot(self.occupied).andnot(self.contested)
    }

    /// The active chain's extensions, else the squares of a new chain (§3.4, A2).
    #[inline]
    pub fn merchant_squares(&self) -> Bits {
        let free = BUILDING.andnot(self.occupied);
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
        let occ = self.walls | TOWERS;
        let w = WIDTH as u32;
        ((HORIZONTAL_WALLS & (occ.shl(1) ^ occ.shr(1))) | (VERTICAL_WALLS & (occ.shl(w) ^ occ.shr(w))))
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
    fn sup(&self, player: usize, slot: usize) -> u8 {
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
        if self.sup(player, STABLE) > 0 {
            out.stable = self.stable_squares();
        }
        if self.sup(player, MERCHANT) > 0 {
            out.merchant = self.merchant_squares();
        }
        if self.sup(player, WALL) > 0 {
            out.wall = self.wall_squares();
        }
        out.any = out.has_palace || out.dome.any() || out.stable.any() || out.merchant.any() || out.wall.any();
        out
    }

    // --- legal moves (moves.py) ----------------------------------------------------------

    /// The current player's legal actions, the dome obligation applied (`moves.legal_by_kind`).
    pub fn legal(&self) -> Legal {
        let mut out = Legal::NONE;
        match self.phase {
            Phase::Over => {}
            Phase::Start => out.blocks[START_BLOCK] = self.start_squares().andnot(self.occupied),
            Phase::Play => {
                let player = self.current_player as usize;
                let src = self.sources;
                if !src.any {
                    out.pass = true;
                    return out;
                }
                let mut blocks = src.blocks();
                let mut has_palace = src.has_palace;
                if self.obligation {
                    if self.placements_left == 1 {
                        // The first placement was not a dome: the second must be (waived
                        // when no dome placement is left).
                        if src.dome.any() {
                            blocks = [Bits::EMPTY; 8];
                            blocks[DOME] = src.dome;
                            has_palace = false;
                        }
                    } else if self.rules.dome_obligation_lookahead {
                        // A8: a first placement must leave a dome placement.
                        for (block, bits) in blocks.iter_mut().enumerate() {
                            if block == DOME {
                                continue;
                            }
                            let mut keep = Bits::EMPTY;
                            for sq in bits.iter() {
                                let mut next = *self;
                                next.place_piece(player, (block + 1) * NUM_SQUARES + sq);
                                if next.dome_targets(player).any() {
                                    keep = keep.with(sq);
                                }
                            }
                            *bits = keep;
                        }
                        // A filtered kind with no move left is dropped (Python keeps only
                        // non-empty kinds here).
                        has_palace = false;
                        if blocks.iter().all(|b| b.is_empty()) {
                            out.pass = true;
                            return out;
                        }
                    }
                }
                out.blocks[1..].copy_from_slice(&blocks);
                out.has_palace = has_palace;
            }
        }
        out
    }

    /// `self.legal().words()`, read straight from the kept sources when no dome
    /// obligation is pending (they are then the legal actions).
    pub fn legal_words(&self) -> LegalWords {
        if self.phase == Phase::Play && !self.obligation {
            return LegalWords::new(self.sources.blocks(), START_BLOCK + 1, !self.sources.any);
        }
        self.legal().words()
    }

    /// `self.legal().of_kind(kind).words()` (`kind` an index into [`KINDS`]), read
    /// straight from the kept sources when no dome obligation is pending.
    pub fn legal_words_of_kind(&self, kind: usize) -> LegalWords {
        if self.phase == Phase::Play && !self.obligation {
            let mut blocks = [Bits::EMPTY; 8];
            for block in Legal::kind_blocks(kind).filter(|&b| b > START_BLOCK) {
                blocks[block - 1] = self.sources.block(block);
            }
            return LegalWords::new(blocks, START_BLOCK + 1, kind == 6 && !self.sources.any);
        }
        self.legal().of_kind(kind).words()
    }

    /// Whether `action` may be applied now.
    pub fn is_legal(&self, action: usize) -> bool {
        if action >= NUM_ACTIONS {
            return false;
        }
        if self.phase == Phase::Play && !self.obligation {
            // A bitset test on the kept sources, as `moves.is_legal`.
            if action == PASS_ACTION {
                return !self.sources.any;
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
        if action == PASS_ACTION {
            self.ply += 1;
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
            if block == DOME_BLOCK {
                self.obligation = false;
            }
            // Whether the player has a legal second placement.
            let can_continue = if self.obligation {
                (self.sup(player, DOME) > 0 && self.dome_targets(player).any()) || self.is_able(player)
            } else {
                // Without the obligation, the player's placements are exactly the legal
                // moves if they go on.
                self.sources = self.placement_sources(player);
                self.sources.any
            };
            if can_continue {
                if self.obligation {
                    self.sources = self.placement_sources(player);
                }
                return;
            }
        }
        self.start_next_turn(player);
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
        } else if self.sources.dome.any() {
            if self.rules.last_player_by_supply {
                others
                    .clone()
                    .all(|q| self.supply[q * NUM_SLOTS..(q + 1) * NUM_SLOTS].iter().all(|&c| c == 0))
            } else {
                !others.clone().any(|q| self.is_able(q))
            }
        } else {
            false
        };
        self.current_player = nxt as i8;
        self.placements_left = 2;
        self.turn += 1;
        self.obligation = alone;
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
        self.placements_left = 2;
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
        for (r, &len) in self.run_len.iter().enumerate() {
            if (RUN_MASKS[r][len as usize] & near).any() {
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

    fn take_towers(&mut self, owner: usize, keys: u8) {
        for (key, &run_tower) in RUN_TOWER.iter().enumerate() {
            if keys >> key & 1 != 0 {
                let tower = if self.rules.tower_reconnect_per_run {
                    run_tower
                } else {
                    key
                };
                self.tower_tiles[tower] = owner as i8;
            }
        }
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
        let free = BUILDING.andnot(self.occupied).andnot(self.contested);
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
            _ => WALL,
        };
        self.supply[player * NUM_SLOTS + slot] -= 1;
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
                    };
                    self.num_palaces += 1;
                    self.unfinished[col] = pid as i8;
                    pid
                };
                self.add_component(sq, pid, self.unfinished_pieces[col], false);
                self.near_palaces |= ORTHO_MASK[sq] & BUILDING;
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
                let [(nb, near_run), (_, far_run)] = SIDE_RUNS[sq];
                let run = if (self.walls | TOWERS).has(nb) {
                    near_run
                } else {
                    far_run
                };
                let front = WALL_FRONT[sq];
                let mut taken = None;
                if (self.palace_mask | self.stables).has(front) {
                    let (pid, pieces) = self.palace_around(front);
                    let owner = self.palaces[pid].owner;
                    if owner >= 0 {
                        let key = self.key_of_run(run);
                        if self.connection_keys(pieces | self.stables_of(pieces)) >> key & 1 == 0 {
                            taken = Some((owner as usize, 1u8 << key));
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
                if owner >= 0 {
                    self.check_palace_tile(pid);
                    if (ORTHO_MASK[sq] & WALL_SPACES & self.walls).any() {
                        let comps = pieces | self.stables_of(pieces);
                        let before = self.connection_keys(comps.andnot(bit));
                        let after = self.connection_keys(comps);
                        self.take_towers(owner as usize, after & !before);
                    }
                }
            }
            _ => {
                // A dome.
                let (pid, pieces) = self.palace_around(sq);
                let col = self.palaces[pid].color as usize;
                self.palaces[pid].owner = player as i8;
                self.palaces[pid].dome = sq as u8;
                self.owned[player * 4 + col] = pid as i8;
                if self.unfinished[col] == pid as i8 {
                    self.unfinished[col] = -1;
                    self.ext[col] = Bits::EMPTY;
                    self.unfinished_pieces[col] = Bits::EMPTY;
                }
                self.unowned_pieces[col] = self.unowned_pieces[col].andnot(pieces);
                self.check_palace_tile(pid);
                let keys = self.connection_keys(pieces | self.stables_of(pieces));
                self.take_towers(player, keys);
                if (0..self.num_players as usize).all(|q| self.owned[q * 4 + col] >= 0) {
                    self.retire(col); // every player owns a palace of this colour
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
                + (ortho_dilate_any(comps) & self.walls).count()) as i64;
        }
        totals
    }

    /// The seats with the top score (the winners once the game is over).
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
            Phase::Play if !self.obligation => Some(self.sources.random_action(below)),
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
        *o = RUN_MASKS[r][state.run_len[r] as usize];
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
        ] {
            let mut rules = Rules::preset(preset).expect("a preset");
            rules.new_chain_may_touch_one = players == 4;
            for _ in 0..6 {
                let mut s = State::new(players, 0, rules);
                while let Some(action) = s.random_action(&mut |k| rng.below(k)) {
                    s.apply_legal(action);
                    let mut recomputed = s;
                    recomputed.reset_kept();
                    assert_eq!(recomputed, s, "{preset}, {players} players, ply {}", s.ply);
                    // Each unfinished palace's extension squares, from its pieces.
                    let free = BUILDING.andnot(s.occupied).andnot(s.contested);
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
