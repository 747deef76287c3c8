// Tiny DOM helpers: h("tag.class", {attrs}, ...children).
const SVG_NS = "http://www.w3.org/2000/svg";

function build(el, attrs, children) {
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v == null || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "text") el.textContent = v;
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c != null && c !== false) el.append(c);
  return el;
}

export function h(spec, attrs, ...children) {
  const [tag, ...classes] = spec.split(".");
  const el = document.createElement(tag);
  if (classes.length) el.className = classes.join(" ");
  return build(el, attrs, children);
}

export function s(tag, attrs, ...children) {
  return build(document.createElementNS(SVG_NS, tag), attrs, children);
}

// Okabe–Ito shades for the games' colour names (colour-blind safe); shapes stay per seat.
const SHADES = { yellow: "#f0e442", red: "#d55e00", blue: "#0072b2", green: "#009e73", orange: "#e69f00", purple: "#cc79a7", black: "#333333", white: "#f4f4f4" };

/** Paints seat i in the colour the game gives it (e.g. Medina's seat 0 is red). */
export function applySeatColors(colors) {
  (colors || []).forEach((name, i) => {
    if (SHADES[name]) document.documentElement.style.setProperty(`--p${i}`, SHADES[name]);
  });
}

export function toast(text, kind = "info", ms = 3500) {
  const el = h(`div.toast.${kind}`, { role: kind === "error" ? "alert" : "status", text });
  const box = document.getElementById("toasts");
  box.append(el);
  while (box.children.length > 4) box.firstChild.remove(); // never bury the board in toasts
  setTimeout(() => el.remove(), ms);
}
