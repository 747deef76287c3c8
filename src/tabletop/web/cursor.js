// Keyboard play on any board: a cursor (the one focusable cell) that the arrow keys move
// to the nearest cell in that direction, Enter or Space acts on it.  Works from the cells'
// drawn positions, so every board (hex or square) gets it without knowing its geometry.

const DIRECTIONS = { ArrowRight: [1, 0], ArrowLeft: [-1, 0], ArrowDown: [0, 1], ArrowUp: [0, -1] };

function centre(el) {
  const box = el.getBBox ? el.getBBox() : null;
  if (box && (box.width || box.height)) return [box.x + box.width / 2, box.y + box.height / 2];
  const r = el.getBoundingClientRect();
  return [r.x + r.width / 2, r.y + r.height / 2];
}

/** The cell nearest to `from` in direction `dir` (within a 60° cone), or null. */
export function nextCell(points, from, dir) {
  const [fx, fy] = points.get(from);
  const [dx, dy] = dir;
  let best = null;
  let bestCost = Infinity;
  for (const [name, [x, y]] of points) {
    if (name === from) continue;
    const vx = x - fx;
    const vy = y - fy;
    const along = vx * dx + vy * dy;
    if (along <= 0) continue;
    const across = Math.abs(vx * dy - vy * dx);
    if (across > along * 1.2) continue; // outside the cone
    const cost = along + 2 * across;
    if (cost < bestCost) {
      bestCost = cost;
      best = name;
    }
  }
  return best;
}

/**
 * Makes the board's cells keyboard-playable: exactly one cell is in the tab order (the
 * cursor, remembered across redraws by `state.cursor`), arrows move it, Enter/Space call
 * `onAct(cell)`.  `label(cell)` gives each cell's screen-reader name.
 */
export function attachCursor(svg, cells, { state, onAct, label, preferred = [] }) {
  if (!cells.size) return;
  const names = [...cells.keys()];
  let cursor = state.cursor && cells.has(state.cursor) ? state.cursor : preferred.find((c) => cells.has(c)) || names[0];
  let points = null;
  const place = () => (points ||= new Map(names.map((n) => [n, centre(cells.get(n))])));
  for (const [name, el] of cells) {
    el.setAttribute("tabindex", name === cursor ? "0" : "-1");
    el.setAttribute("role", "button");
    el.setAttribute("aria-label", label(name));
    el.addEventListener("focus", () => {
      cells.get(cursor)?.setAttribute("tabindex", "-1");
      cursor = name;
      state.cursor = name;
      el.setAttribute("tabindex", "0");
      el.classList.add("cursor");
    });
    el.addEventListener("blur", () => el.classList.remove("cursor"));
  }
  svg.addEventListener("keydown", (e) => {
    const g = e.target.closest?.("[data-cell]");
    if (!g) return;
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      onAct(g.dataset.cell);
      return;
    }
    const dir = DIRECTIONS[e.key];
    if (!dir) return;
    e.preventDefault(); // the page must not scroll as well
    const next = nextCell(place(), g.dataset.cell, dir);
    if (next) cells.get(next).focus();
  });
}
