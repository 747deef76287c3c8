"""What stands between the network and the app: strict JSON, size and rate limits, headers.

Everything a client sends is treated as hostile.  :class:`RequestGuard` is the outermost
ASGI layer for HTTP: it answers 413 to a body over the limit without reading the rest,
400 to JSON that is not plain JSON (``NaN``, ``Infinity``, ``1e999``, a lone surrogate,
nesting beyond the limit), 429 to a client address over its request rate, and adds the
security headers to every answer.  The websocket uses :func:`strict_json` and
:class:`SlidingWindow` itself (``ws.py``).  ``docs/security.md`` says which attack each
piece stops; ``docs/server.md`` lists the limits.
"""

from __future__ import annotations

import ipaddress
import json
import math
import re
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable
from typing import Any

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tabletop.core.errors import SHORT_REPR_LENGTH
from tabletop.server.config import IPNetwork, Settings

MAX_QUOTE = SHORT_REPR_LENGTH
"""Characters of a client's value that an error message may quote (``core.errors.short_repr``)."""

MAX_DETAIL = 300
"""Characters of an error's ``detail`` at most."""

MAX_INT = 2**63 - 1
"""Integers in a body must fit a 64-bit database column."""

SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (
        b"content-security-policy",
        b"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
        b"connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
        b"form-action 'self'; frame-ancestors 'none'",
    ),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"permissions-policy", b"camera=(), microphone=(), geolocation=(), payment=()"),
)
"""Sent with every HTTP answer: the page loads nothing from other hosts, cannot be framed,
and a match path never leaks to other sites through the Referer header."""

_SURROGATE = re.compile("[\ud800-\udfff]")


class BadJSON(ValueError):
    """A body or message that is not plain JSON within the limits."""


def clip(text: str, limit: int = MAX_QUOTE) -> str:
    """``text`` cut to ``limit`` characters (with an ellipsis) and made encodable.

    Every client value quoted in an error goes through here, so an error is never larger
    than a short prefix and never fails to encode (a lone surrogate becomes ``?``).
    """
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return _SURROGATE.sub("?", text)


def _reject_constant(name: str) -> Any:
    raise BadJSON(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise BadJSON(f"the number {clip(text)} is out of range")
    return value


def _bounded_int(text: str) -> int:
    if len(text) > 20 or abs(value := int(text)) > MAX_INT:
        raise BadJSON(f"the integer {clip(text)} is out of range")
    return value


_DECODER = json.JSONDecoder(parse_constant=_reject_constant, parse_float=_finite_float, parse_int=_bounded_int)
"""One decoder for every message (``json.loads`` with hooks builds a new one each call)."""


def strict_json(data: bytes | str, max_depth: int) -> Any:
    """Parses JSON as the standard (RFC 8259) defines it, within the server's limits.

    Refused with :class:`BadJSON`: bytes that are not UTF-8, ``NaN``/``Infinity`` (Python
    accepts them), numbers that overflow a double or a 64-bit integer, strings with lone
    surrogates (they cannot be stored or sent back), and nesting deeper than
    ``max_depth``.
    """
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError:
            raise BadJSON("the body is not UTF-8 text") from None
    try:
        value = _DECODER.decode(data)
    except RecursionError:
        raise BadJSON(f"JSON nested deeper than {max_depth} levels") from None
    except BadJSON:
        raise
    except ValueError as exc:  # JSONDecodeError: its message names the position, not the text
        message = exc.msg if isinstance(exc, json.JSONDecodeError) else "malformed JSON"
        position = f" at character {exc.pos}" if isinstance(exc, json.JSONDecodeError) else ""
        raise BadJSON(f"not valid JSON: {message}{position}") from None
    # The walk below is needed only if the text could hold too deep a nesting (an opening
    # bracket per level) or a lone surrogate (written in the text, or as a \\u escape):
    # a game's message, a few keys deep, skips it.
    if data.count("[") + data.count("{") > max_depth or "\\u" in data or _SURROGATE.search(data):
        _check_tree(value, max_depth)
    return value


def _check_tree(value: Any, max_depth: int) -> None:
    # Iterative, so a deep value cannot exhaust the stack here either.
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                raise BadJSON("a string holds a lone surrogate (not valid Unicode)")
        elif isinstance(item, dict | list):
            if depth >= max_depth:
                raise BadJSON(f"JSON nested deeper than {max_depth} levels")
            children: Iterable[Any] = item.values() if isinstance(item, dict) else item
            if isinstance(item, dict):
                stack.extend((key, depth) for key in item)
            stack.extend((child, depth + 1) for child in children)


CLIENT_STATE = "tabletop_client"
"""Where a connection's limits key is kept in its ASGI scope, so it is worked out once."""


def forwarded_client(peer: str, forwarded_for: Iterable[str], trusted: tuple[IPNetwork, ...]) -> str:
    """The address a request came from, believing ``X-Forwarded-For`` only from ``trusted`` proxies.

    Each proxy appends the address it heard from, so the list is read from the right: while
    the hop that handed the request on is a trusted proxy, the address it names is the
    next one back.  The first untrusted hop is the client; whatever it wrote further left
    is its own claim and ignored.  With no trusted proxies the header is never read.
    """
    hops = [hop.strip() for value in forwarded_for for hop in value.split(",") if hop.strip()]
    current = peer
    while hops and _is_in(current, trusted):
        current = hops.pop()
    return current


def _is_in(host: str, networks: tuple[IPNetwork, ...]) -> bool:
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return any(address in network for network in networks)


def client_of(scope: Scope, trusted: tuple[IPNetwork, ...]) -> str:
    """The limits key (:func:`client_key`) of an HTTP request's or websocket's client.

    ``X-Forwarded-For`` counts only when the connection comes from one of ``trusted``
    (the operator's proxies, setting ``trusted_proxies``); otherwise any local process
    could choose its own address and escape every per-address limit.
    """
    state = scope.setdefault("state", {})
    cached = state.get(CLIENT_STATE)
    if isinstance(cached, str):
        return cached
    peer = scope.get("client")
    host = peer[0] if peer else None
    if host is not None and trusted:
        host = forwarded_client(host, Headers(scope=scope).getlist("x-forwarded-for"), trusted)
    key = client_key(host)
    state[CLIENT_STATE] = key
    return key


def client_key(host: str | None) -> str:
    """The key a client's limits are counted under: its IPv4 address or its IPv6 /64.

    One IPv6 host usually holds a whole /64, so counting single addresses would let it
    pick a fresh one per request.
    """
    if not host:
        return "unknown"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host[:64]
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


class SlidingWindow:
    """At most ``limit`` events per key in any ``window_s`` seconds.

    Each key keeps the times of its last ``limit`` events, so memory is bounded by
    ``limit`` per key and ``max_keys`` keys (the least recently used key is forgotten
    first).
    """

    def __init__(
        self,
        limit: int,
        window_s: float = 60.0,
        *,
        max_keys: int = 100_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.limit = limit
        self.window_s = window_s
        self.max_keys = max_keys
        self.clock = clock
        self._events: OrderedDict[str, deque[float]] = OrderedDict()

    def retry_after(self, key: str) -> float | None:
        """Seconds until ``key`` may act again, or ``None`` if it may now."""
        events = self._events.get(key)
        if events is None:
            return None
        now = self.clock()
        while events and events[0] <= now - self.window_s:
            events.popleft()
        if len(events) < self.limit:
            return None
        return events[0] + self.window_s - now

    def hit(self, key: str, count: int = 1) -> None:
        """Counts ``count`` events for ``key`` (an expensive request counts as several)."""
        events = self._events.get(key)
        if events is None:
            events = self._events[key] = deque(maxlen=self.limit)
            if len(self._events) > self.max_keys:
                self._events.popitem(last=False)
        else:
            self._events.move_to_end(key)
        events.extend([self.clock()] * min(count, self.limit))

    def allow(self, key: str) -> float | None:
        """Counts an event if ``key`` is within its limit; else the seconds to wait."""
        wait = self.retry_after(key)
        if wait is None:
            self.hit(key)
        return wait


class Backoff:
    """Consecutive failures per key, answered with a growing wait rather than a lock.

    The first ``free`` failures cost nothing (typos); after that each attempt must wait
    ``first_s``, then twice as long after each further failure, up to ``max_s``, counted
    from the last failure.  A success, or ``forget_s`` without failures, clears the key.
    Memory is bounded as in :class:`SlidingWindow`.
    """

    def __init__(
        self,
        *,
        free: int = 3,
        first_s: float = 1.0,
        max_s: float = 60.0,
        forget_s: float = 900.0,
        max_keys: int = 100_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.free = free
        self.first_s = first_s
        self.max_s = max_s
        self.forget_s = forget_s
        self.max_keys = max_keys
        self.clock = clock
        self._failures: OrderedDict[str, tuple[int, float]] = OrderedDict()

    def retry_after(self, key: str) -> float | None:
        """Seconds until ``key`` may try again, or ``None`` if it may now."""
        entry = self._failures.get(key)
        if entry is None:
            return None
        failures, last = entry
        now = self.clock()
        if now - last >= self.forget_s:
            del self._failures[key]
            return None
        if failures <= self.free:
            return None
        wait = min(self.max_s, self.first_s * 2 ** (failures - self.free - 1))
        due = last + wait
        return due - now if due > now else None

    def failed(self, key: str) -> None:
        """Counts one failure for ``key``."""
        failures, last = self._failures.pop(key, (0, 0.0))
        if failures and self.clock() - last >= self.forget_s:
            failures = 0
        self._failures[key] = (failures + 1, self.clock())
        if len(self._failures) > self.max_keys:
            self._failures.popitem(last=False)

    def succeeded(self, key: str) -> None:
        """Clears ``key``'s failures."""
        self._failures.pop(key, None)


def retry_after_header(seconds: float) -> str:
    """The ``Retry-After`` value: whole seconds, at least 1."""
    return str(max(1, math.ceil(seconds)))


def error_body(code: str, detail: str) -> bytes:
    """The project's error shape, ``{"error": code, "detail": detail}``, as JSON bytes."""
    return json.dumps({"error": code, "detail": clip(detail, MAX_DETAIL)}).encode()


HEALTH_PATH = "/health"
"""The health check's path (``app.py``), which no request budget counts."""


class RequestGuard:
    """The outermost HTTP layer: body limit, strict JSON, request rate, security headers."""

    def __init__(self, app: ASGIApp, settings: Settings, requests: SlidingWindow | None = None) -> None:
        self.app = app
        self.max_body = settings.max_body_bytes
        self.max_depth = settings.max_json_depth
        self.requests = requests if requests is not None else SlidingWindow(settings.requests_per_minute)
        self.trusted = settings.trusted_networks

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        send = _with_security_headers(send)
        # A proxy's health checks (every second or two, per process) are not a client's budget.
        health = scope["path"] == HEALTH_PATH
        wait = None if health else self.requests.allow(client_of(scope, self.trusted))
        if wait is not None:
            await _answer(send, 429, "too_many_requests", "too many requests from this address", wait)
            return
        headers = Headers(scope=scope)
        declared = headers.get("content-length")
        if declared is not None:
            if not declared.isdigit():
                await _answer(send, 400, "bad_request", "the Content-Length header is not a number")
                return
            if int(declared) > self.max_body:
                await _answer(send, 413, "body_too_large", f"the body is over {self.max_body} bytes")
                return
        body = bytearray()
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            if len(body) > self.max_body:
                await _answer(send, 413, "body_too_large", f"the body is over {self.max_body} bytes")
                return
            more = message.get("more_body", False)
        if body and _is_json(headers.get("content-type")):
            try:
                strict_json(bytes(body), self.max_depth)
            except BadJSON as exc:
                await _answer(send, 400, "bad_json", str(exc))
                return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": bytes(body), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


def _is_json(content_type: str | None) -> bool:
    # FastAPI parses a body without a content type as JSON too.
    if not content_type:
        return True
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or media.endswith("+json")


def _with_security_headers(send: Send) -> Send:
    async def sender(message: Message) -> None:
        if message["type"] == "http.response.start":
            present = {name.lower() for name, _ in message.get("headers", [])}
            extra = [(name, value) for name, value in SECURITY_HEADERS if name not in present]
            message = {**message, "headers": [*message.get("headers", []), *extra]}
        await send(message)

    return sender


async def _answer(send: Send, status: int, code: str, detail: str, retry_after: float | None = None) -> None:
    body = error_body(code, detail)
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if retry_after is not None:
        headers.append((b"retry-after", retry_after_header(retry_after).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
