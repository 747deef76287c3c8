// Replay: step through every action of a finished match or an uploaded record.
import { createAnalysis } from "./analysis.js";
import { api } from "./api.js";
import { boardFor } from "./boards/index.js";
import { applySeatColors, h, toast } from "./dom.js";
import { t } from "./i18n.js";

/** Opens the replay page for an uploaded record (kept in sessionStorage across the navigation). */
export function startReplay(record) {
  sessionStorage.setItem("tabletop.replay", JSON.stringify(record));
  location.href = "/replay";
}

export function showReplay(main) {
  let data = null;
  let i = 0;
  let analysis = null;
  const params = new URLSearchParams(location.search);
  const match = params.get("match");
  const load = match
    ? api(`/api/matches/${match}/replay`)
    : api("/api/replay", { method: "POST", body: JSON.parse(sessionStorage.getItem("tabletop.replay") || "null") });
  load.then(
    (d) => {
      data = d;
      applySeatColors(d.colors);
      i = Number(params.get("step") ?? d.steps.length - 1);
      const source = match ? { matchId: match } : { record: JSON.parse(sessionStorage.getItem("tabletop.replay") || "null") };
      analysis = createAnalysis(source, () => render(), (ply) => go(ply));
      render();
    },
    (err) => {
      main.replaceChildren(h("p.error", { id: "replay-error", text: t("error.generic", { detail: err.message }) }));
      toast(t("error.generic", { detail: err.message }), "error");
    },
  );

  function go(n) {
    i = Math.max(0, Math.min(data.steps.length - 1, n));
    render();
  }

  document.addEventListener("keydown", (e) => {
    if (!data || e.target.tagName === "INPUT") return;
    if (e.key === "ArrowRight") go(i + 1);
    if (e.key === "ArrowLeft") go(i - 1);
    if (e.key === "Home") go(0);
    if (e.key === "End") go(data.steps.length - 1);
  });

  function render() {
    if (!data) return;
    const step = data.steps[i];
    const board = boardFor(data.game);
    const fake = { game: data.game, players: data.players, scores: step.scores, terminal: !!step.outcome, log: [], legal: {} };
    const drawn = board.draw(step.state, fake);
    const names = new Set(board.cellNames(step.state));
    for (const tok of (step.action || "").match(/[A-Za-z]+\d+/g) || []) if (names.has(tok)) drawn.cells.get(tok)?.classList.add("recent");
    analysis?.mark(drawn, i, [...names]);
    drawn.svg.id = "board";
    drawn.svg.classList.add("board");
    const n = data.steps.length - 1;
    main.replaceChildren(
      h("section.game.replay", { id: "replay" },
        h("div.status", { id: "status" }, h("strong", { text: t("replay.heading") }), " ",
          h("span", { id: "replay-step", text: t("replay.step", { i, n }) }),
          step.action ? h("span", { text: ` · ${data.players[step.seat]?.name}: ` }, h("code", { text: step.action })) : null),
        h("div.replay-controls", {},
          h("button", { id: "replay-first", onclick: () => go(0), text: t("replay.first") }),
          h("button", { id: "replay-prev", onclick: () => go(i - 1), text: t("replay.prev") }),
          h("input", { id: "replay-slider", type: "range", min: 0, max: n, value: i, oninput: (e) => go(Number(e.target.value)), "aria-label": t("replay.step", { i, n }) }),
          h("button", { id: "replay-next", onclick: () => go(i + 1), text: t("replay.next") }),
          h("button", { id: "replay-last", onclick: () => go(n), text: t("replay.last") })),
        h("div.layout", {},
          h("div.board-wrap", {}, drawn.svg),
          h("aside.side", {},
            h("ol.players", {}, data.players.map((p) => h("li", { class: `player p${p.seat}` },
              h("span", { class: `swatch p${p.seat}` }), h("span.name", { text: p.name }),
              h("span.score", { "data-seat": p.seat, text: String(step.scores[p.seat]) })))),
            board.panel ? board.panel(step.state, fake, t) : null,
            analysis ? analysis.panel(data.players) : null,
            h("ol.log", { id: "log" }, data.steps.slice(1).map((s, k) =>
              h("li", { class: `p${s.seat}${k + 1 === i ? " current" : ""}`, onclick: () => go(k + 1) },
                h("span", { class: `swatch p${s.seat}` }), ` ${data.players[s.seat]?.name}: `, h("code", { text: s.action }))))))),
    );
  }
  return render;
}
