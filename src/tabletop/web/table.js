// What a lobby match has besides the board: clocks, who plays each seat (a bot may have
// taken over), resign / abort / take back / rematch, the chat, and "your turn" in the tab
// title and (optionally) a browser notification.  game.js hands it the socket's
// `table` and `chat` messages and calls `render` after each view.
import { api } from "./api.js";
import { ChatBox } from "./chat.js";
import { ClockView } from "./clock.js";
import { h, toast } from "./dom.js";
import { t } from "./i18n.js";
import { levelName } from "./ladder.js";

const BASE_TITLE = document.title;

export function createTable(matchId, { getView, mySeats }) {
  let table = null;
  let wasMyTurn = false;
  const clocks = new ClockView();
  const myToken = () => (mySeats.size ? [...mySeats.values()][0] : null);
  const chat = new ChatBox(matchId, { token: myToken, players: () => getView()?.players });
  const status = h("div.table-status", { id: "table-status" });
  const buttons = h("div.table-buttons", { id: "table-buttons" });
  const element = h("section.table", { id: "table", hidden: true }, clocks.element, status, buttons, chat.element);

  function hello(socket) {
    for (const token of mySeats.values()) socket.send({ type: "hello", token }).catch(() => null);
  }

  function onMessage(msg) {
    if (msg.type === "table") {
      table = msg;
      element.hidden = false;
      render();
    } else if (msg.type === "chat") {
      element.hidden = false;
      chat.add(msg.messages);
    }
  }

  async function post(path, token) {
    try {
      return await api(`/api/matches/${matchId}/${path}`, { method: "POST", body: { token } });
    } catch (err) {
      toast(t("error.generic", { detail: err.message }), "error");
      return null;
    }
  }

  async function rematch() {
    const r = await post("rematch", myToken());
    if (!r) return;
    // The first to ask opens the rematch and may start it with bots.
    const creator = r.game.seats.filter((s) => s.state === "taken").length === 1;
    localStorage.setItem(`tabletop.lobby.${r.id}`, JSON.stringify({ token: r.token, seat: r.seat, creator }));
    location.href = r.game.status === "started" ? r.play_link : r.lobby_link;
  }

  function myTurn(view) {
    if (!view || view.terminal || view.ended || view.current_player == null) return false;
    if (!mySeats.has(view.current_player)) return false;
    return !table || table.seats[view.current_player]?.status === "playing";
  }

  function notify(view) {
    const now = myTurn(view);
    document.title = now ? `● ${t("game.your_turn")} · ${BASE_TITLE}` : BASE_TITLE;
    if (now && !wasMyTurn && document.hidden && "Notification" in window && Notification.permission === "granted") {
      new Notification(t("game.your_turn"), { body: view.game_name, tag: `tabletop-${matchId}` });
    }
    wasMyTurn = now;
  }

  function render() {
    const view = getView();
    if (view) notify(view);
    chat.render();
    if (!table || !view) return;
    clocks.update(table.clock, view.players);
    const notes = [];
    for (const s of table.seats) {
      const name = view.players[s.seat]?.name;
      if (s.status === "timeout" || s.status === "dropped")
        notes.push(t(`table.${s.status}`, { name, bot: levelName(table.takeover) }));
      if (s.status === "resigned") notes.push(t("table.resigned", { name }));
    }
    if (table.ended) {
      const who = view.players[table.ended.seat]?.name;
      notes.push(t(`table.ended_${table.ended.reason}`, { name: who }));
    }
    status.replaceChildren(...notes.map((n) => h("p.note", { text: n })));
    const token = myToken();
    const mine = [...mySeats.keys()];
    const over = view.terminal || !!table.ended;
    const takenOver = mine.find((s) => ["timeout", "dropped"].includes(table.seats[s]?.status));
    // replaceChildren writes a null as the text "null": only the buttons that apply.
    buttons.replaceChildren(...[
      token && takenOver != null && !over
        ? h("button.primary", { id: "reclaim", onclick: () => post("reclaim", mySeats.get(takenOver)), text: t("table.reclaim") }) : null,
      token && !over && table.abortable ? h("button", { id: "abort", onclick: () => post("abort", token), text: t("table.abort") }) : null,
      token && !over
        ? h("button", { id: "resign", onclick: () => confirm(t("table.resign_confirm")) && post("resign", token), text: t("table.resign") }) : null,
      token && over ? h("button.primary", { id: "rematch", onclick: rematch, text: t(table.rematch ? "table.rematch_accept" : "table.rematch") }) : null,
      "Notification" in window && Notification.permission === "default"
        ? h("button", { id: "notify", onclick: () => Notification.requestPermission().then(render), text: t("table.notify") }) : null,
    ].filter(Boolean));
    element.dataset.over = over ? "1" : "0";
  }

  /** Whether the match counts for ratings (then there are no hints): known once the table arrives. */
  const isRated = () => !!table?.rated;

  return { element, onMessage, hello, render, isRated };
}
