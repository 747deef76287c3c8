// The play page: board, selection and highlighting, players, log, undo, keyboard play.
import { createAnalysis, createHints } from "./analysis.js";
import { MatchSocket, api } from "./api.js";
import { boardFor } from "./boards/index.js";
import { labelCells, markTargets } from "./boards/board.js";
import { attachCursor } from "./cursor.js";
import { applySeatColors, h } from "./dom.js";
import { lang, t, tm } from "./i18n.js";
import { levelName } from "./ladder.js";
import { analyseMoves, cellFreeMoves, clickCell, explainCandidates, flatLegal, nextTargets, pieceChoices } from "./moves.js";
import { endActions, endReason, endScreen, lastChanges, moveList, playerList, scoreEvents, scoreFeed } from "./panel.js";
import { createTable } from "./table.js";
import { rulesLink } from "./learn.js";

/** Words as a list in the page's language: "a, b or c" ("disjunction") or "a, b and c". */
function listOf(words, type) {
  return new Intl.ListFormat(lang, { type }).format(words);
}

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
  let positions = null; // every position so far ({ply, seat, action, state, scores}), once loaded
  let viewing = null; // the ply shown from the move list; null: the live position
  let notice = null; // {text, kind}: the last refusal or problem, shown above the controls
  let badToken = false; // the link's token is not a seat of this match
  const cursor = { cursor: null }; // the keyboard cursor's cell, kept across redraws

  const hints = createHints(matchId, () => render());
  const analysis = createAnalysis({ matchId }, () => render());
  const root = h("section.game", { id: "game" });
  // Turn changes and score events for screen readers: one region that outlives redraws.
  const announcer = h("div.sr-only", { id: "announce", "aria-live": "polite", role: "status" });
  main.replaceChildren(root, announcer);
  const table = createTable(matchId, { getView: () => view, mySeats });

  const socket = new MatchSocket(matchId, {
    onState: (v) => {
      const old = view;
      view = v;
      applySeatColors(v.colors);
      if (!old || old.version !== v.version) {
        sel = { piece: null, picked: [], choose: null };
        if (old) notice = null;
      }
      syncHistory(v);
      noteChanges(old, v);
      announce(old, v);
      render();
    },
    onOther: (msg) => {
      table.onMessage(msg);
      if (msg.type === "table") render(); // rated or not decides whether hints are offered
    },
    onStatus: (ok, err) => {
      connected = ok;
      if (ok) table.hello(socket);
      if (err) root.replaceChildren(h("p.error", { text: t("error.generic", { detail: err.detail }) }));
      else render();
    },
  });

  Promise.all(
    tokens.map((tok) =>
      api(`/api/matches/${matchId}/seat`, { method: "POST", body: { token: tok } }).then(
        (r) => mySeats.set(r.seat, tok),
        (err) => {
          if (err.status === 403) badToken = true; // say so: never a silent spectator
        },
      ),
    ),
  ).then(() => {
    if (connected) table.hello(socket);
    render();
  });

  loadHistory();

  /** Every position of the match so far, for the move list and the score feed. */
  function loadHistory() {
    api(`/api/matches/${matchId}/replay`).then(
      (d) => {
        positions = d.steps.map(({ ply, seat, action, state, scores }) => ({ ply, seat, action, state, scores }));
        if (view) syncHistory(view);
        render();
      },
      () => null, // the live page works without it: no feed positions, no past positions
    );
  }

  function syncHistory(v) {
    if (!positions) return;
    if (v.ply < positions.length - 1) positions.length = v.ply + 1; // an undo
    const last = v.log[v.ply - 1];
    const step = { ply: v.ply, seat: last?.seat ?? null, action: last?.action ?? null, state: v.state, scores: v.scores };
    if (v.ply === positions.length) positions.push(step);
    else if (v.ply === positions.length - 1) positions[v.ply] = step;
    else {
      positions = null; // missed several positions: fetch them all again
      loadHistory();
    }
    if (viewing != null && viewing > v.ply) viewing = null;
  }

  function announce(old, v) {
    const parts = [];
    if (old) for (const [seat, gained] of scoreFlash) parts.push(t("game.feed_scored", { name: v.players[seat].name, n: gained }));
    const over = (x) => !!(x && (x.terminal || x.ended));
    if (over(v) && !over(old)) parts.push(t("game.over"));
    else if (!over(v) && (!old || old.current_player !== v.current_player)) parts.push(t("game.turn_of", { name: v.players[v.current_player].name }));
    if (parts.length) announcer.textContent = parts.join(". ");
  }

  function say(text, kind = "warn") {
    notice = { text, kind };
    render();
  }

  /** Asks the engine why a click or typed text matches no legal move, and shows its reason. */
  async function explain(actions, cell) {
    if (!actions.length) return say(t("game.illegal"));
    // Several pieces may be meant (no piece chosen): a reason is shown only when they agree.
    try {
      const answers = await Promise.all(actions.slice(0, 8).map((action) => socket.send({ type: "explain", action })));
      const texts = [...new Set(answers.map((a) => a.message).filter(Boolean).map((m) => tm(m)))];
      // "c4: c4 is occupied" would say the cell twice: the cell is added only where the reason lacks it.
      if (texts.length === 1) say(cell && !texts[0].includes(cell) ? t("game.why_not", { cell, reason: texts[0] }) : texts[0]);
      else if (texts.length > 1) say(t("game.choose_piece"));
      else say(t("game.illegal"));
    } catch {
      say(t("game.illegal"));
    }
  }

  function noteChanges(old, v) {
    scoreFlash = new Map();
    if (old && old.scores && v.ply >= old.ply) {
      v.scores.forEach((sc, i) => {
        const gained = sc - (old.scores[i] ?? 0);
        if (gained > 0) scoreFlash.set(i, gained); // shown in the panel and the feed, never over the controls
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
    if (!view || view.terminal || view.ended || view.current_player == null) return null;
    if (view.players[view.current_player]?.agent !== "human") return null; // a bot took the seat over
    return mySeats.get(view.current_player) ?? null;
  }

  async function submit(action) {
    const token = actingToken();
    if (!token || busy) return;
    busy = true;
    try {
      await socket.send({ type: "act", token, version: view.version, action });
    } catch (err) {
      say(err.body?.message ? tm(err.body.message) : t("error.generic", { detail: err.message }), "error");
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
      say(t("error.generic", { detail: err.message }), "error");
    }
  }

  function onCell(name) {
    if (!actingToken() || viewing != null) return;
    const moves = analyseMoves(view.legal, boardFor(view.game).cellNames(view.state));
    let res = clickCell(moves, sel.picked, sel.piece, name);
    const tried = sel.picked;
    if (res.kind === "none" && sel.picked.length) {
      sel.picked = []; // a click elsewhere starts a new selection
      res = clickCell(moves, [], sel.piece, name);
    }
    if (res.kind === "none") {
      explain(explainCandidates(moves, tried, sel.piece, name), name);
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
    explain([text]);
  }

  /** What the player to move is asked to do, from the game's board module (boards/*.js), in words. */
  function promptText() {
    const ask = boardFor(view.game).prompt?.(view.state, Object.keys(view.legal || {}));
    if (!ask) return null;
    const params = { ...ask.params };
    if (Array.isArray(params.cells)) params.cells = listOf(params.cells, "disjunction");
    return t(ask.key, params);
  }

  /** After the end (the rules', a resignation or an abort): who won and why, at the top. */
  function endBanner() {
    const ended = view.ended;
    const name = (seat) => view.players[seat]?.name ?? String(seat + 1);
    let headline;
    let reason;
    if (ended?.reason === "aborted") {
      headline = t("status.aborted");
      reason = t("table.ended_aborted", { name: name(ended.seat) });
    } else {
      const winners = view.terminal ? view.outcome.winners : ended?.winners ?? [];
      headline = winners.length ? t("game.winners", { names: listOf(winners.map(name), "conjunction"), n: winners.length }) : t("game.over");
      reason = ended
        ? t(`status.reason_${ended.reason}`, { name: name(ended.seat) })
        : t("game.end_reason", { reason: endReason(view.game, view.outcome.termination) });
    }
    return h("div.status.over", { id: "status" },
      h("strong", { id: "status-winner", text: headline }), " ", h("span", { id: "status-reason", text: reason }));
  }

  function statusLine() {
    if (view.terminal || view.ended) return endBanner();
    const cp = view.players[view.current_player];
    const ask = promptText();
    let text;
    if (actingToken()) {
      const doWhat = ask ?? t("game.your_turn");
      text = mySeats.size > 1 ? t("status.seat_prompt", { name: cp.name, prompt: doWhat }) : doWhat;
    } else {
      const who = cp.agent === "human" ? t("game.waiting", { name: cp.name }) : t("status.waiting_bot", { name: cp.name, level: levelName(cp.agent) });
      text = mySeats.size ? who : `${t("game.spectating")} · ${ask && cp.agent === "human" ? t("status.seat_prompt", { name: cp.name, prompt: ask }) : who}`;
    }
    return h("div.status", { id: "status", class: `status to-move-p${view.current_player}` },
      h("span", { class: `swatch p${view.current_player}`, "aria-hidden": "true" }), " ", h("span", { id: "status-text", text }),
      connected ? null : h("span.offline", { text: ` · ${t("game.connection_lost")}` }));
  }

  /** A link whose token is not a seat: say so, and offer to watch instead. */
  function tokenBanner() {
    if (!badToken) return null;
    return h("div.banner.warn", { id: "bad-token", role: "alert" },
      h("span", { text: t("game.bad_token") }), " ",
      h("button", { id: "watch-instead", onclick: () => {
        localStorage.removeItem(`tabletop.tokens.${matchId}`);
        window.history.replaceState(null, "", location.pathname);
        badToken = false;
        render();
      }, text: t("game.watch_instead") }));
  }

  /** The position chosen in the move list, with the way back to the live game. */
  function viewingBar() {
    if (viewing == null) return null;
    return h("div.banner.viewing", { id: "viewing" },
      h("span", { text: t("game.viewing", { ply: viewing, n: view.log.length }) }), " ",
      h("button", { id: "back-live", onclick: () => { viewing = null; render(); }, text: t("game.back_live") }));
  }

  function noticeLine() {
    return h("p", { id: "notice", class: `notice ${notice ? notice.kind : "empty"}`, role: "status", "aria-live": "polite", text: notice ? notice.text : "" });
  }

  const pastBoards = new Map(); // ply -> the server's board drawing of that position (or a pending fetch)
  /** The board drawing at `ply` once fetched; starts the fetch (and redraws when it arrives). */
  function pastBoard(ply) {
    const known = pastBoards.get(ply);
    if (typeof known === "string") return known;
    if (known === undefined) {
      pastBoards.set(ply, null);
      fetch(`/api/matches/${matchId}/board?ply=${ply}`)
        .then((r) => (r.ok ? r.text() : null))
        .then((svg) => { if (svg) { pastBoards.set(ply, svg); if (viewing === ply) render(); } else pastBoards.delete(ply); })
        .catch(() => pastBoards.delete(ply));
    }
    return null;
  }

  function pickPly(ply) {
    // Before the positions have arrived the banner shows at once; the board follows when they do.
    viewing = ply >= view.ply ? null : ply;
    render();
  }

  /** Buttons of the end screen: rematch when every person of the match plays on this page. */
  function endButtons() {
    const humans = view.players.filter((p) => p.agent === "human");
    const rematch = humans.length && humans.every((p) => mySeats.has(p.seat)) ? () => startRematch() : null;
    const extra = Object.fromEntries(Object.entries(endActions).map(([id, make]) => [id, make(view)]));
    return { rematch, ...extra };
  }

  async function startRematch() {
    const cfg = view.config || {};
    const body = { game: view.game, seats: view.players.map((p) => ({ name: p.name, agent: p.agent })), ruleset: cfg.ruleset || "default", variants: cfg.variants || {}, hotseat: !!view.hotseat };
    if (cfg.map) body.map = cfg.map;
    try {
      const m = await api("/api/matches", { method: "POST", body });
      location.href = m.hotseat_link || m.seats.find((x) => x.link)?.link || m.spectator_link;
    } catch (err) {
      say(t("error.generic", { detail: err.message }), "error");
    }
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

  function render() {
    if (!view) return;
    const board = boardFor(view.game);
    const names = board.cellNames(view.state);
    const moves = analyseMoves(view.legal, names);
    const past = viewing != null && positions ? positions[viewing] : null; // a position from the move list
    const mine = viewing == null && !!actingToken();
    // The board marks (and animates) the others' last turns itself: it needs my seats.
    // A past position is the server's drawing at that ply, fetched once (pastBoard).
    const drawn = past
      ? board.draw(past.state, { ...view, state: past.state, scores: past.scores, legal: {}, board_svg: pastBoard(viewing) ?? view.board_svg, mySeats: [...mySeats.keys()] })
      : board.draw(view.state, { ...view, mySeats: [...mySeats.keys()] });
    if (!past) hints.mark(drawn, view, names);
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
    // Keyboard play: arrows move a cursor over every cell, Enter acts (cursor.js).
    const playable = (c) => drawn.cells.get(c)?.classList.contains("target") || drawn.cells.get(c)?.classList.contains("source");
    attachCursor(drawn.svg, drawn.cells, {
      state: cursor,
      onAct: onCell,
      preferred: [...sel.picked, ...[...drawn.cells.keys()].filter(playable)],
      label: (c) => (mine && playable(c) ? t("game.cell_target", { cell: c }) : t("game.cell_label", { cell: c })),
    });
    drawn.svg.setAttribute("aria-label", t("game.board_label"));
    drawn.svg.id = "board";
    drawn.svg.classList.add("board", mine ? "active" : "idle");
    root.dataset.version = String(view.version);
    root.dataset.mine = mine ? "1" : "0";
    const focusedCell = document.activeElement?.closest?.("[data-cell]")?.dataset.cell;
    const events = positions ? scoreEvents(positions) : [];
    const recentFrom = mySeats.size ? view.log.length - 6 : view.log.length;
    root.replaceChildren(...[
      statusLine(),
      tokenBanner(),
      view.terminal ? endScreen(view, endButtons()) : null,
      h("div.layout", {},
        h("div.board-wrap", {}, viewingBar(), drawn.figure ?? drawn.svg),
        h("aside.side", {},
          noticeLine(),
          viewing != null ? null : controls(moves),
          viewing != null || table.isRated() ? null : hints.panel(view, actingToken()),
          playerList(past ? { ...view, scores: past.scores } : view, { mySeats, changes: lastChanges(events), justScored: scoreFlash }),
          board.panel ? board.panel(past ? past.state : view.state, { ...view, mySeats: [...mySeats.keys()] }, t) : null,
          scoreFeed(events, view.players),
          h("h3", { text: t("game.log") }),
          moveList(view, { viewing, recentFrom: recent.size ? recentFrom : Infinity, onPick: pickPly }),
          table.element,
          h("div.links", {},
            h("a", { id: "download", href: `/api/matches/${view.match}/record`, download: `${view.game}-${view.match}.json`, text: t("game.download") }),
            view.terminal ? h("a", { id: "replay-link", href: `/replay?match=${view.match}`, text: t("game.replay") }) : null),
          view.terminal ? analysis.panel(view.players) : null,
          h("details.rules", {}, h("summary", { text: t("lobby.rules") }), h("p", { text: t(`rules.${view.game}`) }), rulesLink(view.game)))),
    ].filter(Boolean));
    if (mine) markTargets(drawn.cells);
    labelCells(drawn.cells);
    if (focusedCell) drawn.cells.get(focusedCell)?.focus();
    table.render();
  }

  return render;
}
