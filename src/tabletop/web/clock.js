// Clocks on the game page: the server sends each seat's time left and which one runs;
// the page counts the running one down from the moment it heard (its own clock, so a
// difference between the browser's and the server's time does not matter).
import { h } from "./dom.js";
import { t } from "./i18n.js";

/** "1d 03:04:05", "12:05", "0:09": time left as people read it (never negative). */
export function formatLeft(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const days = Math.floor(total / 86400);
  const hours = Math.floor((total % 86400) / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  const two = (n) => String(n).padStart(2, "0");
  if (days) return `${days}d ${two(hours)}:${two(minutes)}:${two(seconds)}`;
  if (hours) return `${hours}:${two(minutes)}:${two(seconds)}`;
  return `${minutes}:${two(seconds)}`;
}

export class ClockView {
  constructor() {
    this.element = h("ol.clocks", { id: "clocks", "aria-label": t("clock.heading") });
    this.clock = null;
    this.heardAt = 0;
    this.timer = setInterval(() => this.tick(), 250);
  }

  /** Shows a `clock` snapshot from a table message (or hides the clocks for `null`). */
  update(clock, players) {
    this.clock = clock;
    this.heardAt = performance.now();
    this.element.hidden = !clock;
    if (!clock) return this.element.replaceChildren();
    this.element.dataset.kind = clock.kind;
    this.element.replaceChildren(
      ...clock.remaining_ms.map((ms, seat) =>
        h(`li.clock.p${seat}`, {
          class: `clock p${seat}${seat === clock.running ? " running" : ""}`,
          "data-seat": seat,
          "data-remaining-ms": ms,
        },
        h("span", { class: `swatch p${seat}`, "aria-hidden": "true" }),
        h("span.name", { text: players?.[seat]?.name ?? `#${seat + 1}` }),
        h("span.time", { text: formatLeft(ms) })),
      ),
    );
  }

  /** Time left for `seat` now, as this page counts it. */
  leftMs(seat) {
    const c = this.clock;
    if (!c) return null;
    const ms = c.remaining_ms[seat];
    return seat === c.running ? Math.max(0, ms - (performance.now() - this.heardAt)) : ms;
  }

  tick() {
    const c = this.clock;
    if (!c || c.running == null) return;
    const li = this.element.querySelector(`li[data-seat="${c.running}"] .time`);
    if (!li) return;
    const left = this.leftMs(c.running);
    li.textContent = formatLeft(left);
    li.parentElement.classList.toggle("low", left < 30000 && c.kind === "realtime");
  }
}
