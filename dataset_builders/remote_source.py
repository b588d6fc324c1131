"""`build NAME --source hf://ORG/NAME[@REV]`: the authors' release taken from a Hub dataset repo.

The release is downloaded under the Hugging Face cache folder (HF_HOME/leaderboard-releases) at one exact commit (the given revision, else the
head resolved to its sha, printed so the build can be repeated), then every file is checked against the
object id the Hub records for it (git blob sha1 for regular files, sha256 for LFS files) before the
build reads it. A mismatch stops the build and names the file.
"""
from __future__ import annotations

import hashlib
import re
from pathlib import Path



class RemoteSourceError(Exception):
    """The release could not be downloaded or failed verification; the message names what and where."""

HF_SOURCE = re.compile(r"^hf://(?:datasets/)?(?P<repo>[\w.-]+/[\w.-]+)(?:@(?P<revision>[\w./-]+))?/?$")


def is_remote(source: str) -> bool:
    return str(source).startswith("hf://")


def _git_blob_sha1(path: Path) -> str:
    digest = hashlib.sha1(b"blob %d\0" % path.stat().st_size)
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def fetch_release(source: str) -> tuple[Path, str]:
    """(local folder of the verified release, commit sha)."""
    from huggingface_hub import HfApi, constants, snapshot_download
    from huggingface_hub.hf_api import RepoFile

    match = HF_SOURCE.match(source)
    if not match:
        raise RemoteSourceError(f"--source {source!r}: expected hf://ORG/NAME or hf://ORG/NAME@REVISION")
    repo, revision = match["repo"], match["revision"]
    api = HfApi()
    try:
        sha = api.dataset_info(repo, revision=revision).sha
        expected = {f.path: f for f in api.list_repo_tree(repo, repo_type="dataset", revision=sha, recursive=True)
                    if isinstance(f, RepoFile)}
        # real files, not the cache's symlinks into blobs/ (the builder refuses paths leading out of the release)
        target = Path(constants.HF_HOME) / "leaderboard-releases" / repo.replace("/", "--") / sha
        folder = Path(snapshot_download(repo, repo_type="dataset", revision=sha, local_dir=str(target)))
    except Exception as exc:  # not found, no access, Hub down: one clear line
        raise RemoteSourceError(f"cannot download {source} ({type(exc).__name__}: {str(exc).splitlines()[0][:200]})") from None
    for path, info in sorted(expected.items()):
        local = folder / path
        if not local.is_file():
            raise RemoteSourceError(f"{source}: {path} is missing from the download")
        actual = _sha256(local) if info.lfs is not None else _git_blob_sha1(local)
        wanted = info.lfs.sha256 if info.lfs is not None else info.blob_id
        if actual != wanted:
            raise RemoteSourceError(f"{source}: checksum mismatch for {path} (expected {wanted[:12]}..., got "
                             f"{actual[:12]}...); the download is corrupt or was altered, nothing was built")
    return folder, sha
