//! Random play for Terra Nova: the kind-first random move (as `ai.agent.random_move`);
//! `crate::game::Game::playout` (`terranova::game`) plays such moves to the end.

use super::moves::{Kind, Move};
use super::state::{Game, Lines, State};
use crate::common::bits::Bits;
use crate::common::rng::Rng;

impl<const W: usize> State<W> {
    /// A kind-first random legal move (as `ai.agent.random_move`), `None` if there is none.
    /// A slide is counted and found in the lines layout (`Lines`), or else drawn from the
    /// listed slides (`slides` is the list's buffer): the same slide for the same draw.
    pub fn random_move(&self, g: &Game<W>, rng: &mut Rng, slides: &mut Vec<(u16, u16)>) -> Option<Move> {
        let kinds = self.legal_kinds(g);
        let kinds = kinds.as_slice();
        let kind = match kinds.len() {
            0 => return None,
            1 => kinds[0],
            k => kinds[rng.below(k as u32) as usize],
        };
        let pick = |set: Bits<W>, rng: &mut Rng| {
            let count = set.count();
            if count == 0 {
                None
            } else {
                set.nth(if count == 1 { 0 } else { rng.below(count) })
            }
        };
        match kind {
            Kind::Place => pick(g.board.all.minus(&self.filled), rng).map(Move::Place),
            Kind::Stone => pick(self.stone_targets(g), rng).map(Move::Stone),
            Kind::Pass => Some(Move::Pass),
            Kind::Move => match self.lines(g) {
                Some(lines) => self.random_counted_slide(g, lines, rng),
                None => self.random_listed_slide(g, rng, slides),
            },
        }
    }

    /// A uniformly random legal slide, from the full list.
    pub(super) fn random_listed_slide(&self, g: &Game<W>, rng: &mut Rng, slides: &mut Vec<(u16, u16)>) -> Option<Move> {
        slides.clear();
        self.for_each_slide(g, |src, _, _, dst| slides.push((src as u16, dst as u16)));
        let count = slides.len() as u32;
        if count == 0 {
            return None;
        }
        let (src, dst) = slides[if count == 1 { 0 } else { rng.below(count) } as usize];
        Some(Move::Slide {
            src: src as usize,
            dst: dst as usize,
        })
    }

    /// A uniformly random legal slide, counted in `lines`: the same slide as
    /// [`State::random_listed_slide`] gives for the same draw (the listing's order is
    /// source, then direction, then steps; the forbidden slides back left out).
    pub(super) fn random_counted_slide(&self, g: &Game<W>, lines: &Lines<W>, rng: &mut Rng) -> Option<Move> {
        let b = &g.board;
        let (own, forbidden) = self.slide_sources(g);
        let mut count = 0;
        let mut sources = [(0usize, [0u32; 6]); 16];
        let mut num_sources = 0;
        for src in own.iter() {
            let reach = lines.reach(b, src);
            count += reach.iter().sum::<u32>();
            if num_sources < 16 {
                sources[num_sources] = (src, reach);
            }
            num_sources += 1;
        }
        if num_sources > 16 {
            return self.random_listed_slide(g, rng, &mut Vec::new());
        }
        // The forbidden slides back that are on an open ray: at most one per pioneer.
        let mut skips = [(usize::MAX, 0usize, 0u32); 3];
        let mut num_skips = 0;
        for &(cur, start) in forbidden {
            let (cur, start) = (cur as usize, start as usize);
            if !own.get(cur) {
                continue;
            }
            if let Some((d, steps)) = b.direction_steps(cur, start) {
                if steps as u32 <= lines.run_after(b.cell_line_pos[cur][d]) {
                    skips[num_skips] = (cur, d, steps as u32);
                    num_skips += 1;
                }
            }
        }
        let skips = &skips[..num_skips];
        let count = count - num_skips as u32;
        if count == 0 {
            return None;
        }
        let mut index = if count == 1 { 0 } else { rng.below(count) };
        for &(src, reach) in sources[..num_sources].iter() {
            let skip = skips.iter().find(|k| k.0 == src);
            for (d, &run) in reach.iter().enumerate() {
                let skipped = skip.filter(|k| k.1 == d).map(|k| k.2);
                let run = run - skipped.is_some() as u32;
                if index >= run {
                    index -= run;
                    continue;
                }
                let mut steps = index + 1;
                if skipped.is_some_and(|k| steps >= k) {
                    steps += 1;
                }
                let mut dst = src;
                for _ in 0..steps {
                    dst = b.next[d][dst] as usize;
                }
                return Some(Move::Slide { src, dst });
            }
        }
        None // the counts above add up, so this is never reached
    }
}
