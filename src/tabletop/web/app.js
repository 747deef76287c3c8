// Entry point: picks the page from the URL.
import { LANGUAGES, pickLanguage, setLanguage } from "./i18n.js";
import { showLobby } from "./lobby.js";
import { showGame } from "./game.js";
import { showReplay } from "./replay.js";

let rerender = () => {};

async function start() {
  const select = document.getElementById("lang-select");
  for (const [code, name] of Object.entries(LANGUAGES)) select.append(new Option(name, code));
  const lang = pickLanguage();
  select.value = lang;
  await setLanguage(lang);
  select.addEventListener("change", async () => {
    await setLanguage(select.value);
    rerender();
  });
  const main = document.getElementById("main");
  const play = location.pathname.match(/^\/play\/([\w-]+)/);
  if (play) rerender = showGame(main, play[1]);
  else if (location.pathname === "/replay") rerender = showReplay(main);
  else rerender = showLobby(main);
}

start();
