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

/**
 * What the player to move is asked to do, as an i18n key and its parameters: read from the
 * state view (phase, pieces in hand, the turn's progress) and the legal kinds.
 */
export function prompt(state, kinds) {
  if (state.phase === "placement") {
    return { key: "status.terranova.place", params: { n: state.players?.[state.current_player]?.in_hand ?? 0 } };
  }
  if (kinds.length === 1 && kinds[0] === "pass") return { key: "status.pass", params: {} };
  const p = state.progress || {};
  const params = { a: p.action ?? 1, total: (p.actions_taken ?? 0) + (p.actions_left ?? 0), cells: (p.movers || []).map((m) => m.cell) };
  if (kinds.includes("place")) return { key: "status.terranova.return", params };
  if (kinds.includes("move") && kinds.includes("stone")) return { key: "status.terranova.slide_or_stone", params };
  if (kinds.includes("stone")) return { key: "status.terranova.stone", params };
  return { key: "status.terranova.slide", params };
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
      h("thead", {}, h("tr", {}, h("th"), ["on_board", "in_hand", "removed"].map((k) => h("th.num", { scope: "col", text: t(`game.pioneers_${k}`) })))),
      (state.players || []).map((pl) => h("tr", {},
        h("td", {}, h("span", { class: `swatch p${pl.seat}` }), ` ${view.players?.[pl.seat]?.name ?? pl.seat}`),
        h("td", { title: t("game.pioneers_on_board"), "aria-label": t("game.pioneers_on_board"), text: `⬢ ${pl.pioneers.length}` }),
        h("td", { title: t("game.pioneers_in_hand"), "aria-label": t("game.pioneers_in_hand"), text: `↓ ${pl.in_hand}` }),
        h("td", { title: t("game.pioneers_removed"), "aria-label": t("game.pioneers_removed"), text: `✕ ${pl.removed}` })))),
  );
}
