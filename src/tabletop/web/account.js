// Accounts: the header's log-in link or name, the /account page (register, log in, my
// games, claim a guest seat) and the session's CSRF token for every later request.
import { api, setCsrfToken } from "./api.js";
import { h, toast } from "./dom.js";
import { gameName, t } from "./i18n.js";

let session = { name: null, csrf: null };

/** Asks the server who is logged in; every request from then on carries the CSRF token. */
export async function loadSession() {
  try {
    session = await api("/api/session");
  } catch {
    session = { name: null, csrf: null };
  }
  setCsrfToken(session.csrf);
  return session;
}

export function currentAccount() {
  return session.name;
}

function applySession(answer) {
  session = { name: answer.name, csrf: answer.csrf };
  setCsrfToken(session.csrf);
}

/** The header's account corner: "Log in" or "name · Log out", and the leaderboards. */
export function mountAccountNav() {
  const header = document.querySelector("header");
  let nav = document.getElementById("account-nav");
  if (!nav) {
    nav = h("nav.account-nav", { id: "account-nav" });
    header.insertBefore(nav, header.querySelector(".lang"));
  }
  const links = [h("a", { href: "/ratings/medina", text: t("account.leaderboards") })];
  if (session.name) {
    links.push(
      h("a", { href: "/account", id: "account-name", text: session.name }),
      h("button.link", { id: "log-out", onclick: logOut, text: t("account.log_out") }),
    );
  } else {
    links.push(h("a", { href: "/account", id: "log-in-link", text: t("account.log_in") }));
  }
  nav.replaceChildren(...links);
}

async function logOut() {
  try {
    await api("/api/session", { method: "DELETE" });
  } catch (err) {
    toast(t("error.generic", { detail: err.message }), "error");
  }
  session = { name: null, csrf: null };
  setCsrfToken(null);
  location.href = "/account";
}

function credentialsForm(id, heading, submitText, path, status) {
  const name = h("input", { name: "name", autocomplete: "username", required: true, minlength: 3, maxlength: 64 });
  const password = h("input", {
    name: "password",
    type: "password",
    autocomplete: path === "/api/accounts" ? "new-password" : "current-password",
    required: true,
  });
  const form = h(
    "form.account-form",
    {
      id,
      onsubmit: async (ev) => {
        ev.preventDefault();
        try {
          applySession(await api(path, { method: "POST", body: { name: name.value, password: password.value } }));
          location.href = "/account";
        } catch (err) {
          toast(t(`account.error.${err.body?.error}`) === `account.error.${err.body?.error}` ? err.message : t(`account.error.${err.body?.error}`), "error", 6000);
        }
      },
    },
    h("h2", { text: heading }),
    h("label", {}, h("span", { text: t("account.name") }), name),
    h("label", {}, h("span", { text: t("account.password") }), password),
    status ? h("p.hint", { text: status }) : null,
    h("button", { type: "submit", text: submitText }),
  );
  return form;
}

function claimForm() {
  const link = h("input", { name: "link", placeholder: "/play/…#t=…", required: true });
  return h(
    "form.account-form",
    {
      id: "claim-form",
      onsubmit: async (ev) => {
        ev.preventDefault();
        const m = link.value.match(/\/play\/([\w-]+)#t=([\w-]+)/);
        if (!m) return toast(t("account.claim_bad_link"), "error");
        try {
          const claimed = await api(`/api/matches/${m[1]}/claim`, { method: "POST", body: { token: m[2] } });
          toast(t("account.claimed"));
          location.href = claimed.link;
        } catch (err) {
          toast(t("error.generic", { detail: err.message }), "error", 6000);
        }
      },
    },
    h("h2", { text: t("account.claim_heading") }),
    h("p.hint", { text: t("account.claim_hint") }),
    h("label", {}, h("span", { text: t("account.claim_link") }), link),
    h("button", { type: "submit", text: t("account.claim") }),
  );
}

function matchRow(m) {
  const players = m.players.map((p) => p.name).join(", ");
  const state = m.finished ? t("account.finished") : t("account.in_progress");
  const rating = m.rating ? ` · ${t("account.rating_change", { change: (m.rating.mu - m.rating.mu_before).toFixed(2) })}` : "";
  return h(
    "li.my-match",
    { "data-match": m.id },
    h("a", { href: m.link, text: `${gameName(m.game)} · ${players}` }),
    h("span.hint", { text: ` ${state}${m.rated ? ` · ${t("account.rated")}` : ""}${rating}` }),
  );
}

/** The /account page: forms when logged out; my games and the claim form when logged in. */
export function showAccount(main) {
  const root = h("section.account", { id: "account" });
  main.replaceChildren(root);

  async function render() {
    if (!session.name) {
      root.replaceChildren(
        credentialsForm("log-in-form", t("account.log_in"), t("account.log_in"), "/api/session"),
        credentialsForm("register-form", t("account.register"), t("account.register"), "/api/accounts", t("account.register_hint")),
      );
      return;
    }
    const list = h("ul.my-matches", { id: "my-matches" });
    root.replaceChildren(
      h("h2", { text: t("account.hello", { name: session.name }) }),
      h("p", {}, h("a", { href: `/players/${encodeURIComponent(session.name)}`, id: "my-profile", text: t("account.profile") })),
      h("h2", { text: t("account.my_games") }),
      list,
      claimForm(),
    );
    try {
      const page = await api("/api/me/matches?limit=50");
      if (!page.matches.length) list.append(h("li.hint", { text: t("account.no_games") }));
      for (const m of page.matches) list.append(matchRow(m));
    } catch (err) {
      toast(t("error.generic", { detail: err.message }), "error");
    }
  }

  render();
  return render;
}

/** The lobby form's "rated" switch, shown only to a logged-in person. */
export function ratedSwitch(form) {
  if (!session.name) return null;
  const box = h("input", { id: "rated", type: "checkbox", onchange: (e) => (form.rated = e.target.checked) });
  box.checked = !!form.rated;
  return h("label.check", {}, box, h("span", { text: t("account.rated_switch") }));
}

/** A logged-in creator's first person seat is bound to their account (not on a shared hotseat screen). */
export function bindCreatorSeat(body, form) {
  if (!session.name) return;
  if (!body.hotseat) {
    const mine = body.seats.find((seat) => seat.agent === "human");
    if (mine) mine.me = true;
  }
  if (form.rated) body.rated = true;
}
