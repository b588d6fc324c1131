"""A small Hugging Face Hub on 127.0.0.1: the HTTP routes huggingface_hub 2.4 calls for what this project
does (create repos, repo info, tree listing, `resolve` downloads, preupload + NDJSON commits with
`parentCommit` optimistic concurrency, Space secrets/variables/hardware), backed by memory.

Routes and headers follow the installed client (hf_api.py, file_download.py, _commit_api.py):
- POST /api/repos/create                          {name, organization, type, visibility|private, sdk, hardware, ...}
- GET  /api/{type}s/{ns}/{name}[/revision/{rev}]   {id, sha, private, siblings: [{rfilename}], sdk, runtime...}
                                                   (?blobs=true: siblings carry blobId and size)
- GET  /api/{type}s/{ns}/{name}/tree/{rev}[/{path}]?recursive=  [{type: file|directory, path, size, oid}]
- HEAD/GET /[datasets/|spaces/]{ns}/{name}/resolve/{rev}/{path}  ETag, X-Repo-Commit, Content-Length
- POST /api/{type}s/{ns}/{name}/preupload/{rev}   -> every file "regular" (inline base64 in the commit)
- POST /api/{type}s/{ns}/{name}/commit/{rev}      NDJSON: header (summary, parentCommit), file, deletedFile,
                                                   deletedFolder; a stale parentCommit answers 412 like the Hub
- GET/POST/DELETE /api/spaces/{ns}/{name}/secrets|variables, POST .../hardware, GET .../runtime
- POST /api/validate-yaml, GET /api/whoami-v2

Access: `tokens` maps a bearer token to a user name; writes need a known token; a private repo is read
only by its namespace's owner, members of `orgs[namespace]`, or users listed in the repo's `readers`.
Every request is recorded (method, path, user) so tests can assert who read what.
"""
from __future__ import annotations

import base64
import hashlib
import json
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

TYPES = {"models": "model", "datasets": "dataset", "spaces": "space"}
URL_PREFIX = {"model": "", "dataset": "datasets/", "space": "spaces/"}


def git_blob_oid(data: bytes) -> str:
    """The git object id the Hub reports for a regular file (and the client computes locally)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@dataclass
class Commit:
    sha: str
    message: str
    files: dict[str, bytes]
    author: str | None
    at: float


@dataclass
class Repo:
    repo_type: str
    repo_id: str
    private: bool
    sdk: str | None = None
    commits: list[Commit] = field(default_factory=list)
    secrets: dict[str, dict] = field(default_factory=dict)
    variables: dict[str, dict] = field(default_factory=dict)
    hardware: str | None = None
    readers: set[str] = field(default_factory=set)  # users granted read access to a private repo
    writers: set[str] = field(default_factory=set)  # users granted write access (e.g. a Space's bot token)

    @property
    def head(self) -> Commit:
        return self.commits[-1]

    def at(self, revision: str) -> Commit | None:
        if revision in ("main", "HEAD"):
            return self.head
        for commit in self.commits:
            if commit.sha == revision:
                return commit
        return None


@dataclass
class Recorded:
    method: str
    path: str
    user: str | None
    status: int = 0


class FakeHub:
    def __init__(self, tokens: dict[str, str] | None = None, orgs: dict[str, set[str]] | None = None):
        self.tokens = dict(tokens or {})
        self.orgs = {k: set(v) for k, v in (orgs or {}).items()}
        self.repos: dict[tuple[str, str], Repo] = {}
        self.requests: list[Recorded] = []
        self.lock = threading.RLock()
        self.commit_delay = 0.0  # seconds between reading the head and writing a commit (widens races)
        # downloads of paths starting with `stall_prefix` by these users hang until `release` is set (or the
        # server stops): a test can freeze a worker mid-job and kill it there
        self.stall_users: set[str] = set()
        self.stall_prefix = "private/uploads/"
        self.release = threading.Event()
        self.stalled: list[tuple[str, str]] = []  # (user, path) of requests held that way
        self.tamper: dict[tuple[str, str], bytes] = {}  # (repo id, path) -> bytes served instead of the real ones
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> "FakeHub":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self.release.set()
        self._server.shutdown()
        self._server.server_close()

    # ------------------------------------------------------------------ direct helpers for tests
    def create(self, repo_type: str, repo_id: str, private: bool = False, files: dict[str, bytes] | None = None,
               sdk: str | None = None) -> Repo:
        with self.lock:
            repo = Repo(repo_type, repo_id, private, sdk)
            repo.commits.append(Commit(_sha(repo_id, "init"), "initial commit",
                                       {".gitattributes": b"*.parquet filter=lfs diff=lfs merge=lfs -text\n"},
                                       None, time.time()))
            self.repos[(repo_type, repo_id)] = repo
            if files:
                self.commit(repo, {**repo.head.files, **files}, "seed", None)
            return repo

    def repo(self, repo_type: str, repo_id: str) -> Repo:
        return self.repos[(repo_type, repo_id)]

    def commit(self, repo: Repo, files: dict[str, bytes], message: str, author: str | None) -> Commit:
        with self.lock:
            commit = Commit(_sha(repo.repo_id, f"{len(repo.commits)}-{time.time_ns()}"), message, files, author,
                            time.time())
            repo.commits.append(commit)
            return commit

    def can_read(self, repo: Repo, user: str | None) -> bool:
        return not repo.private or (user is not None and self._member(user, repo.repo_id.split("/")[0])) \
            or user in repo.readers

    def _member(self, user: str, namespace: str) -> bool:
        return user == namespace or user in self.orgs.get(namespace, set())

    def can_write(self, repo_id: str, user: str | None) -> bool:
        repo = next((r for (t, i), r in self.repos.items() if i == repo_id), None)
        return user is not None and (self._member(user, repo_id.split("/")[0])
                                     or (repo is not None and user in repo.writers))


def _sha(seed: str, salt: str) -> str:
    return hashlib.sha1(f"{seed}:{salt}".encode()).hexdigest()


def _handler(hub: FakeHub):
    api_repo = re.compile(r"^/api/(models|datasets|spaces)/([^/]+/[^/]+)(?:/(.*))?$")
    resolve = re.compile(r"^/(?:(datasets|spaces)/)?([^/]+/[^/]+)/resolve/([^/]+)/(.+)$")

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go out in two writes: no 40 ms wait for an ACK

        def log_message(self, *args):  # quiet
            pass

        # -------------------------------------------------------------- plumbing
        def _user(self) -> str | None:
            auth = self.headers.get("Authorization", "")
            return hub.tokens.get(auth[7:]) if auth.startswith("Bearer ") else None

        def _body(self) -> bytes:
            length = int(self.headers.get("Content-Length") or 0)
            return self.rfile.read(length) if length else b""

        def _send(self, status: int, body: bytes = b"", headers: dict | None = None, ctype="application/json",
                  head: bool = False) -> None:
            # recorded before the reply leaves: a client that has its answer finds its request on record
            hub.requests.append(Recorded(self.command, self.path, self._user(), status))
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            if not head:
                self.wfile.write(body)

        def _json(self, status: int, obj, headers: dict | None = None) -> None:
            self._send(status, json.dumps(obj).encode(), headers)

        def _error(self, status: int, message: str, code: str | None = None, head: bool = False) -> None:
            headers = {"X-Error-Message": message}
            if code:
                headers["X-Error-Code"] = code
            self._send(status, json.dumps({"error": message}).encode(), headers, head=head)

        def _find(self, repo_type: str, repo_id: str, head: bool = False) -> Repo | None:
            repo = hub.repos.get((repo_type, repo_id))
            if repo is None or not hub.can_read(repo, self._user()):
                # the Hub answers 401 + RepoNotFound for private repos too: existence is not leaked
                self._error(404 if self._user() else 401, "Repository not found", "RepoNotFound", head=head)
                return None
            return repo

        # -------------------------------------------------------------- verbs
        def do_HEAD(self):
            self._resolve(head=True)

        def do_GET(self):
            path = urlsplit(self.path).path
            if path == "/api/whoami-v2":
                user = self._user()
                return self._json(200, {"type": "user", "name": user, "fullname": user, "avatarUrl": "",
                                        "orgs": [{"name": o} for o, m in hub.orgs.items() if user in m]}) \
                    if user else self._error(401, "Invalid credentials in Authorization header")
            match = api_repo.match(path)
            if match:
                return self._api_get(TYPES[match[1]], match[2], match[3] or "")
            self._resolve(head=False)

        def do_POST(self):
            path = urlsplit(self.path).path
            body = self._body()
            if path == "/api/validate-yaml":
                return self._json(200, {"errors": [], "warnings": []})
            if path == "/api/repos/create":
                return self._create(json.loads(body or b"{}"))
            match = api_repo.match(path)
            if not match:
                return self._error(404, f"no route {path}")
            repo_type, repo_id, rest = TYPES[match[1]], match[2], match[3] or ""
            if rest.startswith("preupload/"):
                return self._preupload(repo_type, repo_id, json.loads(body))
            if rest.startswith("commit/"):
                return self._commit(repo_type, repo_id, unquote(rest[len("commit/"):]), body)
            if repo_type == "space" and rest in ("secrets", "variables", "hardware", "restart"):
                return self._space_setting(repo_id, rest, json.loads(body or b"{}"))
            self._error(404, f"no route {path}")

        def do_DELETE(self):
            path = urlsplit(self.path).path
            body = self._body()
            match = api_repo.match(path)
            if match and match[1] == "spaces" and match[3] in ("secrets", "variables"):
                repo = self._writable("space", match[2])
                if repo is None:
                    return
                getattr(repo, match[3]).pop(json.loads(body)["key"], None)
                return self._json(200, {})
            self._error(404, f"no route {path}")

        # -------------------------------------------------------------- repos
        def _create(self, payload: dict) -> None:
            user = self._user()
            repo_id = f"{payload.get('organization') or user}/{payload['name']}"
            repo_type = payload.get("type") or "model"
            if not hub.can_write(repo_id, user):
                return self._error(403 if user else 401, f"You don't have the rights to create {repo_id}")
            with hub.lock:
                if (repo_type, repo_id) in hub.repos:  # the Hub's 409 body carries the url too
                    return self._send(409, json.dumps({"error": "You already created this repo",
                                                       "url": f"{hub.url}/{URL_PREFIX[repo_type]}{repo_id}"}).encode(),
                                      {"X-Error-Message": "You already created this repo"})
                private = payload.get("visibility") == "private" or bool(payload.get("private"))
                repo = hub.create(repo_type, repo_id, private=private, sdk=payload.get("sdk"))
                repo.hardware = payload.get("hardware")
                for item in payload.get("secrets") or []:
                    repo.secrets[item["key"]] = dict(item)
                for item in payload.get("variables") or []:
                    repo.variables[item["key"]] = dict(item)
            self._json(200, {"url": f"{hub.url}/{URL_PREFIX[repo_type]}{repo_id}", "name": repo_id})

        def _writable(self, repo_type: str, repo_id: str) -> Repo | None:
            repo = self._find(repo_type, repo_id)
            if repo is not None and not hub.can_write(repo_id, self._user()):
                self._error(403, f"You don't have write access to {repo_id}")
                return None
            return repo

        def _api_get(self, repo_type: str, repo_id: str, rest: str) -> None:
            repo = self._find(repo_type, repo_id)
            if repo is None:
                return
            if rest == "" or rest.startswith("revision/"):
                commit = repo.at(unquote(rest[len("revision/"):]) if rest else "main")
                if commit is None:
                    return self._error(404, "Invalid rev id", "RevisionNotFound")
                blobs = parse_qs(urlsplit(self.path).query).get("blobs", ["false"])[0].lower() == "true"
                info = {"id": repo_id, "sha": commit.sha, "private": repo.private,
                        "lastModified": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(commit.at)),
                        "siblings": [{"rfilename": p, **({"blobId": git_blob_oid(d), "size": len(d)} if blobs else {})}
                                     for p, d in sorted(commit.files.items())]}
                if repo_type == "space":
                    info.update(sdk=repo.sdk, runtime=self._runtime(repo))
                return self._json(200, info)
            if rest.startswith("tree/"):
                return self._tree(repo, rest[len("tree/"):])
            if repo_type == "space" and rest in ("secrets", "variables"):
                if not hub.can_write(repo_id, self._user()):
                    return self._error(403, "write access needed")
                values = getattr(repo, rest)
                if rest == "secrets":  # write-only: values never come back
                    return self._json(200, {k: {"description": v.get("description")} for k, v in values.items()})
                return self._json(200, {k: {"value": v["value"], "description": v.get("description")}
                                        for k, v in values.items()})
            if repo_type == "space" and rest == "runtime":
                return self._json(200, self._runtime(repo))
            self._error(404, f"no route {rest}")

        def _runtime(self, repo: Repo) -> dict:
            return {"stage": "BUILDING", "hardware": {"current": None, "requested": repo.hardware},
                    "storage": None, "gcTimeout": None, "replicas": {"current": 1, "requested": 1}}

        def _tree(self, repo: Repo, rest: str) -> None:
            revision, _, prefix = rest.partition("/")
            commit = repo.at(unquote(revision))
            if commit is None:
                return self._error(404, "Invalid rev id", "RevisionNotFound")
            prefix = unquote(prefix).strip("/")
            recursive = parse_qs(urlsplit(self.path).query).get("recursive", ["False"])[0].lower() == "true"
            entries, folders = [], set()
            for path in sorted(commit.files):
                if prefix and not path.startswith(prefix + "/"):
                    continue
                relative = path[len(prefix) + 1:] if prefix else path
                parts = relative.split("/")
                for depth in range(1, len(parts)):
                    folder = "/".join(([prefix] if prefix else []) + parts[:depth])
                    if (recursive or depth == 1) and folder not in folders:
                        folders.add(folder)
                        entries.append({"type": "directory", "path": folder, "oid": _sha(folder, commit.sha)})
                if recursive or len(parts) == 1:
                    data = commit.files[path]
                    entries.append({"type": "file", "path": path, "size": len(data), "oid": git_blob_oid(data)})
            if prefix and not entries:
                return self._error(404, f"{prefix} does not exist", "EntryNotFound")
            self._json(200, entries)

        # -------------------------------------------------------------- downloads
        def _resolve(self, head: bool) -> None:
            match = resolve.match(urlsplit(self.path).path)
            if not match:
                return self._error(404, "no such route", head=head)
            repo_type = {"datasets": "dataset", "spaces": "space"}.get(match[1] or "", "model")
            repo = self._find(repo_type, match[2], head=head)
            if repo is None:
                return
            commit = repo.at(unquote(match[3]))
            if commit is None:
                return self._error(404, "Invalid rev id", "RevisionNotFound", head=head)
            path = unquote(match[4])
            if self._user() in hub.stall_users and path.startswith(hub.stall_prefix):
                hub.stalled.append((self._user(), path))
                hub.release.wait(120)
            if path not in commit.files:
                return self._error(404, "Entry not found", "EntryNotFound", head=head)
            data = commit.files[path]
            served = hub.tamper.get((repo.repo_id, path), data)  # a corrupted transfer, for checksum tests
            headers = {"ETag": f'"{git_blob_oid(data)}"', "X-Repo-Commit": commit.sha, "Accept-Ranges": "bytes"}
            wanted = re.match(r"bytes=(\d+)-(\d*)", self.headers.get("Range", ""))
            if wanted and not head:
                start = int(wanted[1])
                end = int(wanted[2]) if wanted[2] else len(data) - 1
                headers["Content-Range"] = f"bytes {start}-{end}/{len(data)}"
                return self._send(206, served[start:end + 1], headers, "application/octet-stream")
            self._send(200, served, headers, "application/octet-stream", head=head)

        # -------------------------------------------------------------- uploads
        def _preupload(self, repo_type: str, repo_id: str, payload: dict) -> None:
            repo = self._writable(repo_type, repo_id)
            if repo is None:
                return
            files = repo.head.files
            self._json(200, {"files": [{"path": f["path"], "uploadMode": "regular", "shouldIgnore": False,
                                        "oid": git_blob_oid(files[f["path"]]) if f["path"] in files else None}
                                       for f in payload["files"]]})

        def _commit(self, repo_type: str, repo_id: str, revision: str, body: bytes) -> None:
            repo = self._writable(repo_type, repo_id)
            if repo is None:
                return
            lines = [json.loads(line) for line in body.decode().splitlines() if line.strip()]
            header = next((line["value"] for line in lines if line["key"] == "header"), {})
            with hub.lock:  # read head, compare, write: one step, as on the Hub
                parent = header.get("parentCommit")
                if hub.commit_delay:
                    time.sleep(hub.commit_delay)
                if parent is not None and parent != repo.head.sha:
                    return self._error(412, "A commit has happened since. Please refresh and try again.")
                files = dict(repo.head.files)
                for line in lines:
                    value = line["value"]
                    if line["key"] == "file":
                        files[value["path"]] = base64.b64decode(value["content"]) \
                            if value.get("encoding") == "base64" else value["content"].encode()
                    elif line["key"] == "deletedFile":
                        if value["path"] not in files:
                            return self._error(404, "A file with this name doesn't exist", "EntryNotFound")
                        del files[value["path"]]
                    elif line["key"] == "deletedFolder":
                        folder = value["path"].rstrip("/") + "/"
                        files = {p: d for p, d in files.items() if not p.startswith(folder)}
                    elif line["key"] == "lfsFile":
                        return self._error(400, "this fake Hub stores regular files only")
                commit = hub.commit(repo, files, header.get("summary", ""), self._user())
            self._json(200, {"commitOid": commit.sha, "success": True,
                             "commitUrl": f"{hub.url}/{URL_PREFIX[repo_type]}{repo_id}/commit/{commit.sha}"})

        # -------------------------------------------------------------- Space settings
        def _space_setting(self, repo_id: str, kind: str, payload: dict) -> None:
            repo = self._writable("space", repo_id)
            if repo is None:
                return
            if kind == "hardware":
                repo.hardware = payload.get("flavor")
                return self._json(200, self._runtime(repo))
            if kind == "restart":
                return self._json(200, {})
            getattr(repo, kind)[payload["key"]] = {"value": payload["value"],
                                                   "description": payload.get("description")}
            self._json(200, {})

    return Handler
