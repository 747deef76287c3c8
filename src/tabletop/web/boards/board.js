// The board as the server draws it (the game's render_board hook: the same picture as
// `tabletop render`), made interactive here: cells are the `g.cell[data-cell]` groups of
// that drawing.  See src/tabletop/render/svg.py for the drawing's contract.
import { h } from "../dom.js";
import { has, t } from "../i18n.js";
import { showMotion } from "./motion.js";

const parser = new DOMParser();
// [name, i18n key, English, on by default]; "fit" matters on a phone only (board.css).
const TOGGLES = [
  ["coords", "board.coordinates", "Coordinates", true],
  ["legend", "board.legend", "Legend", true],
  ["fit", "board.fit", "Whole board", false],
];
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
  figure.append(toolbar(figure), frame);
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
