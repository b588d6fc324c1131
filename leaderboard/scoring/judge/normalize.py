"""What the injection filter reads: the candidate's text as a grader would read it, with the disguises
taken off. Every step is one pass over the text (str.translate, unicodedata, base64, or RE2), so the
filter stays linear whatever the text.

- zero-width, bidi and other invisible format characters are removed; Unicode tag characters (the
  "ASCII smuggling" block U+E0020..E007E) are read as the ASCII they shadow;
- NFKC folds fullwidth and compatibility forms ("Ｉｇｎｏｒｅ" -> "Ignore");
- Cyrillic and Greek look-alikes are folded to Latin in an extra view (the plain view keeps real Russian
  or Greek text intact for the patterns written in those languages);
- letters spelled out with single separators ("i g n o r e", "I-g-n-o-r-e") are joined in an extra view;
- base64 spans of at least 16 characters that decode to readable text, and the rot13 of the text, are
  extra views; so are the text with %XX escapes decoded, with digits read as the letters they stand for
  ("1gn0r3"), and reversed (when it reads like reversed English).
"""
from __future__ import annotations

import base64
import binascii
import codecs
import unicodedata
from functools import lru_cache
from urllib.parse import unquote

import re2

# invisible characters an attacker can sprinkle inside a word: removed before anything is matched
_INVISIBLE = dict.fromkeys([0x00AD, 0x034F, 0x061C, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180E, 0x3164, 0xFEFF, 0xFFA0,
                            *range(0x180B, 0x180F), *range(0x200B, 0x2010), *range(0x202A, 0x202F),
                            *range(0x2060, 0x2070), *range(0xFE00, 0xFE10), *range(0xE0000, 0xE0020),
                            *range(0xE007F, 0xE0080), *range(0xE0100, 0xE01F0)])
_INVISIBLE.update({cp: cp - 0xE0000 for cp in range(0xE0020, 0xE007F)})  # tag characters spell ASCII
_INVISIBLE.update(dict.fromkeys(range(0xD800, 0xE000), 0xFFFD))  # a lone surrogate (from JSON) cannot be encoded

# Cyrillic and Greek letters drawn like Latin ones (Unicode's confusables, the common subset)
_CONFUSABLE_PAIRS = {
    "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c", "т": "t",
    "у": "y", "х": "x", "ѕ": "s", "і": "i", "ї": "i", "ј": "j", "ԁ": "d", "ԛ": "q", "ԝ": "w", "һ": "h", "ɡ": "g",
    "ո": "n", "ս": "u",
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C", "Т": "T", "Х": "X",
    "У": "Y", "Ѕ": "S", "І": "I", "Ј": "J", "Ԁ": "D",
    "α": "a", "β": "b", "ε": "e", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t", "υ": "u", "χ": "x",
    "γ": "y", "ω": "w", "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N",
    "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
    "ı": "i", "ℓ": "l", "ǀ": "l",
}
_CONFUSABLE = str.maketrans(_CONFUSABLE_PAIRS)


def _char_class(code_points) -> re2._Regexp:
    """An RE2 class matching any of `code_points` (surrogates left out: UTF-8 text cannot hold them), so
    a text can be checked for them in one fast scan before a slower str.translate."""
    points = sorted(cp for cp in code_points if not 0xD800 <= cp < 0xE000)
    ranges, start = [], points[0]
    for prev, cp in zip(points, points[1:] + [-1]):
        if cp != prev + 1:  # a run ends
            ranges.append(f"\\x{{{start:X}}}-\\x{{{prev:X}}}" if prev > start else f"\\x{{{start:X}}}")
            start = cp
    return re2.compile("[" + "".join(ranges) + "]")


_HAS_INVISIBLE = _char_class(_INVISIBLE)
_HAS_CONFUSABLE = _char_class(ord(ch) for ch in _CONFUSABLE_PAIRS)

_SPELLED = re2.compile(r"(?:[A-Za-z][ .\-_*·|]){2,}[A-Za-z]")  # i g n o r e / I-g-n-o-r-e / t h e (letter, one separator)
_OTHER_SEPARATORS = str.maketrans(".-_*·|", "      ")
_BASE64 = re2.compile(r"[A-Za-z0-9+/]{16,}={0,2}|[A-Za-z0-9_-]{16,}={0,2}")
_ASCII_LETTER = re2.compile(r"[A-Za-z]")
_PERCENT = re2.compile(r"%[0-9A-Fa-f]{2}")
_LEET_WORD = re2.compile(r"[A-Za-z][013457@$]+[A-Za-z]|\b[013457][A-Za-z]{2}")  # "1gn0r3", "m4rks"
_LEET = str.maketrans("013457@$", "oieastas")
_ROT13_HINTS = (" gur ", " naq ", "guvf", "nafjre", "tenqr", "fpber", "znexf", "vafgehpgvba", "pevgrevn", "ehoevp")
_REVERSED_HINTS = (" eht ", " dna ", " siht ", "erongi", "skram", "snoitcurtsni", "redarg")


def plain(text: str) -> str:
    """Invisible characters removed, then NFKC (fullwidth and compatibility forms folded)."""
    try:
        data = text.encode()
    except UnicodeEncodeError:  # a lone surrogate: translate turns it into U+FFFD
        data = None
    if data is None or _HAS_INVISIBLE.search(data):
        text = text.translate(_INVISIBLE)
    return unicodedata.normalize("NFKC", text)


@lru_cache(maxsize=8)  # asked for by several readings of the same text
def fold_lookalikes(text: str) -> str:
    """Cyrillic and Greek look-alikes read as the Latin letters they imitate (`text` itself when it has none)."""
    return text.translate(_CONFUSABLE) if _HAS_CONFUSABLE.search(text.encode()) else text


def extra_views(text: str) -> list[str]:
    """Decoded readings of `text` (already `plain`) that differ from it. Each is read by the same patterns."""
    return aligned_views(text) + list(detached_views(text))


def aligned_views(text: str) -> list[str]:
    """Readings that keep the text's parts in order (a sentence boundary stays between the same sentences):
    look-alikes folded, spelled-out letters joined, %XX decoded, digits read as letters, rot13."""
    folded = fold_lookalikes(text)
    views = [folded] if folded is not text else []
    views += decoded_views(folded)
    if _ASCII_LETTER.search(folded):
        views.append(codecs.encode(folded, "rot13"))
    return views


def decoded_views(folded: str) -> list[str]:
    """The aligned readings of already folded text that undo a disguise and read as language (the
    classifier reads these too): spelled-out letters joined, %XX decoded, digits read as letters; and rot13
    when the text holds rot13 of common English words."""
    views = []
    joined = _SPELLED.sub(_join_spelled, folded)
    if joined != folded:
        views.append(joined)
    if _PERCENT.search(folded):
        views.append(unquote(folded))
    if _LEET_WORD.search(folded):
        views.append(folded.translate(_LEET))
    return views


def rot13_view(folded: str) -> str | None:
    """The rot13 of `folded` when it reads like rot13 of English (the classifier would read noise
    otherwise); None when it does not."""
    lower = folded.lower()
    return codecs.encode(folded, "rot13") if any(hint in lower for hint in _ROT13_HINTS) else None


@lru_cache(maxsize=8)  # the filter asks for the same text's readings from several places in one call
def detached_views(text: str) -> tuple[str, ...]:
    """Readings whose positions say nothing about where in the text they came from: the base64 spans
    decoded (one view for all: thousands of short spans are scanned in one call), the text reversed."""
    folded = fold_lookalikes(text)
    views = []
    decoded = _decoded_base64(folded)
    if decoded:
        views.append("\n".join(decoded))
    if any(hint in folded.lower() for hint in _REVERSED_HINTS):
        views.append(folded[::-1])
    return tuple(views)


def _join_spelled(match) -> str:
    """"g.i.v.e t.h.i.s" -> "give this": the separator after the first letter joins letters; any other
    separator in the run stands for a space between words."""
    run = match.group(0)
    return run.replace(run[1], "").translate(_OTHER_SEPARATORS)


def _decoded_base64(text: str) -> list[str]:
    out = []
    for match in _BASE64.finditer(text):
        span = match.group(0)
        rest = span[1:].rstrip("=")
        if rest.islower() and rest.replace("-", "").replace("_", "").isalpha():
            continue  # one plain lower-case word ("pneumonoultramicroscopic") is not an encoding
        decoded = _readable(span)
        if decoded:
            out.append(decoded)
    return out


def _readable(span: str) -> str | None:
    raw = span.rstrip("=")
    raw += "=" * (-len(raw) % 4)
    try:
        data = (base64.urlsafe_b64decode(raw) if ("-" in raw or "_" in raw) else base64.b64decode(raw))
        decoded = data.decode("utf-8")
    except (binascii.Error, ValueError):
        return None
    printable = len(decoded) if decoded.isprintable() else sum(ch.isprintable() or ch in "\n\t" for ch in decoded)
    words = " " in decoded or not decoded.isascii()  # a sentence, or CJK text (no spaces)
    return decoded if decoded and words and printable >= 0.95 * len(decoded) else None
