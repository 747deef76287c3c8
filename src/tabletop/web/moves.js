// Click and keyboard selection over the server's legal moves.  Legality is never derived
// here: every candidate is one of the notation strings the engine listed.

/**
 * Splits each legal move into the board cells it names (in order) and its pattern, the
 * notation with those cells replaced by "·" (e.g. "·-·" for a slide, "gray@·").
 */
export function analyseMoves(legal, cellNames) {
  const known = new Set(cellNames);
  return flatLegal(legal).map(({ move, kind }) => {
    const cells = [];
    const pattern = move.replace(/[A-Za-z]+\d+/g, (tok) => {
      if (!known.has(tok)) return tok;
      cells.push(tok);
      return "·";
    });
    return { move, kind, cells, pattern };
  });
}

/** The server's legal moves ({kind: [notation, ...]}) as a list of {move, kind}. */
export function flatLegal(legal) {
  return Object.entries(legal || {}).flatMap(([kind, moves]) => moves.map((move) => ({ move, kind })));
}

/** The cells that may be clicked next after `picked` (cells already chosen), for `piece` (a pattern or null). */
export function nextTargets(moves, picked, piece) {
  const out = new Set();
  for (const m of moves) {
    if (piece && m.pattern !== piece) continue;
    if (m.cells.length <= picked.length) continue;
    if (picked.every((c, i) => m.cells[i] === c)) out.add(m.cells[picked.length]);
  }
  return out;
}

/**
 * What a click on `cell` means: {kind: "submit", move} for exactly one complete move,
 * {kind: "extend"} to keep selecting, {kind: "choose", moves} when several complete moves
 * fit, or {kind: "none"} when the click matches nothing legal.
 */
export function clickCell(moves, picked, piece, cell) {
  const path = [...picked, cell];
  const fits = moves.filter(
    (m) => (!piece || m.pattern === piece) && m.cells.length >= path.length && path.every((c, i) => m.cells[i] === c),
  );
  if (!fits.length) return { kind: "none" };
  const complete = fits.filter((m) => m.cells.length === path.length);
  const longer = fits.length - complete.length;
  if (complete.length === 1 && !longer) return { kind: "submit", move: complete[0].move };
  if (complete.length && !longer) return { kind: "choose", moves: complete.map((m) => m.move) };
  return { kind: "extend", path, moves: complete.map((m) => m.move) };
}

/** Pieces to pick before clicking: patterns with text besides cells (e.g. "gray@·"), grouped. */
export function pieceChoices(moves) {
  const seen = new Map();
  for (const m of moves) {
    if (!m.cells.length) continue;
    if (!/[^·\-\s]/.test(m.pattern)) continue; // pure cell patterns need no piece choice
    if (!seen.has(m.pattern)) seen.set(m.pattern, { pattern: m.pattern, kind: m.kind, count: 0 });
    seen.get(m.pattern).count++;
  }
  return [...seen.values()];
}

/** Moves that name no cell at all (e.g. "pass"): shown as buttons. */
export function cellFreeMoves(moves) {
  return moves.filter((m) => !m.cells.length).map((m) => m.move);
}

/**
 * The move texts a click on `cell` may have meant when it matches no legal move, for
 * asking the engine why not: every pattern of the chosen piece (or of any piece) with the
 * picked cells and `cell` filled in.  A pattern with more cells than picked repeats `cell`
 * (e.g. "c4-c4" for a slide's first click), which the engine refuses with the reason
 * about the first cell (no pioneer there).
 */
export function explainCandidates(moves, picked, piece, cell) {
  const path = [...picked, cell];
  const patterns = new Set(moves.filter((m) => (!piece || m.pattern === piece) && m.cells.length >= path.length).map((m) => m.pattern));
  if (!patterns.size && picked.length) return explainCandidates(moves, [], piece, cell);
  return [...patterns].map((pattern) => {
    let i = 0;
    return pattern.replace(/·/g, () => path[Math.min(i++, path.length - 1)]);
  });
}
