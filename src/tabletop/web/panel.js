// The game panel beside the board: players with their last score change, score events
// as a feed, the move list (click a move to see that position), and the end screen with
// the engine's final tables, all in the page's language.
import { h } from "./dom.js";
import { has, num, t } from "./i18n.js";
import { levelName } from "./ladder.js";
import { landscapeLabel } from "./boards/board.js";

/**
 * Extra end-screen buttons by id (e.g. "analyse"): each maps the final view to a click
 * handler, or to null where the button does not apply.  Other modules register here.
 */
export const endActions = {};

/** A player's name with their seat's swatch (players are shown by name, never by colour). */
export function seatName(players, seat) {
  return h("span.seat-name", {}, h("span", { class: `swatch p${seat}`, "aria-hidden": "true" }), ` ${players[seat]?.name ?? seat + 1}`);
}

/**
 * Score events from a list of positions ({ply, seat, action, scores}): who gained how
 * much with which action, newest first.
 */
export function scoreEvents(history) {
  const events = [];
  for (let i = 1; i < history.length; i++) {
    const before = history[i - 1].scores || [];
    (history[i].scores || []).forEach((score, seat) => {
      const gained = score - (before[seat] ?? 0);
      if (gained) events.push({ ply: history[i].ply, seat, gained, action: history[i].action, actor: history[i].seat });
    });
  }
  return events.reverse();
}

/** Per seat, the last change of their score ({gained, ply}) in `events` (newest first). */
export function lastChanges(events) {
  const out = new Map();
  for (const e of events) if (!out.has(e.seat)) out.set(e.seat, e);
  return out;
}

export function playerList(view, { mySeats, changes, justScored }) {
  return h("ol.players", { id: "players", "aria-label": t("game.scores") },
    view.players.map((p) => {
      const isTurn = view.current_player === p.seat && !view.terminal;
      const won = view.outcome && view.outcome.winners.includes(p.seat);
      const last = changes.get(p.seat);
      const label = `${p.name}: ${num(view.scores[p.seat])}${isTurn ? `, ${t("game.to_move")}` : ""}`;
      return h("li", { class: `player p${p.seat}${isTurn ? " to-move" : ""}${won ? " winner" : ""}`, "data-seat": p.seat, "aria-label": label },
        h("span", { class: `swatch p${p.seat}`, "aria-hidden": "true" }),
        h("span.name", { text: p.name + (p.agent !== "human" ? ` (${t("game.bot")}: ${levelName(p.agent)})` : "") + (mySeats.has(p.seat) ? " ★" : "") }),
        isTurn ? h("span.turn-mark", { text: "◀", title: t("game.to_move"), "aria-hidden": "true" }) : null,
        h("span.score", { "data-seat": p.seat, text: num(view.scores[p.seat]) }),
        last ? h("span", { class: `change${justScored.has(p.seat) ? " gain" : ""}`, title: t("game.last_change", { sign: last.gained > 0 ? "+" : "−", n: Math.abs(last.gained) }),
          text: `${last.gained > 0 ? "+" : "−"}${num(Math.abs(last.gained))}` }) : null);
    }));
}

/** Score events as a feed (a list with its own scroll), never floating over the controls. */
export function scoreFeed(events, players) {
  return h("section.feed", { id: "score-feed", "aria-label": t("game.feed") },
    h("h3", { text: t("game.feed") }),
    events.length
      ? h("ol.feed-list", {}, events.slice(0, 40).map((e) => h("li", { class: `p${e.seat}`, "data-ply": e.ply },
          seatName(players, e.seat), " ",
          h("strong", { text: `${e.gained > 0 ? "+" : "−"}${num(Math.abs(e.gained))}` }),
          e.action ? h("code", { text: ` ${e.action}` }) : null)))
      : h("p.muted", { text: t("game.feed_empty") }));
}

/**
 * The move list: each action with its player.  `viewing` is the ply shown (null: live);
 * `onPick(ply)` shows the position after that action.
 */
export function moveList(view, { viewing, recentFrom, onPick }) {
  const current = viewing == null ? -1 : viewing - 1;
  const ol = h("ol.log", { id: "log", "aria-label": t("game.log") },
    view.log.map((e) => h("li", { class: `p${e.seat}${e.ply >= recentFrom ? " recent" : ""}${e.ply === current ? " current" : ""}`, "data-ply": e.ply },
      h("button.move", { type: "button", onclick: () => onPick(e.ply + 1), "aria-current": e.ply === current ? "true" : null,
        title: t("game.viewing", { ply: e.ply + 1, n: view.log.length }) },
        h("span", { class: `swatch p${e.seat}`, "aria-hidden": "true" }), ` ${view.players[e.seat]?.name}: `, h("code", { text: e.action })))));
  requestAnimationFrame(() => {
    const target = ol.querySelector("li.current") || ol.lastElementChild;
    if (target) ol.scrollTop = target.offsetTop - ol.clientHeight / 2;
    if (!ol.querySelector("li.current")) ol.scrollTop = ol.scrollHeight;
  });
  return ol;
}

/** One cell of a score sheet table (see Game.score_sheet in core/protocol.py). */
function sheetCell(cell, players) {
  if (cell == null) return "";
  if (Array.isArray(cell)) {
    if (!cell.length) return "–";
    return cell.flatMap((c, i) => (i ? [", ", sheetCell(c, players)] : [sheetCell(c, players)]));
  }
  if (typeof cell === "number") return num(cell);
  if (typeof cell === "string") return cell;
  if (cell.seat != null) {
    const who = seatName(players, cell.seat);
    if (cell.gain != null) return h("span", {}, who, ` +${num(cell.gain)}`);
    if (cell.count != null) return h("span", {}, who, ` ×${num(cell.count)}`);
    return who;
  }
  if (cell.text) {
    const params = { ...cell.params };
    if (params.color && has(`color.${params.color}`)) params.color = t(`color.${params.color}`);
    return t(cell.text, params);
  }
  return String(cell);
}

/**
 * The final tables.  `landscapes` (the state's [{id, name}]) turns a column of landscape
 * letters (sheet.landscapes) into the landscapes' names.
 */
export function scoreSheet(sheet, players, landscapes = []) {
  const names = new Map(landscapes.map((l) => [l.id, landscapeLabel(l.name)]));
  const spell = (letters) => [...letters].map((id) => names.get(id) ?? id).join(", ");
  return (sheet?.tables || []).map((table) => h("div.sheet-wrap", {},
    h("table.sheet", { id: `sheet-${table.id}`, class: `sheet sheet-${table.id}` },
      h("caption", { text: t(table.caption) }),
      h("thead", {}, h("tr", {}, table.headers.map((key) => h("th", { scope: "col", text: t(key) })))),
      h("tbody", {}, table.rows.length
        ? table.rows.map((row) => h("tr", {}, row.map((cell, i) => h(typeof cell === "number" ? "td.num" : "td", { "data-label": t(table.headers[i]) },
            table.headers[i] === "sheet.landscapes" && typeof cell === "string" ? spell(cell) : sheetCell(cell, players)))))
        : h("tr", {}, h("td", { colspan: table.headers.length, text: t("sheet.none") }))))));
}

/** The end reason in words: the game's own translation of the engine's termination code. */
export function endReason(game, termination) {
  const key = `end.${game}.${termination}`;
  return has(key) ? t(key) : t("end.unknown", { reason: termination.replaceAll("_", " ") });
}

/**
 * The end screen: winner(s) by name, why the game ended, the final tables, and the
 * buttons that exist.  `actions` maps a button id to a handler; a missing one (no
 * rematch yet, say) is simply not shown: that is the hook for later features.
 */
export function endScreen(view, actions = {}) {
  const names = view.outcome.winners.map((w) => view.players[w]?.name ?? String(w + 1));
  const list = new Intl.ListFormat(document.documentElement.lang || "en", { type: "conjunction" }).format(names);
  return h("section.end-screen", { id: "end-screen", "aria-labelledby": "winner" },
    h("h2", { id: "winner", text: t("game.winners", { names: list, n: names.length }) }),
    h("p", { id: "end-reason", text: t("game.end_reason", { reason: endReason(view.game, view.outcome.termination) }) }),
    h("div.end-actions", {},
      Object.entries(actions).filter(([, fn]) => fn).map(([id, fn]) => h("button", { id: `end-${id}`, class: id === "rematch" ? "primary" : "", onclick: fn, text: t(`game.${id}`) }))),
    // Open beside a wide board; folded on a phone, where it would push the board a screen down.
    view.score_sheet ? h("details.final", { open: window.matchMedia("(min-width: 801px)").matches, id: "final-table" }, h("summary", { text: t("game.final_table") }), scoreSheet(view.score_sheet, view.players, view.state?.landscapes)) : null);
}
