// Terra Nova: the island as the server draws it, and the game's side panel.
import { h } from "../dom.js";
import { drawServerBoard } from "./board.js";

export function cellNames(state) {
  return (state.cells || []).map((c) => c.name);
}

/** The server's drawing of the board (render_board), made interactive (boards/board.js). */
export function draw(state, view) {
  return drawServerBoard(view.board_svg, view);
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
