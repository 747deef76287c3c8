// UI strings: en, sv, fi, nl, it.  Chosen from the browser language, switchable, remembered.
export const LANGUAGES = { en: "English", sv: "Svenska", fi: "Suomi", nl: "Nederlands", it: "Italiano" };

let strings = {};
let fallback = {};
export let lang = "en";

async function load(code) {
  const r = await fetch(`/static/i18n/${code}.json`);
  return r.ok ? r.json() : {};
}

export function pickLanguage() {
  const saved = localStorage.getItem("tabletop.lang");
  if (saved && saved in LANGUAGES) return saved;
  for (const l of navigator.languages || [navigator.language || "en"]) {
    const code = l.slice(0, 2).toLowerCase();
    if (code in LANGUAGES) return code;
  }
  return "en";
}

export async function setLanguage(code) {
  lang = code in LANGUAGES ? code : "en";
  localStorage.setItem("tabletop.lang", lang);
  if (!Object.keys(fallback).length) fallback = await load("en");
  strings = lang === "en" ? fallback : await load(lang);
  document.documentElement.lang = lang;
  for (const el of document.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
}

/** Translates `key`, filling {placeholders} from `params`. */
export function t(key, params = {}) {
  const text = strings[key] ?? fallback[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, k) => (k in params ? String(params[k]) : `{${k}}`));
}
