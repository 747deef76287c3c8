"""Reading a file the user named, without letting its size decide how much memory we use."""

from __future__ import annotations

from pathlib import Path


class FileTooLargeError(ValueError):
    """A file over the size limit for its kind (its first bytes were read, no more)."""


def read_bounded(path: Path, max_bytes: int) -> bytes:
    """The content of ``path``, read in one go of at most ``max_bytes`` + 1 bytes.

    A device such as ``/dev/zero`` or a file grown by mistake is refused after that
    much, instead of filling memory.

    Raises:
        OSError: if the file cannot be opened or read.
        FileTooLargeError: if it holds more than ``max_bytes`` bytes.
    """
    with path.open("rb") as stream:
        raw = stream.read(max_bytes + 1)
    if len(raw) > max_bytes:
        raise FileTooLargeError(f"{path} is bigger than {max_bytes:,} bytes")
    return raw
