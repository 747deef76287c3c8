// Medina: the 18 × 13 grid (wall ring included), row 1 at the bottom, drawn from to_json.
import { h, s } from "../dom.js";
import { seatMarker } from "./shapes.js";

const S = 30; // square size in SVG units
const FILES = "ABCDEFGHIJKLMNOPQR";
const PALACE_INDEX = { gray: 0, black: 1, brown: 2, orange: 3 };

function sqXY(name) {
  const col = FILES.indexOf(name[0]);
  const row = Number(name.slice(1));
  return [col * S, (13 - row) * S];
}

export function cellNames(state) {
  const b = state.board || {};
  return [...(b.building_squares || []), ...(b.wall_spaces || []), ...(b.towers || []).map((t) => t.square)];
}

function palaceDefs() {
  // One pattern per palace colour so the four colours differ by texture too.
  const defs = s("defs", {});
  const specs = [
    ["gray", "#a7a7a7", null],
    ["black", "#3a3a3a", "M0,0 L8,8 M8,0 L0,8"],
    ["brown", "#9c6b3c", "M0,4 L8,4"],
    ["orange", "#e69f00", "M0,8 L8,0"],
  ];
  for (const [name, fill, path] of specs) {
    const p = s("pattern", { id: `md-${name}`, width: 8, height: 8, patternUnits: "userSpaceOnUse" },
      s("rect", { width: 8, height: 8, fill }));
    if (path) p.append(s("path", { d: path, stroke: name === "black" ? "#bbb" : "#222", "stroke-width": 1.2 }));
    defs.append(p);
  }
  return defs;
}

export function draw(state, view) {
  const cells = new Map();
  const svg = s("svg", { viewBox: `-4 -4 ${18 * S + 8} ${13 * S + 30}`, role: "group", "aria-label": "Medina", class: "medina" });
  svg.append(palaceDefs());
  const b = state.board;
  const building = new Set(b.building_squares);
  const wallSpaces = new Set(b.wall_spaces);
  const towers = new Map(b.towers.map((t) => [t.square, t]));
  const pieces = new Map((state.pieces || []).map((p) => [p.square, p]));
  const walls = new Set((state.walls || []).map((w) => w.square));
  const domes = new Map((state.domes || []).map((d) => [d.square, d]));
  const owners = new Map((state.palaces || []).map((p) => [p.id, p.owner]));
  const chainEnds = new Set(state.merchant_chain?.ends || []);
  for (let row = 13; row >= 1; row--) {
    for (let col = 0; col < 18; col++) {
      const name = `${FILES[col]}${row}`;
      const [x, y] = sqXY(name);
      const kind = towers.has(name) ? "tower" : wallSpaces.has(name) ? "wall-space" : building.has(name) ? "building" : "border";
      const g = s("g", { class: `cell ${kind}`, "data-cell": name, role: "button", "aria-label": name });
      g.append(s("rect", { class: "sq", x, y, width: S, height: S }));
      const p = pieces.get(name);
      if (p?.type === "palace") {
        const owner = owners.get(p.palace);
        g.append(s("rect", { class: `palace ${p.color}`, x: x + 2, y: y + 2, width: S - 4, height: S - 4, fill: `url(#md-${p.color})` }));
        if (owner != null) g.append(s("rect", { class: `owned p${owner}`, x: x + 1, y: y + 1, width: S - 2, height: S - 2 }));
      } else if (p?.type === "stable") {
        g.append(s("path", { class: "stable", d: `M${x + 6},${y + S - 6} v-11 l${S / 2 - 6},-7 l${S / 2 - 6},7 v11 z` }));
      } else if (p?.type === "merchant") {
        g.append(s("circle", { class: `merchant${p.active ? " active" : ""}${chainEnds.has(name) ? " end" : ""}`, cx: x + S / 2, cy: y + S / 2 - 3, r: 5 }),
          s("path", { class: `merchant${p.active ? " active" : ""}`, d: `M${x + 8},${y + S - 5} q${S / 2 - 8},-14 ${S - 16},0 z` }));
      }
      if (walls.has(name)) g.append(s("rect", { class: "wall", x: x + 3, y: y + 3, width: S - 6, height: S - 6 }));
      if (domes.has(name)) {
        const d = domes.get(name);
        g.append(s("path", { class: `dome p${d.player}`, d: `M${x + 5},${y + S / 2 + 4} a${S / 2 - 5},${S / 2 - 5} 0 0 1 ${S - 10},0 z` }),
          seatMarker(d.player, x + S / 2, y + S / 2 + 8, 4));
      }
      if (towers.has(name)) {
        const tw = towers.get(name);
        g.append(s("text", { class: "tower-value", x: x + S / 2, y: y + S / 2 + 4 }, String(tw.value)));
        if (tw.holder != null) g.append(seatMarker(tw.holder, x + S - 7, y + 7, 5));
      }
      g.append(s("rect", { class: "hl", x: x + 2, y: y + 2, width: S - 4, height: S - 4 }));
      g.append(s("title", {}, name));
      svg.append(g);
      cells.set(name, g);
    }
  }
  for (let col = 0; col < 18; col++) svg.append(s("text", { class: "coord", x: col * S + S / 2, y: 13 * S + 16 }, FILES[col]));
  return { svg, cells };
}

const SLOTS = ["gray", "black", "brown", "orange", "dome", "stable", "merchant", "wall"];

export function panel(state, view, t) {
  const name = (seat) => (seat == null ? "–" : view.players?.[seat]?.name ?? seat + 1);
  const slotLabel = (slot) => {
    const key = `piece.${slot}`;
    const txt = t(key);
    return txt === key ? slot : txt;
  };
  // Supplies stay behind each player's screen (rule option hide_supplies): only domes are
  // public.  The live page hides the others' counts; a replay (no seats) shows them all.
  const hidden = (seat) => state.rules?.hide_supplies && view.mySeats && !view.mySeats.includes(seat) && !view.terminal;
  return h("div.game-panel", { id: "game-panel" },
    state.placements_left != null && !view.terminal ? h("p", { id: "placements-left", text: t("game.actions_left", { n: state.placements_left }) }) : null,
    h("table.supplies", { id: "supplies" },
      h("caption", { text: t("game.supplies") }),
      h("tr", {}, h("th"), SLOTS.map((sl) => h("th", { title: slotLabel(sl) },
        PALACE_INDEX[sl] != null ? h("span", { class: `chip ${sl}` }) : null, ` ${slotLabel(sl).slice(0, 3)}`))),
      (state.supplies || []).map((sup, seat) => h("tr", {},
        h("td", {}, h("span", { class: `swatch p${seat}` }), ` ${name(seat)}`),
        SLOTS.map((sl) => h("td", { text: hidden(seat) && sl !== "dome" ? "?" : String(sup[sl] ?? "") }))))),
    h("table.tiles", { id: "tiles" },
      h("caption", { text: t("game.tiles") }),
      Object.entries(state.palace_tiles || {}).map(([colour, tile]) => h("tr", {},
        h("td", {}, h("span", { class: `chip ${colour}` }), ` ${slotLabel(colour)} (${tile.value})`),
        h("td", {}, tile.holder != null ? h("span", { class: `swatch p${tile.holder}` }) : null, ` ${name(tile.holder)}`))),
      Object.entries(state.tower_tiles || {}).map(([sq, tile]) => h("tr", {},
        h("td", { text: `▲ ${sq} (${tile.value})` }),
        h("td", {}, tile.holder != null ? h("span", { class: `swatch p${tile.holder}` }) : null, ` ${name(tile.holder)}`)))),
  );
}
