// Player tokens: colour plus a distinct shape per seat, so colour is never the only cue.
import { s } from "../dom.js";

export const SEAT_SHAPES = ["circle", "square", "triangle", "diamond"];

/** A seat's marker centred on (x, y) with radius r. */
export function seatMarker(seat, x, y, r, extra = {}) {
  const cls = `token p${seat}`;
  switch (SEAT_SHAPES[seat % 4]) {
    case "square":
      return s("rect", { class: cls, x: x - r * 0.85, y: y - r * 0.85, width: r * 1.7, height: r * 1.7, rx: r * 0.2, ...extra });
    case "triangle":
      return s("polygon", { class: cls, points: `${x},${y - r} ${x + r * 0.95},${y + r * 0.75} ${x - r * 0.95},${y + r * 0.75}`, ...extra });
    case "diamond":
      return s("polygon", { class: cls, points: `${x},${y - r} ${x + r},${y} ${x},${y + r} ${x - r},${y}`, ...extra });
    default:
      return s("circle", { class: cls, cx: x, cy: y, r: r * 0.9, ...extra });
  }
}

/** Hatch/dot patterns used as a second cue besides colour (landscapes, palace colours). */
export function patternDefs(prefix, count) {
  const defs = s("defs", {});
  const kinds = ["diag", "dots", "horiz", "cross", "vert", "rings", "zigzag", "plain"];
  for (let i = 0; i < count; i++) {
    const kind = kinds[i % kinds.length];
    const p = s("pattern", { id: `${prefix}${i}`, width: 8, height: 8, patternUnits: "userSpaceOnUse" });
    const ink = { stroke: "rgba(0,0,0,0.35)", "stroke-width": 1.2, fill: "none" };
    if (kind === "diag") p.append(s("path", { d: "M0,8 L8,0", ...ink }));
    if (kind === "dots") p.append(s("circle", { cx: 4, cy: 4, r: 1.3, fill: "rgba(0,0,0,0.35)" }));
    if (kind === "horiz") p.append(s("path", { d: "M0,4 L8,4", ...ink }));
    if (kind === "cross") p.append(s("path", { d: "M0,0 L8,8 M8,0 L0,8", ...ink }));
    if (kind === "vert") p.append(s("path", { d: "M4,0 L4,8", ...ink }));
    if (kind === "rings") p.append(s("circle", { cx: 4, cy: 4, r: 2.5, ...ink }));
    if (kind === "zigzag") p.append(s("path", { d: "M0,6 L2,2 L4,6 L6,2 L8,6", ...ink }));
    defs.append(p);
  }
  return defs;
}
