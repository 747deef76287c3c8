// The chat box of a match: players write (with their seat's token), everyone reads.
// Messages are shown as text only (textContent), and each viewer can mute a seat (kept
// in this browser).
import { api } from "./api.js";
import { h, toast } from "./dom.js";
import { t } from "./i18n.js";

const MAX_CHARS = 300; // the server's default chat_max_chars; it refuses longer ones itself

export class ChatBox {
  constructor(matchId, { token, players }) {
    this.matchId = matchId;
    this.token = token; // () => a token of mine, or null (spectators read only)
    this.players = players; // () => the view's players
    this.messages = [];
    this.muteKey = `tabletop.mute.${matchId}`;
    this.muted = new Set(JSON.parse(localStorage.getItem(this.muteKey) || "[]"));
    this.log = h("ol.chat-log", { id: "chat-log", "aria-live": "polite" });
    this.input = h("input", { id: "chat-input", maxlength: MAX_CHARS, autocomplete: "off", placeholder: t("chat.placeholder"),
      onkeydown: (e) => { if (e.key === "Enter") this.send(); } });
    this.mutes = h("div.chat-mutes", { id: "chat-mutes" });
    this.form = h("div.chat-form", {}, this.input, h("button", { id: "chat-send", onclick: () => this.send(), text: t("chat.send") }));
    this.element = h("details.chat", { id: "chat", open: true }, h("summary", { text: t("chat.heading") }), this.log, this.form, this.mutes);
  }

  /** Adds messages from the server (`{"type": "chat"}`), skipping ones already shown. */
  add(messages) {
    const seen = new Set(this.messages.map((m) => m.n));
    for (const m of messages) if (!seen.has(m.n)) this.messages.push(m);
    this.messages.sort((a, b) => a.n - b.n);
    this.render();
  }

  async send() {
    const token = this.token();
    const text = this.input.value.trim();
    if (!token || !text) return;
    try {
      await api(`/api/matches/${this.matchId}/chat`, { method: "POST", body: { token, text } });
      this.input.value = "";
    } catch (err) {
      toast(t("error.generic", { detail: err.message }), "error");
    }
  }

  toggleMute(seat) {
    if (this.muted.has(seat)) this.muted.delete(seat);
    else this.muted.add(seat);
    localStorage.setItem(this.muteKey, JSON.stringify([...this.muted]));
    this.render();
  }

  render() {
    const players = this.players() || [];
    const name = (seat) => players[seat]?.name ?? `#${seat + 1}`;
    this.log.replaceChildren(
      ...this.messages.filter((m) => !this.muted.has(m.seat)).map((m) =>
        h(`li.p${m.seat}`, { class: `p${m.seat}`, "data-seat": m.seat },
          h("span.who", { text: `${name(m.seat)}: ` }),
          h("span.text", { text: m.text }))),
    );
    this.log.scrollTop = this.log.scrollHeight;
    this.form.hidden = !this.token();
    this.mutes.replaceChildren(
      ...players.map((p) => h("button.mute", {
        "data-seat": p.seat,
        "aria-pressed": String(this.muted.has(p.seat)),
        onclick: () => this.toggleMute(p.seat),
        text: this.muted.has(p.seat) ? t("chat.unmute", { name: p.name }) : t("chat.mute", { name: p.name }),
      })),
    );
  }
}
