"""Untrusted text (model names, notes, organisations) placed into Markdown or HTML renders as text: no link,
image, emphasis, autolink or tag survives. One character scan (linear; no pattern runs on the text)."""
from __future__ import annotations

import html

# Markdown syntax, HTML syntax and the ':' of a bare URL (autolinked otherwise): written as numeric entities,
# which Markdown shows as the character and never parses
SPECIALS = set("\\`*_{}[]()#+-.!|~<>&\"':=")


def md(text: object) -> str:
    """`text` for a Gradio Markdown block; newlines become spaces (a name never starts a block)."""
    return "".join(f"&#{ord(ch)};" if ch in SPECIALS else ch for ch in " ".join(str(text).split()))


def plotly_text(text: object) -> str:
    """`text` for a plotly label or hover: plotly renders a few tags (<a href>, <b>, <br>); escaped, none do."""
    return html.escape(str(text), quote=False)
