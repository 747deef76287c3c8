// The lobby's part of the start page: open a game for people (open seats, bots, a clock),
// and the lists of open games (join) and games in progress (watch).
import { currentAccount } from "./account.js";
import { api } from "./api.js";
import { h, toast } from "./dom.js";
import { gameName, t } from "./i18n.js";
import { advancedBots, botSelect, levelName } from "./ladder.js";
import { rememberLobbySeat } from "./lobbygame.js";

const REFRESH_MS = 5000;
const UNIT_S = { hours: 3600, days: 86400 };

/** Settings of the "play with people" form, kept across re-renders of the start page. */
export const openForm = {
  name: localStorage.getItem("tabletop.name") || "",
  others: [], // per seat after the creator's: "open" or a bot spec
  clock: "none",
  perMove: 24,
  unit: "hours",
  baseMin: 10,
  increment: 5,
  public: true,
  takeover: null, // the server's default level (Casual) until one is chosen
  grace: 60,
  rated: false,
};

/** The form; `base()` gives the game, players, ruleset, variants and map chosen above it,
 * `label(bot)` what a bot menu shows for a bot spec. */
export function openGameSection(base, agents, label = (bot) => bot, menus = null) {
  const { players } = base();
  const bots = agents.filter((a) => a !== "human");
  const { levels, raw, defaultBot } = menus ?? { levels: bots, raw: [], defaultBot: bots[0] };
  if (openForm.takeover == null || !bots.includes(openForm.takeover)) openForm.takeover = defaultBot;
  while (openForm.others.length < players - 1) openForm.others.push("open");
  openForm.others.length = players - 1;
  const field = (key, input, params) => h("label", {}, h("span", { text: t(key, params) }), input);
  const select = (id, options, value, onchange) => {
    const el = h("select", { id, onchange: (e) => onchange(e.target.value) });
    for (const [v, text] of options) el.append(new Option(text, v));
    el.value = value;
    return el;
  };
  const number = (id, value, min, onchange) =>
    h("input", { id, type: "number", min, value, oninput: (e) => onchange(Number(e.target.value)) });
  // Re-rendered after a choice, so the Advanced menus follow (and the reverse).
  const section = h("section.lobby", { id: "open-game" });
  const redraw = () => section.replaceWith(openGameSection(base, agents, label, menus));
  const seats = openForm.others.map((who, i) =>
    field("lobby.seat", botSelect(`open-seat-${i + 1}`, { levels, value: who, first: [["open", t("lobby.seat_open")]], label,
      onchange: (v) => { openForm.others[i] = v; redraw(); } }), { n: i + 2 }));
  const advanced = advancedBots("open-advanced", raw, levels, [
    ...openForm.others.map((who, i) => ({ id: `open-seat-${i + 1}-engine`, label: t("lobby.seat", { n: i + 2 }), value: who,
      onchange: (v) => { openForm.others[i] = v || "open"; redraw(); } })),
    { id: "open-takeover-engine", label: t("lobby.takeover"), value: openForm.takeover,
      onchange: (v) => { openForm.takeover = v || defaultBot; redraw(); } },
  ]);
  const pub = h("input", { id: "open-public", type: "checkbox", onchange: (e) => (openForm.public = e.target.checked) });
  pub.checked = openForm.public;
  const rated = h("input", { id: "open-rated", type: "checkbox", onchange: (e) => (openForm.rated = e.target.checked) });
  rated.checked = openForm.rated;
  const clockFields = h("div.row", { id: "clock-fields" });
  const showClock = () => {
    clockFields.replaceChildren(
      ...(openForm.clock === "turn"
        ? [field("lobby.per_move", number("clock-per-move", openForm.perMove, 1, (v) => (openForm.perMove = v))),
           select("clock-unit", [["hours", t("lobby.hours")], ["days", t("lobby.days")]], openForm.unit, (v) => (openForm.unit = v))]
        : openForm.clock === "realtime"
          ? [field("lobby.base_minutes", number("clock-base", openForm.baseMin, 1, (v) => (openForm.baseMin = v))),
             field("lobby.increment", number("clock-increment", openForm.increment, 0, (v) => (openForm.increment = v)))]
          : []));
  };
  showClock();
  section.append(
    h("h2", { text: t("lobby.people_heading") }),
    h("p", { text: t("lobby.people_help") }),
    h("div.row", {},
      // Logged in, the creator's seat takes the account's name: no name to type.
      currentAccount() ? null : field("lobby.your_name", h("input", { id: "open-name", value: openForm.name, maxlength: 80, oninput: (e) => (openForm.name = e.target.value) })),
      ...seats),
    h("div.row", {},
      field("lobby.clock", select("clock-kind", [["none", t("lobby.no_clock")], ["turn", t("lobby.clock_kind_turn")], ["realtime", t("lobby.clock_kind_realtime")]],
        openForm.clock, (v) => { openForm.clock = v; showClock(); })),
      clockFields),
    h("div.row", {},
      field("lobby.takeover", botSelect("open-takeover", { levels, value: openForm.takeover, label,
        onchange: (v) => { openForm.takeover = v; redraw(); } })),
      field("lobby.grace", number("open-grace", openForm.grace, 10, (v) => (openForm.grace = v)))),
    h("label.check", {}, pub, h("span", { text: t("lobby.public") })),
    h("label.check", {}, rated, h("span", { text: t("lobby.rated") })),
    advanced,
    h("button.primary", { id: "open-create", onclick: () => createOpenGame(base()), text: t("lobby.open_create") }));
  return section;
}

async function createOpenGame(base) {
  const f = openForm;
  const name = currentAccount() || f.name.trim();
  if (!name) return toast(t("lobby.need_name"), "warn");
  if (!currentAccount()) localStorage.setItem("tabletop.name", name);
  let clock = null;
  if (f.clock === "turn") clock = { kind: "turn", per_move_s: Math.round(f.perMove * UNIT_S[f.unit]) };
  if (f.clock === "realtime") clock = { kind: "realtime", base_s: Math.round(f.baseMin * 60), increment_s: Math.round(f.increment) };
  const body = {
    game: base.game,
    ruleset: base.ruleset,
    variants: base.variants,
    seats: [{ kind: "me", name }, ...f.others.map((w) => (w === "open" ? { kind: "open" } : { kind: "bot", agent: w }))],
    public: f.public,
    clock,
    takeover: f.takeover,
    grace_s: f.grace,
    rated: f.rated,
  };
  if (base.map) body.map = base.map;
  try {
    const r = await api("/api/lobby", { method: "POST", body });
    rememberLobbySeat(r.id, { token: r.token, seat: r.seat, creator: true });
    location.href = r.game.status === "started" ? r.play_link : `/lobby/${r.id}`;
  } catch (err) {
    toast(t("error.generic", { detail: err.message }), "error");
  }
}

/** The lists of open games and games in progress, refreshed every few seconds. */
export function gameLists() {
  const open = h("ul.game-list", { id: "open-games" });
  const playing = h("ul.game-list", { id: "playing-games" });
  const element = h("section.lobby", { id: "game-lists" },
    h("h2", { text: t("lobby.open_games") }), open,
    h("h2", { text: t("lobby.in_progress") }), playing);
  const names = (players) => (players || []).map((p) => p.name || t("lobby.seat_open")).join(", ");
  async function refresh() {
    if (!element.isConnected && element.dataset.loaded) return;
    try {
      const [o, p] = await Promise.all([api("/api/lobby?state=open"), api("/api/lobby?state=playing")]);
      element.dataset.loaded = "1";
      open.replaceChildren(...(o.games.length ? o.games.map((g) =>
        h("li", { "data-id": g.id },
          h("span", { text: `${gameName(g.game)} · ${names(g.seats.map((s) => ({ name: s.state === "open" ? "" : s.name })))} ` }),
          h("a.join-link", { href: `/lobby/${g.id}`, text: t("lobby.join") }))) : [h("li.empty", { text: t("lobby.none") })]));
      playing.replaceChildren(...(p.games.length ? p.games.map((g) =>
        h("li", { "data-id": g.id },
          h("span", { text: `${gameName(g.game)} · ${names(g.players)} ` }),
          h("a.watch-link", { href: `/play/${g.id}`, text: t("lobby.watch") }))) : [h("li.empty", { text: t("lobby.none") })]));
    } catch {
      // the lists come back at the next refresh
    }
  }
  refresh();
  setInterval(refresh, REFRESH_MS);
  return element;
}
