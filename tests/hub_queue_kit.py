"""The fixtures and helpers of the Hub queue's kill tests (tests/test_kill_hub_queue*.py): one fake Hub, and the
fault proxy in front of it, per module, emptied before each test; the real client with a hook that lands
another writer's commit just before ours (`Api.before_commit`: the Hub itself then answers 412); an injected
clock. No test sleeps or reads the wall clock."""
import json
import threading

import pytest
from huggingface_hub import HfApi

from fake_hub_server import FakeHub
from fault_proxy import FaultProxy
from leaderboard.operations.hub_queue import HubQueue
from leaderboard.remote.hub_calls import Retry

START = 1_800_000_000.0  # 2027-01-15T08:00:00+00:00
START_ISO = "2027-01-15T08:00:00+00:00"
NO_WAIT = Retry(attempts=2, base=0.0, cap=0.0, sleep=lambda seconds: None)
PRIVATE, RESULTS = "lab/private", "lab/results"


class Clock:
    def __init__(self, at=START):
        self.at = at

    def __call__(self):
        return self.at


class Api(HfApi):
    """The real client; each function in `before_commit` runs just before one of its next commits (another
    writer's commit lands between our read and our write: the Hub answers 412). It counts the listings it makes
    and the commit messages it sends, so a test can wait for a background thread's call (`wait_until`)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.before_commit = []
        self.listed, self.sent = 0, []
        self._seen = threading.Condition()

    def create_commit(self, *args, **kwargs):
        if self.before_commit:
            self.before_commit.pop(0)()
        with self._seen:
            self.sent.append(kwargs.get("commit_message"))
            self._seen.notify_all()
        return super().create_commit(*args, **kwargs)

    def dataset_info(self, *args, **kwargs):
        with self._seen:
            self.listed += 1
            self._seen.notify_all()
        return super().dataset_info(*args, **kwargs)

    def wait_until(self, condition, timeout=60.0) -> bool:
        """True as soon as `condition()` holds (False only if it never did within `timeout`: a test failure)."""
        with self._seen:
            return self._seen.wait_for(condition, timeout)


def counted(hub: FakeHub) -> threading.Condition:
    """Count the fake Hub's requests in progress: it records a request just after answering it, so a test reads
    `hub.requests` through `recorded`, which first waits until none is in progress (no sleep, no guess)."""
    busy = threading.Condition()
    busy.n = 0

    class Counted(hub._server.RequestHandlerClass):
        disable_nagle_algorithm = True  # 40 ms less per request (headers and body are separate writes); same protocol

        def parse_request(self):  # a request line has arrived
            with busy:
                busy.n += 1
            self._counted = True
            return super().parse_request()

        def handle_one_request(self):
            self._counted = False
            try:
                super().handle_one_request()
            finally:
                if self._counted:
                    with busy:
                        busy.n -= 1
                        busy.notify_all()

    hub._server.RequestHandlerClass = Counted
    return busy


def recorded(hub: FakeHub) -> list:
    """The requests the fake Hub answered so far (once every request in progress is recorded)."""
    with hub.busy:
        assert hub.busy.wait_for(lambda: hub.busy.n == 0, 60)
    return hub.requests


@pytest.fixture(scope="module")
def servers():
    with FakeHub(tokens={"a": "scorer-a", "b": "scorer-b"}, orgs={"lab": {"scorer-a", "scorer-b"}}) as hub:
        hub.busy = counted(hub)
        with FaultProxy(hub.url) as proxy:
            proxy._server.RequestHandlerClass.disable_nagle_algorithm = True
            yield hub, proxy


@pytest.fixture
def hub(servers):
    hub, proxy = servers
    recorded(hub)  # the last test's requests are all in before they are cleared
    with hub.lock:
        hub.repos.clear()
        hub.requests.clear()
        hub.tamper.clear()
    with proxy.lock:
        proxy.forced.clear()
    hub.create("dataset", RESULTS)
    hub.create("dataset", PRIVATE, private=True)
    return hub


@pytest.fixture
def proxy(servers, hub):
    return servers[1]


def make(url, name="A", token="a", clock=None, lease=60.0, results=RESULTS, **options):
    return HubQueue(PRIVATE, results, name, lease, api=Api(endpoint=url, token=token), clock=clock or Clock(),
                    retry=NO_WAIT, **options)


def rec(sub_id, state="queued", created="2026-01-01T00:00:01", **extra):
    return {"id": sub_id, "benchmark": "xpcr", "state": state, "created_at": created, "file_name": "p.jsonl", **extra}


def claimed_s1(hub, url=None, **options):
    """Submission s1, queued and then claimed by worker A at START: (the queue, its clock, the claim)."""
    clock = Clock()
    seed(hub, rec("s1"))
    q = make(url or hub.url, clock=clock, **options)
    return q, clock, q.claim(["xpcr"])


def put(hub, files, repo=PRIVATE, message="other writer"):
    """A commit by someone else (the Space, another worker): records are dicts, other files bytes."""
    data = {(f"private/queue/{v['id']}.json" if isinstance(v, dict) and k is None else k):
            (json.dumps(v).encode() if isinstance(v, dict) else v) for k, v in files}
    r = hub.repo("dataset", repo)
    hub.commit(r, {**r.head.files, **data}, message, None)


def seed(hub, *records):
    put(hub, [(None, r) for r in records], message="seed")


def state(hub, sub_id):
    return json.loads(hub.repo("dataset", PRIVATE).head.files[f"private/queue/{sub_id}.json"])


def files(hub, repo=PRIVATE):
    return hub.repo("dataset", repo).head.files


def messages(hub, repo=PRIVATE):
    return [c.message for c in hub.repo("dataset", repo).commits[1:] if c.message not in ("seed", "other writer")]


def downloads(hub, what="private/queue/"):
    return [r.path.split("/resolve/", 1)[1] for r in recorded(hub) if r.method == "GET" and "/resolve/" in r.path
            and what in r.path]


def listings(hub, repo=PRIVATE):
    return sum(1 for r in recorded(hub) if r.method == "GET" and r.path.startswith(f"/api/datasets/{repo}?"))


def commits_posted(hub, repo=PRIVATE):
    return sum(1 for r in recorded(hub) if r.method == "POST" and r.path.startswith(f"/api/datasets/{repo}/commit/"))


def writes_posted(hub, repo=PRIVATE):
    """Write requests of any kind (preupload and commit) the repo received."""
    return sum(1 for r in recorded(hub) if r.method == "POST" and r.path.startswith(f"/api/datasets/{repo}/"))


def listing_after(hub, repo, landed, skip=0):
    """A fault-proxy test: the listings of `repo` once a commit `landed` is in RESULTS, from the (skip+1)-th on."""
    matched = []

    def test(method, path):
        if method == "GET" and path.startswith(f"/api/datasets/{repo}?") and landed in messages(hub, RESULTS):
            matched.append(path)
            return len(matched) > skip
        return False
    return test
