// Terra Nova: pointy-top hex island drawn from to_json (cells with q, r, landscape).
import { h, s } from "../dom.js";
import { patternDefs, seatMarker } from "./shapes.js";

const R = 20; // hex radius in SVG units; the viewBox scales it to any screen
const SQ3 = Math.sqrt(3);

export function cellNames(state) {
  return (state.cells || []).map((c) => c.name);
}

function centre(c) {
  return [R * SQ3 * (c.q + c.r / 2), R * 1.5 * c.r];
}

function hexPoints(x, y, r) {
  const pts = [];
  for (let i = 0; i < 6; i++) {
    const a = (Math.PI / 180) * (60 * i - 30);
    pts.push(`${(x + r * Math.cos(a)).toFixed(2)},${(y + r * Math.sin(a)).toFixed(2)}`);
  }
  return pts.join(" ");
}

export function draw(state, view) {
  const cells = new Map();
  const xs = [];
  const ys = [];
  for (const c of state.cells) {
    const [x, y] = centre(c);
    xs.push(x);
    ys.push(y);
  }
  const pad = R * 1.6;
  const minX = Math.min(...xs) - pad;
  const minY = Math.min(...ys) - pad;
  const w = Math.max(...xs) - minX + pad;
  const hgt = Math.max(...ys) - minY + pad;
  const svg = s("svg", {
    viewBox: `${minX.toFixed(1)} ${minY.toFixed(1)} ${w.toFixed(1)} ${hgt.toFixed(1)}`,
    role: "group",
    "aria-label": state.map?.name || "Terra Nova",
    class: "terranova",
  });
  const lands = state.landscapes || [];
  const landIndex = new Map(lands.map((l, i) => [l.id, i]));
  svg.append(patternDefs("tn-land-", lands.length));
  const owner = new Map();
  (state.pioneers || []).forEach((list, seat) => list.forEach((n) => owner.set(n, seat)));
  const stones = new Set(state.stones || []);
  const closed = new Set(state.closed || []);
  const colourOf = (seat) => state.players?.[seat]?.colour;
  const lastTurn = Math.max(-1, ...(state.areas || []).map((a) => a.turn ?? -1));
  for (const c of state.cells) {
    const [x, y] = centre(c);
    const li = landIndex.get(c.landscape) ?? 0;
    const land = lands[li] || {};
    const g = s("g", { class: "cell", "data-cell": c.name, role: "button", "aria-label": `${c.name} ${land.name || c.landscape}` });
    if (closed.has(c.name)) g.classList.add("closed");
    g.append(
      s("polygon", { class: "land", points: hexPoints(x, y, R), fill: land.colour || "#ccc" }),
      s("polygon", { class: "texture", points: hexPoints(x, y, R), fill: `url(#tn-land-${li})` }),
    );
    if (stones.has(c.name)) g.append(s("polygon", { class: "stone", points: hexPoints(x, y, R * 0.72) }));
    if (owner.has(c.name)) {
      const seat = owner.get(c.name);
      const m = seatMarker(seat, x, y, R * 0.55);
      if (colourOf(seat)) m.dataset.colour = colourOf(seat);
      g.append(m);
    }
    g.append(s("polygon", { class: "hl", points: hexPoints(x, y, R - 2) }));
    g.append(s("title", {}, `${c.name} · ${land.name || c.landscape}`));
    svg.append(g);
    cells.set(c.name, g);
  }
  // Scored areas of the last scoring turn get their points written on them.
  for (const a of state.areas || []) {
    if (a.turn !== lastTurn || !a.cells.length) continue;
    const pts = a.cells.map((n) => centre(state.cells.find((c) => c.name === n)));
    const cx = pts.reduce((t, p) => t + p[0], 0) / pts.length;
    const cy = pts.reduce((t, p) => t + p[1], 0) / pts.length;
    const best = a.awards.map((v, i) => [v, i]).filter(([v]) => v > 0);
    const text = best.length ? best.map(([v, i]) => `+${v} ${view.players?.[i]?.name ?? i + 1}`).join(", ") : "0";
    svg.append(s("text", { class: "area-label", x: cx, y: cy }, text));
  }
  return { svg, cells };
}

export function panel(state, view, t) {
  const p = state.progress || {};
  return h("div.game-panel", { id: "game-panel" },
    state.phase === "play" && !view.terminal && p.actions_left != null
      ? h("p.actions-left", { id: "actions-left", text: t("game.actions_left", { n: p.actions_left }) })
      : null,
    h("p", { id: "stones-left", text: t("game.stones", { n: state.supply }) }),
    h("table.pioneers", {},
      h("caption", { text: t("game.pioneers") }),
      (state.players || []).map((pl) => h("tr", {},
        h("td", {}, h("span", { class: `swatch p${pl.seat}` }), ` ${view.players?.[pl.seat]?.name ?? pl.seat}`),
        h("td", { title: "on the board", text: `⬢ ${pl.pioneers.length}` }),
        h("td", { title: "to place", text: `↓ ${pl.in_hand}` }),
        h("td", { title: "removed", text: `✕ ${pl.removed}` })))),
  );
}
