"""Lines of an uploaded text file, split and bounded on bytes, before any line is decoded.

Decoding a whole file at once costs the file's length times its widest character: CPython stores a str with
one character beyond U+FFFF at 4 bytes per character, so a 199 MB JSONL with one emoji and CR line ends took
1.6 GB (the decoded text, then its CR -> LF copies; issue 25). Here the file stays bytes: its UTF-8 is
checked in 1 MB steps, lines are found at \\n, \\r\\n or \\r only (str.splitlines() would also split at U+2028
and U+0085, legal inside a JSON string), and each line is decoded on its own once its decoded size — its
length times the width of its widest character — is known to be within MAX_LINE_DECODED.
"""
from __future__ import annotations

import codecs
from typing import Iterator, NamedTuple

BOM = codecs.BOM_UTF8
MAX_LINE_DECODED = 100 * 10**6  # bytes one decoded line may take (a 20 M-character ASCII field still parses)
_CHECK_STEP = 1 << 20
_FOUR_BYTE_LEADS = tuple(bytes([b]) for b in range(0xF0, 0xF5))  # characters beyond U+FFFF: 4 bytes each in a str
_THREE_BYTE_LEADS = tuple(bytes([b]) for b in range(0xE0, 0xF0))  # U+0800-U+FFFF: 2 bytes each
_WIDE_TWO_BYTE_LEADS = tuple(bytes([b]) for b in range(0xC4, 0xE0))  # U+0100-U+07FF: 2 bytes each


class NotUtf8(ValueError):
    def __init__(self, line: int, offset: int):
        super().__init__(f"line {line}: file is not valid UTF-8 (byte {offset}); save it as UTF-8")


class Line(NamedTuple):  # a tuple: 10^6 lines are read per upload at most, a frozen dataclass costs ~1 s more
    number: int
    start: int
    end: int  # exclusive, before the line break
    after: int  # just past the line break


def check_utf8(raw: bytes, start: int = 0) -> None:
    """NotUtf8 naming the line and byte of the first invalid sequence; memory: one decoded step at a time."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    for offset in range(start, len(raw), _CHECK_STEP):
        pending = len(decoder.getstate()[0])  # bytes of a character cut by the previous step
        try:
            decoder.decode(raw[offset:offset + _CHECK_STEP], final=offset + _CHECK_STEP >= len(raw))
        except UnicodeDecodeError as exc:
            bad = offset - pending + exc.start
            raise NotUtf8(raw.count(b"\n", start, bad) + 1, bad - start) from None  # counted after a BOM


def lines(raw: bytes, start: int = 0) -> Iterator[Line]:
    """Every line of raw[start:] (the last one possibly empty), split at \\n, \\r\\n or \\r; linear in the size."""
    size, pos, number = len(raw), start, 0
    next_lf, next_cr = raw.find(b"\n", pos), raw.find(b"\r", pos)
    if next_cr < 0:  # the common case, \n only: one search per line
        while next_lf >= 0:
            number += 1
            yield Line(number, pos, next_lf, next_lf + 1)
            pos = next_lf + 1
            next_lf = raw.find(b"\n", pos)
        yield Line(number + 1, pos, size, size)
        return
    while True:
        number += 1
        if 0 <= next_lf < pos:
            next_lf = raw.find(b"\n", pos)
        if 0 <= next_cr < pos:
            next_cr = raw.find(b"\r", pos)
        ends = [i for i in (next_lf, next_cr) if i >= 0]
        if not ends:
            yield Line(number, pos, size, size)
            return
        end = min(ends)
        after = end + 2 if raw[end] == 0x0D and raw[end + 1:end + 2] == b"\n" else end + 1
        yield Line(number, pos, end, after)
        pos = after


def decoded_size(raw: bytes, start: int, end: int) -> int:
    """Bytes the decoded line takes in a str (1, 2 or 4 per character; counted as one per byte: an upper bound)."""
    length = end - start
    if length * 1 <= MAX_LINE_DECODED // 4:  # cannot be over the limit whatever its characters
        return length
    chunk = raw[start:end]
    if any(lead in chunk for lead in _FOUR_BYTE_LEADS):
        return 4 * length
    if any(lead in chunk for lead in _THREE_BYTE_LEADS + _WIDE_TWO_BYTE_LEADS):
        return 2 * length
    return length


def too_long(raw: bytes, line: Line) -> str | None:
    """The refusal for a line whose decoded size is over MAX_LINE_DECODED, else None."""
    if line.end - line.start <= MAX_LINE_DECODED // 4:
        return None
    cost = decoded_size(raw, line.start, line.end)
    if cost <= MAX_LINE_DECODED:
        return None
    wide = " (its widest character takes 4 bytes per character once decoded)" if cost >= 4 * (line.end - line.start) \
        else " (its widest character takes 2 bytes per character once decoded)" if cost > line.end - line.start else ""
    return (f"the line is {line.end - line.start:,} bytes{wide}; a line may take at most "
            f"{MAX_LINE_DECODED // 10**6:,} MB once decoded: put one prediction per line")


def text_start(raw: bytes) -> int:
    return len(BOM) if raw.startswith(BOM) else 0
