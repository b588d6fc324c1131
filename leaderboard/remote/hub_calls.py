"""Every call this project makes to the Hub, through one retry rule and one concurrency rule.

Retry: a 5xx, a 429, a timeout or a dropped connection is tried again after an exponential backoff with
full jitter (so workers that failed together do not retry together). A 401/403 is a configuration error
(wrong token, no access) and is raised as `HubConfigError` at once; a 404 is `HubMissing` (the caller
decides: a queue record that vanished is skipped, an upload not pushed yet is "not ready").

Commits always name their parent (`parent_commit`): the Hub refuses one made on a stale head (412). A
commit whose answer is lost (500 or a timeout after the Hub applied it) is never retried blindly: `commit`
answers False for it as for a 412, and the caller re-reads the head and checks whether its change is there
(claims, finishes and the Space's record writes are all written to recognise their own applied change).
"""
from __future__ import annotations

import hashlib
import json
import logging
import random
import time
from dataclasses import dataclass, field
from typing import Callable, TypeVar

log = logging.getLogger("leaderboard.remote.hub_calls")
T = TypeVar("T")
TIMEOUT = 30.0  # seconds for one Hub request (the client's default is to wait forever)


class HubConfigError(Exception):
    """The Hub refused us for a reason retrying cannot fix (token, access rights, a repo that is not there)."""


class HubMissing(Exception):
    """A 404 on a file: not there (yet) at that revision."""


class HubUnavailable(Exception):
    """Transient failures outlasted the retries; the caller skips this step and tries again later."""


def status_of(exc: BaseException) -> int | None:
    response = getattr(exc, "response", None)
    return getattr(response, "status_code", None)


def is_transient(exc: BaseException) -> bool:
    """5xx, 429, timeouts and connection errors: worth another try."""
    import httpx2

    status = status_of(exc)
    if status is not None:
        return status == 429 or status >= 500
    return isinstance(exc, (httpx2.TransportError, ConnectionError, TimeoutError))


@dataclass
class Retry:
    """Exponential backoff with full jitter; `sleep` and `rng` are injectable (tests pass fakes)."""
    attempts: int = 6
    base: float = 0.2
    cap: float = 10.0
    sleep: Callable[[float], None] = time.sleep
    rng: random.Random = field(default_factory=random.Random)

    def pause(self, attempt: int) -> None:
        self.sleep(self.rng.uniform(0, min(self.cap, self.base * 2 ** attempt)))

    def run(self, call: Callable[[], T], what: str) -> T:
        for attempt in range(self.attempts):
            try:
                return call()
            except Exception as exc:
                status = status_of(exc)
                if status in (401, 403):
                    raise HubConfigError(f"{what}: the Hub refused access ({status}); check the token and repo") from None
                if status == 404:
                    raise HubMissing(what) from None
                if not is_transient(exc):
                    raise
                log.info("%s: %s (try %d of %d)", what, status or type(exc).__name__, attempt + 1, self.attempts)
                if attempt + 1 < self.attempts:
                    self.pause(attempt)
        raise HubUnavailable(f"{what}: the Hub kept failing ({self.attempts} tries)")


DEFAULT_RETRY = Retry()


def use_timeouts(seconds: float = TIMEOUT) -> None:
    """Give huggingface_hub's shared HTTP client a timeout (it has none: a hung Hub would hang us forever)."""
    import httpx2
    from huggingface_hub.utils import _http

    global TIMEOUT
    TIMEOUT = seconds

    def factory():
        return httpx2.Client(event_hooks={"request": [_http.hf_request_event_hook]}, follow_redirects=True,
                             timeout=seconds)

    _http.set_client_factory(factory)


def head_files(api, repo: str, retry: Retry = DEFAULT_RETRY) -> tuple[str, dict[str, str]]:
    """(head commit, {path: git blob id}) in one request: what changed since the last read shows in the ids."""
    info = retry.run(lambda: api.dataset_info(repo, files_metadata=True, timeout=TIMEOUT), f"read {repo}")
    return info.sha, {s.rfilename: getattr(s, "blob_id", None) or "" for s in info.siblings or []}


def read_file(api, repo: str, path: str, revision: str, retry: Retry = DEFAULT_RETRY) -> bytes:
    """One file's bytes at `revision` (one GET); HubMissing on a 404."""
    from huggingface_hub import hf_hub_url
    from huggingface_hub.utils import build_hf_headers, get_session, hf_raise_for_status

    url = hf_hub_url(repo, path, repo_type="dataset", revision=revision, endpoint=api.endpoint)

    def get() -> bytes:
        response = get_session().get(url, headers=build_hf_headers(token=api.token), timeout=TIMEOUT)
        hf_raise_for_status(response)
        return response.content

    return retry.run(get, f"read {repo}/{path}")


def commit(api, repo: str, message: str, parent: str, files: dict[str, bytes] | None = None,
           deletes: tuple[str, ...] = (), retry: Retry = DEFAULT_RETRY) -> bool:
    """True when the Hub acknowledged the commit. False on a 412 (someone committed since `parent`) and on a
    transient failure (it may or may not have been applied: re-read and check). Other errors raise."""
    from huggingface_hub import CommitOperationAdd, CommitOperationDelete

    operations = [CommitOperationAdd(path, data) for path, data in (files or {}).items()]
    operations += [CommitOperationDelete(path) for path in deletes]
    try:
        api.create_commit(repo, operations, commit_message=message, repo_type="dataset", parent_commit=parent)
        return True
    except Exception as exc:
        status = status_of(exc)
        if status in (401, 403):
            raise HubConfigError(f"commit to {repo}: the Hub refused access ({status})") from None
        if status == 412 or is_transient(exc):
            retry.pause(1)  # let the other writer finish (or the Hub recover) before re-reading
            return False
        raise


def encode(record: dict) -> bytes:
    return (json.dumps(record, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def git_blob_oid(data: bytes) -> str:
    """The id git (and the Hub's file listing) gives these bytes: compared before a write that would change nothing."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()

