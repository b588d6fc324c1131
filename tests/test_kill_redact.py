"""Mutation-gate tests of leaderboard.redact (issue 29 item 1): each rule of the public-record choke point
on an exact input and output."""
from __future__ import annotations

from leaderboard.redact import public_url


def test_public_url_keeps_scheme_and_host_of_a_public_api_only():
    assert public_url("https://user:pw@ICD.who.int:8443/path?q=1") == "https://icd.who.int"
    assert public_url(" http://id.who.int/icd ") == "http://id.who.int"
    assert public_url("ftp://id.who.int/x") == "self-hosted"
    assert public_url("http://10.0.0.1/v1") == "self-hosted"
    assert public_url("http://[::1") == "self-hosted"  # urlsplit raises ValueError
