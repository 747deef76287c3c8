// Fallback for games without a drawer: the server's board drawing if the game has one
// (render_board), else the engine's own SVG with no clickable cells.
import { s } from "../dom.js";
import { drawServerBoard } from "./board.js";

export function cellNames() {
  return [];
}

export function draw(_state, view) {
  if (view.board_svg) return drawServerBoard(view.board_svg, view);
  const svg = s("svg", { viewBox: "0 0 100 100", role: "img" });
  if (view.match) svg.append(s("image", { href: `/api/matches/${view.match}/svg?v=${view.version}`, width: 100, height: 100 }));
  return { svg, cells: new Map() };
}
