"""The guard's parts on their own: strict JSON, the sliding window, client keys."""

from __future__ import annotations

import pytest

from tabletop.server.guard import BadJSON, SlidingWindow, client_key, clip, strict_json


def test_sliding_window_forgets_old_events() -> None:
    now = [0.0]
    window = SlidingWindow(2, 60, clock=lambda: now[0], max_keys=2)
    assert window.allow("a") is None and window.allow("a") is None
    assert window.allow("a") == pytest.approx(60)
    now[0] = 30
    assert window.retry_after("a") == pytest.approx(30)
    now[0] = 60.5
    assert window.allow("a") is None
    window.hit("b")
    window.hit("c")  # over max_keys: the least recently used key ("a") is forgotten
    assert window.retry_after("a") is None


def test_ipv6_clients_are_counted_per_64() -> None:
    assert client_key("2001:db8::1") == client_key("2001:db8::ffff:1") == "2001:db8::/64"
    assert client_key("2001:db8:0:1::1") != client_key("2001:db8::1")
    assert client_key("::ffff:10.0.0.1") == "10.0.0.1" == client_key("10.0.0.1")


def test_strict_json() -> None:
    assert strict_json(b'{"a": [1, 2.5, "x", null, true]}', 4) == {"a": [1, 2.5, "x", None, True]}
    for bad in (b"NaN", b"-Infinity", b"1e400", b'"\\udfff"', b'{"\\ud800": 1}', b"[[[[[1]]]]]", b"\xc3"):
        with pytest.raises(BadJSON):
            strict_json(bad, 4)


def test_clip_shortens_and_makes_encodable() -> None:
    assert clip("x" * 100, 10) == "x" * 9 + "…"
    assert clip("a\ud800b").encode() == b"a?b"
