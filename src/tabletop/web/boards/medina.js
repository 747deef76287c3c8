// Medina: the city as the server draws it, and the game's side panel (supplies, tiles).
import { h } from "../dom.js";
import { drawServerBoard } from "./board.js";

const PALACE_INDEX = { gray: 0, black: 1, purple: 1, brown: 2, orange: 3 };

export function cellNames(state) {
  const b = state.board || {};
  return [...(b.building_squares || []), ...(b.wall_spaces || []), ...(b.towers || []).map((t) => t.square)];
}

/** The server's drawing of the board (render_board), made interactive (boards/board.js). */
export function draw(state, view) {
  return drawServerBoard(view.board_svg, view);
}

/** What the player to move is asked to do (see terranova.js): the start merchant, a dome the rules oblige, or a piece. */
export function prompt(state, kinds) {
  if (state.phase === "start_merchant") return { key: "status.medina.start", params: {} };
  if (kinds.length === 1 && kinds[0] === "pass") return { key: "status.pass", params: {} };
  const params = { n: state.placements_left ?? 1 };
  if (kinds.length === 1 && kinds[0] === "dome") return { key: "status.medina.dome", params };
  return { key: "status.medina.place", params };
}

const SLOTS = ["gray", "black", "brown", "orange", "dome", "stable", "merchant", "wall"];
// The second edition: purple palaces, neutral domes and tea tiles (public, like domes).
const SLOTS_2E = ["gray", "purple", "brown", "orange", "dome", "neutral", "stable", "merchant", "wall", "tea"];
const PUBLIC = ["dome", "neutral", "tea"];

export function panel(state, view, t) {
  const second = state.edition === 2;
  const slots = second ? SLOTS_2E : SLOTS;
  const name = (seat) => (seat === "neutral" ? t("game.neutral") : seat == null ? "–" : view.players?.[seat]?.name ?? seat + 1);
  const swatch = (seat) => (seat == null ? null : h("span", { class: seat === "neutral" ? "swatch neutral" : `swatch p${seat}` }));
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
    // A row a piece (its whole name), a column a player: as narrow as the players are many.
    h("table.supplies", { id: "supplies" },
      h("caption", { text: t("game.supplies") }),
      h("thead", {}, h("tr", {}, h("th", { scope: "col", text: t("game.piece") }),
        (state.supplies || []).map((_, seat) => h("th.num", { scope: "col", "data-seat": seat }, h("span", { class: `swatch p${seat}`, "aria-hidden": "true" }), ` ${name(seat)}`)))),
      h("tbody", {}, slots.map((sl) => h("tr", { "data-slot": sl },
        h("th", { scope: "row" }, PALACE_INDEX[sl] != null ? h("span", { class: `chip ${sl}` }) : null, ` ${slotLabel(sl)}`),
        (state.supplies || []).map((sup, seat) => h("td.num", { "data-seat": seat, text: hidden(seat) && !PUBLIC.includes(sl) ? "?" : String(sup[sl] ?? "") })))))),
    second ? h("p", { id: "tea-pool", text: `${t("game.tea_pool")}: ${state.tea_pool}` }) : null,
    second && state.well ? h("p", { id: "well", text: `${t("game.well")}: ${state.well.square}` }) : null,
    h("table.tiles", { id: "tiles" },
      h("caption", { text: t("game.tiles") }),
      Object.entries(state.palace_tiles || {}).map(([colour, tile]) => h("tr", {},
        h("td", {}, h("span", { class: `chip ${colour}` }), ` ${slotLabel(colour)} (${tile.value})`),
        h("td", {}, swatch(tile.holder), ` ${name(tile.holder)}`))),
      Object.entries(state.tower_tiles || {}).map(([sq, tile]) => h("tr", {},
        h("td", { text: `▲ ${sq} (${tile.value})` + (state.tower_merchants?.[sq] ? ` +${state.tower_merchants[sq]} ♟` : "") }),
        h("td", {}, swatch(tile.holder), ` ${name(tile.holder)}`)))),
  );
}
