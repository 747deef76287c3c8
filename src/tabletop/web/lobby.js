// The start page: create a game (seats, ruleset, map, variants, hotseat) or upload a record.
import { learnOffer, rulesLink } from "./learn.js";
import { api } from "./api.js";
import { applySeatColors, h, toast } from "./dom.js";
import { gameName, t } from "./i18n.js";
import { startReplay } from "./replay.js";
import { gameLists, openGameSection } from "./opengames.js";
import { advancedBots, botLabel, botSelect, ladderTable, splitBots } from "./ladder.js";
import { bindCreatorSeat, ratedSwitch } from "./account.js";

export function showLobby(main) {
  let games = [];
  let agents = ["human", "random"];
  let defaultBot = "random"; // replaced by the server's default level (GET /api/games): Casual
  let created = null;
  let problem = null; // {where: "map" | "record" | "create", text}: shown in the form, in words
  const lists = gameLists(); // kept across re-renders: it refreshes itself
  const form = { game: null, players: 2, ruleset: "default", map: "", variants: {}, hotseat: false, seats: [], seed: "" };

  function seatDefaults(n) {
    while (form.seats.length < n) {
      const i = form.seats.length;
      form.seats.push({ name: i === 0 ? t("lobby.default_player", { n: 1 }) : t("lobby.default_bot", { n: i + 1 }), agent: i === 0 ? "human" : defaultBot });
    }
    form.seats.length = n;
  }

  // The player counts a ruleset seats (Medina: 2 only in its second edition).
  function rulesetCounts(g, ruleset) {
    const all = [];
    for (let n = g.min_players; n <= g.max_players; n++) all.push(n);
    return g.ruleset_players?.[ruleset] || all;
  }

  /** A game chosen: its default ruleset's smallest player count (Terra Nova: you and one bot), fresh bot seats. */
  function pickGame(id) {
    const g = games.find((x) => x.id === id) || games[0];
    form.game = g.id;
    form.players = rulesetCounts(g, "default")[0];
    form.ruleset = "default";
    form.map = "";
    form.variants = {};
    form.seats.length = Math.min(form.seats.length, 1); // the first seat keeps its name
    seatDefaults(form.players);
  }

  async function create() {
    const body = {
      game: form.game,
      seats: form.seats.map((s) => ({ name: s.name.trim() || "?", agent: s.agent })),
      ruleset: form.ruleset,
      variants: form.variants,
      hotseat: form.hotseat,
    };
    if (form.map) body.map = form.map;
    if (form.seed !== "") body.seed = Number(form.seed);
    bindCreatorSeat(body, form);
    try {
      created = await api("/api/matches", { method: "POST", body });
      const humans = created.seats.filter((s) => s.token);
      if (form.hotseat || humans.length <= 1) {
        location.href = created.hotseat_link || created.spectator_link;
        return;
      }
      render();
    } catch (err) {
      problem = { where: "create", text: t("error.generic", { detail: err.message }) };
      render();
      toast(problem.text, "error");
    }
  }

  // A flag's description in the page's language, or the engine's English help for a flag
  // without a translation.
  function describeFlag(g, o) {
    const key = `variant.${g.id}.${o.name}`;
    const text = t(key);
    return text === key ? o.help : text;
  }

  // What the chosen ruleset sets, in words (the edition and its flags).
  function rulesetFlags(g) {
    const flags = Object.entries(g.rulesets[form.ruleset] || {});
    return h("ul.ruleset-flags", { id: "ruleset-flags" },
      flags.map(([name, value]) => {
        const o = g.options.find((x) => x.name === name);
        return h("li", { title: name, text: `${o ? describeFlag(g, o) : name}: ${JSON.stringify(value)}` });
      }));
  }

  function variantInputs(g) {
    // The flag name (as in records and docs) shows on hover; the label is its description.
    const describe = (o) => describeFlag(g, o);
    // An empty field plays what the chosen ruleset sets (edition 2 in second_edition), else the default.
    const preset = g.rulesets[form.ruleset] || {};
    return g.options.map((o) => {
      const sel = h("select", {
        id: `variant-${o.name}`,
        onchange: (e) => {
          if (e.target.value === "") delete form.variants[o.name];
          else form.variants[o.name] = JSON.parse(e.target.value);
        },
      });
      sel.append(new Option(t("lobby.variant_default"), ""));
      for (const c of o.choices || []) sel.append(new Option(String(c), JSON.stringify(c)));
      if (o.name in form.variants) sel.value = JSON.stringify(form.variants[o.name]);
      if (!o.choices) {
        // Free-form flags take a value of the default's type (a count, or a text such as tower values).
        const isText = typeof o.default === "string";
        const inp = h("input", {
          id: `variant-${o.name}`,
          type: isText ? "text" : "number",
          placeholder: String(o.name in preset ? preset[o.name] : o.default),
          onchange: (e) => {
            if (e.target.value === "") delete form.variants[o.name];
            else form.variants[o.name] = isText ? e.target.value : Number(e.target.value);
          },
        });
        return h("label.variant", { title: o.name }, h("span", { text: describe(o) }, " ", rulesLink(g.id, `variant-${o.name}`)), inp);
      }
      return h("label.variant", { title: o.name }, h("span", { text: describe(o) }, " ", rulesLink(g.id, `variant-${o.name}`)), sel);
    });
  }

  function render() {
    main.replaceChildren();
    if (!games.length) return;
    const g = games.find((x) => x.id === form.game);
    applySeatColors(g.seat_colors?.[form.players]);
    const gameSel = h("select", { id: "game-select", onchange: (e) => (pickGame(e.target.value), render()) });
    for (const x of games) gameSel.append(new Option(gameName(x.id) === x.id ? x.name : gameName(x.id), x.id));
    gameSel.value = g.id;
    const countSel = h("select", {
      id: "players-select",
      onchange: (e) => {
        form.players = Number(e.target.value);
        if (!rulesetCounts(g, form.ruleset).includes(form.players)) {
          form.ruleset = Object.keys(g.rulesets).find((r) => rulesetCounts(g, r).includes(form.players)) || form.ruleset;
        }
        seatDefaults(form.players);
        render();
      },
    });
    for (let n = g.min_players; n <= g.max_players; n++) countSel.append(new Option(String(n), String(n)));
    countSel.value = String(form.players);
    const rulesetSel = h("select", { id: "ruleset-select", onchange: (e) => ((form.ruleset = e.target.value), render()) });
    for (const r of Object.keys(g.rulesets)) {
      if (rulesetCounts(g, r).includes(form.players)) rulesetSel.append(new Option(r, r));
    }
    rulesetSel.value = form.ruleset;
    // Built-in maps, or a map file of one's own (sent inline; the engine validates it).
    const mapSel = g.maps.length
      ? [h("label", {}, h("span", { text: t("lobby.map") }), (() => {
          const m = h("select", { id: "map-select", onchange: (e) => (form.map = e.target.value) });
          m.append(new Option(t("lobby.map_default"), ""));
          for (const x of g.maps) m.append(new Option(x.name, x.id));
          if (typeof form.map === "object" && form.map) m.append(new Option(form.map.name || "custom", "custom"));
          m.value = typeof form.map === "object" && form.map ? "custom" : form.map;
          return m;
        })()),
        h("label", {}, h("span", { text: t("lobby.map_upload") }), h("input", { id: "map-upload", type: "file", accept: "application/json,.json",
          onchange: async (e) => {
            const file = e.target.files[0];
            if (!file) return;
            problem = null;
            try {
              form.map = JSON.parse(await file.text());
            } catch (err) {
              form.map = "";
              problem = { where: "map", text: t("error.bad_map_file", { detail: `${file.name}: ${t("error.not_json", { detail: err.message })}` }) };
              return render();
            }
            // The same loader as the command line and Create: its words, at once.
            try {
              const check = await api(`/api/games/${form.game}/maps/check`, { method: "POST", body: form.map });
              if (!check.ok) problem = { where: "map", text: t("error.bad_map_file", { detail: `${file.name}: ${check.detail}` }) };
            } catch (err) {
              problem = { where: "map", text: t("error.bad_map_file", { detail: `${file.name}: ${err.message}` }) };
            }
            render();
          } }))]
      : null;
    const { levels, raw } = splitBots(agents, g);
    const seats = form.seats.map((seat, i) => {
      const who = botSelect(`seat-${i}-agent`, { levels, value: seat.agent, first: [["human", t("lobby.human")]], label: (a) => botLabel(a, g, form),
        onchange: (v) => { seat.agent = v; render(); } });
      return h(
        "fieldset.seat",
        { class: `seat p${i}` },
        h("legend", {}, h("span.swatch", { class: `swatch p${i}` }), t("lobby.seat", { n: i + 1 })),
        h("label", {}, h("span", { text: t("lobby.name") }),
          h("input", { id: `seat-${i}-name`, value: seat.name, maxlength: 80, oninput: (e) => (seat.name = e.target.value) })),
        h("label", {}, h("span", { text: t("lobby.who") }), who),
      );
    });
    const hotseat = h("input", { id: "hotseat", type: "checkbox", onchange: (e) => (form.hotseat = e.target.checked) });
    hotseat.checked = form.hotseat;
    const upload = h("input", {
      id: "record-upload",
      type: "file",
      accept: "application/json,.json",
      onchange: async (e) => {
        const file = e.target.files[0];
        if (!file) return;
        // Checked here, by the server's record reader (the command line's words), before leaving the lobby.
        const text = await file.text();
        try {
          await api("/api/replay/text", { method: "POST", body: { text } });
          startReplay(text);
        } catch (err) {
          problem = { where: "record", text: t("error.bad_record_file", { detail: `${file.name}: ${err.message}` }) };
          render();
        }
      },
    });
    main.append(
      learnOffer() ?? "",
      h("section.lobby", {},
        h("h1", { text: t("lobby.heading") }),
        h("div.row", {},
          h("label", {}, h("span", { text: t("lobby.game") }), gameSel),
          h("label", {}, h("span", { text: t("lobby.players") }), countSel),
          h("label", {}, h("span", { text: t("lobby.ruleset") }), rulesetSel),
          mapSel),
        rulesetFlags(g),
        h("div.seats", {}, seats),
        advancedBots("seat-advanced", raw, levels, form.seats.map((seat, i) => ({
          id: `seat-${i}-engine`, label: t("lobby.seat", { n: i + 1 }), value: seat.agent,
          onchange: (v) => { seat.agent = v || defaultBot; render(); } }))),
        ladderTable(g, agents, form),
        h("details.variants", {}, h("summary", { text: t("lobby.variants") }), h("div.variant-grid", {}, variantInputs(g),
          h("label.variant", {}, h("span", { text: t("lobby.seed") }),
            h("input", { id: "seed", type: "number", min: 0, value: form.seed, oninput: (e) => (form.seed = e.target.value) })))),
        h("label.check", {}, hotseat, h("span", { text: t("lobby.hotseat") })),
        problem && problem.where !== "record" ? h("p.error", { id: "lobby-problem", role: "alert", text: problem.text }) : null,
        ratedSwitch(form),
        h("button.primary", { id: "create", onclick: create, text: t("lobby.create") }),
        created ? createdLinks(created) : null,
        h("details.rules", {}, h("summary", { text: t("lobby.rules") }), h("p", { text: t(`rules.${g.id}`) }), rulesLink(g.id)),
      ),
      openGameSection(() => ({ game: form.game, players: form.players, ruleset: form.ruleset, variants: form.variants, map: form.map }), agents,
        (a) => botLabel(a, g, form), { levels, raw, defaultBot }),
      lists,
      h("section.lobby", {},
        h("h2", { text: t("lobby.replay_heading") }),
        h("label", {}, h("span", { text: t("lobby.replay_upload") }), upload),
        problem && problem.where === "record" ? h("p.error", { id: "record-problem", role: "alert", text: problem.text }) : null),
    );
  }

  function createdLinks(m) {
    const abs = (p) => new URL(p, location.href).href;
    return h("div.created", { id: "created" },
      h("h2", { text: t("lobby.created") }),
      h("p", { text: t("lobby.links") }),
      h("ul", {},
        m.seats.filter((s) => s.link).map((s) =>
          h("li", {}, h("a", { href: s.link, class: "seat-link", "data-seat": s.seat, text: t("lobby.open_seat", { name: s.name }) }),
            h("input.link", { readonly: true, value: abs(s.link), onfocus: (e) => e.target.select() }))),
        h("li", {}, h("a", { href: m.spectator_link, id: "watch-link", text: t("lobby.watch_link") }),
          h("input.link", { readonly: true, value: abs(m.spectator_link), onfocus: (e) => e.target.select() }))),
    );
  }

  function load() {
    Promise.all([api("/api/games"), api("/api/agents")]).then(([g, a]) => {
      games = g.filter((x) => x.id !== "toy");
      if (!games.length) games = g;
      agents = a.agents;
      const wanted = games[0]?.default_bot;
      if (wanted && agents.includes(wanted)) defaultBot = wanted;
      // Terra Nova first: a two-player game against one bot is the gentlest start.
      pickGame((games.find((x) => x.id === "terranova") ?? games[0])?.id);
      render();
    }, (err) => {
      // Without the game list there is no form: say why, and ask again shortly.
      toast(t("error.generic", { detail: err.message }), "error");
      if (main.isConnected) setTimeout(load, 3000);
    });
  }
  load();
  return render;
}
