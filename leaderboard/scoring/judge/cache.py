"""Disk cache of judge answers, keyed by the request (model, parameters, prompt version, its variables and
images; `judge_key`, the one key function). Only answers that parsed and passed the grounding checks are
stored, so a rescore after a crash or a config change of nothing costs no call, and a failure (a refused
verdict included) is always asked again.

Writes are batched: a verdict is in memory at once and reaches the sqlite file (WAL) with up to
WRITE_BATCH - 1 others in one transaction, at the latest FLUSH_AFTER_S after it arrived, and at every
`flush` (the judge flushes at the end of each run and on close). A full batch is encoded and written by a
thread of its own, so the judge's event loop never waits on the disk. A crash loses at most the verdicts of
the last fraction of a second; they are simply asked again.

With `shared` (leaderboard/scoring/judge/shared.py: Parquet shards in a private Hub dataset) the file is the hot layer
of the verdicts every worker shares: at start it imports the shards it has not imported yet, and the verdicts
this process adds are published as a new shard (when PUBLISH_BATCH are waiting, when the oldest has waited
PUBLISH_AFTER_S, at the end of every submission: `Judge.publish`, and on close). Until its shard is
acknowledged a verdict is listed in the file's `unpublished` table, so a worker restarted on the same disk
publishes what it left.
"""
from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import threading
from functools import lru_cache
from pathlib import Path
from typing import Mapping

# the stored verdict JSON: orjson where it reads exactly what json does
from ...fast_json import loads as decode
from ...fast_json import loads_many as decode_many

log = logging.getLogger("leaderboard.scoring.judge.cache")
# a shard row whose key starts so is a reply's quoted digest (quoted_many's memo: digest, sha, "true"/"false"
# flagged), not a verdict (verdict keys are hex)
QUOTED_ROW = "q:"
WRITE_BATCH = 256
FLUSH_AFTER_S = 0.2  # a verdict waits at most this long for its batch: a SIGKILL later loses nothing
# get_many and flags_many read the whole table once when asked, in all, for a sixth of its rows: an index
# lookup costs ~6x a row of the sequential read (measured at 50,586 rows), so a rescore that asks for all of
# them pays at most about twice the best choice made knowing the future (the ski-rental rule)
SCAN_SHARE = 6
SNAPSHOT_MAX_ROWS = 200_000  # above this (~60 MB held) the table is not snapshotted: index lookups instead
# the key scheme and the verdict format: bump when the request a call renders to changes shape or a cached
# verdict would no longer pass the checks (k3: canary, criterion id and evidence in every verdict). Rows of
# an older scheme are never looked up (their keys differ) and are not migrated: they lack those fields.
KEY_VERSION = "k3"


def request_key(request: dict) -> str:
    """Hash of a JSON request (the judge's settings part of a key: model, temperature, response format...)."""
    return hashlib.sha256(json.dumps(request, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def key_header(settings_digest: str, prompt_id: str, prompt_sha: str) -> str:
    """What every key of one judge and prompt shares: key version, request settings, prompt id and text hash."""
    return "\n".join([KEY_VERSION, settings_digest, prompt_id, prompt_sha])


def item_digest(variables: Mapping[str, str], images=(), candidate_field: str = "candidate",
                image_sha256: list[str] | None = None, quoted: tuple[str, bool] | None = None,
                known: Mapping[str, str] | None = None) -> tuple[tuple[str, ...], str, bool]:
    """(the variable names, the digest of the variables and images, whether the candidate was flagged as
    addressing the judge). The candidate is hashed as quoted (`quote_candidate`), so a redaction change is a
    new key; `quoted` (from `quoted_digest`, e.g. memoised by JudgeCache.quoted_many) stands for quoting it.
    `image_sha256` (hex SHA-256 of each image, in order) stands for `images` when a dataset publishes them:
    the same digest, without reading the image bytes. `known`: variable name -> its text_sha, already
    computed (a memoised rendering), standing for hashing that variable's value."""
    if images and image_sha256 is not None:
        raise ValueError("pass the images or their SHA-256, not both")
    parts, flagged = [], False
    for name, value in sorted(variables.items()):
        if name == candidate_field:
            digest, flagged = quoted if quoted is not None else quoted_digest(value)
            parts.append(name + "=" + digest)
            continue
        parts.append(name + "=" + (known[name] if known and name in known else text_sha(value)))
    parts += ["image=" + (sha if image_sha256 is not None else image_sha(sha))
              for sha in (image_sha256 if image_sha256 is not None else images)]
    return tuple(sorted(variables)), hashlib.sha256("\n".join(parts).encode()).hexdigest(), flagged


# what decides how `quote_candidate` quotes a candidate: the injection detector's code and weights (with
# RE2's and Unicode's versions, detector_id): a candidate's quoted form is memoised under them, so a rescore runs
# no detector (5,620 distinct replies: ~1.7 s) and any change to them quotes every candidate afresh
DETECTOR_FILES = ("safety.py", "injection_patterns.py", "normalize.py", "classifier.py", "injection_classifier.npz")


@lru_cache(maxsize=1)
def detector_id() -> str:
    """SHA-256 of KEY_VERSION, DETECTOR_FILES' bytes, Unicode's version and the installed RE2's dist name."""
    import unicodedata

    import re2

    h = hashlib.sha256(KEY_VERSION.encode())
    for name in DETECTOR_FILES:
        h.update(b"\n%s\n" % name.encode() + (Path(__file__).parent / name).read_bytes())
    re2_dist = sorted(p.name for p in Path(re2.__file__).parent.glob("google_re2-*.dist-info"))
    h.update("\n".join(["", unicodedata.unidata_version, *re2_dist]).encode())
    return h.hexdigest()


def quoted_digest(text: str, filtered: bool = True) -> tuple[str, bool]:
    """(text_sha of the candidate as quoted, whether it was flagged): what item_digest hashes for it. Unfiltered
    quoting hashes under its own prefix, so the two forms of one text never share a key."""
    from .safety import quote_candidate

    quoted, flagged = quote_candidate(text, filtered)
    return text_sha(quoted if filtered else "unfiltered\n" + quoted), flagged


KEY_CHARS = 64  # every judge_key is a SHA-256 in hex


@lru_cache(maxsize=1)
def keying_id() -> str:
    """SHA-256 of this module's source, where the keys are made: keys memoised (memo.py) under an older
    keying are never read back."""
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()


def key_prefix(header: str, item: str):
    """The hash state of a key's shared part (copy it per key: an item's criteria share it)."""
    h = hashlib.sha256(header.encode())
    h.update(b"\nitem=" + item.encode())
    return h


def judge_key(header: str, item: str, rest: Mapping[str, str] = {}, prefix=None) -> str:
    """THE cache key: sha256 of `header`, the item digest, then each variable the item does not share (in
    name order, length-prefixed: unambiguous whatever the text holds). `prefix`, from key_prefix(header,
    item), saves rehashing the shared part."""
    h = (prefix if prefix is not None else key_prefix(header, item)).copy()
    for name in sorted(rest) if len(rest) > 1 else rest:
        value = rest[name].encode()
        h.update(b"\n%s=%d:" % (name.encode(), len(value)) + value)
    return h.hexdigest()


_JSON_BOOLEANS = {"true": True, "false": False}  # SQLite's json_type of a JSON boolean


def _flag(value, field: str) -> bool | None:
    """value[field] when `value` is a dict holding a boolean there (as flags_many reads it from the file)."""
    flag = value.get(field) if isinstance(value, dict) else None
    return flag if isinstance(flag, bool) else None


def judge_keys(prefix, name: str, values: list[str]) -> list[str]:
    """[judge_key(header, item, {name: value}, prefix) for value in values] in one loop (a rescore keys 50,586
    criteria: the per-call overhead was most of its keying time)."""
    head, copy, out = b"\n%s=" % name.encode(), prefix.copy, []
    for value in values:
        data = value.encode()
        h = copy()
        h.update(head + b"%d:" % len(data) + data)
        out.append(h.hexdigest())
    return out


@lru_cache(maxsize=4096)
def image_sha(data: bytes) -> str:
    """Memoised: the same image object is named in many calls (one per rubric criterion)."""
    return hashlib.sha256(data).hexdigest()


@lru_cache(maxsize=65536)
def text_sha(text: str) -> str:
    """Memoised: the dialogue of a case is the same string object in each of its calls."""
    return hashlib.sha256(text.encode()).hexdigest()


class JudgeCache:
    def __init__(self, path: Path | None, shared=None):
        """`shared`: a SharedVerdicts (leaderboard/scoring/judge/shared.py) whose shards this file imports and extends."""
        if shared is not None and not path:
            raise ValueError("shared judge verdicts need a local cache file (their hot layer)")
        self.path = Path(path) if path else None
        self.shared = shared
        self._publish_lock = threading.Lock()  # one shard commit at a time
        self._unpublished = 0  # verdicts written to the file since the last shard (shared only)
        self._unpublished_since: float | None = None  # when the oldest of them was written
        self._lock = threading.Lock()  # the in-memory map and the pending batch (held for microseconds)
        self._db_lock = threading.Lock()  # the sqlite connection (a write holds it for one batch)
        self._flush_lock = threading.Lock()  # one flush at a time, so a flush returns after earlier batches
        self._memory: dict[str, tuple[str, dict]] = {}
        self._quoted: dict[str, tuple[str, bool]] = {}  # quoted_many's memo, in memory
        self._pending: list[tuple[str, str, dict]] = []
        self._timer: threading.Timer | None = None
        self._db = None
        self._asked = 0  # keys looked up on disk so far
        # selected columns -> {key: what they select}: the table read once per selection, when a rescore asks
        self._snapshots: dict[str, dict] = {}
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(self.path), check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")  # WAL: durable across a process crash, cheap commits
            self._db.execute("CREATE TABLE IF NOT EXISTS verdicts (key TEXT PRIMARY KEY, raw TEXT, parsed TEXT)")
            self._db.execute("CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT)")
            # sha256(detector_id, candidate) -> quoted_digest of the candidate (the memo of quoted_many)
            self._db.execute("CREATE TABLE IF NOT EXISTS quoted (digest TEXT PRIMARY KEY, sha TEXT, flagged INTEGER)")
            # the scheme of the newest writer (older rows stay, unreachable under the new keys)
            self._db.execute("INSERT OR REPLACE INTO meta VALUES ('key_scheme', ?)", (KEY_VERSION,))
            if shared is not None:
                self._db.execute("CREATE TABLE IF NOT EXISTS shards (name TEXT PRIMARY KEY)")  # imported or ours
                self._db.execute("CREATE TABLE IF NOT EXISTS unpublished (key TEXT PRIMARY KEY)")
            self._db.commit()
        if shared is not None:
            self.pull()
            self._compact()
            self._unpublished = self._db.execute("SELECT COUNT(*) FROM unpublished").fetchone()[0]
            self.publish()  # what a previous process on this disk wrote but never published

    def pull(self) -> int:
        """Import the shards not imported yet into the file; returns the verdicts read. A Hub that does not
        answer now is logged and skipped (its verdicts are asked again, or found at the next start)."""
        from ...remote.hub_calls import HubConfigError

        with self._db_lock:
            known = {row[0] for row in self._db.execute("SELECT name FROM shards")}
        read = 0
        try:
            self.shared.check_private()
            for name, rows in self.shared.read_new(known):
                quoted = [(key[len(QUOTED_ROW):], sha, int(flag == "true")) for key, sha, flag in rows
                          if key.startswith(QUOTED_ROW)]
                with self._db_lock:
                    with self._db:
                        self._db.executemany("INSERT OR IGNORE INTO verdicts VALUES (?, ?, ?)",
                                             [row for row in rows if not row[0].startswith(QUOTED_ROW)])
                        self._db.executemany("INSERT OR IGNORE INTO quoted VALUES (?, ?, ?)", quoted)
                        self._db.execute("INSERT OR IGNORE INTO shards VALUES (?)", (name,))
                read += len(rows)
        except HubConfigError:
            raise  # a wrong token or repo: said at once, not hidden behind a slower worker
        except Exception as exc:  # the Hub is down: score from the local cache, ask what is missing
            log.warning("shared judge verdicts not read (%s); using the local cache", type(exc).__name__)
        return read

    def _compact(self) -> None:
        """Merge the repo's small shards when there are many (shared.py); a failure waits for the next start."""
        try:
            merged = self.shared.compact()
        except Exception as exc:
            log.warning("verdict shards not merged (%s)", type(exc).__name__)
            return
        if merged is None:
            return
        with self._db_lock:
            known = {row[0] for row in self._db.execute("SELECT name FROM shards")}
            if set(merged[1]) <= known:  # every row is in this file already: nothing to read at the next start
                with self._db:
                    self._db.execute("INSERT OR IGNORE INTO shards VALUES (?)", (merged[0],))

    def publish(self) -> int:
        """Publish every verdict of the file not yet in a shard as one new shard; returns how many. A Hub that
        keeps failing is logged: the verdicts stay listed and go with the next publish."""
        if self.shared is None or self._db is None:
            return 0
        with self._publish_lock:
            with self._db_lock:
                rows = self._db.execute("SELECT v.key, v.raw, v.parsed FROM unpublished u JOIN verdicts v "
                                        "ON v.key = u.key").fetchall()
                rows += [(QUOTED_ROW + digest, sha, "true" if flagged else "false") for digest, sha, flagged in
                         self._db.execute("SELECT q.digest, q.sha, q.flagged FROM unpublished u JOIN quoted q "
                                          "ON u.key = ? || q.digest", (QUOTED_ROW,))]
            if not rows:
                return 0
            try:
                name = self.shared.publish(rows)
            except Exception as exc:  # never fails a score: the rows stay listed for the next publish
                log.warning("%d judge verdicts not published yet (%s)", len(rows), type(exc).__name__)
                return 0
            with self._db_lock:
                with self._db:
                    self._db.executemany("DELETE FROM unpublished WHERE key = ?", [(row[0],) for row in rows])
                    self._db.execute("INSERT OR IGNORE INTO shards VALUES (?)", (name,))
            with self._lock:
                self._unpublished = max(0, self._unpublished - len(rows))
                self._unpublished_since = self.shared.clock() if self._unpublished else None
            return len(rows)

    def _publish_due(self) -> bool:
        with self._lock:
            return self._unpublished >= self.shared.batch or (
                self._unpublished_since is not None
                and self.shared.clock() - self._unpublished_since >= self.shared.after_s)

    def quoted_many(self, texts: list[str]) -> list[tuple[str, bool]]:
        """`quoted_digest` of each candidate, memoised in the file under detector_id(): computed (the injection
        detector run) only for candidates this file has not quoted with this detector."""
        prefix = detector_id().encode() + b"\n"
        digests = [hashlib.sha256(prefix + text.encode()).hexdigest() for text in texts]
        found = self._quoted
        wanted = [d for d in dict.fromkeys(digests) if d not in found]
        if wanted and self._db is not None:
            with self._db_lock:
                for start in range(0, len(wanted), 900):
                    chunk = wanted[start:start + 900]
                    for digest, sha, flagged in self._db.execute(
                            f"SELECT digest, sha, flagged FROM quoted WHERE digest IN ({','.join('?' * len(chunk))})",
                            chunk):
                        found[digest] = (sha, bool(flagged))
        new = {}
        for digest, text in zip(digests, texts):
            if digest not in found:
                found[digest] = new[digest] = quoted_digest(text)
        if new and self._db is not None:
            with self._db_lock:
                with self._db:
                    self._db.executemany("INSERT OR REPLACE INTO quoted VALUES (?, ?, ?)",
                                         [(d, sha, int(flagged)) for d, (sha, flagged) in new.items()])
                    if self.shared is not None:  # shared with the verdicts: another worker quotes nothing again
                        self._db.executemany("INSERT OR IGNORE INTO unpublished VALUES (?)",
                                             [(QUOTED_ROW + d,) for d in new])
            if self.shared is not None:
                with self._lock:
                    self._unpublished += len(new)
                    if self._unpublished_since is None:
                        self._unpublished_since = self.shared.clock()
        return [found[digest] for digest in digests]

    def get(self, key: str, memory_only: bool = False) -> tuple[str, dict] | None:
        with self._lock:
            if key in self._memory:
                return self._memory[key]
        if self._db is None or memory_only:
            return None
        with self._db_lock:
            row = self._db.execute("SELECT raw, parsed FROM verdicts WHERE key = ?", (key,)).fetchone()
        return (row[0], decode(row[1])) if row else None

    def get_many(self, keys: list[str]) -> dict[str, tuple[str, dict]]:
        """Every cached key among `keys`: from memory, then in IN-queries of 900 keys, or, once the keys
        asked for add up to 1/SCAN_SHARE of the file, from a snapshot of the whole table read in one pass."""
        found: dict[str, tuple[str, dict]] = {}
        with self._lock:
            if self._memory:
                for key in keys:
                    if key in self._memory:
                        found[key] = self._memory[key]
        if self._db is None:
            return found
        rows = self._stored([k for k in dict.fromkeys(keys) if k not in found], "raw, parsed", rows=True)
        for key, value in zip(rows, decode_many([row[2] for row in rows.values()])):
            found[key] = (rows[key][1], value)
        return found

    def flags_many(self, keys: list[str], field: str) -> list[bool | None]:
        """The JSON boolean `field` of each key's cached verdict, in order; None where no verdict is cached or
        its `field` is not true/false (such a verdict is asked again). Read by SQLite's JSON functions, in one
        pass over the table for a rescore, without decoding the verdicts or reading their raw answers: a
        rescore needs one flag of each of 50,586 verdicts (decoding them took half of reading them)."""
        if not field.isidentifier():  # it goes into a JSON path: a plain name only
            raise ValueError(f"not a verdict field name: {field!r}")
        with self._lock:
            memory = self._memory
            held = [_flag(found[1], field) if (found := memory.get(key)) is not None else None
                    for key in keys] if memory else None
        if self._db is None:
            return held or [None] * len(keys)
        wanted = keys if held is None else [k for k, v in zip(keys, held) if v is None]
        types = self._stored(wanted, f"json_type(parsed, '$.{field}')", mapped=_JSON_BOOLEANS)
        if held is None:
            return [types.get(key) for key in keys]
        return [value if value is not None else types.get(key) for key, value in zip(keys, held)]

    def _stored(self, keys: list[str], columns: str, rows: bool = False,
                mapped: dict | None = None) -> dict[str, tuple | str]:
        """key -> what `columns` selects for it (its value; with `rows`, the whole row, key first), for the `keys`
        in the file, JSON not decoded: from a snapshot of the table once the keys asked for add up to 1/SCAN_SHARE
        of it, otherwise, and for keys not in the snapshot, by IN-queries. With `mapped`, each value is looked up
        there (keys whose value it lacks are left out) and the answer may hold other keys too: for `.get` only."""
        if rows:
            table = lambda selected: {row[0]: row for row in selected}  # noqa: E731
        elif mapped is not None:  # mapped once, when read: a rescore's 50,586 flags in one pass
            table = lambda selected: {k: mapped[v] for k, v in selected if v in mapped}  # noqa: E731
        else:
            table = dict
        found: dict[str, tuple | str] = {}
        with self._db_lock:
            self._asked += len(keys)
            snapshot = self._snapshots.get(columns)
            if snapshot is None:
                stored = self._db.execute("SELECT MAX(rowid) FROM verdicts").fetchone()[0] or 0
                # a rescore asks for most of the file, batch after batch: one sequential read of every row
                # (JSON left undecoded until asked for) beats tens of thousands of random index lookups
                if self._asked * SCAN_SHARE >= stored and stored <= SNAPSHOT_MAX_ROWS:
                    snapshot = self._snapshots[columns] = table(self._db.execute(f"SELECT key, {columns} FROM verdicts"))
            if snapshot is not None:
                unseen = [key for key in keys if key not in snapshot]  # maybe written since by another process
                if mapped is not None:  # the caller only looks its keys up: the snapshot serves as it is (read only)
                    found = dict(snapshot) if unseen else snapshot
                else:
                    found = {key: snapshot[key] for key in keys if key in snapshot}
                keys = unseen
            for start in range(0, len(keys), 900):
                chunk = keys[start:start + 900]
                marks = ",".join("?" * len(chunk))
                found.update(table(self._db.execute(f"SELECT key, {columns} FROM verdicts WHERE key IN ({marks})",
                                                    chunk)))
        return found

    def put(self, key: str, raw: str, parsed: dict) -> None:
        with self._lock:
            self._memory[key] = (raw, parsed)
            if self._db is None:
                return
            # encoded when written (verdicts are never modified once made): not on the caller's thread
            self._pending.append((key, raw, parsed))
            full = len(self._pending) >= WRITE_BATCH
            if not full and self._timer is None:  # a partial batch is written within FLUSH_AFTER_S anyway
                self._timer = threading.Timer(FLUSH_AFTER_S, self.flush)
                self._timer.daemon = True
                self._timer.start()
        if full:  # written by a thread of its own: the judge's event loop does not wait on the disk
            threading.Thread(target=self.flush, name="judge-cache-write", daemon=True).start()

    def flush(self) -> None:
        """Write the pending verdicts in one transaction; on return, every verdict put before the call is
        in the file (a batch being written by another thread included: flushes run one at a time)."""
        with self._flush_lock:
            with self._lock:
                batch, self._pending = self._pending, []
                timer, self._timer = self._timer, None
            if timer is not None and timer is not threading.current_thread():
                timer.cancel()
            if not batch or self._db is None:
                return
            rows = [(key, raw, json.dumps(parsed)) for key, raw, parsed in batch]
            with self._db_lock:
                if self._db is not None:
                    with self._db:  # one transaction: commit on success, rollback on error
                        self._db.executemany("INSERT OR REPLACE INTO verdicts VALUES (?, ?, ?)", rows)
                        if self.shared is not None:  # listed until a shard holds them
                            self._db.executemany("INSERT OR IGNORE INTO unpublished VALUES (?)",
                                                 [(row[0],) for row in rows])
            if self.shared is None:
                return
            with self._lock:
                self._unpublished += len(rows)
                if self._unpublished_since is None:
                    self._unpublished_since = self.shared.clock()
        if self._publish_due():  # outside the flush lock: the next batches reach the file meanwhile
            self.publish()

    def close(self) -> None:
        self.flush()
        self.publish()
        with self._db_lock:
            if self._db is not None:
                self._db.close()
                self._db = None
