// The bot ladder as people choose from it: a level's name and measured Elo in the seat
// menus, and the whole ladder (Elo, time a move, what it does) under the form.
import { h } from "./dom.js";
import { t } from "./i18n.js";

/** The ladder level called `agent` in `game` (from `GET /api/games`), or undefined. */
function levelOf(agent, game) {
  return (game?.ladder || []).find((level) => level.key === agent);
}

/** What a seat menu shows for `agent`: a ladder level by name and Elo, any other bot by its spec. */
export function botLabel(agent, game) {
  const level = levelOf(agent, game);
  if (!level) return agent;
  const elo = level.elo[game.id];
  return elo === undefined ? level.name : t("ladder.option", { name: level.name, elo });
}

/** The ladder of `game` as a folded table: the levels this server can seat, weakest first. */
export function ladderTable(game, agents) {
  const levels = (game?.ladder || []).filter((level) => agents.includes(level.key));
  if (!levels.length) return null;
  const row = (level) => {
    const elo = level.elo[game.id];
    const seconds = level.seconds_per_move[game.id];
    return h("tr", { "data-level": level.key },
      h("th", { scope: "row", text: level.name }),
      h("td.num", { text: elo === undefined ? t("ladder.not_measured") : String(elo) }),
      h("td.num", { text: seconds === undefined ? "" : seconds.toFixed(seconds > 0 && seconds < 0.01 ? 3 : 2) }),
      h("td", { text: level.description }));
  };
  return h("details.ladder", { id: "ladder" },
    h("summary", { text: t("ladder.heading") }),
    h("p", { text: t("ladder.about") }),
    h("table", {},
      h("thead", {}, h("tr", {},
        h("th", { scope: "col", text: t("ladder.level") }),
        h("th", { scope: "col", text: t("ladder.elo") }),
        h("th", { scope: "col", text: t("ladder.seconds") }),
        h("th", { scope: "col", text: t("ladder.description") }))),
      h("tbody", {}, levels.map(row))));
}
