// Fallback for games without a drawer: the engine's own SVG plus no clickable cells.
import { s } from "../dom.js";

export function cellNames() {
  return [];
}

export function draw(_state, view) {
  const svg = s("svg", { viewBox: "0 0 100 100", role: "img" });
  if (view.match) svg.append(s("image", { href: `/api/matches/${view.match}/svg?v=${view.version}`, width: 100, height: 100 }));
  return { svg, cells: new Map() };
}
