//! The server bench's simulated players in Rust (`tabletop bench server --client native`).
//!
//! `tabletop bench server` measures server processes on the machine its players share
//! with them, so what the players spend is taken from the servers: 2,000 players in one
//! Python process cost 0.21-0.35 ms of CPU an action, a sixth to a fifth of what the
//! whole machine spends an action (docs/benchmarks.md). These players play exactly as the
//! Python ones (`tabletop.bench.server._Player`): one websocket a seat, a think time drawn
//! from an exponential distribution, a kind-first random legal move, the round trip timed
//! from the send to the server's ack; they only spend less doing it.
//!
//! Each player is a thread with a blocking socket: a player spends nearly all its time
//! waiting, the kernel wakes it when a frame arrives, and its read timeout is the next
//! thing it must do (send the move it thought of, or stop at the end of play). The
//! websocket is the part of RFC 6455 the players need: the opening handshake (the
//! server's accept key checked), whole text messages in (fragments joined), masked text
//! frames out, pongs for the server's pings, and the closing handshake.

use crate::common::rng::Rng;
use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// The largest message a player accepts (a Medina state is a few kilobytes).
pub const MAX_MESSAGE_BYTES: usize = 16 << 20;

/// A player thread's stack: it holds a few buffers on the heap and nothing deep.
const STACK_BYTES: usize = 256 << 10;

/// One seat to play: its websocket URL (`ws://host:port/path`), its match (an index into
/// the counts of acks), its seat number and token, and whether it says hello first (a
/// clocked game's socket, as a browser's).
#[derive(Clone, Debug)]
pub struct Seat {
    pub url: String,
    pub match_index: usize,
    pub seat: i64,
    pub token: String,
    pub hello: bool,
}

/// How the players play and how long they wait.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Mean think time in seconds (0: act at once).
    pub think_s: f64,
    pub seed: u64,
    /// Handshakes under way at once before play.
    pub connecting_at_once: usize,
    /// The longest a connection, its handshake or the first view may take.
    pub connect_timeout: Duration,
    /// How long a player waits for an ack still due once play is over.
    pub ack_wait: Duration,
}

/// What the players measured over the play.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Each acked action's round trip, send to ack, in milliseconds.
    pub rtts_ms: Vec<f64>,
    /// Acked actions by match index.
    pub acked: Vec<u64>,
    /// Error answers, and players that failed (to connect, or later).
    pub errors: u64,
    /// By seat: whether its game ended while it played.
    pub finished: Vec<bool>,
    /// Why each failed player failed.
    pub failures: Vec<String>,
}

#[derive(Default)]
struct Phase {
    /// Players connected with their first view (or failed).
    ready: usize,
    /// The end of play, once the start line is given.
    deadline: Option<Instant>,
    aborted: bool,
    /// Players not yet done with play (none hangs up before all are done).
    playing: usize,
}

struct Shared {
    seats: Vec<Seat>,
    settings: Settings,
    phase: Mutex<Phase>,
    phase_changed: Condvar,
    connecting: Mutex<usize>,
    connect_slot_freed: Condvar,
    acked: Vec<AtomicU64>,
    /// The run was interrupted (read without a lock on every message).
    aborted: AtomicBool,
    outcome: Mutex<(Outcome, usize)>,
    reported: Condvar,
}

/// The players of one run: connected by [`Players::connect`], then played by
/// [`Players::play`] (the caller starts its own measurements in between).
pub struct Players {
    shared: Arc<Shared>,
}

impl Players {
    /// Starts one thread a seat; each connects, reads its first view and waits for the
    /// start line. Call [`Players::wait_ready`] until it says all are ready.
    pub fn connect(seats: Vec<Seat>, settings: Settings) -> io::Result<Players> {
        for seat in &seats {
            parse_url(&seat.url)?;
        }
        let matches = seats.iter().map(|s| s.match_index + 1).max().unwrap_or(0);
        let n = seats.len();
        let shared = Arc::new(Shared {
            seats,
            settings,
            phase: Mutex::new(Phase {
                playing: n,
                ..Phase::default()
            }),
            phase_changed: Condvar::new(),
            connecting: Mutex::new(0),
            connect_slot_freed: Condvar::new(),
            acked: (0..matches).map(|_| AtomicU64::new(0)).collect(),
            aborted: AtomicBool::new(false),
            outcome: Mutex::new((
                Outcome {
                    finished: vec![false; n],
                    ..Outcome::default()
                },
                0,
            )),
            reported: Condvar::new(),
        });
        let mut seeds = Rng::new(shared.settings.seed);
        for index in 0..n {
            let shared = Arc::clone(&shared);
            let seed = seeds.next_u64();
            std::thread::Builder::new()
                .name(format!("bench-player-{index}"))
                .stack_size(STACK_BYTES)
                .spawn(move || run_player(&shared, index, seed))?;
        }
        Ok(Players { shared })
    }

    /// Waits up to `timeout` for every player to be connected (or failed); `true` once all are.
    pub fn wait_ready(&self, timeout: Duration) -> bool {
        let n = self.shared.seats.len();
        let phase = self.shared.phase.lock().unwrap();
        let (phase, _) = self
            .shared
            .phase_changed
            .wait_timeout_while(phase, timeout, |p| p.ready < n)
            .unwrap();
        phase.ready >= n
    }

    /// Gives the start line: play lasts `seconds` from now.
    pub fn start(&self, seconds: f64) {
        let mut phase = self.shared.phase.lock().unwrap();
        phase.deadline = Some(Instant::now() + Duration::from_secs_f64(seconds.max(0.0)));
        self.shared.phase_changed.notify_all();
    }

    /// Waits up to `timeout` for every player to report; the outcome once all have.
    pub fn wait_outcome(&self, timeout: Duration) -> Option<Outcome> {
        let n = self.shared.seats.len();
        let guard = self.shared.outcome.lock().unwrap();
        let (mut guard, _) = self
            .shared
            .reported
            .wait_timeout_while(guard, timeout, |(_, reported)| *reported < n)
            .unwrap();
        if guard.1 < n {
            return None;
        }
        let mut outcome = std::mem::take(&mut guard.0);
        outcome.acked = self.shared.acked.iter().map(|a| a.load(Ordering::Relaxed)).collect();
        Some(outcome)
    }

    /// Stops every player as soon as it can (the run was interrupted).
    pub fn abort(&self) {
        self.shared.aborted.store(true, Ordering::Relaxed);
        let mut phase = self.shared.phase.lock().unwrap();
        phase.aborted = true;
        phase.deadline.get_or_insert_with(Instant::now);
        self.shared.phase_changed.notify_all();
    }
}

/// `(address, host header, path)` of a `ws://` URL.
fn parse_url(url: &str) -> io::Result<(String, String, String)> {
    let rest = url
        .strip_prefix("ws://")
        .ok_or_else(|| invalid(format!("{url:?} is not a ws:// URL")))?;
    let (host, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    if host.is_empty() {
        return Err(invalid(format!("{url:?} names no host")));
    }
    let address = if host
        .rsplit_once(':')
        .is_some_and(|(_, port)| port.parse::<u16>().is_ok())
    {
        host.to_string()
    } else {
        format!("{host}:80")
    };
    Ok((address, host.to_string(), path.to_string()))
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, message)
}

fn broken(message: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message.into())
}

/// One player's thread: connects, plays, reports.
fn run_player(shared: &Shared, index: usize, seed: u64) {
    let mut rng = Rng::new(seed);
    let mut rtts = Vec::new();
    let mut errors = 0u64;
    let played = play_seat(shared, index, &mut rng, &mut rtts, &mut errors);
    let (finished, failure) = match played {
        Ok(finished) => (finished, None),
        Err(e) => (false, Some(e)),
    };
    let mut guard = shared.outcome.lock().unwrap();
    let (outcome, reported) = &mut *guard;
    outcome.rtts_ms.extend_from_slice(&rtts);
    outcome.errors += errors;
    outcome.finished[index] = finished;
    if let Some(e) = failure {
        outcome.errors += 1;
        outcome.failures.push(format!("seat {index}: {e}"));
    }
    *reported += 1;
    shared.reported.notify_all();
}

/// Counts this player as arrived at the start line (connected or failed).
fn arrive(shared: &Shared) {
    let mut phase = shared.phase.lock().unwrap();
    phase.ready += 1;
    shared.phase_changed.notify_all();
}

/// Counts this player out of play; returns once every player is.
fn done_playing(shared: &Shared, wait: bool) {
    let mut phase = shared.phase.lock().unwrap();
    phase.playing -= 1;
    shared.phase_changed.notify_all();
    if wait {
        drop(
            shared
                .phase_changed
                .wait_while(phase, |p| p.playing > 0 && !p.aborted)
                .unwrap(),
        );
    }
}

fn open(shared: &Shared, seat: &Seat, rng: &mut Rng) -> io::Result<Connection> {
    {
        let guard = shared.connecting.lock().unwrap();
        let limit = shared.settings.connecting_at_once.max(1);
        let mut guard = shared.connect_slot_freed.wait_while(guard, |n| *n >= limit).unwrap();
        *guard += 1;
    }
    let opened = Connection::open(&seat.url, shared.settings.connect_timeout, rng);
    *shared.connecting.lock().unwrap() -= 1;
    shared.connect_slot_freed.notify_one();
    opened
}

/// Plays one seat; `Ok(true)` if its game ended while it played.
fn play_seat(shared: &Shared, index: usize, rng: &mut Rng, rtts: &mut Vec<f64>, errors: &mut u64) -> io::Result<bool> {
    let seat = &shared.seats[index];
    let opened = open(shared, seat, rng).and_then(|mut ws| {
        let first = match ws.next_message(Instant::now() + shared.settings.connect_timeout)? {
            Incoming::Message(m) => m.to_vec(),
            Incoming::Timeout => return Err(broken("no first view within the connect timeout")),
        };
        if seat.hello {
            ws.send_text(&serde_json::json!({"type": "hello", "token": seat.token}).to_string())?;
        }
        Ok((ws, first))
    });
    let (mut ws, first) = match opened {
        Ok(opened) => opened,
        Err(e) => {
            arrive(shared);
            done_playing(shared, false);
            return Err(e);
        }
    };
    arrive(shared);
    let deadline = {
        let phase = shared.phase.lock().unwrap();
        let phase = shared
            .phase_changed
            .wait_while(phase, |p| p.deadline.is_none())
            .unwrap();
        phase.deadline.unwrap()
    };
    let mut player = Player::new(seat, shared.settings.think_s);
    let result = player.play(&mut ws, shared, &first, deadline, rng, rtts, errors);
    done_playing(shared, true);
    if result.is_ok() {
        ws.close();
    }
    result
}

/// A thought-of move, sent when its think time is over.
struct Thought {
    at: Instant,
    req: u64,
    message: String,
}

struct Player<'a> {
    seat: &'a Seat,
    mine: String,
    think_s: f64,
    req: u64,
    acted_on: i64,
    /// Send time of each action awaiting its ack.
    pending: HashMap<u64, Instant>,
    thought: Option<Thought>,
    /// The last state seen: its version and whose turn (for the report of a failure).
    last_state: (i64, Option<i64>),
}

impl<'a> Player<'a> {
    fn new(seat: &'a Seat, think_s: f64) -> Self {
        Player {
            seat,
            mine: format!("\"current_player\":{},", seat.seat),
            think_s,
            req: 0,
            acted_on: -1,
            pending: HashMap::new(),
            thought: None,
            last_state: (-1, None),
        }
    }

    /// Whether the player needs a message (skipped unparsed: the clients stay cheap).
    fn wanted(&self, text: &str) -> bool {
        if text.starts_with("{\"type\":\"table\"")
            || text.starts_with("{\"type\":\"chat\"")
            || text.starts_with("{\"type\":\"welcome\"")
        {
            return false;
        }
        !(text.starts_with("{\"type\":\"state\"") && !text.contains(&self.mine) && !text.contains("\"terminal\":true"))
    }

    #[allow(clippy::too_many_arguments)]
    fn play(
        &mut self,
        ws: &mut Connection,
        shared: &Shared,
        first: &[u8],
        deadline: Instant,
        rng: &mut Rng,
        rtts: &mut Vec<f64>,
        errors: &mut u64,
    ) -> io::Result<bool> {
        let acked = &shared.acked[self.seat.match_index];
        // The first view, read before the start line.
        if self.handle(first, Instant::now(), Some(deadline), rng, rtts, errors, acked)? {
            return Ok(true);
        }
        loop {
            let now = Instant::now();
            if now >= deadline || shared.aborted.load(Ordering::Relaxed) {
                break;
            }
            if let Some(thought) = self.thought.take_if(|t| t.at <= now) {
                self.pending.insert(thought.req, Instant::now());
                ws.send_text(&thought.message)?;
                continue;
            }
            let until = self.thought.as_ref().map_or(deadline, |t| t.at.min(deadline));
            if let Incoming::Message(message) = ws.next_message(until)? {
                if self.handle(message, Instant::now(), Some(deadline), rng, rtts, errors, acked)? {
                    return Ok(true);
                }
            }
        }
        // Play is over: a move still being thought of is not sent; wait only for the
        // acks still due, each for a bounded time.
        self.thought = None;
        let until = Instant::now() + shared.settings.ack_wait;
        while !self.pending.is_empty() {
            match ws.next_message(until)? {
                Incoming::Message(m) => {
                    if self.handle(m, Instant::now(), None, rng, rtts, errors, acked)? {
                        return Ok(true);
                    }
                }
                Incoming::Timeout => {
                    let mut reqs: Vec<u64> = self.pending.keys().copied().collect();
                    reqs.sort_unstable();
                    return Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        format!(
                            "no answer within {:?} to action(s) {reqs:?} (acted on version {}; the last \
                             state seen: version {}, seat {:?} to play)",
                            shared.settings.ack_wait, self.acted_on, self.last_state.0, self.last_state.1
                        ),
                    ));
                }
            }
        }
        Ok(false)
    }

    /// Takes one message received at `at`; `true` once the game is over and no ack is
    /// awaited. `deadline` is `None` once play is over (no new move is thought of).
    #[allow(clippy::too_many_arguments)]
    fn handle(
        &mut self,
        message: &[u8],
        at: Instant,
        deadline: Option<Instant>,
        rng: &mut Rng,
        rtts: &mut Vec<f64>,
        errors: &mut u64,
        acked: &AtomicU64,
    ) -> io::Result<bool> {
        let text = std::str::from_utf8(message).map_err(|_| broken("a text message that is not UTF-8"))?;
        if !self.wanted(text) {
            return Ok(false);
        }
        let msg =
            Message::scan(text).ok_or_else(|| broken(format!("a message that is not a JSON object: {text:.200}")))?;
        let mut terminal = false;
        match msg.kind {
            Some("ack") => {
                let req = msg.req.unwrap_or(0);
                let sent = self
                    .pending
                    .remove(&req)
                    .ok_or_else(|| broken(format!("an ack for request {req}, which is not awaited")))?;
                rtts.push(at.duration_since(sent).as_secs_f64() * 1000.0);
                acked.fetch_add(1, Ordering::Relaxed);
            }
            Some("error") => {
                *errors += 1;
                self.pending.remove(&msg.req.unwrap_or(0));
            }
            Some("state") => {
                terminal = msg.terminal;
                let version = msg.version.ok_or_else(|| broken("a state without a version"))?;
                self.last_state = (version, msg.current_player);
                let playing = deadline.is_some_and(|d| Instant::now() < d);
                if !terminal && msg.current_player == Some(self.seat.seat) && version > self.acted_on && playing {
                    self.acted_on = version;
                    self.req += 1;
                    let action = msg
                        .legal
                        .and_then(|legal| pick(legal, rng))
                        .ok_or_else(|| broken("a state to act in with no legal move"))?;
                    let think = if self.think_s > 0.0 {
                        // Exponential: -mean * ln(1 - u), u uniform in [0, 1).
                        let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
                        -self.think_s * (1.0 - u).ln()
                    } else {
                        0.0
                    };
                    let message = format!(
                        "{{\"type\":\"act\",\"req\":{},\"token\":{},\"version\":{version},\"action\":{}}}",
                        self.req,
                        serde_json::to_string(&self.seat.token).expect("a string is JSON"),
                        serde_json::to_string(&action).expect("a string is JSON"),
                    );
                    self.thought = Some(Thought {
                        at: at + Duration::from_secs_f64(think),
                        req: self.req,
                        message,
                    });
                }
            }
            _ => {}
        }
        Ok(terminal && self.pending.is_empty() && self.thought.is_none())
    }
}

/// The fields of a server message the players read, found by a scan of its text that
/// allocates nothing: a state's legal moves (150-240 strings) parsed into values cost
/// the players more than all the rest of an action (allocator churn).
#[derive(Debug, Default, PartialEq)]
struct Message<'t> {
    kind: Option<&'t str>,
    req: Option<u64>,
    version: Option<i64>,
    current_player: Option<i64>,
    terminal: bool,
    /// The raw text of the `legal` object.
    legal: Option<&'t str>,
}

impl<'t> Message<'t> {
    /// The message's top-level fields; `None` if the text is not a JSON object.
    fn scan(text: &'t str) -> Option<Message<'t>> {
        let mut msg = Message::default();
        for (key, value) in Members::of(text, b'{')? {
            match key {
                "\"type\"" => msg.kind = value.strip_prefix('"').and_then(|v| v.strip_suffix('"')),
                "\"req\"" => msg.req = value.parse().ok(),
                "\"version\"" => msg.version = value.parse().ok(),
                "\"current_player\"" => msg.current_player = value.parse().ok(),
                "\"terminal\"" => msg.terminal = value == "true",
                "\"legal\"" => msg.legal = Some(value),
                _ => {}
            }
        }
        Some(msg)
    }
}

/// The members of a JSON object (`(raw key, raw value)`) or the elements of an array
/// (`("", raw value)`), read from its text without allocating. Stops (and yields no more)
/// at text that is not JSON.
struct Members<'t> {
    text: &'t str,
    at: usize,
    object: bool,
    done: bool,
}

impl<'t> Members<'t> {
    /// The members of `text`, which must open with `open` (`{` or `[`).
    fn of(text: &'t str, open: u8) -> Option<Members<'t>> {
        let bytes = text.as_bytes();
        let at = skip_space(bytes, 0);
        (bytes.get(at) == Some(&open)).then_some(Members {
            text,
            at: at + 1,
            object: open == b'{',
            done: false,
        })
    }
}

impl<'t> Iterator for Members<'t> {
    type Item = (&'t str, &'t str);

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let bytes = self.text.as_bytes();
        let close = if self.object { b'}' } else { b']' };
        let mut at = skip_space(bytes, self.at);
        if bytes.get(at) == Some(&b',') {
            at = skip_space(bytes, at + 1);
        }
        if bytes.get(at).is_none_or(|&b| b == close) {
            self.done = true;
            return None;
        }
        let mut key = "";
        if self.object {
            let end = skip_value(bytes, at).filter(|_| bytes[at] == b'"');
            let Some(end) = end else {
                self.done = true;
                return None;
            };
            key = &self.text[at..end];
            at = skip_space(bytes, end);
            if bytes.get(at) != Some(&b':') {
                self.done = true;
                return None;
            }
            at = skip_space(bytes, at + 1);
        }
        let Some(end) = skip_value(bytes, at) else {
            self.done = true;
            return None;
        };
        self.at = end;
        Some((key, &self.text[at..end]))
    }
}

fn skip_space(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).is_some_and(|b| b.is_ascii_whitespace()) {
        at += 1;
    }
    at
}

/// The end of the JSON value that starts at `at` (no whitespace before it), or `None`.
fn skip_value(bytes: &[u8], at: usize) -> Option<usize> {
    match *bytes.get(at)? {
        b'"' => {
            let mut i = at + 1;
            loop {
                match *bytes.get(i)? {
                    b'"' => return Some(i + 1),
                    b'\\' => i += 2,
                    _ => i += 1,
                }
            }
        }
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = at;
            loop {
                match *bytes.get(i)? {
                    b'"' => {
                        i = skip_value(bytes, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
        }
        _ => {
            let end = bytes[at..]
                .iter()
                .position(|b| matches!(b, b',' | b'}' | b']') || b.is_ascii_whitespace())
                .map_or(bytes.len(), |n| at + n);
            (end > at).then_some(end)
        }
    }
}

/// A kind-first random legal move from the raw text of a state's `legal` object (kind:
/// list of moves): a kind with moves at random (in the server's order of kinds), then
/// one of its moves.
fn pick(legal: &str, rng: &mut Rng) -> Option<String> {
    let non_empty = |(_, moves): &(&str, &str)| Members::of(moves, b'[').is_some_and(|mut m| m.next().is_some());
    let kinds = Members::of(legal, b'{')?.filter(non_empty).count();
    if kinds == 0 {
        return None;
    }
    let (_, moves) = Members::of(legal, b'{')?
        .filter(non_empty)
        .nth(rng.below(kinds as u32) as usize)?;
    let count = Members::of(moves, b'[')?.count();
    let (_, chosen) = Members::of(moves, b'[')?.nth(rng.below(count as u32) as usize)?;
    serde_json::from_str::<String>(chosen).ok()
}

enum Incoming<'b> {
    Message(&'b [u8]),
    Timeout,
}

/// What a player reads from its socket at once.
const READ_BYTES: usize = 16 << 10;

const TEXT: u8 = 0x1;
const BINARY: u8 = 0x2;
const CONTINUATION: u8 = 0x0;
const CLOSE: u8 = 0x8;
const PING: u8 = 0x9;
const PONG: u8 = 0xA;

/// A client websocket over a blocking TCP stream.
struct Connection {
    stream: TcpStream,
    /// Bytes read: `buffer[start..end]` not yet taken as frames.
    buffer: Vec<u8>,
    start: usize,
    end: usize,
    /// The message being joined from fragments.
    fragments: Option<Vec<u8>>,
    /// The last message joined from fragments.
    joined: Vec<u8>,
    read_timeout: Option<Duration>,
    mask_rng: Rng,
}

impl Connection {
    fn open(url: &str, timeout: Duration, rng: &mut Rng) -> io::Result<Connection> {
        let (address, host, path) = parse_url(url)?;
        let target = address
            .to_socket_addrs()?
            .next()
            .ok_or_else(|| invalid(format!("{address} resolves to no address")))?;
        let stream = TcpStream::connect_timeout(&target, timeout)?;
        stream.set_nodelay(true)?;
        stream.set_read_timeout(Some(timeout))?;
        stream.set_write_timeout(Some(timeout))?;
        let key_bytes: Vec<u8> = (0..16).map(|_| rng.next_u64() as u8).collect();
        let key = base64(&key_bytes);
        let mut ws = Connection {
            stream,
            buffer: vec![0; READ_BYTES * 2],
            start: 0,
            end: 0,
            fragments: None,
            joined: Vec::new(),
            read_timeout: Some(timeout),
            mask_rng: Rng::new(rng.next_u64()),
        };
        let request = format!(
            "GET {path} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
             Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\nUser-Agent: tabletop-bench\r\n\r\n"
        );
        ws.stream.write_all(request.as_bytes())?;
        let end = loop {
            if let Some(i) = find(&ws.buffer[..ws.end], b"\r\n\r\n") {
                break i + 4;
            }
            if ws.end > 64 << 10 {
                return Err(broken("the handshake's answer has no end"));
            }
            if !ws.fill()? {
                return Err(broken("no answer to the handshake within the connect timeout"));
            }
        };
        let head = String::from_utf8_lossy(&ws.buffer[..end]).to_string();
        ws.start = end;
        let status = head.lines().next().unwrap_or("");
        if !status.starts_with("HTTP/1.1 101") {
            return Err(broken(format!("the server refused the websocket: {status}")));
        }
        let expected = accept_key(&key);
        let accepted = head.lines().skip(1).any(|line| {
            line.split_once(':').is_some_and(|(name, value)| {
                name.trim().eq_ignore_ascii_case("sec-websocket-accept") && value.trim() == expected
            })
        });
        if !accepted {
            return Err(broken("the server's Sec-WebSocket-Accept does not answer our key"));
        }
        Ok(ws)
    }

    /// Reads more bytes into the buffer; `Ok(false)` when the read timed out.
    fn fill(&mut self) -> io::Result<bool> {
        if self.start == self.end {
            (self.start, self.end) = (0, 0);
        } else if self.buffer.len() - self.end < READ_BYTES {
            self.buffer.copy_within(self.start..self.end, 0);
            (self.start, self.end) = (0, self.end - self.start);
            if self.buffer.len() - self.end < READ_BYTES {
                self.buffer.resize(self.buffer.len() * 2, 0);
            }
        }
        match self.stream.read(&mut self.buffer[self.end..]) {
            Ok(0) => Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the server closed the connection",
            )),
            Ok(n) => {
                self.end += n;
                Ok(true)
            }
            Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// One whole frame from the buffer, if it holds one: `(fin, opcode, payload's range in
    /// the buffer)`, unmasked in place.
    fn frame(&mut self) -> io::Result<Option<(bool, u8, std::ops::Range<usize>)>> {
        let bytes = &mut self.buffer[self.start..self.end];
        if bytes.len() < 2 {
            return Ok(None);
        }
        let (fin, opcode, masked) = (bytes[0] & 0x80 != 0, bytes[0] & 0x0F, bytes[1] & 0x80 != 0);
        let (length, mut at) = match bytes[1] & 0x7F {
            126 if bytes.len() >= 4 => (u16::from_be_bytes([bytes[2], bytes[3]]) as u64, 4),
            127 if bytes.len() >= 10 => (u64::from_be_bytes(bytes[2..10].try_into().unwrap()), 10),
            126 | 127 => return Ok(None),
            n => (n as u64, 2),
        };
        if length > MAX_MESSAGE_BYTES as u64 {
            return Err(broken(format!("a frame of {length} bytes")));
        }
        let mask = if masked {
            if bytes.len() < at + 4 {
                return Ok(None);
            }
            at += 4;
            Some([bytes[at - 4], bytes[at - 3], bytes[at - 2], bytes[at - 1]])
        } else {
            None
        };
        let end = at + length as usize;
        if bytes.len() < end {
            return Ok(None);
        }
        if let Some(mask) = mask {
            bytes[at..end]
                .iter_mut()
                .enumerate()
                .for_each(|(i, b)| *b ^= mask[i % 4]);
        }
        let payload = self.start + at..self.start + end;
        self.start += end;
        Ok(Some((fin, opcode, payload)))
    }

    /// The next whole text or binary message (valid until the next call), answering pings
    /// on the way; `Timeout` if none came by `until`.
    fn next_message(&mut self, until: Instant) -> io::Result<Incoming<'_>> {
        loop {
            while let Some((fin, opcode, payload)) = self.frame()? {
                match opcode {
                    TEXT | BINARY if fin && self.fragments.is_none() => {
                        return Ok(Incoming::Message(&self.buffer[payload]));
                    }
                    TEXT | BINARY if self.fragments.is_none() => self.fragments = Some(self.buffer[payload].to_vec()),
                    CONTINUATION if self.fragments.is_some() => {
                        let joined = self.fragments.as_mut().unwrap();
                        joined.extend_from_slice(&self.buffer[payload]);
                        if joined.len() > MAX_MESSAGE_BYTES {
                            return Err(broken("a message past the size limit"));
                        }
                        if fin {
                            self.joined = self.fragments.take().unwrap();
                            return Ok(Incoming::Message(&self.joined));
                        }
                    }
                    PING => {
                        let data = self.buffer[payload].to_vec();
                        self.send(PONG, &data)?;
                    }
                    PONG => {}
                    CLOSE => {
                        let code = self.buffer[payload.start..payload.end.min(payload.start + 2)].to_vec();
                        let _ = self.send(CLOSE, &code);
                        return Err(io::Error::new(
                            io::ErrorKind::ConnectionAborted,
                            "the server closed the websocket",
                        ));
                    }
                    _ => return Err(broken(format!("an unexpected frame (opcode {opcode})"))),
                }
            }
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(Incoming::Timeout);
            }
            // The socket's timeout is what is left (at least 0.1 ms: zero means none).
            let timeout = Some(left.max(Duration::from_micros(100)));
            if self.read_timeout != timeout {
                self.stream.set_read_timeout(timeout)?;
                self.read_timeout = timeout;
            }
            if !self.fill()? {
                return Ok(Incoming::Timeout);
            }
        }
    }

    fn send(&mut self, opcode: u8, payload: &[u8]) -> io::Result<()> {
        let mut frame = Vec::with_capacity(payload.len() + 14);
        frame.push(0x80 | opcode);
        match payload.len() {
            n if n < 126 => frame.push(0x80 | n as u8),
            n if n < 1 << 16 => {
                frame.push(0x80 | 126);
                frame.extend_from_slice(&(n as u16).to_be_bytes());
            }
            n => {
                frame.push(0x80 | 127);
                frame.extend_from_slice(&(n as u64).to_be_bytes());
            }
        }
        let mask = (self.mask_rng.next_u64() as u32).to_be_bytes();
        frame.extend_from_slice(&mask);
        frame.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
        self.stream.write_all(&frame)
    }

    fn send_text(&mut self, text: &str) -> io::Result<()> {
        self.send(TEXT, text.as_bytes())
    }

    /// The closing handshake: our close frame, then the server's (for a bounded time).
    fn close(mut self) {
        if self.send(CLOSE, &1000u16.to_be_bytes()).is_err() {
            return;
        }
        let until = Instant::now() + Duration::from_secs(5);
        while let Ok(Incoming::Message(_)) = self.next_message(until) {}
        let _ = self.stream.shutdown(Shutdown::Both);
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The `Sec-WebSocket-Accept` a server must answer `key` with (RFC 6455, section 4.2.2).
fn accept_key(key: &str) -> String {
    let mut input = key.as_bytes().to_vec();
    input.extend_from_slice(b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11");
    base64(&sha1(&input))
}

fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// SHA-1 (FIPS 180-4), for the handshake's accept key only.
fn sha1(data: &[u8]) -> [u8; 20] {
    let mut h: [u32; 5] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0];
    let mut message = data.to_vec();
    message.push(0x80);
    while message.len() % 64 != 56 {
        message.push(0);
    }
    message.extend_from_slice(&((data.len() as u64) * 8).to_be_bytes());
    for block in message.chunks(64) {
        let mut w = [0u32; 80];
        for i in 0..16 {
            w[i] = u32::from_be_bytes(block[4 * i..4 * i + 4].try_into().unwrap());
        }
        for i in 16..80 {
            w[i] = (w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]).rotate_left(1);
        }
        let [mut a, mut b, mut c, mut d, mut e] = h;
        for (i, word) in w.iter().enumerate() {
            let (f, k) = match i {
                0..=19 => ((b & c) | (!b & d), 0x5A82_7999),
                20..=39 => (b ^ c ^ d, 0x6ED9_EBA1),
                40..=59 => ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC),
                _ => (b ^ c ^ d, 0xCA62_C1D6),
            };
            let t = a
                .rotate_left(5)
                .wrapping_add(f)
                .wrapping_add(e)
                .wrapping_add(k)
                .wrapping_add(*word);
            (e, d, c, b, a) = (d, c, b.rotate_left(30), a, t);
        }
        for (x, y) in h.iter_mut().zip([a, b, c, d, e]) {
            *x = x.wrapping_add(y);
        }
    }
    let mut out = [0u8; 20];
    for (i, word) in h.iter().enumerate() {
        out[4 * i..4 * i + 4].copy_from_slice(&word.to_be_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    #[test]
    fn the_accept_key_is_rfc_6455s() {
        // RFC 6455, section 1.3.
        assert_eq!(accept_key("dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
    }

    #[test]
    fn urls_name_an_address_a_host_and_a_path() {
        assert_eq!(
            parse_url("ws://127.0.0.1:8000/api/matches/x/ws").unwrap(),
            (
                "127.0.0.1:8000".into(),
                "127.0.0.1:8000".into(),
                "/api/matches/x/ws".into()
            )
        );
        assert_eq!(parse_url("ws://example").unwrap().0, "example:80");
        assert!(parse_url("http://127.0.0.1/").is_err());
        assert!(parse_url("ws:///x").is_err());
    }

    #[test]
    fn a_kind_is_drawn_first_then_its_move() {
        let legal = r#"{"place": ["a", "b", "c", "d"], "pass": ["p"], "none": []}"#;
        let mut rng = Rng::new(3);
        let mut seen = HashMap::new();
        for _ in 0..4_000 {
            *seen.entry(pick(legal, &mut rng).unwrap()).or_insert(0) += 1;
        }
        assert!((1_800..2_200).contains(&seen["p"]), "{seen:?}");
        for m in ["a", "b", "c", "d"] {
            assert!((400..600).contains(&seen[m]), "{seen:?}");
        }
        assert_eq!(pick(r#"{"none": []}"#, &mut rng), None);
        assert_eq!(pick("[]", &mut rng), None);
        assert_eq!(
            pick(r#"{"m": ["a\"b\\c\u00e9"]}"#, &mut rng).as_deref(),
            Some("a\"b\\c\u{e9}")
        );
    }

    #[test]
    fn the_scan_reads_what_a_json_parser_reads() {
        let texts = [
            r#"{"type":"ack","req":17,"version":4}"#,
            r#"{"type":"error","req":null,"error":"no"}"#,
            r#"{ "type" : "state", "full":false, "state":{"version":99,"legal":{"x":["y"]},"s":"}]\"{["},
                 "log":[{"ply":1,"action":"a,b"}],"version": 12 ,"current_player":1,"terminal":false,
                 "legal":{"move":["a1-b2","c3"],"stone":[]},"scores":[1.5,-2e3],"outcome":null}"#,
            r#"{"type":"state","version":13,"current_player":null,"terminal":true,"legal":{}}"#,
        ];
        for text in texts {
            let value: serde_json::Value = serde_json::from_str(text).unwrap();
            let msg = Message::scan(text).unwrap();
            assert_eq!(msg.kind, value["type"].as_str(), "{text}");
            assert_eq!(msg.req, value["req"].as_u64(), "{text}");
            assert_eq!(msg.version, value["version"].as_i64(), "{text}");
            assert_eq!(msg.current_player, value["current_player"].as_i64(), "{text}");
            assert_eq!(msg.terminal, value["terminal"] == true, "{text}");
            let legal = msg.legal.map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap());
            assert_eq!(legal.as_ref(), value.get("legal"), "{text}");
        }
        assert_eq!(Message::scan("[1]"), None);
        assert_eq!(
            Message::scan("{\"type\":\"ack\",\"req\":"),
            Some(Message {
                kind: Some("ack"),
                ..Message::default()
            })
        );
    }

    fn server_frame(opcode: u8, payload: &[u8], fin: bool) -> Vec<u8> {
        let mut frame = vec![if fin { 0x80 } else { 0 } | opcode];
        match payload.len() {
            n if n < 126 => frame.push(n as u8),
            n => {
                frame.push(126);
                frame.extend_from_slice(&(n as u16).to_be_bytes());
            }
        }
        frame.extend_from_slice(payload);
        frame
    }

    /// Reads one masked client frame from `stream`: `(opcode, payload)`.
    fn client_frame(stream: &mut TcpStream) -> (u8, Vec<u8>) {
        read_client_frame(stream).unwrap()
    }

    fn read_client_frame(stream: &mut TcpStream) -> io::Result<(u8, Vec<u8>)> {
        let mut head = [0u8; 2];
        stream.read_exact(&mut head)?;
        assert!(head[1] & 0x80 != 0, "a client frame is masked");
        let length = match head[1] & 0x7F {
            126 => {
                let mut n = [0u8; 2];
                stream.read_exact(&mut n)?;
                u16::from_be_bytes(n) as usize
            }
            n => n as usize,
        };
        let mut mask = [0u8; 4];
        stream.read_exact(&mut mask)?;
        let mut payload = vec![0u8; length];
        stream.read_exact(&mut payload)?;
        payload.iter_mut().enumerate().for_each(|(i, b)| *b ^= mask[i % 4]);
        Ok((head[0] & 0x0F, payload))
    }

    /// A one-connection websocket server that plays a two-move game against seat 0.
    fn serve_one_game(listener: TcpListener) -> Vec<String> {
        let mut stream = accept_websocket(&listener);
        let state = |version: u32, terminal: bool| {
            format!(
                "{{\"type\":\"state\",\"current_player\":0,\"terminal\":{terminal},\"version\":{version},\
                 \"legal\":{{\"move\":[\"m{version}\"]}}}}"
            )
        };
        let mut seen = Vec::new();
        // The first view, then a ping and a chat line the player must get past.
        stream
            .write_all(&server_frame(TEXT, state(0, false).as_bytes(), true))
            .unwrap();
        stream.write_all(&server_frame(PING, b"hi", true)).unwrap();
        let (opcode, payload) = client_frame(&mut stream);
        assert_eq!((opcode, payload.as_slice()), (PONG, b"hi".as_slice()));
        stream
            .write_all(&server_frame(TEXT, b"{\"type\":\"chat\",\"n\":1}", true))
            .unwrap();
        for version in 0..2 {
            let (opcode, payload) = client_frame(&mut stream);
            assert_eq!(opcode, TEXT);
            let act: serde_json::Value = serde_json::from_slice(&payload).unwrap();
            seen.push(act["action"].as_str().unwrap().to_string());
            assert_eq!(act["version"], version);
            let ack = format!("{{\"type\":\"ack\",\"req\":{}}}", act["req"]);
            stream.write_all(&server_frame(TEXT, ack.as_bytes(), true)).unwrap();
            // The next state in two fragments.
            let next = state(version + 1, version == 1);
            let (a, b) = next.as_bytes().split_at(10);
            stream.write_all(&server_frame(TEXT, a, false)).unwrap();
            stream.write_all(&server_frame(CONTINUATION, b, true)).unwrap();
        }
        let (opcode, _) = client_frame(&mut stream);
        assert_eq!(opcode, CLOSE);
        stream
            .write_all(&server_frame(CLOSE, &1000u16.to_be_bytes(), true))
            .unwrap();
        seen
    }

    /// Plays seat 0 of `url` alone for `seconds`: connected, started, and its outcome
    /// (which must come within 20 s).
    fn play_one_seat(url: String, think_s: f64, ack_wait: Duration, seconds: f64) -> Outcome {
        let seat = Seat {
            url,
            match_index: 0,
            seat: 0,
            token: "t".into(),
            hello: false,
        };
        let settings = Settings {
            think_s,
            seed: 1,
            connecting_at_once: 1,
            connect_timeout: Duration::from_secs(10),
            ack_wait,
        };
        let players = Players::connect(vec![seat], settings).unwrap();
        assert!(players.wait_ready(Duration::from_secs(10)));
        players.start(seconds);
        players
            .wait_outcome(Duration::from_secs(20))
            .expect("the player reported")
    }

    #[test]
    fn a_player_plays_a_game_to_its_end_over_a_real_socket() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = std::thread::spawn(move || serve_one_game(listener));
        let url = format!("ws://127.0.0.1:{port}/api/matches/m/ws");
        let outcome = play_one_seat(url, 0.001, Duration::from_secs(10), 10.0);
        assert_eq!(server.join().unwrap(), vec!["m0", "m1"]);
        assert_eq!(outcome.failures, Vec::<String>::new());
        assert_eq!(
            (outcome.acked, outcome.errors, outcome.finished),
            (vec![2], 0, vec![true])
        );
        assert_eq!(outcome.rtts_ms.len(), 2);
    }

    /// Accepts one websocket on `listener` and answers its handshake.
    fn accept_websocket(listener: &TcpListener) -> TcpStream {
        let (mut stream, _) = listener.accept().unwrap();
        let mut request = Vec::new();
        let mut byte = [0u8; 1];
        while !request.ends_with(b"\r\n\r\n") {
            stream.read_exact(&mut byte).unwrap();
            request.push(byte[0]);
        }
        let request = String::from_utf8(request).unwrap();
        let key = request
            .lines()
            .find_map(|l| l.strip_prefix("Sec-WebSocket-Key: "))
            .unwrap()
            .trim()
            .to_string();
        write!(
            stream,
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
             Sec-WebSocket-Accept: {}\r\n\r\n",
            accept_key(&key)
        )
        .unwrap();
        stream
    }

    #[test]
    fn an_action_never_answered_is_a_failure_however_often_the_server_pings() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = std::thread::spawn(move || {
            let mut stream = accept_websocket(&listener);
            let state = r#"{"type":"state","current_player":0,"terminal":false,"version":0,"legal":{"m":["a"]}}"#;
            stream.write_all(&server_frame(TEXT, state.as_bytes(), true)).unwrap();
            let (opcode, _) = client_frame(&mut stream);
            assert_eq!(opcode, TEXT);
            // No ack, only pings, each answered, until the player gives up and hangs up.
            let mut pongs = 0;
            while stream.write_all(&server_frame(PING, b"", true)).is_ok() {
                match read_client_frame(&mut stream) {
                    Ok((PONG, _)) => pongs += 1,
                    _ => break,
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            pongs
        });
        let outcome = play_one_seat(format!("ws://127.0.0.1:{port}/m"), 0.0, Duration::from_millis(400), 0.2);
        assert_eq!((outcome.errors, outcome.acked.clone()), (1, vec![0]));
        assert!(
            outcome.failures[0].contains("no answer within 400ms to action(s) [1]"),
            "{:?}",
            outcome.failures
        );
        assert!(server.join().unwrap() >= 4, "the server pinged all along");
    }

    #[test]
    fn a_refused_handshake_is_a_failure_and_play_goes_on_without_it() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            let mut buf = [0u8; 1024];
            let _ = stream.read(&mut buf).unwrap();
            stream
                .write_all(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
                .unwrap();
        });
        let outcome = play_one_seat(format!("ws://127.0.0.1:{port}/x"), 0.0, Duration::from_secs(1), 0.1);
        server.join().unwrap();
        assert_eq!(outcome.errors, 1);
        assert!(outcome.failures[0].contains("403"), "{:?}", outcome.failures);
    }
}

/// The Python side: `tabletop._native.BenchPlayers`, used by `tabletop.bench.server`.
#[cfg(feature = "python")]
pub mod py {
    use super::{Players, Seat, Settings};
    use pyo3::exceptions::{PyOSError, PyTimeoutError, PyValueError};
    use pyo3::prelude::*;
    use pyo3::types::PyDict;
    use std::time::{Duration, Instant};

    /// How often a wait gives Python a moment to take a signal (Ctrl-C, SIGTERM).
    const SIGNAL_CHECK: Duration = Duration::from_millis(100);

    fn seconds(value: f64, what: &str) -> PyResult<Duration> {
        if !(0.0..1e9).contains(&value) {
            return Err(PyValueError::new_err(format!(
                "{what} must be a number of seconds, not {value}"
            )));
        }
        Ok(Duration::from_secs_f64(value))
    }

    /// The bench's simulated players, one thread each (`native/src/bench_players.rs`).
    /// `connect(...)` returns once every player is connected with its first view, or
    /// failed; `play(seconds)` gives the start line and returns what they measured.
    #[pyclass(module = "tabletop._native", name = "BenchPlayers")]
    pub struct PyBenchPlayers {
        players: Option<Players>,
    }

    impl PyBenchPlayers {
        /// Waits for `wait` to give a value, in short detached steps with a look at
        /// Python's signals between: an interrupt (Ctrl-C, SIGTERM) stops every player
        /// and is raised. `None` after `limit`.
        fn wait<T: Send>(
            py: Python<'_>,
            players: &Players,
            limit: Duration,
            wait: impl Fn(&Players, Duration) -> Option<T> + Sync,
        ) -> PyResult<Option<T>> {
            let until = Instant::now() + limit;
            loop {
                let left = until.saturating_duration_since(Instant::now());
                if let Some(value) = py.detach(|| wait(players, left.min(SIGNAL_CHECK))) {
                    return Ok(Some(value));
                }
                if let Err(e) = py.check_signals() {
                    players.abort();
                    return Err(e);
                }
                if left.is_zero() {
                    return Ok(None);
                }
            }
        }
    }

    #[pymethods]
    impl PyBenchPlayers {
        /// Connects `seats`, each `(ws_url, match_index, seat, token, hello)`, at most
        /// `connecting_at_once` handshakes at a time; raises `TimeoutError` if they are not
        /// all connected (or failed) within `ready_timeout_s`.
        #[staticmethod]
        #[pyo3(signature = (
            seats, think_s, seed = 0, connecting_at_once = 64, connect_timeout_s = 60.0,
            ready_timeout_s = 120.0, ack_wait_s = 30.0
        ))]
        #[allow(clippy::too_many_arguments)]
        fn connect(
            py: Python<'_>,
            seats: Vec<(String, usize, i64, String, bool)>,
            think_s: f64,
            seed: u64,
            connecting_at_once: usize,
            connect_timeout_s: f64,
            ready_timeout_s: f64,
            ack_wait_s: f64,
        ) -> PyResult<Self> {
            seconds(think_s, "think_s")?;
            let seats = seats
                .into_iter()
                .map(|(url, match_index, seat, token, hello)| Seat {
                    url,
                    match_index,
                    seat,
                    token,
                    hello,
                })
                .collect();
            let settings = Settings {
                think_s,
                seed,
                connecting_at_once,
                connect_timeout: seconds(connect_timeout_s, "connect_timeout_s")?,
                ack_wait: seconds(ack_wait_s, "ack_wait_s")?,
            };
            let ready_timeout = seconds(ready_timeout_s, "ready_timeout_s")?;
            let players = Players::connect(seats, settings).map_err(|e| match e.kind() {
                std::io::ErrorKind::InvalidInput => PyValueError::new_err(e.to_string()),
                _ => PyOSError::new_err(e.to_string()),
            })?;
            if Self::wait(py, &players, ready_timeout, |p, step| p.wait_ready(step).then_some(()))?.is_none() {
                players.abort();
                return Err(PyTimeoutError::new_err(format!(
                    "the players were not all connected within {ready_timeout_s} s"
                )));
            }
            Ok(PyBenchPlayers { players: Some(players) })
        }

        /// Plays `seconds` from now, then waits for the acks still due and for every
        /// player to hang up. Returns a dict: `rtts_ms` (each acked action's round trip),
        /// `acked` (acked actions by match index), `errors`, `finished` (by seat: whether
        /// its game ended), `failures` (why each failed player failed). Once only.
        fn play<'py>(&mut self, py: Python<'py>, seconds: f64) -> PyResult<Bound<'py, PyDict>> {
            let length = self::seconds(seconds, "seconds")?;
            let players = self
                .players
                .take()
                .ok_or_else(|| PyValueError::new_err("these players have played already"))?;
            players.start(length.as_secs_f64());
            // Play, then the acks still due (each waited for a bounded time) and the
            // closing handshakes: the players report, so this wait ends.
            let outcome = Self::wait(py, &players, Duration::from_secs(u32::MAX as u64), |p, step| {
                p.wait_outcome(step)
            })?
            .expect("the players report within the wait");
            let result = PyDict::new(py);
            result.set_item("rtts_ms", outcome.rtts_ms)?;
            result.set_item("acked", outcome.acked)?;
            result.set_item("errors", outcome.errors)?;
            result.set_item("finished", outcome.finished)?;
            result.set_item("failures", outcome.failures)?;
            Ok(result)
        }
    }

    pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
        m.add_class::<PyBenchPlayers>()
    }
}
