// Replay: step through every action of a finished match or an uploaded record.
import { createAnalysis } from "./analysis.js";
import { api } from "./api.js";
import { boardFor } from "./boards/index.js";
import { applySeatColors, h } from "./dom.js";
import { t } from "./i18n.js";

/** Opens the replay page for an uploaded record file's text (kept in sessionStorage across the navigation). */
export function startReplay(text) {
  sessionStorage.setItem("tabletop.replay.text", text);
  location.href = "/replay";
}

export function showReplay(main) {
  let data = null;
  let i = 0;
  let analysis = null;
  const params = new URLSearchParams(location.search);
  const match = params.get("match");
  // The server draws each position (the game's render_board), fetched when first shown.
  const boards = new Map(); // step -> Promise of SVG text
  function boardText(step) {
    if (!boards.has(step)) {
      const request = match
        ? fetch(`/api/matches/${match}/board?ply=${step}`)
        : fetch(`/api/replay/board?ply=${step}`, { method: "POST", headers: { "content-type": "application/json" }, body: sessionStorage.getItem("tabletop.replay.text") || "null" });
      boards.set(step, request.then((r) => (r.ok ? r.text() : null)));
    }
    return boards.get(step);
  }
  let shownSvg = null;
  const text = sessionStorage.getItem("tabletop.replay.text");
  if (!match && text == null) {
    // Opened directly: nothing to show, and nothing went wrong either.
    main.replaceChildren(h("section.lobby", { id: "replay-empty" },
      h("p", { id: "replay-error", text: t("replay.nothing") }),
      h("a", { href: "/", text: t("replay.to_lobby") })));
    return () => {};
  }
  const load = match ? api(`/api/matches/${match}/replay`) : api("/api/replay/text", { method: "POST", body: { text } });
  load.then(
    (d) => {
      data = d;
      applySeatColors(d.colors);
      i = Number(params.get("step") ?? d.steps.length - 1);
      const source = match ? { matchId: match } : { record: JSON.parse(text || "null") };
      analysis = createAnalysis(source, () => render(), (ply) => go(ply));
      go(i);
    },
    (err) => {
      const words = err.body?.error === "bad_record" ? t("error.bad_record_file", { detail: err.message }) : t("error.generic", { detail: err.message });
      main.replaceChildren(h("section.lobby", {}, h("p.error", { id: "replay-error", role: "alert", text: words }), h("a", { href: "/", text: t("replay.to_lobby") })));
    },
  );

  function go(n) {
    i = Math.max(0, Math.min(data.steps.length - 1, n));
    const want = i;
    // The step's text at once; its board as soon as the server has drawn it (the last
    // board stays meanwhile), and the neighbours fetched ahead for the arrow keys.
    render();
    boardText(want).then((text) => {
      if (want !== i || text === shownSvg) return; // stepped on meanwhile
      shownSvg = text;
      render();
    });
    for (const next of [want + 1, want - 1]) if (next >= 0 && next < data.steps.length) boardText(next);
  }

  const KEYS = { ArrowRight: () => i + 1, ArrowLeft: () => i - 1, Home: () => 0, End: () => data.steps.length - 1 };
  document.addEventListener("keydown", (e) => {
    if (!data || e.target.tagName === "INPUT" || !(e.key in KEYS)) return;
    e.preventDefault(); // step only: the page must not also scroll sideways
    go(KEYS[e.key]());
  });

  function render() {
    if (!data) return;
    const step = data.steps[i];
    const board = boardFor(data.game);
    const log = data.steps.slice(1, i + 1).map((s) => ({ ply: s.ply - 1, seat: s.seat }));
    const fake = { game: data.game, players: data.players, scores: step.scores, terminal: !!step.outcome, log, legal: {}, board_svg: shownSvg };
    const drawn = board.draw(step.state, fake);
    const names = new Set(board.cellNames(step.state));
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
          h("div.board-wrap", {}, drawn.figure ?? drawn.svg),
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
