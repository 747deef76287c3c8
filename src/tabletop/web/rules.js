// The rules of a game (/rules/<game>) in the page's language: the text is
// rules/<game>.<lang>.json (written once in English from docs/rules and translated), the
// diagrams are the game's own drawings of the tutorial's positions (GET /api/learn/...),
// and every variant flag the server offers is described in words (#variant-<flag>).
import { api } from "./api.js";
import { parseBoard } from "./boards/board.js";
import { h } from "./dom.js";
import { lang, t } from "./i18n.js";
import { TUTORIALS, loadLearnTexts, lt } from "./learn.js";

async function rulesText(game) {
  for (const code of [lang, "en"]) {
    const r = await fetch(`/static/rules/${game}.${code}.json`).catch(() => null);
    if (r && r.ok) return r.json();
  }
  throw new Error(`no rules for ${game}`);
}

/** A paragraph with **bold** spans (the only markup the rules files use). */
function paragraph(text) {
  const parts = text.split(/\*\*(.+?)\*\*/g);
  return h("p", {}, parts.map((part, i) => (i % 2 ? h("strong", { text: part }) : part)));
}

function diagram(game, spec) {
  const fig = h("figure.rules-diagram", { "data-lesson": spec.lesson });
  const query = new URLSearchParams((spec.played || []).map((m) => ["played", m]));
  api(`/api/learn/${game}/${spec.lesson}?${query}`).then((view) => {
    const svg = parseBoard(view.board_svg);
    svg.classList.add("board-svg", "rules-board");
    svg.setAttribute("role", "img");
    for (const c of spec.highlight ?? view.highlight) svg.querySelector(`g.cell[data-cell="${c}"]`)?.classList.add("lesson-mark");
    fig.prepend(svg);
  }, () => fig.remove());
  if (spec.caption) fig.append(h("figcaption", { text: spec.caption }));
  return fig;
}

export function showRules(main, game) {
  const root = h("article.rules-page", { id: "rules", "data-game": game });
  main.replaceChildren(root);
  if (!(game in TUTORIALS)) {
    root.replaceChildren(h("p.error", { text: t("error.no_such_page", { path: location.pathname }) }));
    return () => {};
  }

  async function render() {
    let doc;
    let games;
    try {
      [doc, games] = await Promise.all([rulesText(game), api("/api/games"), loadLearnTexts()]);
    } catch (err) {
      root.replaceChildren(h("p.error", { text: t("error.generic", { detail: err.message }) }));
      return;
    }
    const options = games.find((g) => g.id === game)?.options ?? [];
    const toc = h("nav.rules-toc", {}, h("ol", {}, doc.sections.map((s) => h("li", {}, h("a", { href: `#${s.id}`, text: s.title }))),
      h("li", {}, h("a", { href: "#variants", text: doc.variants_title }))));
    root.replaceChildren(...[
      h("h1", { text: doc.title }),
      h("p.rules-links", {},
        h("a", { id: "learn-from-rules", href: `/learn/${game}`, text: lt("learn.offer_game", { game: TUTORIALS[game] }) }), " · ",
        h("a", { href: "/", text: lt("learn.to_lobby") })),
      toc,
      doc.sections.map((s) => h("section.rules-section", { id: s.id },
        h("h2", { text: s.title }),
        s.paragraphs.map(paragraph),
        s.list ? h("ul", {}, s.list.map((item) => h("li", {}, paragraph(item)))) : null,
        s.diagram ? diagram(game, s.diagram) : null)),
      h("section.rules-section", { id: "variants" },
        h("h2", { text: doc.variants_title }),
        paragraph(doc.variants_intro),
        h("dl.variant-list", {}, options.flatMap((o) => [
          h("dt", { id: `variant-${o.name}` }, doc.variants[o.name]?.name ?? o.name),
          h("dd", {}, doc.variants[o.name]?.text ?? o.help,
            h("small.spec", {}, " ", h("code", { text: `${o.name} · ${doc.variants[o.name]?.spec ?? ""}`.replace(/ · $/, "") })))]))),
    ].flat());
    // The address's #anchor (a variant's link from the lobby) now exists: go there.
    if (location.hash) document.getElementById(decodeURIComponent(location.hash.slice(1)))?.scrollIntoView();
  }
  render();
  return render;
}
