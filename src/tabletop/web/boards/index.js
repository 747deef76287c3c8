// Board drawers by game id.  Each exports cellNames(state), draw(state, view) -> {svg, cells}
// and optionally panel(state, view, t) for the game's own side information.
import * as generic from "./generic.js";
import * as medina from "./medina.js";
import * as terranova from "./terranova.js";

const BOARDS = { terranova, medina };

export function boardFor(gameId) {
  return BOARDS[gameId] || generic;
}
