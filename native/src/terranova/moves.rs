//! Terra Nova moves (`moves.py`): the move kinds and values, their action ids (as
//! `encoding.py` numbers them), legal move generation and legality.
//!
//! Generation is kind-first, as random play asks for it: [`State::legal_kinds`], then
//! [`State::actions_of_kind`] (action ids, in the Python order), then one move is applied
//! (`rules.rs`). Slides are read from the position's lines layout (`Lines` in `state.rs`)
//! where it is kept, and counted there without being listed ([`ActionRuns`]).

use super::board::{Board, ReturnRule};
use super::state::{Game, Lines, Phase, State, LINE_WORDS_PER_W};
use crate::common::bits::Bits;

/// A move kind, as the Python moves' `kind`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    Place,
    Move,
    Stone,
    Pass,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Place => "place",
            Kind::Move => "move",
            Kind::Stone => "stone",
            Kind::Pass => "pass",
        }
    }

    pub fn from_name(name: &str) -> Option<Kind> {
        match name {
            "place" => Some(Kind::Place),
            "move" => Some(Kind::Move),
            "stone" => Some(Kind::Stone),
            "pass" => Some(Kind::Pass),
            _ => None,
        }
    }
}

/// The legal kinds, in the order of `moves.legal_kinds` (at most two: move, stone).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Kinds {
    kinds: [Kind; 2],
    len: u8,
}

impl Kinds {
    const NONE: Kinds = Kinds {
        kinds: [Kind::Pass, Kind::Pass],
        len: 0,
    };

    fn one(kind: Kind) -> Kinds {
        Kinds {
            kinds: [kind, kind],
            len: 1,
        }
    }

    fn move_stone(stone: bool) -> Kinds {
        if stone {
            Kinds {
                kinds: [Kind::Move, Kind::Stone],
                len: 2,
            }
        } else {
            Kinds::one(Kind::Move)
        }
    }

    pub fn as_slice(&self) -> &[Kind] {
        &self.kinds[..self.len as usize]
    }
}

/// A decoded action.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Move {
    Place(usize),
    Slide { src: usize, dst: usize },
    Stone(usize),
    Pass,
}

/// A position's legal actions in the Python order, counted but not listed: the legal
/// slides as a set of positions in the lines layout (`Lines`), then a set of cells (the
/// stones' or the placements' targets, ids `cell_base + cell`), then the pass. It counts
/// them and finds the `i`-th, which is all `random.choice` asks of a sequence; a Python
/// loop over Terra Nova's some 200 legal actions a step then writes none of them.
///
/// The slides are listed in the order of their destinations' positions in the layout
/// (`State::slides_in_order`), and every empty cell of a copy is reached by at most one
/// pioneer in that copy's direction (the nearest one behind it, if nothing stands
/// between): so the `i`-th legal slide is the `i`-th set bit of `reached`, and its source
/// is the filled position just before its run. `reached` is made a word at a time by one
/// addition (`State::action_runs`), not a pioneer and a direction at a time, and holds
/// only the layout's words (a Python loop keeps one of these per step: the smaller, the
/// less memory it writes).
#[derive(Clone, Debug, Default)]
pub struct ActionRuns<const W: usize> {
    /// The destinations of the legal slides, layout positions (bit `p % 64` of word
    /// `p / 64`).
    reached: Vec<u64>,
    /// The forbidden slides back left out of `reached` (on their pioneer's run), as layout
    /// positions: still part of their run when a source is looked for.
    skipped: [u32; 3],
    num_skipped: usize,
    slides: usize,
    cells: Bits<W>,
    cell_base: u32,
    num_cells: usize,
    /// The pass, after everything else (only ever alone).
    pass: Option<u32>,
}

/// The position of the `k`-th set bit of `word` (`k < word.count_ones()`).
#[inline]
fn select_bit(word: u64, k: u32) -> u32 {
    let (mut word, mut k, mut shift) = (word, k, 0);
    loop {
        let in_byte = (word & 0xff).count_ones();
        if k < in_byte {
            break;
        }
        k -= in_byte;
        word >>= 8;
        shift += 8;
    }
    for _ in 0..k {
        word &= word - 1;
    }
    shift + word.trailing_zeros()
}

impl<const W: usize> ActionRuns<W> {
    /// Sets the legal slides of the pioneers on the cells `pioneers` (from every copy of
    /// their cells in the layout) over the empty cells `lines`, leaving out the slides
    /// back onto the positions `forbidden` (`(pioneer's position, destination's
    /// position)` in one copy).
    fn set_slides(&mut self, b: &Board<W>, lines: &Lines<W>, pioneers: &Bits<W>, forbidden: &[(u32, u32)]) {
        let bytes = lines.words.as_flattened();
        let words = b.line_words;
        // Each pioneer's layout words OR-ed in, a row at a time (`Board::line_masks`).
        let mut sources = [[0u64; W]; LINE_WORDS_PER_W];
        let sources = sources.as_flattened_mut();
        for cell in pioneers.iter() {
            let row = &b.line_masks[cell * words..(cell + 1) * words];
            for (source, &mask) in sources[..words].iter_mut().zip(row) {
                *source |= mask;
            }
        }
        // The words are made in place (the source words become the reached ones), so
        // that the carry stays in a register: pushed onto the vector one at a time, it
        // went through memory at every word.
        let (mut shifted_in, mut carry) = (0u64, false);
        for (slot, &empty) in sources[..words].iter_mut().zip(&bytes[..words]) {
            let empty = u64::from_le_bytes(empty);
            let from = *slot;
            // The first cell of each run: the empty cell right after a source.
            let firsts = (from << 1 | shifted_in) & empty;
            shifted_in = from >> 63;
            // Adding a run's first bit carries through the run and stops at its end
            // (a filled cell or padding): the bits that the carry cleared are the run.
            let (sum, over) = empty.overflowing_add(firsts);
            let (sum, over_again) = sum.overflowing_add(carry as u64);
            carry = over || over_again;
            *slot = empty & !sum;
        }
        self.reached = sources[..words].to_vec();
        for &(from, back) in forbidden {
            if back - from <= lines.run_after(from) {
                self.reached[back as usize / 64] &= !(1 << (back & 63));
                self.skipped[self.num_skipped] = back;
                self.num_skipped += 1;
            }
        }
        self.slides = self.reached.iter().map(|w| w.count_ones() as usize).sum();
    }

    /// Sets the cells whose ids (`base + cell`) follow the slides.
    fn set_cells(&mut self, cells: Bits<W>, base: u32) {
        self.num_cells = cells.count() as usize;
        self.cells = cells;
        self.cell_base = base;
    }

    pub fn len(&self) -> usize {
        self.slides + self.num_cells + self.pass.is_some() as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The slide to the layout position `p` (a bit of `reached`): its source is the
    /// nearest position before `p` that is not on the run (a run is under 64 bits).
    fn slide_to(&self, b: &Board<W>, p: u32) -> u32 {
        let on_run = |k: usize| {
            let mut word = self.reached[k];
            for &s in &self.skipped[..self.num_skipped] {
                if s as usize / 64 == k {
                    word |= 1 << (s & 63);
                }
            }
            word
        };
        let (k, bit) = (p as usize / 64, p & 63);
        let below = !on_run(k) & ((1u64 << bit) - 1);
        let from = if below != 0 {
            k as u32 * 64 + 63 - below.leading_zeros()
        } else {
            // The run starts in the word before (bit 0 is padding, so there is one).
            k as u32 * 64 - 1 - on_run(k - 1).leading_ones()
        };
        let (src, d) = b.line_cell[from as usize];
        b.slide_action(src as usize, d as usize, (p - from) as usize) as u32
    }

    /// Every action in order.
    pub fn to_vec(&self, b: &Board<W>) -> Vec<u32> {
        let mut out = Vec::with_capacity(self.len());
        for (k, &word) in self.reached.iter().enumerate() {
            let mut word = word;
            while word != 0 {
                out.push(self.slide_to(b, k as u32 * 64 + word.trailing_zeros()));
                word &= word - 1;
            }
        }
        out.extend(self.cells.iter().map(|c| self.cell_base + c as u32));
        out.extend(self.pass);
        out
    }

    /// The `i`-th action, `i < len()`.
    pub fn get(&self, b: &Board<W>, i: usize) -> u32 {
        if i < self.slides {
            let mut rest = i as u32;
            for (k, &word) in self.reached.iter().enumerate() {
                let here = word.count_ones();
                if rest < here {
                    return self.slide_to(b, k as u32 * 64 + select_bit(word, rest));
                }
                rest -= here;
            }
        }
        let rest = i - self.slides;
        if rest < self.num_cells {
            return self.cell_base + self.cells.nth(rest as u32).unwrap_or(0) as u32;
        }
        self.pass.unwrap_or(0)
    }
}

impl<const W: usize> Game<W> {
    /// The move of an action id, or `None` for an id that names no move on this board.
    pub fn decode(&self, action: usize) -> Option<Move> {
        let b = &self.board;
        let n = b.num_cells;
        if action < n {
            return Some(Move::Place(action));
        }
        if action < b.stone_base() {
            let rest = action - n;
            let src = rest / (6 * b.line);
            let direction = rest % (6 * b.line) / b.line;
            let steps = rest % b.line + 1;
            let mut cell = src as i32;
            for _ in 0..steps {
                cell = b.next[direction][cell as usize];
                if cell < 0 {
                    return None;
                }
            }
            return Some(Move::Slide {
                src,
                dst: cell as usize,
            });
        }
        if action < b.pass_action() {
            return Some(Move::Stone(action - b.stone_base()));
        }
        if action == b.pass_action() {
            return Some(Move::Pass);
        }
        None
    }

    /// [`Game::decode`] of an action a position listed as legal: a slide's destination
    /// is read from the lines layout (consecutive positions along its direction, a legal
    /// slide crossing no gap), not walked to cell by cell.
    pub fn decode_listed(&self, action: usize) -> Option<Move> {
        let b = &self.board;
        if !(b.lines_fit && (b.num_cells..b.stone_base()).contains(&action)) {
            return self.decode(action);
        }
        let rest = action - b.num_cells;
        let (src, along) = (rest / (6 * b.line), rest % (6 * b.line));
        let (direction, steps) = (along / b.line, along % b.line + 1);
        let dst = b.line_cell[b.cell_line_pos[src][direction] as usize + steps].0 as usize;
        Some(Move::Slide { src, dst })
    }

    /// The action id of a move (`encoding.encode`).
    pub fn encode(&self, mv: Move) -> usize {
        let b = &self.board;
        match mv {
            Move::Place(cell) => cell,
            Move::Stone(cell) => b.stone_base() + cell,
            Move::Pass => b.pass_action(),
            Move::Slide { src, dst } => {
                // Only the moves of this state's lists are encoded: slides along a line.
                let (direction, steps) = b.direction_steps(src, dst).unwrap_or((0, 1));
                b.slide_action(src, direction, steps)
            }
        }
    }
}

impl<const W: usize> State<W> {
    /// `_forbidden_returns`: the movers that may not slide back onto s(X) now.
    fn forbidden_returns(&self, g: &Game<W>) -> &[(u16, u16)] {
        if self.num_movers == 0 {
            return &[];
        }
        match g.rules.return_rule {
            ReturnRule::EndOfTurn => {
                if self.action == 2 {
                    self.movers()
                } else {
                    &[]
                }
            }
            ReturnRule::Strict => self.movers(),
            ReturnRule::ThreeMovesOnly => {
                if self.action == 2 && self.moves_made == 2 && self.num_movers == 1 {
                    self.movers()
                } else {
                    &[]
                }
            }
        }
    }

    /// The pioneers that may slide now, and the slides back that are forbidden
    /// (`(current cell, turn-start cell)` pairs).
    #[inline]
    pub(super) fn slide_sources(&self, g: &Game<W>) -> (Bits<W>, &[(u16, u16)]) {
        if self.pending_return >= 0 {
            return (Bits::single(self.pending_return as usize), &[]);
        }
        let forbidden = if self.action > 0 {
            self.forbidden_returns(g)
        } else {
            &[]
        };
        (self.pioneers[self.player()], forbidden)
    }

    /// Calls `f(src, direction, steps, dst)` for every legal slide (any order).
    #[inline]
    pub fn for_each_slide(&self, g: &Game<W>, mut f: impl FnMut(usize, usize, usize, usize)) {
        let b = &g.board;
        let (own, forbidden) = self.slide_sources(g);
        for src in own.iter() {
            for d in 0..6 {
                self.ray_slides(b, src, d, forbidden, |steps, dst| f(src, d, steps, dst));
            }
        }
    }

    /// Calls `f(steps, dst)` for every legal slide of the pioneer on `src` in direction
    /// `d`, nearest first, leaving out the `forbidden` slides back.
    #[inline]
    fn ray_slides(
        &self,
        b: &Board<W>,
        src: usize,
        d: usize,
        forbidden: &[(u16, u16)],
        mut f: impl FnMut(usize, usize),
    ) {
        let step = &b.next[d];
        let mut cell = step[src];
        let mut steps = 1;
        while cell >= 0 && !self.filled.get(cell as usize) {
            let dst = cell as usize;
            if !forbidden
                .iter()
                .any(|&(cur, start)| cur as usize == src && start as usize == dst)
            {
                f(steps, dst);
            }
            cell = step[dst];
            steps += 1;
        }
    }

    /// `has_slide`: whether the current player has a legal slide.
    pub fn has_slide(&self, g: &Game<W>) -> bool {
        if self.pending_return >= 0 {
            return true;
        }
        let own = self.pioneers[self.player()];
        let forbidden = if self.action > 0 {
            self.forbidden_returns(g)
        } else {
            &[]
        };
        if forbidden.is_empty() {
            return self.can_step(g, &own);
        }
        let mut restricted = Bits::EMPTY;
        for &(cur, _) in forbidden {
            restricted.set(cur as usize);
        }
        if self.can_step(g, &own.minus(&restricted)) {
            return true;
        }
        let mut any = false;
        self.for_each_slide(g, |_, _, _, _| any = true);
        any
    }

    /// `stone_targets`: empty cells next to a mover, or none.
    pub fn stone_targets(&self, g: &Game<W>) -> Bits<W> {
        if self.supply <= 0 || self.action == 0 || self.pending_return >= 0 {
            return Bits::EMPTY;
        }
        let mut near = Bits::EMPTY;
        for &(cur, _) in self.movers() {
            near |= g.board.neighbor_masks[cur as usize];
        }
        near & g.board.all.minus(&self.filled)
    }

    /// `legal_kinds`.
    pub fn legal_kinds(&self, g: &Game<W>) -> Kinds {
        match self.phase {
            Phase::Play => {
                if self.action == 0 {
                    let own = self.pioneers[self.player()];
                    return Kinds::one(if self.can_step(g, &own) { Kind::Move } else { Kind::Pass });
                }
                if self.pending_return >= 0 {
                    return Kinds::one(Kind::Move);
                }
                let stone;
                if self.moves_made == self.action {
                    stone = self.supply > 0;
                    if self.action == 1 && g.rules.return_rule == ReturnRule::EndOfTurn {
                        return Kinds::move_stone(stone);
                    }
                } else {
                    stone = self.stone_targets(g).any();
                }
                if self.has_slide(g) {
                    return Kinds::move_stone(stone);
                }
                if stone {
                    Kinds::one(Kind::Stone)
                } else {
                    Kinds::NONE
                }
            }
            Phase::Placement => Kinds::one(Kind::Place),
            Phase::Over => Kinds::NONE,
        }
    }

    /// `legal_moves_of_kind` as action ids, in the Python order.
    pub fn actions_of_kind(&self, g: &Game<W>, kind: Kind, out: &mut Vec<u32>) {
        let b = &g.board;
        match (self.phase, kind) {
            (Phase::Play, Kind::Move) => self.slides_in_order(g, out),
            (Phase::Play, Kind::Stone) => {
                let base = b.stone_base() as u32;
                out.extend(self.stone_targets(g).iter().map(|c| base + c as u32));
            }
            (Phase::Play, Kind::Pass) if self.legal_kinds(g) == Kinds::one(Kind::Pass) => {
                out.push(b.pass_action() as u32);
            }
            (Phase::Placement, Kind::Place) => {
                out.extend(b.all.minus(&self.filled).iter().map(|c| c as u32));
            }
            _ => {}
        }
    }

    /// The legal slides as action ids in the Python engine's order: by the position of
    /// the destination in the lines layout (`board.py`), which is direction by direction,
    /// then line by line, then along the line. A pioneer's slides in one direction are
    /// consecutive there, so sorting the pioneers of each direction by their own position
    /// and walking each ray lists them in order, without sorting the slides.
    fn slides_in_order(&self, g: &Game<W>, out: &mut Vec<u32>) {
        let b = &g.board;
        let (own, forbidden) = self.slide_sources(g);
        if let Some(lines) = self.lines(g) {
            out.reserve(48 * own.count() as usize);
            self.slides_by_lines(g, lines, &own, forbidden, |first, run| out.extend(first..first + run));
            return;
        }
        let mut sources = [0usize; 64];
        let count = own.count() as usize;
        if count > sources.len() {
            // More pioneers than any player count has: list and sort instead.
            let mut keyed: Vec<(u32, u32)> = Vec::new();
            self.for_each_slide(g, |src, d, steps, dst| {
                keyed.push((b.line_pos[d][dst], b.slide_action(src, d, steps) as u32));
            });
            keyed.sort_unstable();
            out.extend(keyed.iter().map(|&(_, a)| a));
            return;
        }
        for (slot, src) in sources.iter_mut().zip(own.iter()) {
            *slot = src;
        }
        let sources = &mut sources[..count];
        out.reserve(48 * count);
        for d in 0..6 {
            let positions = &b.line_pos[d];
            sources.sort_unstable_by_key(|&src| positions[src]);
            let step = &b.next[d];
            for &src in sources.iter() {
                // The slides of one pioneer in one direction are consecutive ids.
                let first = b.slide_action(src, d, 1) as u32;
                if forbidden.is_empty() {
                    let mut cell = step[src];
                    let mut run = 0;
                    while cell >= 0 && !self.filled.get(cell as usize) {
                        run += 1;
                        cell = step[cell as usize];
                    }
                    out.extend(first..first + run);
                    continue;
                }
                self.ray_slides(b, src, d, forbidden, |steps, _| {
                    out.push(first + steps as u32 - 1);
                });
            }
        }
    }

    /// [`State::slides_in_order`] read from the lines layout: the positions of the
    /// pioneers `own` in the six copies, read in ascending order, are the pioneers of
    /// each direction in the listing's order (no sorting), and each one's slides are the
    /// run of empty cells after its position, consecutive ids.
    fn slides_by_lines(
        &self,
        g: &Game<W>,
        lines: &Lines<W>,
        own: &Bits<W>,
        forbidden: &[(u16, u16)],
        mut emit: impl FnMut(u32, u32),
    ) {
        let b = &g.board;
        let mut at = [Bits::<W>::EMPTY; LINE_WORDS_PER_W];
        for src in own.iter() {
            for &p in b.cell_line_pos[src].iter() {
                let word = p as usize >> 6;
                at[word / W].0[word % W] |= 1 << (p & 63);
            }
        }
        for (k, bits) in at.iter().enumerate() {
            for (w, &word) in bits.0.iter().enumerate() {
                let mut word = word;
                while word != 0 {
                    let p = (k * W + w) * 64 + word.trailing_zeros() as usize;
                    word &= word - 1;
                    let (src, d) = b.line_cell[p];
                    let (src, d) = (src as usize, d as usize);
                    let run = lines.run_after(p as u32);
                    let first = b.slide_action(src, d, 1) as u32;
                    // A forbidden slide back on this ray is left out of its run.
                    let back = forbidden
                        .iter()
                        .filter(|&&(cur, _)| cur as usize == src)
                        .find_map(|&(_, start)| b.direction_steps(src, start as usize))
                        .filter(|&(back_d, steps)| back_d == d && steps as u32 <= run);
                    match back {
                        Some((_, steps)) => {
                            emit(first, steps as u32 - 1);
                            emit(first + steps as u32, run - steps as u32);
                        }
                        None => emit(first, run),
                    }
                }
            }
        }
    }

    /// The legal actions of `kinds` as [`ActionRuns`], without listing them; `None`
    /// where the lines are not kept (`Lines`: then [`State::actions_of_kind`] lists
    /// them). The runs hold slides, then cells, then the pass: the order of any `kinds`
    /// that `legal_kinds` gives (move, stone), and of any single kind.
    pub fn action_runs(&self, g: &Game<W>, kinds: &[Kind]) -> Option<ActionRuns<W>> {
        let b = &g.board;
        let lines = self.lines(g)?;
        let mut out = ActionRuns::default();
        for &kind in kinds {
            match (self.phase, kind) {
                (Phase::Play, Kind::Move) => {
                    let (own, forbidden) = self.slide_sources(g);
                    // The slides back that are forbidden, as (from, to) in their copy.
                    let mut backs = [(0u32, 0u32); 3];
                    let mut num_backs = 0;
                    for &(cur, start) in forbidden {
                        let cur = cur as usize;
                        if let Some((d, steps)) = b.direction_steps(cur, start as usize) {
                            if own.get(cur) {
                                let from = b.cell_line_pos[cur][d];
                                backs[num_backs] = (from, from + steps as u32);
                                num_backs += 1;
                            }
                        }
                    }
                    out.set_slides(b, lines, &own, &backs[..num_backs]);
                }
                (Phase::Play, Kind::Stone) => out.set_cells(self.stone_targets(g), b.stone_base() as u32),
                (Phase::Play, Kind::Pass) if self.legal_kinds(g) == Kinds::one(Kind::Pass) => {
                    out.pass = Some(b.pass_action() as u32)
                }
                (Phase::Placement, Kind::Place) => out.set_cells(b.all.minus(&self.filled), 0),
                _ => {}
            }
        }
        Some(out)
    }

    /// `legal_moves` as action ids, in the Python order.
    pub fn legal_actions(&self, g: &Game<W>) -> Vec<u32> {
        let mut out = Vec::new();
        for &kind in self.legal_kinds(g).as_slice() {
            self.actions_of_kind(g, kind, &mut out);
        }
        out
    }

    /// The legal actions as ids, ascending, into `out` (not cleared): what OpenSpiel's
    /// `legal_actions()` gives. The kinds' ids come in this order (placements, slides,
    /// stones, the pass), so only the slides are listed differently from
    /// [`State::actions_of_kind`]: by their ids (`Board::slide_action`), pioneer by
    /// pioneer (cells ascending), direction by direction, nearest first.
    pub fn legal_actions_ascending(&self, g: &Game<W>, out: &mut Vec<u32>) {
        for &kind in self.legal_kinds(g).as_slice() {
            if self.phase == Phase::Play && kind == Kind::Move {
                self.slides_ascending(g, out);
            } else {
                self.actions_of_kind(g, kind, out);
            }
        }
    }

    fn slides_ascending(&self, g: &Game<W>, out: &mut Vec<u32>) {
        let b = &g.board;
        let (own, forbidden) = self.slide_sources(g);
        let Some(lines) = self.lines(g) else {
            for src in own.iter() {
                for d in 0..6 {
                    let first = b.slide_action(src, d, 1) as u32;
                    self.ray_slides(b, src, d, forbidden, |steps, _| out.push(first + steps as u32 - 1));
                }
            }
            return;
        };
        // Each run is written in blocks of `RUN_BLOCK` consecutive ids (a fixed-length
        // loop), the next run starting where this one ends: the runs' lengths vary at
        // random, and a loop over each run's ids spent most of the listing in
        // mispredicted branches.
        const RUN_BLOCK: usize = 8;
        let mut len = out.len();
        for src in own.iter() {
            // The slide back onto its start that this pioneer may not make now (its id),
            // left out of its run where the run reaches it.
            let back = forbidden
                .iter()
                .filter(|&&(cur, _)| cur as usize == src)
                .find_map(|&(_, start)| b.direction_steps(src, start as usize))
                .map(|(d, steps)| b.slide_action(src, d, steps) as u32);
            let reach = lines.reach(b, src);
            out.resize(len + reach.iter().sum::<u32>() as usize + RUN_BLOCK, 0);
            for (d, run) in reach.into_iter().enumerate() {
                let first = b.slide_action(src, d, 1) as u32;
                let (mut at, mut id, mut left) = (len, first, run as usize);
                loop {
                    for (k, slot) in out[at..at + RUN_BLOCK].iter_mut().enumerate() {
                        *slot = id + k as u32;
                    }
                    if left <= RUN_BLOCK {
                        at += left;
                        break;
                    }
                    (at, id, left) = (at + RUN_BLOCK, id + RUN_BLOCK as u32, left - RUN_BLOCK);
                }
                if let Some(back) = back.filter(|back| (first..first + run).contains(back)) {
                    let skipped = len + (back - first) as usize;
                    out.copy_within(skipped + 1..at, skipped);
                    at -= 1;
                }
                len = at;
            }
        }
        out.truncate(len);
    }

    /// Whether `mv` is legal (`illegal_reason(...) is None`, as `rules.apply` checks it).
    pub fn is_legal(&self, g: &Game<W>, mv: Move) -> bool {
        let b = &g.board;
        match mv {
            Move::Place(cell) => self.phase == Phase::Placement && cell < b.num_cells && !self.filled.get(cell),
            Move::Slide { src, dst } => self.slide_ok(g, src, dst),
            Move::Stone(cell) => {
                self.phase == Phase::Play
                    && self.action != 0
                    && self.pending_return < 0
                    && self.supply > 0
                    && cell < b.num_cells
                    && !self.filled.get(cell)
                    && self.stone_targets(g).get(cell)
            }
            Move::Pass => {
                self.phase == Phase::Play && self.action == 0 && self.legal_kinds(g) == Kinds::one(Kind::Pass)
            }
        }
    }

    /// `slide_reason(...) is None`.
    fn slide_ok(&self, g: &Game<W>, src: usize, dst: usize) -> bool {
        let b = &g.board;
        if self.phase != Phase::Play || src >= b.num_cells || dst >= b.num_cells {
            return false;
        }
        if !self.pioneers[self.player()].get(src) {
            return false;
        }
        if self.pending_return >= 0 && src != self.pending_return as usize {
            return false;
        }
        // The straight, unblocked path along the board.
        let Some((direction, steps)) = b.direction_steps(src, dst) else {
            return false;
        };
        let mut cell = src as i32;
        for _ in 0..steps {
            cell = b.next[direction][cell as usize];
            if cell < 0 || self.filled.get(cell as usize) {
                return false;
            }
        }
        let start = self.start_cell(src);
        if dst == start && start != src {
            match g.rules.return_rule {
                ReturnRule::Strict => return false,
                ReturnRule::EndOfTurn if self.action != 1 => return false,
                ReturnRule::ThreeMovesOnly if self.action == 2 && self.moves_made == 2 && self.num_movers == 1 => {
                    return false
                }
                _ => {}
            }
        }
        true
    }
}
