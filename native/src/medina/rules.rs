//! Medina's rules (`src/tabletop/games/medina/rules.py`): a new game's position
//! ([`State::new`]), applying an action (palaces and their status, the palace and tower
//! tiles, retired colours, the merchant chain, wall runs) and the turn order with the game
//! end and the last-player dome obligation (§5).  The street rule is two sets kept up to
//! date as pieces are placed (`forbid`: where a new palace may not start; `contested`:
//! squares touching two palaces, where no palace piece or stable may ever go).

use super::board::{
    flood, ortho_dilate_any, touch_dilate, Bits, NUM_RUNS, NUM_SQUARES, ORTHO_MASK, RUN_TOWER, TOUCH_CLOSED,
};
use super::moves::{
    Sources, DOME, DOME_BLOCK, MERCHANT, MERCHANT_BLOCK, NEUTRAL_BLOCK, NUM_SLOTS, STABLE, STABLE_BLOCK, START_BLOCK,
    TEA_ACTION, WALL, WALL_BLOCK,
};
use super::ruleset::Rules;
use super::state::{Palace, Phase, State, MAX_PALACES, NEUTRAL, NO_SQUARE, TEA_TILES};

/// Supply per player by player count (§1.2), by supply slot (`moves::DOME` and the rest:
/// the four palace colours, then dome, stable, merchant, wall).
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
    pub(super) fn place_piece(&mut self, player: usize, action: usize) {
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
}
