// The board as the server draws it (the game's render_board hook: the same picture as
// `tabletop render`), made interactive here: cells are the `g.cell[data-cell]` groups of
// that drawing.  See src/tabletop/render/svg.py for the drawing's contract.
import { h, s } from "../dom.js";
import { has, t } from "../i18n.js";
import { showMotion } from "./motion.js";

const parser = new DOMParser();
// [name, i18n key, English, on by default]; "fit" matters on a phone only (board.css).
const TOGGLES = [
  ["coords", "board.coordinates", "Coordinates", true],
  ["legend", "board.legend", "Legend", true],
  ["fit", "board.fit", "Whole board", false],
];
const PHONE = window.matchMedia("(max-width: 700px)"); // as board.css's phone layout
const panned = new Map(); // match -> [scrollLeft, scrollTop] of the board's frame, kept across redraws

function label(key, english) {
  const text = t(key);
  return text === key ? english : text;
}

/**
 * A landscape's name in the page's language: the shipped maps' names have translations
 * (landscape.<name>); a map file's own names are shown as they are.  `text` is the drawing's
 * legend text, the name plus " (water)" for water.
 */
export function landscapeLabel(text) {
  const water = text.endsWith(" (water)");
  const name = water ? text.slice(0, -" (water)".length) : text;
  const key = `landscape.${name.toLowerCase()}`;
  const shown = has(key) ? t(key) : name;
  return water ? `${shown} ${t("board.water")}` : shown;
}

/**
 * Legal targets drawn on the board, readable on every landscape: a dot where a click
 * completes an action (cells with the class `target`), a ring where one starts (`source`),
 * dark with a white edge.  Call it once the drawing is in the document (it measures cells).
 */
export function markTargets(cells) {
  for (const g of cells.values()) {
    for (const old of g.querySelectorAll(":scope > .target-mark")) old.remove();
    const kind = g.classList.contains("target") ? "dot" : g.classList.contains("source") ? "ring" : null;
    const hl = kind && g.querySelector(".hl");
    if (!hl) continue;
    const box = hl.getBBox();
    const size = Math.min(box.width, box.height);
    const at = { cx: box.x + box.width / 2, cy: box.y + box.height / 2, "pointer-events": "none", "aria-hidden": "true" };
    if (kind === "dot") g.append(s("circle", { ...at, class: "target-mark dot", r: Math.max(4, size * 0.13) }));
    else {
      g.append(s("circle", { ...at, class: "target-mark ring-halo", r: size * 0.42 }));
      g.append(s("circle", { ...at, class: "target-mark ring", r: size * 0.42 }));
    }
  }
}

/**
 * Each cell's name written in it, small (shown on a phone only, board.css): the drawing's
 * coordinates stand at the edges, which a phone's frame pans out of view.  Cells too narrow
 * for a name (Medina's wall spaces) get none.  Needs the drawing in the document.
 */
export function labelCells(cells) {
  for (const [name, g] of cells) {
    if (g.querySelector(":scope > .cell-name")) continue;
    const hl = g.querySelector(".hl");
    if (!hl) continue;
    const box = hl.getBBox();
    if (Math.min(box.width, box.height) < 30) continue;
    g.append(s("text", { class: "cell-name", x: box.x + box.width / 2, y: box.y + box.height * 0.86, "text-anchor": "middle", "pointer-events": "none", "aria-hidden": "true" }, name));
  }
}

/** The server's SVG text as an element of this document (nothing in it runs: no scripts). */
export function parseBoard(text) {
  if (!text) return document.createElementNS("http://www.w3.org/2000/svg", "svg");
  const doc = parser.parseFromString(text, "image/svg+xml");
  const root = doc.documentElement;
  if (root.nodeName !== "svg") throw new Error("the board drawing is not SVG");
  return document.importNode(root, true);
}

function shown(name) {
  const saved = localStorage.getItem(`tabletop.board.${name}`);
  return saved ? saved === "on" : TOGGLES.find(([n]) => n === name)[3];
}

/** The toggles above the board: coordinates and legend, remembered across pages. */
function toolbar(figure) {
  return h("div.board-tools", { role: "toolbar", "aria-label": label("board.tools", "Board") },
    TOGGLES.map(([name, key, english]) => h(`button.board-toggle.toggle-${name}`, {
      id: `toggle-${name}`,
      type: "button",
      "aria-pressed": String(shown(name)),
      onclick: (e) => {
        const on = !shown(name);
        localStorage.setItem(`tabletop.board.${name}`, on ? "on" : "off");
        figure.classList.toggle(`hide-${name}`, !on);
        e.currentTarget.setAttribute("aria-pressed", String(on));
      },
      text: label(key, english),
    })));
}

/**
 * Draws `svgText` (a render_board drawing) for `view`: returns {svg, cells, figure}, where
 * `figure` (toolbar and a scrolling frame around the drawing) is what the page inserts.
 * `view.mySeats` are the viewer's seats: their own actions are not marked.
 */
export function drawServerBoard(svgText, view) {
  const svg = parseBoard(svgText);
  const cells = new Map();
  for (const g of svg.querySelectorAll("g.cell[data-cell]")) cells.set(g.dataset.cell, g);
  // The legend's words in the page's language where the string tables have them
  // (board.legend.<kind>); a map's landscape names are the map's own.  The label is the
  // entry's own text: an icon may hold text too (a tower's value).
  for (const entry of svg.querySelectorAll(".legend-entry[data-kind]")) {
    const label = entry.querySelector(":scope > text");
    if (entry.dataset.kind.startsWith("land-")) {
      label.textContent = landscapeLabel(label.textContent);
      continue;
    }
    const key = `board.legend.${entry.dataset.kind}`;
    const text = t(key);
    if (text !== key) label.textContent = text;
  }
  const figure = h("figure.board-figure", {});
  for (const [name] of TOGGLES) figure.classList.toggle(`hide-${name}`, !shown(name));
  const width = Number(svg.getAttribute("width")) || 600;
  // The natural size has cells of at least 44 px: the phone layout shows it so (and pans).
  figure.style.setProperty("--board-natural-width", `${width}px`);
  const key = view.match ?? "replay";
  const frame = h("div.board-scroll", { onscroll: (e) => panned.set(key, [e.target.scrollLeft, e.target.scrollTop]) }, svg);
  // "Whole board" on a phone is the overview: a tap zooms to playing size around that spot
  // (cells there are too small to aim at), and only a tap at playing size plays.
  frame.addEventListener("click", (e) => {
    if (!PHONE.matches || !shown("fit")) return;
    e.stopPropagation();
    const box = svg.getBoundingClientRect();
    const fx = (e.clientX - box.left) / box.width;
    const fy = (e.clientY - box.top) / box.height;
    localStorage.setItem("tabletop.board.fit", "off");
    figure.classList.add("hide-fit");
    figure.querySelector("#toggle-fit")?.setAttribute("aria-pressed", "false");
    frame.scrollLeft = fx * frame.scrollWidth - frame.clientWidth / 2;
    frame.scrollTop = fy * frame.scrollHeight - frame.clientHeight / 2;
  }, true);
  figure.append(toolbar(figure), h("p.fit-hint", { text: label("board.fit_hint", "Tap a spot to zoom in there") }), frame);
  // Every update redraws the board: keep where the player had panned it (at first: the middle).
  requestAnimationFrame(() => {
    if (!frame.isConnected) return;
    const [left, top] = panned.get(key) ?? [(frame.scrollWidth - frame.clientWidth) / 2, 0];
    frame.scrollLeft = left;
    frame.scrollTop = top;
  });
  showMotion(svg, view);
  return { svg, cells, figure };
}
