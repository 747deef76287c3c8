// The bot ladder as people choose from it: a level's name and measured Elo in the seat
// menus, and the whole ladder (Elo, time a move, what it does) under the form.
import { h } from "./dom.js";
import { has, t } from "./i18n.js";

/** The ladder level called `agent` in `game` (from `GET /api/games`), or undefined. */
function levelOf(agent, game) {
  return (game?.ladder || []).find((level) => level.key === agent);
}

/** A bot spec as people read it: a ladder level by its name in the page's language, any other spec as it is. */
export function levelName(agent) {
  return has(`level.${agent}`) ? t(`level.${agent}`) : agent;
}

/**
 * The bot specs of `agents` split as the menus show them: `levels`, the ladder's named
 * levels of `game` (what people choose from), and `raw`, every other engine spec (under
 * "Advanced").
 */
export function splitBots(agents, game) {
  const keys = new Set((game?.ladder || []).map((level) => level.key));
  const bots = agents.filter((a) => a !== "human");
  return { levels: bots.filter((a) => keys.has(a)), raw: bots.filter((a) => !keys.has(a)) };
}

/**
 * A bot menu: the named levels, plus `value` itself when it is a raw spec chosen under
 * "Advanced"; `first` are [value, text] options before them (a person, an open seat).
 */
export function botSelect(id, { levels, value, first = [], label, onchange }) {
  const el = h("select", { id, onchange: (e) => onchange(e.target.value) });
  for (const [v, text] of first) el.append(new Option(text, v));
  for (const a of levels) el.append(new Option(label(a), a));
  if (value && ![...first.map(([v]) => v), ...levels].includes(value)) el.append(new Option(value, value));
  el.value = value;
  return el;
}

/**
 * The "Advanced" disclosure: per menu, a select of the raw engine specs (or "the level
 * above"); `menus` are {id, label, value, onchange}.
 */
export function advancedBots(id, raw, levels, menus) {
  if (!raw.length || !menus.length) return null;
  const open = menus.some((m) => raw.includes(m.value));
  return h("details.advanced", { id, open },
    h("summary", { text: t("lobby.advanced") }),
    h("p.muted", { text: t("lobby.advanced_help") }),
    h("div.row", {}, menus.map((m) => {
      const el = h("select", { id: m.id, onchange: (e) => m.onchange(e.target.value) });
      el.append(new Option(t("lobby.engine_level"), ""));
      for (const spec of raw) el.append(new Option(spec, spec));
      el.value = raw.includes(m.value) ? m.value : "";
      return h("label", {}, h("span", { text: m.label }), el);
    })));
}

/**
 * The ladder scale (`game.ladder_scales`) that measured bots in the lobby's `setting`
 * ({players, ruleset}): its key, or undefined where no ladder was measured (Terra Nova
 * for three or four).
 */
export function scaleKey(game, setting) {
  const players = Number(setting?.players);
  const ruleset = setting?.ruleset || "default";
  return (game?.ladder_scales || []).find((s) => s.players.includes(players) && s.rulesets.includes(ruleset))?.key;
}

/** What a seat menu shows for `agent`: a ladder level by name and its Elo in `setting`, any other bot by its spec. */
export function botLabel(agent, game, setting) {
  const level = levelOf(agent, game);
  if (!level) return agent;
  const elo = level.elo[scaleKey(game, setting)];
  const name = levelName(agent);
  return elo === undefined ? name : t("ladder.option", { name, elo });
}

/** The ladder of `game` in `setting` as a folded table: the levels this server can seat, weakest first. */
export function ladderTable(game, agents, setting) {
  const levels = (game?.ladder || []).filter((level) => agents.includes(level.key));
  if (!levels.length) return null;
  const scale = scaleKey(game, setting);
  const row = (level) => {
    const elo = level.elo[scale];
    const seconds = level.seconds_per_move[scale];
    return h("tr", { "data-level": level.key },
      h("th", { scope: "row", text: levelName(level.key) }),
      h("td.num", { text: elo === undefined ? t("ladder.not_measured") : String(elo) }),
      h("td.num", { text: seconds === undefined ? "" : seconds.toFixed(seconds > 0 && seconds < 0.01 ? 3 : 2) }),
      h("td", { text: has(`level.${level.key}.about`) ? t(`level.${level.key}.about`) : level.description }));
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
