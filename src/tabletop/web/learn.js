// The tutorials (/learn/<game>): lessons on real positions that the server builds and judges
// (GET /api/learn/<game>/<lesson>, POST .../try; the lessons are server/lessons/<game>.json).
// The board is the game's own drawing (boards/*.js); the texts are i18n/learn/<lang>.json.
// Progress lives in this browser (localStorage "tabletop.learn.<game>"), for guests and
// accounts alike.
import { api } from "./api.js";
import { boardFor } from "./boards/index.js";
import { applySeatColors, h } from "./dom.js";
import { lang, t, tm } from "./i18n.js";
import { analyseMoves, clickCell, explainCandidates, pieceChoices } from "./moves.js";

export const TUTORIALS = { terranova: "Terra Nova", medina: "Medina" };

let texts = {};
let englishTexts = {};
let loadedLang = null;

/** Loads the tutorial and rules texts of the page's language (English as the fallback). */
export async function loadLearnTexts() {
  if (loadedLang === lang) return;
  const get = (code) => fetch(`/static/i18n/learn/${code}.json`).then((r) => (r.ok ? r.json() : {}), () => ({}));
  if (!Object.keys(englishTexts).length) englishTexts = await get("en");
  texts = lang === "en" ? englishTexts : await get(lang);
  loadedLang = lang;
}

/** A tutorial or rules text, {placeholders} filled; the key itself where none exists. */
export function lt(key, params = {}) {
  const text = texts[key] ?? englishTexts[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, k) => (k in params ? String(params[k]) : `{${k}}`));
}

export function progress(game) {
  try {
    const saved = JSON.parse(localStorage.getItem(`tabletop.learn.${game}`) || "{}");
    return { done: Array.isArray(saved.done) ? saved.done : [], finished: !!saved.finished };
  } catch {
    return { done: [], finished: false };
  }
}

function saveProgress(game, p) {
  localStorage.setItem(`tabletop.learn.${game}`, JSON.stringify(p));
}

/** The lobby's offer: a link to each tutorial not finished in this browser (null when all are). */
export function learnOffer() {
  const open = Object.keys(TUTORIALS).filter((g) => !progress(g).finished);
  if (!open.length) return null;
  const box = h("aside.learn-offer", { id: "learn-offer" });
  const fill = () =>
    box.replaceChildren(
      h("strong", { text: lt("learn.offer") }),
      ...open.map((g) => h("a.learn-link", { href: `/learn/${g}`, "data-game": g, text: lt("learn.offer_game", { game: TUTORIALS[g] }) })),
      h("span.rules-links", {}, Object.keys(TUTORIALS).map((g) => h("a", { href: `/rules/${g}`, text: lt("rules.link", { game: TUTORIALS[g] }) }))));
  fill();
  loadLearnTexts().then(fill);
  return box;
}

/** A link to the full rules of `game` (the lobby, the game page and each variant use it). */
export function rulesLink(game, anchor = "") {
  const a = h("a.rules-link", { href: `/rules/${game}${anchor ? `#${anchor}` : ""}`, text: lt("rules.full") });
  if (!englishTexts["rules.full"]) loadLearnTexts().then(() => (a.textContent = lt("rules.full")));
  return a;
}

export function showLearn(main, game) {
  const root = h("section.learn", { id: "learn", "data-game": game });
  main.replaceChildren(root);
  let tutorial = null; // {lessons: [{id, tasks}], players}
  let lessonIndex = 0;
  let view = null;
  let sel = { piece: null, picked: [], choose: null };
  let feedback = null; // {kind: "refused"|"nudge"|"correct", text}
  let busy = false;
  let finished = false;

  if (!(game in TUTORIALS)) {
    root.replaceChildren(h("p.error", { text: t("error.no_such_page", { path: location.pathname }) }));
    return () => {};
  }

  Promise.all([loadLearnTexts(), api(`/api/learn/${game}`)]).then(([, tut]) => {
    tutorial = tut;
    const wanted = new URLSearchParams(location.search).get("lesson");
    const done = progress(game).done;
    const first = tut.lessons.findIndex((l) => !done.includes(l.id));
    lessonIndex = Math.max(0, tut.lessons.findIndex((l) => l.id === wanted));
    if (!wanted && first > 0) lessonIndex = first;
    openLesson(lessonIndex);
  }, (err) => root.replaceChildren(h("p.error", { text: t("error.generic", { detail: err.message }) })));

  function lessonId() {
    return tutorial.lessons[lessonIndex].id;
  }

  async function openLesson(i, played = []) {
    lessonIndex = i;
    finished = false;
    feedback = null;
    sel = { piece: null, picked: [], choose: null };
    const query = new URLSearchParams(played.map((m) => ["played", m]));
    view = await api(`/api/learn/${game}/${lessonId()}?${query}`);
    applySeatColors(view.colors);
    render();
  }

  async function tryMove(move) {
    if (busy || !view || view.done) return;
    busy = true;
    try {
      const r = await api(`/api/learn/${game}/${lessonId()}/try`, { method: "POST", body: { played: view.played, move } });
      sel = { piece: null, picked: [], choose: null };
      if (r.verdict === "correct") {
        view = r.view;
        feedback = { kind: "correct", text: lt("learn.correct") };
        if (view.done) markDone();
      } else if (r.verdict === "nudge") {
        feedback = { kind: "nudge", text: `${lt("learn.nudge")} ${lt(taskKey("hint"))}` };
      } else {
        feedback = { kind: "refused", text: `${lt("learn.refused", { reason: tm(r.message) })} ${lt(taskKey("hint"))}` };
      }
    } catch (err) {
      feedback = { kind: "refused", text: t("error.generic", { detail: err.message }) };
    } finally {
      busy = false;
      render();
    }
  }

  /** Asks the server why a click matches no legal move: the first candidate's reason. */
  async function explain(candidates) {
    const move = candidates[0];
    if (move) await tryMove(move);
  }

  function markDone() {
    const p = progress(game);
    if (!p.done.includes(lessonId())) p.done.push(lessonId());
    if (tutorial.lessons.every((l) => p.done.includes(l.id))) p.finished = true;
    saveProgress(game, p);
  }

  function taskKey(part) {
    return `learn.${game}.${lessonId()}.${part}${view.done ? "" : view.task}`;
  }

  function onCell(name) {
    if (!view || view.done || busy) return;
    const moves = analyseMoves(view.legal, boardFor(game).cellNames(view.state));
    let res = clickCell(moves, sel.picked, sel.piece, name);
    const tried = sel.picked;
    if (res.kind === "none" && sel.picked.length) res = clickCell(moves, [], sel.piece, name);
    if (res.kind === "none") {
      sel = { ...sel, picked: [], choose: null };
      explain(explainCandidates(moves, tried, sel.piece, name));
    } else if (res.kind === "submit") tryMove(res.move);
    else if (res.kind === "choose") sel = { ...sel, picked: [...sel.picked, name], choose: res.moves };
    else sel = { ...sel, picked: res.path, choose: res.moves.length ? res.moves : null };
    render();
  }

  async function playBeginner() {
    const bots = Array.from({ length: tutorial.players - 1 }, (_, i) => ({ name: `${lt("learn.beginner")}${tutorial.players > 2 ? ` ${i + 1}` : ""}`, agent: "beginner" }));
    try {
      const m = await api("/api/matches", { method: "POST", body: { game, seats: [{ name: lt("learn.you"), agent: "human" }, ...bots] } });
      location.href = m.seats.find((x) => x.link)?.link ?? m.spectator_link;
    } catch (err) {
      feedback = { kind: "refused", text: t("error.generic", { detail: err.message }) };
      render();
    }
  }

  function lessonNav() {
    const done = progress(game).done;
    return h("ol.lesson-list", { id: "lesson-list" },
      tutorial.lessons.map((l, i) => h("li", { class: `${i === lessonIndex && !finished ? "current" : ""} ${done.includes(l.id) ? "done" : ""}` },
        h("button.lesson-button", { "data-lesson": l.id, "aria-current": i === lessonIndex && !finished ? "step" : null, onclick: () => openLesson(i),
          text: `${done.includes(l.id) ? "✓ " : ""}${lt(`learn.${game}.${l.id}.title`)}` }))));
  }

  function controls(moves) {
    const pieces = pieceChoices(moves);
    return h("div.controls", {},
      pieces.length > 1
        ? h("div.pieces", { role: "group" }, pieces.map((p) => h("button.piece", {
            class: `piece${sel.piece === p.pattern ? " selected" : ""}`,
            "data-piece": p.pattern,
            "aria-pressed": String(sel.piece === p.pattern),
            onclick: () => { sel = { piece: sel.piece === p.pattern ? null : p.pattern, picked: [], choose: null }; render(); },
            text: pieceLabel(p.pattern),
          })))
        : null,
      sel.choose ? h("div.choose", { id: "chooser" }, h("span", { text: t("game.choose") }),
        sel.choose.map((m) => h("button.choice", { "data-move": m, onclick: () => tryMove(m), text: m })),
        h("button", { onclick: () => { sel = { piece: sel.piece, picked: [], choose: null }; render(); }, text: t("game.cancel") })) : null);
  }

  function pieceLabel(pattern) {
    const key = `piece.${pattern.replace(/[·@:\s-]/g, "")}`;
    const text = t(key);
    return text === key ? pattern.replace("·", "").replace(/[@:]$/, "") : text;
  }

  function coach() {
    const last = lessonIndex === tutorial.lessons.length - 1;
    const color = view.colors[view.learner];
    return h("div.coach", { id: "coach" },
      h("p.lesson-count", { text: lt("learn.lesson_of", { n: lessonIndex + 1, total: tutorial.lessons.length }) }),
      h("h2", { id: "lesson-title", text: lt(`learn.${game}.${lessonId()}.title`) }),
      h("p.you-play", {}, h("span", { class: `swatch p${view.learner}`, "aria-hidden": "true" }), " ", lt("learn.you_play", { color: lt(`learn.color.${color}`) })),
      h("p", { id: "coach-text", class: `coach-text ${view.done ? "done" : "task"}`, text: lt(taskKey(view.done ? "done" : "task")) }),
      h("p", { id: "feedback", class: `feedback ${feedback ? feedback.kind : "empty"}`, role: "status", "aria-live": "polite", text: feedback ? feedback.text : "" }),
      view.done
        ? h("div.lesson-buttons", {},
            last
              ? h("button.primary", { id: "finish", onclick: () => { finished = true; render(); }, text: lt("learn.finish") })
              : h("button.primary", { id: "next-lesson", onclick: () => openLesson(lessonIndex + 1), text: lt("learn.next") }),
            h("button", { id: "again", onclick: () => openLesson(lessonIndex), text: lt("learn.again") }))
        : controls(analyseMoves(view.legal, boardFor(game).cellNames(view.state))));
  }

  function finishScreen() {
    return h("div.coach.finished", { id: "finished" },
      h("h2", { text: lt("learn.finished_title") }),
      h("p", { text: lt(`learn.${game}.finished`) }),
      h("div.lesson-buttons", {},
        h("button.primary", { id: "play-beginner", onclick: playBeginner, text: lt("learn.play_beginner") }),
        h("a.button", { href: `/rules/${game}`, text: lt("rules.link", { game: TUTORIALS[game] }) }),
        h("a.button", { href: "/", text: lt("learn.to_lobby") })));
  }

  function render() {
    if (!tutorial || !view) return;
    const board = boardFor(game);
    const drawn = board.draw(view.state, { ...view, match: `learn-${game}`, mySeats: [view.learner] });
    for (const c of view.highlight) drawn.cells.get(c)?.classList.add("lesson-mark");
    for (const c of sel.picked) drawn.cells.get(c)?.classList.add("selected");
    drawn.svg.addEventListener("click", (e) => {
      const g = e.target.closest("[data-cell]");
      if (g) onCell(g.dataset.cell);
    });
    drawn.svg.id = "board";
    drawn.svg.classList.add("board", view.done ? "idle" : "active");
    drawn.svg.setAttribute("aria-label", t("game.board_label"));
    root.dataset.lesson = lessonId();
    root.dataset.task = String(view.task);
    root.dataset.done = view.done ? "1" : "0";
    root.dataset.finished = finished ? "1" : "0";
    root.replaceChildren(
      h("div.learn-head", {},
        h("h1", { text: lt("learn.heading", { game: TUTORIALS[game] }) }),
        h("a", { id: "rules-from-learn", href: `/rules/${game}`, text: lt("rules.link", { game: TUTORIALS[game] }) })),
      lessonNav(),
      h("div.layout", {},
        h("div.board-wrap", {}, drawn.figure ?? drawn.svg),
        h("aside.side", {}, finished ? finishScreen() : coach())));
  }

  return () => loadLearnTexts().then(render);
}
