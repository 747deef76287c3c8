// HTTP and websocket access to the server.

export class ApiError extends Error {
  constructor(status, body) {
    // FastAPI's own 422s carry a list of problems as `detail`: never show "[object Object]".
    const detail = body?.detail;
    super(typeof detail === "string" ? detail : Array.isArray(detail) ? detail.map((d) => d.msg ?? JSON.stringify(d)).join("; ") : `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

let csrfToken = null;

/** The session's CSRF token (account.js sets it after asking GET /api/session); see docs/server.md. */
export function setCsrfToken(token) {
  csrfToken = token;
}

export async function api(path, { method = "GET", body } = {}) {
  const headers = body === undefined ? {} : { "content-type": "application/json" };
  if (csrfToken) headers["x-csrf-token"] = csrfToken;
  let r;
  try {
    r = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    // Status 0, as a cut-off answer: no answer came, and asking again may work.
    throw new ApiError(0, { detail: "no answer from the server; check the connection and try again" });
  }
  return answer(r);
}

/**
 * The JSON body of a response.  A refusal's body may be anything (a proxy's HTML page):
 * the status says what went wrong.  A success whose body cannot be read (a server
 * killed while it sent it leaves half a document) is a failed request too, never a
 * `null` the caller would take for an answer.
 */
async function answer(r) {
  const text = await r.text().catch(() => null);
  let data = null;
  let readable = text !== null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      readable = false;
    }
  }
  if (!r.ok) throw new ApiError(r.status, data);
  if (!readable) throw new ApiError(0, { detail: "the server's answer was cut off; try again" });
  return data;
}

/** Applies an update (changed state keys, new log entries) to the view it was made from. */
export function mergePatch(view, patch) {
  const state = { ...view.state, ...patch.state };
  for (const k of patch.drop || []) delete state[k];
  const log = view.log.slice(0, patch.log_from).concat(patch.log);
  return { ...patch, full: true, state, log };
}

/**
 * A match socket that reconnects by itself.  `onState` gets every view; `send` returns a
 * promise settled by the server's ack or error for that request.
 */
export class MatchSocket {
  constructor(matchId, { onState, onStatus, onOther }) {
    this.url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/api/matches/${matchId}/ws?board=1`; // the page draws the board: ask for its drawing
    this.onState = onState;
    this.onStatus = onStatus;
    this.onOther = onOther; // the lobby's "table" and "chat" messages (table.js)
    this.pending = new Map();
    this.req = 0;
    this.delay = 250;
    this.closed = false;
    this.open();
  }

  open() {
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.onopen = () => {
      this.delay = 250;
      this.onStatus(true);
    };
    ws.onmessage = (ev) => {
      const msg = JSON.parse(ev.data);
      if (msg.type === "state") {
        if (msg.full) this.view = msg;
        else if (this.view && msg.base === this.view.version) this.view = mergePatch(this.view, msg);
        else return ws.close(); // missed an update: reconnect for a full view
        this.onState(this.view);
      }
      else if (msg.type === "table" || msg.type === "chat") this.onOther?.(msg);
      else if (msg.req != null && this.pending.has(msg.req)) {
        const { resolve, reject } = this.pending.get(msg.req);
        this.pending.delete(msg.req);
        if (msg.type === "error") reject(new ApiError(msg.status, msg));
        else resolve(msg);
      } else if (msg.type === "error" && msg.status === 404) {
        this.closed = true;
        this.onStatus(false, msg);
      }
    };
    ws.onclose = () => {
      for (const { reject } of this.pending.values()) reject(new ApiError(0, { detail: "connection lost" }));
      this.pending.clear();
      if (this.closed) return;
      this.onStatus(false);
      // Back off up to 5 s; the server resends the full state on reconnect.
      setTimeout(() => this.open(), this.delay);
      this.delay = Math.min(this.delay * 2, 5000);
    };
  }

  send(msg) {
    return new Promise((resolve, reject) => {
      if (this.ws.readyState !== WebSocket.OPEN) {
        reject(new ApiError(0, { detail: "not connected" }));
        return;
      }
      const req = ++this.req;
      this.pending.set(req, { resolve, reject });
      this.ws.send(JSON.stringify({ ...msg, req }));
    });
  }

  close() {
    this.closed = true;
    this.ws.close();
  }
}
