//! Medina's moves (`src/tabletop/games/medina/moves.py`): the supply slots, the action ids
//! (the Python encodings' `block * 234 + square`) and move kinds, where a player may place
//! ([`Sources`], [`State::placement_sources`], [`State::is_able`], §5.1) and the legal
//! actions with the last-player dome obligation (§5.2) applied ([`Legal`],
//! [`LegalWords`], [`State::legal`], [`State::is_legal`]).  Where each piece may go is
//! `placement.rs`; applying an action is `rules.rs`.

use super::board::{select64, Bits, NUM_SQUARES};
use super::state::{Phase, State};

/// Supply slots per player: the four palace colours, then the other pieces.
pub const DOME: usize = 4;
pub const STABLE: usize = 5;
pub const MERCHANT: usize = 6;
pub const WALL: usize = 7;
pub const NUM_SLOTS: usize = 8;

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

/// The palace colour whose claims award tea tiles in the second edition (2e §4.3).
pub const PURPLE: usize = 1;

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
            // A word at a time (`Bits::iter` looks for the next word from the first at
            // every square): the vector env lists every position's actions for its mask.
            for (w, &word) in self.blocks[block].0.iter().enumerate() {
                let base = block * NUM_SQUARES + w * 64;
                let mut word = word;
                while word != 0 {
                    f(base + word.trailing_zeros() as usize);
                    word &= word - 1;
                }
            }
        }
        if self.tea {
            f(TEA_ACTION);
        }
        if self.pass {
            f(self.pass_action);
        }
    }

    /// Appends every legal action id to `out`, in the order of [`Legal::for_each`],
    /// written straight into its spare room: a push an action checked the room and
    /// moved the length each time, and the vector env lists every game's actions a step.
    pub fn append_to(&self, out: &mut Vec<u32>) {
        let count = self.count() as usize;
        out.reserve(count);
        let room = &mut out.spare_capacity_mut()[..count];
        let mut written = 0;
        self.for_each(|a| {
            room[written].write(a as u32);
            written += 1;
        });
        let len = out.len() + written;
        // SAFETY: the first `written` items of the spare room were written just now.
        unsafe { out.set_len(len) };
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

impl State {
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
}
