"""Per-account state shared by every scoring worker, kept on the Hub beside the queue.

`private/ledger/<hash of the account>.json` holds the submissions that spent the account's breakdown budget
(held-out keys: detailed results for at most `breakdowns_per_month` submissions per 30 days). It is updated
with the same parent-checked commits as the queue, so N workers enforce one budget, and a restart or a new
worker id resets nothing. The quota and the duplicate index need no copy here: they are computed from the
queue records on the Hub (one record per submission, with its account, content hash and state; failed
runs refund the quota by their state).
"""
from __future__ import annotations

import hashlib
import json
import logging
import time
from datetime import datetime, timedelta, timezone
from typing import Callable

from ..remote.hub_calls import DEFAULT_RETRY, HubMissing, HubUnavailable, Retry, commit, encode, head_files, read_file

log = logging.getLogger("leaderboard.operations.hub_ledger")
LEDGER_DIR = "private/ledger"
MAX_RACES = 200


class HubLedger:
    def __init__(self, api, repo: str, retry: Retry = DEFAULT_RETRY, clock: Callable[[], float] = time.time):
        self.api, self.repo, self.retry, self.clock = api, repo, retry, clock

    def path(self, account: str) -> str:  # a hash: account names never become file names
        return f"{LEDGER_DIR}/{hashlib.sha256(account.encode('utf-8')).hexdigest()[:24]}.json"

    def breakdown_allowed(self, account: str, sub_id: str, per_month: int) -> bool:
        """True when `sub_id` already holds a budget entry or one is free (then it is spent, on the Hub).
        If the Hub cannot be reached the answer is False: withholding a breakdown is the safe side."""
        path = self.path(account)
        now = datetime.fromtimestamp(self.clock(), timezone.utc)
        since = (now - timedelta(days=30)).isoformat(timespec="seconds")
        try:
            for _ in range(MAX_RACES):
                sha, files = head_files(self.api, self.repo, self.retry)
                try:
                    ledger = json.loads(read_file(self.api, self.repo, path, sha, self.retry)) if path in files else {}
                except HubMissing:  # listed but not served (yet): read again
                    continue
                spent = dict(ledger.get("breakdowns") or {})
                if sub_id in spent:  # a rescore, or our own write whose acknowledgement was lost
                    return True
                if sum(1 for when in spent.values() if when >= since) >= per_month:
                    return False
                spent[sub_id] = now.isoformat(timespec="seconds")
                if commit(self.api, self.repo, f"ledger: breakdown for {sub_id}", sha,
                          {path: encode({**ledger, "breakdowns": spent})}, retry=self.retry):
                    return True
        except (HubUnavailable, ValueError) as exc:
            log.warning("breakdown ledger unreadable (%s); %s published without breakdowns", type(exc).__name__, sub_id)
            return False
        return False
