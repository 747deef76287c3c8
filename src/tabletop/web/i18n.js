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

/**
 * Translates `key`, filling {placeholders} from `params`.  A key with plural forms holds
 * an object ({"one": ..., "other": ...}); the form is chosen by the language's own rules
 * (Intl.PluralRules) for `params.n`.
 */
export function t(key, params = {}) {
  let text = strings[key] ?? fallback[key] ?? key;
  if (typeof text === "object") text = text[pluralRules().select(Number(params.n ?? 0))] ?? text.other ?? key;
  return text.replace(/\{(\w+)\}/g, (_, k) => (k in params ? String(params[k]) : `{${k}}`));
}

let rules = null;
function pluralRules() {
  if (!rules || rules.resolvedOptions().locale.slice(0, 2) !== lang) rules = new Intl.PluralRules(lang);
  return rules;
}

/** Whether `key` has a text in the current language or English. */
export function has(key) {
  return key in strings || key in fallback;
}

/**
 * An engine message ({code, params, text}) in the page's language: the code's translation,
 * with colour words translated too; the engine's English text for a code not translated.
 */
export function tm(message) {
  if (!message) return "";
  const key = `msg.${message.code}`;
  if (!has(key)) return message.text ?? message.code;
  const params = { ...message.params };
  if (params.color && has(`color.${params.color}`)) params.color = t(`color.${params.color}`);
  return t(key, params);
}

/** A game's display name ("Terra Nova"), never its id, in the page's language where it has one. */
export function gameName(id) {
  return has(`game_name.${id}`) ? t(`game_name.${id}`) : id;
}

/** A number in the page's language (digits and separators). */
export function num(n) {
  return typeof n === "number" ? n.toLocaleString(lang) : String(n);
}
