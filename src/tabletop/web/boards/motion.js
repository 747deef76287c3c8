// The last turn of every other seat, as motion: the drawing tags what each recent action
// did (data-ply, data-seat, data-step); here the viewer's own actions and everything before
// its own last action lose their marks, and actions that arrived since the last drawing
// are played in order, one STEP_MS apart, so a person can follow a bot's turn.

export const STEP_MS = 900;
const timelines = new Map(); // match (or replay) -> {seen: newest ply drawn, starts: Map(ply -> ms)}

function reducedMotion() {
  return window.matchMedia?.("(prefers-reduced-motion: reduce)").matches;
}

/** The viewer's seats: at a hotseat table, the one about to act (the others' turns are news to it). */
function viewerSeats(view) {
  if (view.hotseat && view.current_player != null) return new Set([view.current_player]);
  return new Set(view.mySeats || []);
}

/** The ply of the viewer's newest action, or -1. */
function myLastPly(view) {
  const mine = viewerSeats(view);
  let last = -1;
  for (const e of view.log || []) if (mine.has(e.seat)) last = Math.max(last, e.ply);
  return last;
}

function keep(svg, view) {
  const mine = viewerSeats(view);
  const since = myLastPly(view);
  const kept = [];
  for (const el of svg.querySelectorAll("[data-ply]")) {
    const ply = Number(el.dataset.ply);
    const own = mine.has(Number(el.dataset.seat)) || ply < since;
    if (!own) kept.push(el);
    else if (el.matches(".motion-mark, .motion-path")) el.remove();
    else el.removeAttribute("data-ply"); // a piece of one's own: drawn, not marked
  }
  svg.classList.toggle("has-motion", kept.length > 0);
  return kept;
}

function animate(el, start, now) {
  const delay = start - now;
  if (delay + STEP_MS <= 0) return; // played already: the mark stays, still
  const timing = { duration: STEP_MS * 0.8, delay, fill: "backwards", easing: "ease-out" };
  let frames;
  if (el.classList.contains("motion-path")) {
    el.setAttribute("pathLength", "100");
    frames = [{ strokeDasharray: "100 100", strokeDashoffset: 100 }, { strokeDasharray: "100 100", strokeDashoffset: 0 }];
  } else if (el.classList.contains("motion-mark")) {
    frames = [{ opacity: 0 }, { opacity: 1 }];
  } else if (el.dataset.fromX != null) {
    frames = [{ transform: `translate(${el.dataset.fromX}px, ${el.dataset.fromY}px)` }, { transform: "translate(0px, 0px)" }];
  } else {
    frames = [{ opacity: 0, transform: "scale(1.8)" }, { opacity: 1, transform: "scale(1)" }];
  }
  el.classList.add("moving");
  el.animate(frames, timing).finished.then(() => el.classList.remove("moving"), () => null);
}

/** Marks and animates the drawing's recent actions for this viewer (see the module comment). */
export function showMotion(svg, view) {
  const kept = keep(svg, view);
  const key = view.match ?? "replay";
  const plies = kept.map((el) => Number(el.dataset.ply));
  const newest = Math.max(-1, ...plies);
  let line = timelines.get(key);
  if (!line) {
    // A page load or reload: the marks are shown at once, nothing replays.
    timelines.set(key, { seen: newest, starts: new Map() });
    return;
  }
  const now = performance.now();
  let next = Math.max(now, ...[...line.starts.values()].map((s) => s + STEP_MS));
  for (const ply of [...new Set(plies)].sort((a, b) => a - b)) {
    if (ply <= line.seen || line.starts.has(ply)) continue;
    line.starts.set(ply, next);
    next += STEP_MS;
  }
  line.seen = Math.max(line.seen, newest);
  if (reducedMotion()) return;
  // After the page has put the drawing in place (the caller inserts it right after).
  queueMicrotask(() => {
    for (const el of kept) {
      const start = line.starts.get(Number(el.dataset.ply));
      if (start != null) animate(el, start, now);
    }
  });
}
