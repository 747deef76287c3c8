// The page of one lobby game (/lobby/{id}): who sits where, join a free seat, and for the
// creator: start now with bots, or cancel.  It polls until the game starts, then opens
// the game page with this browser's seat token.
import { currentAccount } from "./account.js";
import { api } from "./api.js";
import { h, toast } from "./dom.js";
import { gameName, has, t } from "./i18n.js";
import { levelName } from "./ladder.js";

const POLL_MS = 1500;

/** This browser's seat in lobby game `id`: from the #t= fragment, else remembered. */
export function lobbySeat(id) {
  const key = `tabletop.lobby.${id}`;
  const frag = new URLSearchParams(location.hash.slice(1)).get("t");
  const saved = JSON.parse(localStorage.getItem(key) || "null");
  if (frag && (!saved || saved.token !== frag)) {
    const mine = { token: frag, creator: false };
    localStorage.setItem(key, JSON.stringify(mine));
    return mine;
  }
  return saved;
}

export function rememberLobbySeat(id, seat) {
  localStorage.setItem(`tabletop.lobby.${id}`, JSON.stringify(seat));
}

export function showLobbyGame(main, id) {
  let game = null;
  let mine = lobbySeat(id);
  let timer = null;
  let name = localStorage.getItem("tabletop.name") || "";
  let botLevel = null;
  let agents = [];

  async function refresh() {
    try {
      game = await api(`/api/lobby/${id}`);
    } catch (err) {
      if (err.status === 0) return; // the connection dropped (or an answer was cut off): the next poll asks again
      clearInterval(timer);
      main.replaceChildren(h("p.error", { text: t("error.generic", { detail: err.message }) }));
      return;
    }
    if (game.status === "started" && game.match) {
      clearInterval(timer);
      location.href = mine ? `/play/${game.match}#t=${mine.token}` : `/play/${game.match}`;
      return;
    }
    render();
  }

  async function join(seat) {
    // Logged in, the seat takes the account's name (the server binds it to the account).
    const who = currentAccount() || name.trim();
    if (!who) return toast(t("lobby.need_name"), "warn");
    if (!currentAccount()) localStorage.setItem("tabletop.name", who);
    try {
      const r = await api(`/api/lobby/${id}/join`, { method: "POST", body: { name: who, seat } });
      mine = { token: r.token, seat: r.seat, creator: false };
      rememberLobbySeat(id, mine);
      game = r.game;
      if (game.status === "started") location.href = r.play_link;
      else render();
    } catch (err) {
      toast(t("error.generic", { detail: err.message }), "error");
      refresh();
    }
  }

  async function creatorAction(what) {
    try {
      game = await api(`/api/lobby/${id}/${what}`, { method: "POST", body: { token: mine.token, agent: botLevel || undefined } });
      if (what === "cancel") location.href = "/";
      else refresh();
    } catch (err) {
      toast(t("error.generic", { detail: err.message }), "error");
    }
  }

  function clockText(c) {
    if (!c) return t("lobby.no_clock");
    if (c.kind === "turn") return t("lobby.clock_turn", { hours: Math.round(c.per_move_s / 360) / 10 });
    return t("lobby.clock_realtime", { minutes: Math.round(c.base_s / 6) / 10, increment: c.increment_s });
  }

  function render() {
    if (!game) return;
    const link = new URL(`/lobby/${id}`, location.href).href;
    const seats = game.seats.map((s) =>
      h(`li.lobby-seat.p${s.seat}`, { class: `lobby-seat p${s.seat} ${s.state}`, "data-seat": s.seat, "data-state": s.state },
        h("span", { class: `swatch p${s.seat}`, "aria-hidden": "true" }),
        h("span.name", { text: s.state === "open" ? t("lobby.seat_open") : s.state === "bot" ? `${s.name} (${t("game.bot")})` : s.name }),
        s.state === "reserved" ? h("span.note", { text: ` ${t("lobby.seat_reserved")}` }) : null,
        s.state === "open" && !mine ? h("button.join", { "data-seat": s.seat, onclick: () => join(s.seat), text: t("lobby.join") }) : null,
        mine && mine.seat === s.seat ? h("span.me", { text: " ★" }) : null));
    const level = h("select", { id: "start-agent", onchange: (e) => (botLevel = e.target.value) });
    // The named levels (and the match's takeover bot, whatever it is): never a list of raw specs.
    for (const a of agents.filter((x) => has(`level.${x}`) || x === game.takeover)) level.append(new Option(levelName(a), a));
    level.value = botLevel || game.takeover;
    main.replaceChildren(
      h("section.lobby.lobby-game", { id: "lobby-game", "data-status": game.status },
        h("h1", { text: t("lobby.waiting_heading", { game: gameName(game.game) }) }),
        h("p", { text: `${clockText(game.clock)} · ${t("lobby.takeover_by", { bot: levelName(game.takeover), grace: game.grace_s })}` }),
        h("ol.lobby-seats", { id: "lobby-seats" }, seats),
        !mine && !currentAccount() ? h("label", {}, h("span", { text: t("lobby.your_name") }),
          h("input", { id: "join-name", value: name, maxlength: 80, oninput: (e) => (name = e.target.value) })) : null,
        h("p", {}, h("span", { text: `${t("lobby.invite")} ` }), h("input.link", { readonly: true, value: link, onfocus: (e) => e.target.select() })),
        mine && mine.creator && game.status === "open"
          ? h("div.row", {},
              h("label", {}, h("span", { text: t("lobby.start_bots") }), level),
              h("button.primary", { id: "start-now", onclick: () => creatorAction("start"), text: t("lobby.start_now") }),
              h("button", { id: "cancel-game", onclick: () => creatorAction("cancel"), text: t("lobby.cancel") }))
          : null,
        mine ? h("p.note", { text: t("lobby.wait_start") }) : null),
    );
  }

  api("/api/agents").then((a) => { agents = a.agents.filter((x) => x !== "human"); render(); }, () => null); // no bot list: the server picks
  refresh();
  timer = setInterval(refresh, POLL_MS);
  return render;
}
