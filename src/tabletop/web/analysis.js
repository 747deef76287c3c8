// Hints and post-game analysis (docs/analysis.md): a bot's suggested turn drawn on the
// board, and every turn of a finished game judged against the bot's, with the better turn.
import { api } from "./api.js";
import { h, s, toast } from "./dom.js";
import { t } from "./i18n.js";
import { levelName } from "./ladder.js";

const CELL = /[A-Za-z]+\d+/g;

let levels = ["greedy"]; // the bot specs the server knows (GET /api/agents); greedy until they come
let levelNames = {}; // ladder level key -> display name (GET /api/games), the same in every game
let asked = false; // a request is on its way or has answered (a failed one is asked again)

function loadLevels(rerender) {
  if (asked) return levels;
  asked = true;
  Promise.all([api("/api/agents"), api("/api/games")]).then(
    ([a, games]) => {
      const bots = (a?.agents || []).filter((x) => x !== "human" && x !== "random" && x !== "beginner");
      if (bots.length) levels = bots;
      for (const level of games?.[0]?.ladder || []) levelNames[level.key] = level.name;
      rerender();
    },
    () => {
      asked = false; // the next drawing of a picker asks again
    },
  );
  return levels;
}

/** The level a hint or an analysis uses until the player picks one: the one the picker shows. */
function defaultLevel() {
  return ["casual", "greedy"].find((l) => levels.includes(l)) || levels[0];
}

function levelPicker(id, current, onchange) {
  const select = h("select", { id, "aria-label": t("analysis.level"), onchange: (e) => onchange(e.target.value) });
  for (const l of levels) select.append(new Option(levelNames[l] ? levelName(l) : l, l));
  // Unset, the server judges with greedy (the ladder's Casual): show that, not whatever comes first.
  select.value = levels.includes(current) ? current : defaultLevel();
  return h("label.level", {}, h("span", { text: t("analysis.level") }), select);
}

/**
 * Marks the cells named by `actions` on a drawn board (class "hint", numbered in order);
 * `label` (e.g. the value) is written over the first of them once the board is on screen.
 */
export function markCells(drawn, cellNames, actions, cls = "hint", label = null) {
  const known = new Set(cellNames);
  let first = null;
  actions.forEach((action, k) => {
    for (const c of action.match(CELL) || []) {
      const g = known.has(c) ? drawn.cells.get(c) : null;
      if (!g) continue;
      g.classList.add(cls);
      if (!g.dataset.hintStep) g.dataset.hintStep = String(k + 1);
      first ??= g;
    }
  });
  if (first && label) {
    // A cell's place is known only once the board is laid out.
    requestAnimationFrame(() => {
      if (!first.isConnected) return;
      const box = first.getBBox();
      drawn.svg.append(s("text", { class: "hint-value", id: "hint-value", x: box.x + box.width / 2, y: box.y - 3, "text-anchor": "middle", text: label }));
    });
  }
}

function signed(x) {
  return `${x > 0 ? "+" : ""}${x.toFixed(1)}`;
}

/**
 * Hints on the play page.  `panel(view, token)` is the button, level picker and the
 * current hint; `mark(drawn, view, names)` draws the hint on the board.  A hint holds for
 * the version it was asked on only.
 */
export function createHints(matchId, rerender) {
  let level = null;
  let hint = null;
  let asking = false;

  async function ask(view, token) {
    if (asking) return;
    asking = true;
    rerender();
    try {
      hint = await api(`/api/matches/${matchId}/hint`, { method: "POST", body: { token, version: view.version, level: level || defaultLevel() } });
    } catch (err) {
      toast(t("error.generic", { detail: err.message }), "error");
    } finally {
      asking = false;
      rerender();
    }
  }

  function current(view) {
    return hint && view && hint.version === view.version ? hint : null;
  }

  return {
    panel(view, token) {
      if (!token || view.terminal || view.rated) return null;
      loadLevels(rerender);
      const shown = current(view);
      return h("div.hint-box", { id: "hint-box" },
        h("button", { id: "hint", onclick: () => ask(view, token), disabled: asking, text: asking ? t("analysis.thinking") : t("analysis.hint") }),
        levelPicker("hint-level", level, (v) => (level = v)),
        shown ? h("p.hint-text", { id: "hint-text" },
          t("analysis.hint_text", { level: shown.level, value: signed(shown.value) }), " ",
          ...shown.actions.map((a) => h("code.hint-move", { text: a })), " ",
          h("span.hint-help", { text: t("analysis.value_help") })) : null);
    },
    mark(drawn, view, names) {
      const shown = current(view);
      if (shown) markCells(drawn, names, shown.actions, "hint", signed(shown.value));
    },
  };
}

/**
 * The analysis of a finished game.  `source` is {matchId} or {record} (an uploaded record);
 * `onPick(ply)` shows the position before a judged turn (the replay page), or null
 * (the play page links to the replay page instead).
 */
export function createAnalysis(source, rerender, onPick = null) {
  let level = null;
  let result = null;
  let busy = false;
  let picked = null; // the judged turn shown on the board

  async function run() {
    if (busy) return;
    busy = true;
    rerender();
    const chosen = level || defaultLevel();
    try {
      result = source.matchId
        ? await api(`/api/matches/${source.matchId}/analysis`, { method: "POST", body: { level: chosen } })
        : await api("/api/analysis", { method: "POST", body: { record: source.record, level: chosen } });
    } catch (err) {
      toast(t("error.generic", { detail: err.message }), "error");
    } finally {
      busy = false;
      rerender();
    }
  }

  function turnItem(turn, players) {
    const name = players[turn.seat]?.name ?? `#${turn.seat + 1}`;
    const label = h("span", {},
      h("span", { class: `swatch p${turn.seat}` }), ` ${name}: `,
      h("strong", { class: `mark-${turn.mark}`, text: t(`analysis.${turn.mark}`) }), ` (−${turn.loss.toFixed(1)}) `,
      t("analysis.played"), " ", ...turn.played.map((a) => h("code", { text: a })), " · ",
      t("analysis.better"), " ", ...turn.best.map((a) => h("code.better", { text: a })));
    const attrs = { class: `turn mark-${turn.mark}${picked === turn ? " current" : ""}`, "data-ply": turn.ply };
    if (onPick) {
      return h("li", { ...attrs, tabindex: "0", onclick: () => { picked = turn; onPick(turn.ply); },
        onkeydown: (e) => { if (e.key === "Enter") { picked = turn; onPick(turn.ply); } } }, label);
    }
    return h("li", attrs, h("a", { href: `/replay?match=${source.matchId}&step=${turn.ply}` }, label));
  }

  return {
    panel(players) {
      loadLevels(rerender);
      const children = [
        h("div.analysis-controls", {},
          h("button", { id: "analyse", onclick: run, disabled: busy, text: busy ? t("analysis.running") : t("analysis.analyse") }),
          levelPicker("analysis-level", level, (v) => (level = v))),
      ];
      if (result) {
        const th = result.thresholds;
        children.push(
          h("p.analysis-legend", { text: t("analysis.legend", { level: result.level, inaccuracy: th.inaccuracy, mistake: th.mistake, blunder: th.blunder }) }),
          h("table.analysis-seats", { id: "analysis-seats" },
            h("tr", {}, ["analysis.player", "analysis.inaccuracy", "analysis.mistake", "analysis.blunder", "analysis.accuracy"].map((k) => h("th", { text: t(k) }))),
            result.seats.map((s) => h("tr", {},
              h("td", {}, h("span", { class: `swatch p${s.seat}` }), ` ${players[s.seat]?.name ?? ""}`),
              h("td", { text: String(s.inaccuracies) }), h("td", { text: String(s.mistakes) }), h("td", { text: String(s.blunders) }),
              h("td", { text: `${Math.round(s.accuracy)}%` })))));
        if (!result.complete) children.push(h("p.analysis-partial", { id: "analysis-partial", text: t("analysis.partial", { n: result.judged_until, total: result.actions }) }));
        const marked = result.turns.filter((x) => x.mark);
        children.push(marked.length
          ? h("ol.analysis-turns", { id: "analysis-turns" }, marked.map((x) => turnItem(x, players)))
          : h("p", { id: "analysis-turns", text: t("analysis.none") }));
      }
      return h("details.analysis", { id: "analysis", open: true }, h("summary", { text: t("analysis.heading") }), ...children);
    },
    /** On the replay page: draws the played and the better turn over the position before the picked turn. */
    mark(drawn, ply, names) {
      if (picked && picked.ply === ply) {
        markCells(drawn, names, picked.played, "played");
        markCells(drawn, names, picked.best, "better", `−${picked.loss.toFixed(1)}`);
      }
    },
  };
}
