"""Mutation-gate tests of leaderboard.privacy.redact (issue 29 item 1): each rule of the public-record choke point
on an exact input and output."""
from __future__ import annotations

from leaderboard.privacy.redact import public_url


def test_public_url_keeps_scheme_and_host_of_a_public_api_only():
    assert public_url("https://user:pw@ICD.who.int:8443/path?q=1") == "https://icd.who.int"
    assert public_url(" http://id.who.int/icd ") == "http://id.who.int"
    assert public_url("ftp://id.who.int/x") == "self-hosted"
    assert public_url("http://10.0.0.1/v1") == "self-hosted"
    assert public_url("http://[::1") == "self-hosted"  # urlsplit raises ValueError


def test_a_scheme_word_after_a_secrets_name_hides_the_credential_even_without_a_digit():
    from leaderboard.privacy.redact import public_text

    # base64 of "user:pass" has no digit: the generic Bearer/Basic rule (which needs one) let it through
    assert public_text("Authorization: Basic dXNlcjpwYXNz") == "Authorization: Basic [hidden]"
    assert public_text('authorization="Basic dXNlcjpwYXNz"') == 'authorization="Basic [hidden]"'
    assert public_text("Authorization: Bearer abc123def456") == "Authorization: Bearer [hidden]"
    assert public_text("auth_token: Token abc123def") == "auth_token: Token [hidden]"
    assert public_text("Basic metabolic panel normal; the token was fine") == (
        "Basic metabolic panel normal; the token was fine")


def test_text_keeps_public_hosts_and_drops_user_info():
    from leaderboard.privacy.redact import public_text

    assert public_text("see https://id.who.int/icd/release?x=1 and http://10.1.1.1/a") == (
        "see https://id.who.int and self-hosted")
    assert public_text("login admin:hunter2@db.internal now") == "login db.internal now"


def test_paths_keep_their_last_folder_and_lists_keep_their_key():
    from leaderboard.privacy.redact import public_value

    assert public_value({"model_path": ["/srv/models/BOX/", "C:\\m\\n", "model-a"],
                         "base_url": "https://id.who.int/icd", "cache_dir": "/var/cache/x\\y"}) == {
        "model_path": ["BOX", "n", "model-a"], "base_url": "https://id.who.int", "cache_dir": "y"}
    assert public_value({"urls": ["http://10.0.0.2:99/v1"], "Api-Key": "k", "endpoint": "e", "n": 3}) == {
        "urls": ["self-hosted"], "n": 3}
