// A person's profile (/players/NAME: ratings and their history, plotted as SVG drawn
// here, no library) and a game's leaderboard (/ratings/GAME: people and bots, one scale).
import { api } from "./api.js";
import { h, s, toast } from "./dom.js";
import { gameName, t } from "./i18n.js";
import { levelName } from "./ladder.js";

const FAMILIES = ["2p", "multi"];

/** The displayed rating (mu - 3 sigma) after each rated game, as a line over game numbers. */
export function historyPlot(points, { width = 480, height = 200 } = {}) {
  const pad = { left: 44, right: 12, top: 12, bottom: 28 };
  const values = [points.length ? points[0].rating_before : 0, ...points.map((p) => p.rating)];
  let lo = Math.min(...values);
  let hi = Math.max(...values);
  if (hi - lo < 1) {
    lo -= 1;
    hi += 1;
  }
  const x = (i) => pad.left + (i / Math.max(1, values.length - 1)) * (width - pad.left - pad.right);
  const y = (v) => pad.top + (1 - (v - lo) / (hi - lo)) * (height - pad.top - pad.bottom);
  const path = values.map((v, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
  const ticks = [lo, (lo + hi) / 2, hi];
  return s(
    "svg",
    { class: "rating-plot", viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": t("profile.plot_label") },
    s("rect", { x: pad.left, y: pad.top, width: width - pad.left - pad.right, height: height - pad.top - pad.bottom, class: "plot-area" }),
    ...ticks.map((v) =>
      s("text", { x: pad.left - 6, y: y(v) + 4, class: "plot-tick", "text-anchor": "end" }, v.toFixed(1)),
    ),
    s("text", { x: (width + pad.left) / 2, y: height - 6, class: "plot-tick", "text-anchor": "middle" }, t("profile.games_axis")),
    s("path", { d: path, class: "plot-line" }),
    ...values.map((v, i) => s("circle", { cx: x(i), cy: y(v), r: 3, class: "plot-point" }, s("title", {}, v.toFixed(2)))),
  );
}

function fmt(v) {
  return Number(v).toFixed(1);
}

export function showProfile(main, name) {
  const root = h("section.profile", { id: "profile" });
  main.replaceChildren(root);

  async function render() {
    try {
      const p = await api(`/api/players/${encodeURIComponent(name)}`);
      const sections = p.ratings.map((r) =>
        h(
          "div.rating-card",
          { "data-game": r.game, "data-family": r.family },
          h("h3", { text: `${gameName(r.game)} · ${t(`ratings.family.${r.family}`)}` }),
          h("p", {
            class: "rating-now",
            text: t("profile.rating_line", { rating: fmt(r.rating), mu: fmt(r.mu), sigma: fmt(r.sigma), elo: Math.round(r.elo), games: r.games }),
          }),
          historyPlot(r.history),
          h("p", {}, h("a", { href: `/ratings/${r.game}?family=${r.family}`, text: t("profile.leaderboard") })),
        ),
      );
      root.replaceChildren(
        h("h2", { id: "profile-name", text: p.name }),
        h("p.hint", { text: t("profile.summary", { matches: p.matches }) }),
        ...(sections.length ? sections : [h("p", { text: t("profile.unrated") })]),
      );
    } catch (err) {
      root.replaceChildren(h("p", { text: t("profile.not_found", { name }) }));
      if (err.status !== 404) toast(t("error.generic", { detail: err.message }), "error");
    }
  }

  render();
  return render;
}

export function showLeaderboard(main, game) {
  const root = h("section.leaderboard", { id: "leaderboard" });
  main.replaceChildren(root);
  const params = new URLSearchParams(location.search);
  const family = FAMILIES.includes(params.get("family")) ? params.get("family") : "2p";

  async function render() {
    try {
      const [board, games] = await Promise.all([api(`/api/ratings/${encodeURIComponent(game)}?family=${family}&limit=100`), api("/api/games")]);
      const gameLinks = (games.games || games).map((g) =>
        h("a", { href: `/ratings/${g.id}?family=${family}`, class: g.id === game ? "current" : "", text: g.name }),
      );
      const familyLinks = FAMILIES.map((f) =>
        h("a", { href: `/ratings/${game}?family=${f}`, class: f === family ? "current" : "", text: t(`ratings.family.${f}`) }),
      );
      const rows = [
        ...board.players.map((p) => ({ ...p, who: h("a", { href: `/players/${encodeURIComponent(p.name)}`, text: p.name }) })),
        ...board.bots.map((b) => ({ ...b, rank: "", games: "", who: h("span.bot", { text: `${t("ratings.bot")} ${levelName(b.bot)}` }) })),
      ].sort((a, b) => b.rating - a.rating);
      root.replaceChildren(
        h("h2", { text: t("ratings.heading") }),
        h("p.tabs", {}, ...gameLinks),
        h("p.tabs", {}, ...familyLinks),
        h("p.hint", { text: t("ratings.explain") }),
        h(
          "table.leaderboard",
          { id: "leaderboard-table" },
          h("thead", {}, h("tr", {}, ...["ratings.rank", "ratings.who", "ratings.rating", "ratings.elo", "ratings.games"].map((k) => h("th", { text: t(k) })))),
          h(
            "tbody",
            {},
            ...rows.map((r) => h("tr", {}, h("td", { text: String(r.rank) }), h("td", {}, r.who), h("td", { text: fmt(r.rating) }), h("td", { text: String(Math.round(r.elo)) }), h("td", { text: String(r.games) }))),
          ),
        ),
      );
    } catch (err) {
      root.replaceChildren(h("p", { text: t("error.generic", { detail: err.message }) }));
    }
  }

  render();
  return render;
}
