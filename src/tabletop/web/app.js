// Entry point: picks the page from the URL.
import { toast } from "./dom.js";
import { LANGUAGES, pickLanguage, setLanguage, t } from "./i18n.js";
import { showLobby } from "./lobby.js";
import { showGame } from "./game.js";
import { showReplay } from "./replay.js";
import { showLobbyGame } from "./lobbygame.js";
import { loadSession, mountAccountNav, showAccount } from "./account.js";
import { showLeaderboard, showProfile } from "./profile.js";
import { showLearn } from "./learn.js";
import { showRules } from "./rules.js";

let rerender = () => {};

async function start() {
  const select = document.getElementById("lang-select");
  for (const [code, name] of Object.entries(LANGUAGES)) select.append(new Option(name, code));
  const lang = pickLanguage();
  select.value = lang;
  await setLanguage(lang);
  await loadSession();
  mountAccountNav();
  select.addEventListener("change", async () => {
    await setLanguage(select.value);
    mountAccountNav();
    rerender();
  });
  const main = document.getElementById("main");
  const play = location.pathname.match(/^\/play\/([\w-]+)/);
  const player = location.pathname.match(/^\/players\/([^/]+)$/);
  const ratings = location.pathname.match(/^\/ratings\/([\w-]+)$/);
  const lobbyGame = location.pathname.match(/^\/lobby\/([\w-]+)/);
  const learn = location.pathname.match(/^\/(learn|rules)\/([\w-]+)$/);
  if (play) rerender = showGame(main, play[1]);
  else if (lobbyGame) rerender = showLobbyGame(main, lobbyGame[1]);
  else if (location.pathname === "/account") rerender = showAccount(main);
  else if (player) rerender = showProfile(main, safeDecode(player[1]));
  else if (ratings) rerender = showLeaderboard(main, ratings[1]);
  else if (location.pathname === "/replay") rerender = showReplay(main);
  else if (learn) rerender = (learn[1] === "learn" ? showLearn : showRules)(main, learn[2]);
  else {
    // Any other address: the server answered 404 with this page; say so, then offer the lobby.
    if (location.pathname !== "/") toast(t("error.no_such_page", { path: location.pathname }), "error", 8000);
    rerender = showLobby(main);
  }
}

start();

function safeDecode(text) {
  try {
    return decodeURIComponent(text);
  } catch {
    return text; // a malformed %-escape: the server answers "no such player"
  }
}
