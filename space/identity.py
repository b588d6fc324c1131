"""Who is submitting. On a Hugging Face Space: the OAuth login (gr.LoginButton). Elsewhere: a
configured local identity (LEADERBOARD_LOCAL_USER), because Gradio's local OAuth mock needs the Hub."""
from __future__ import annotations

import gradio as gr
from gradio.utils import get_space

from leaderboard.settings import Settings


def on_space() -> bool:
    return get_space() is not None


def local_user() -> str:
    return Settings.from_env().local_user


def current_user(request: gr.Request | None, profile: gr.OAuthProfile | None = None) -> str | None:
    """`profile` is what Gradio injects into a handler parameter typed `gr.OAuthProfile | None` once the user
    signed in with gr.LoginButton; the session read below is the same data, for handlers without it."""
    if not on_space():
        return local_user()
    if profile is not None:
        return profile.username
    session = getattr(request, "session", None) if request is not None else None
    if session is None and request is not None:
        session = getattr(getattr(request, "request", None), "session", None)
    info = (session or {}).get("oauth_info") or {}
    return (info.get("userinfo") or {}).get("preferred_username")
