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

export function toast(text, kind = "info", ms = 3500) {
  const el = h(`div.toast.${kind}`, { role: kind === "error" ? "alert" : "status", text });
  const box = document.getElementById("toasts");
  box.append(el);
  while (box.children.length > 4) box.firstChild.remove(); // never bury the board in toasts
  setTimeout(() => el.remove(), ms);
}
