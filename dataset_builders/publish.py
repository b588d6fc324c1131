"""Pushes a staged folder to the Hub: create the repo, upload deleting stale shards, gate, tag."""
from __future__ import annotations

from pathlib import Path

from huggingface_hub import HfApi

from .release_report import SIDECAR


def stale_patterns(folder: Path) -> list[str]:
    """Every Parquet file under the staged config folders, and the unknown-keys sidecar (a build without
    unknown keys writes none); upload_folder re-adds the current ones."""
    dirs = sorted({p.parent.relative_to(folder).as_posix() for p in folder.rglob("*.parquet")})
    return [f"{d}/*.parquet" for d in dirs] + [SIDECAR]


def publish(folder: Path, repo_id: str, *, private: bool = False, gated: bool = False, tag: str | None = None,
            token: str | None = None, api: HfApi | None = None, commit_message: str | None = None) -> str:
    folder = Path(folder)
    if not (folder / "README.md").is_file():
        raise SystemExit(f"{folder} is not a staged dataset folder (no README.md); run `build` first")
    api = api or HfApi(token=token)
    api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
    if gated:
        api.update_repo_settings(repo_id, repo_type="dataset", gated="manual")
    info = api.upload_folder(
        repo_id=repo_id,
        repo_type="dataset",
        folder_path=str(folder),
        commit_message=commit_message or f"Publish {folder.name}" + (f" {tag}" if tag else ""),
        delete_patterns=stale_patterns(folder),
        ignore_patterns=[".*", "**/.*"],
    )
    revision = getattr(info, "oid", None)
    if tag:
        api.create_tag(repo_id, tag=tag, repo_type="dataset", revision=revision, exist_ok=False)
    return revision or ""
