// The play page: board, selection and highlighting, players, log, undo, keyboard play.
import { createAnalysis, createHints } from "./analysis.js";
import { MatchSocket, api } from "./api.js";
import { boardFor } from "./boards/index.js";
import { applySeatColors, h, toast } from "./dom.js";
import { t } from "./i18n.js";
import { analyseMoves, cellFreeMoves, clickCell, flatLegal, nextTargets, pieceChoices } from "./moves.js";

/** Tokens come from the #t=... fragment (and are remembered for reloads without it). */
function readTokens(matchId) {
  const key = `tabletop.tokens.${matchId}`;
  const frag = new URLSearchParams(location.hash.slice(1)).get("t");
  if (frag) {
    const list = frag.split(",").filter(Boolean);
    localStorage.setItem(key, JSON.stringify(list));
    return list;
  }
  return JSON.parse(localStorage.getItem(key) || "[]");
}

export function showGame(main, matchId) {
  const tokens = readTokens(matchId);
  const mySeats = new Map(); // seat -> token
  let view = null;
  let connected = false;
  let sel = { piece: null, picked: [], choose: null };
  let recent = new Set();
  let scoreFlash = new Map(); // seat -> points just scored
  let busy = false;

  const hints = createHints(matchId, () => render());
  const analysis = createAnalysis({ matchId }, () => render());
  const root = h("section.game", { id: "game" });
  main.replaceChildren(root);

  const socket = new MatchSocket(matchId, {
    onState: (v) => {
      const old = view;
      view = v;
      applySeatColors(v.colors);
      if (!old || old.version !== v.version) sel = { piece: null, picked: [], choose: null };
      noteChanges(old, v);
      render();
    },
    onStatus: (ok, err) => {
      connected = ok;
      if (err) root.replaceChildren(h("p.error", { text: t("error.generic", { detail: err.detail }) }));
      else render();
    },
  });

  Promise.all(
    tokens.map((tok) =>
      api(`/api/matches/${matchId}/seat`, { method: "POST", body: { token: tok } }).then(
        (r) => mySeats.set(r.seat, tok),
        () => null,
      ),
    ),
  ).then(render);

  function noteChanges(old, v) {
    scoreFlash = new Map();
    if (old && old.scores && v.ply >= old.ply) {
      v.scores.forEach((sc, i) => {
        const gained = sc - (old.scores[i] ?? 0);
        if (gained > 0) {
          scoreFlash.set(i, gained);
          toast(t("game.scored", { name: v.players[i].name, points: gained }), "score");
        }
      });
    }
    // "What the others just did": the actions since my own last one (for spectators: the last turn).
    const log = v.log;
    let from = log.length - 1;
    if (mySeats.size) {
      while (from >= 0 && !mySeats.has(log[from].seat)) from--;
      from++;
    } else if (log.length) {
      const lastTurn = log[log.length - 1].turn;
      while (from > 0 && log[from - 1].turn === lastTurn) from--;
    }
    recent = new Set();
    const cells = new Set(boardFor(v.game).cellNames(v.state));
    for (const e of log.slice(Math.max(from, 0)).slice(-6)) {
      if (mySeats.has(e.seat)) continue;
      for (const tok of e.action.match(/[A-Za-z]+\d+/g) || []) if (cells.has(tok)) recent.add(tok);
    }
  }

  function actingToken() {
    if (!view || view.terminal || view.current_player == null) return null;
    return mySeats.get(view.current_player) ?? null;
  }

  async function submit(action) {
    const token = actingToken();
    if (!token || busy) return;
    busy = true;
    try {
      await socket.send({ type: "act", token, version: view.version, action });
    } catch (err) {
      toast(t("error.generic", { detail: err.message }), "error");
    } finally {
      busy = false;
    }
  }

  async function undo() {
    const token = mySeats.get(view.undoable_by);
    if (!token) return;
    try {
      await socket.send({ type: "undo", token, version: view.version });
    } catch (err) {
      toast(t("error.generic", { detail: err.message }), "error");
    }
  }

  function onCell(name) {
    if (!actingToken()) return;
    const moves = analyseMoves(view.legal, boardFor(view.game).cellNames(view.state));
    let res = clickCell(moves, sel.picked, sel.piece, name);
    if (res.kind === "none" && sel.picked.length) {
      sel.picked = []; // a click elsewhere starts a new selection
      res = clickCell(moves, [], sel.piece, name);
    }
    if (res.kind === "none") {
      toast(t("game.illegal"), "warn", 1500);
      sel = { ...sel, picked: [], choose: null };
    } else if (res.kind === "submit") submit(res.move);
    else if (res.kind === "choose") sel = { ...sel, picked: [...sel.picked, name], choose: res.moves };
    else sel = { ...sel, picked: res.path, choose: res.moves.length ? res.moves : null };
    render();
  }

  function onKey(text) {
    text = text.trim();
    if (!text || !view) return;
    const legal = flatLegal(view.legal).map((m) => m.move);
    const exact = legal.find((m) => m.toLowerCase() === text.toLowerCase());
    if (exact) return submit(exact);
    const cell = boardFor(view.game).cellNames(view.state).find((c) => c.toLowerCase() === text.toLowerCase());
    if (cell) return onCell(cell);
    toast(t("game.illegal"), "warn", 1500);
  }

  function playerList() {
    return h("ol.players", {},
      view.players.map((p) => {
        const isTurn = view.current_player === p.seat;
        const won = view.outcome && view.outcome.winners.includes(p.seat);
        const gained = scoreFlash.get(p.seat);
        return h(`li.player.p${p.seat}`, { class: `player p${p.seat}${isTurn ? " to-move" : ""}${won ? " winner" : ""}`, "data-seat": p.seat },
          h("span", { class: `swatch p${p.seat}`, "aria-hidden": "true" }),
          h("span.name", { text: p.name + (p.agent !== "human" ? ` (${t("game.bot")}: ${p.agent})` : "") + (mySeats.has(p.seat) ? " ★" : "") }),
          h("span.score", { "data-seat": p.seat, text: String(view.scores[p.seat]) }),
          gained ? h("span.gain", { text: `+${gained}` }) : null);
      }));
  }

  function statusLine() {
    if (view.terminal) {
      const names = view.outcome.winners.map((w) => view.players[w].name).join(", ");
      return h("div.status.over", { id: "status" },
        h("strong", { text: t("game.over") }), " ", h("span", { id: "winner", text: t("game.winner", { names }) }));
    }
    const cp = view.players[view.current_player];
    let text;
    if (actingToken()) text = mySeats.size > 1 ? t("game.turn_of", { name: cp.name }) : t("game.your_turn");
    else if (mySeats.size) text = t("game.waiting", { name: cp.name });
    else text = `${t("game.spectating")} · ${t("game.turn_of", { name: cp.name })}`;
    return h("div.status", { id: "status", class: `status to-move-p${view.current_player}` },
      h("span", { class: `swatch p${view.current_player}` }), " ", text,
      connected ? null : h("span.offline", { text: ` · ${t("game.connection_lost")}` }));
  }

  function controls(moves) {
    const mine = !!actingToken();
    const pieces = mine ? pieceChoices(moves) : [];
    const free = mine ? cellFreeMoves(moves) : [];
    const input = h("input", { id: "move-input", list: "legal-moves", autocomplete: "off", placeholder: t("game.move_input"), disabled: !mine,
      onkeydown: (e) => {
        if (e.key === "Enter") { onKey(e.target.value); e.target.value = ""; }
        if (e.key === "Escape") { sel = { piece: null, picked: [], choose: null }; render(); }
      } });
    const datalist = h("datalist", { id: "legal-moves" }, (mine ? flatLegal(view.legal) : []).map((m) => h("option", { value: m.move })));
    return h("div.controls", {},
      pieces.length > 1 || (pieces.length === 1 && moves.some((m) => m.pattern !== pieces[0].pattern && m.cells.length))
        ? h("div.pieces", { role: "group" },
            pieces.map((p) => h("button.piece", {
              class: `piece${sel.piece === p.pattern ? " selected" : ""}`,
              "data-piece": p.pattern,
              "aria-pressed": String(sel.piece === p.pattern),
              onclick: () => { sel = { piece: sel.piece === p.pattern ? null : p.pattern, picked: [], choose: null }; render(); },
              text: pieceLabel(p.pattern),
            })))
        : null,
      sel.choose ? h("div.choose", { id: "chooser" }, h("span", { text: t("game.choose") }),
        sel.choose.map((m) => h("button.choice", { "data-move": m, onclick: () => submit(m), text: m })),
        h("button", { onclick: () => { sel = { piece: sel.piece, picked: [], choose: null }; render(); }, text: t("game.cancel") })) : null,
      free.map((m) => h("button.free-move", { "data-move": m, onclick: () => submit(m), text: m === "pass" ? t("game.pass") : m })),
      mySeats.has(view.undoable_by) ? h("button.undo", { id: "undo", onclick: undo, text: t("game.undo") }) : null,
      h("div.keyboard", {}, input, datalist, h("button", { onclick: () => { onKey(input.value); input.value = ""; }, disabled: !mine, text: t("game.send") })),
    );
  }

  function pieceLabel(pattern) {
    const key = `piece.${pattern.replace(/[·@:\s-]/g, "")}`;
    const text = t(key);
    return text === key ? pattern.replace("·", "").replace(/[@:]$/, "") : text;
  }

  function logList() {
    const ol = h("ol.log", { id: "log" },
      view.log.map((e) => h(`li.p${e.seat}`, { class: `p${e.seat}${recent.size && !mySeats.has(e.seat) && e.ply >= view.log.length - 6 ? " recent" : ""}` },
        h("span", { class: `swatch p${e.seat}` }), ` ${view.players[e.seat].name}: `, h("code", { text: e.action }))));
    requestAnimationFrame(() => (ol.scrollTop = ol.scrollHeight));
    return ol;
  }

  function render() {
    if (!view) return;
    const board = boardFor(view.game);
    const names = board.cellNames(view.state);
    const moves = analyseMoves(view.legal, names);
    const mine = !!actingToken();
    // The board marks (and animates) the others' last turns itself: it needs my seats.
    const drawn = board.draw(view.state, { ...view, mySeats: [...mySeats.keys()] });
    hints.mark(drawn, view, names);
    // Highlight: the selection, and exactly the engine's next targets.
    for (const c of sel.picked) drawn.cells.get(c)?.classList.add("selected");
    if (mine) {
      // A cell that completes an action is a target; one that starts a longer action is a source.
      const depth = sel.picked.length + 1;
      for (const c of nextTargets(moves, sel.picked, sel.piece)) {
        const completes = moves.some((m) => m.cells.length === depth && m.cells[depth - 1] === c && (!sel.piece || m.pattern === sel.piece) && sel.picked.every((p, i) => m.cells[i] === p));
        drawn.cells.get(c)?.classList.add(completes ? "target" : "source");
      }
    }
    drawn.svg.addEventListener("click", (e) => {
      const g = e.target.closest("[data-cell]");
      if (g) onCell(g.dataset.cell);
    });
    drawn.svg.addEventListener("keydown", (e) => {
      const g = e.target.closest("[data-cell]");
      if (g && (e.key === "Enter" || e.key === " ")) { e.preventDefault(); onCell(g.dataset.cell); }
    });
    if (mine) for (const g of drawn.cells.values()) if (g.classList.contains("source") || g.classList.contains("target")) g.setAttribute("tabindex", "0");
    drawn.svg.id = "board";
    drawn.svg.classList.add("board", mine ? "active" : "idle");
    root.dataset.version = String(view.version);
    root.dataset.mine = mine ? "1" : "0";
    const focusedCell = document.activeElement?.closest?.("[data-cell]")?.dataset.cell;
    root.replaceChildren(
      statusLine(),
      h("div.layout", {},
        h("div.board-wrap", {}, drawn.figure ?? drawn.svg),
        h("aside.side", {},
          playerList(),
          board.panel ? board.panel(view.state, { ...view, mySeats: [...mySeats.keys()] }, t) : null,
          controls(moves),
          hints.panel(view, actingToken()),
          h("h3", { text: t("game.log") }),
          logList(),
          h("div.links", {},
            h("a", { id: "download", href: `/api/matches/${view.match}/record`, download: `${view.game}-${view.match}.json`, text: t("game.download") }),
            view.terminal ? h("a", { id: "replay-link", href: `/replay?match=${view.match}`, text: t("game.replay") }) : null),
          view.terminal ? analysis.panel(view.players) : null,
          view.score_text ? h("details.score-text", { open: true }, h("summary", { text: t("game.final_scores") }), h("pre", { id: "score-text", text: view.score_text })) : null,
          h("details.rules", {}, h("summary", { text: t("lobby.rules") }), h("p", { text: t(`rules.${view.game}`) })))),
    );
    if (focusedCell) drawn.cells.get(focusedCell)?.focus();
  }

  return render;
}
