"""`--sapbert ORG/NAME[@REVISION]`: a model fetched through the Hugging Face cache instead of a local folder.

Only the files an embedder loads are downloaded (config, weights, tokenizer), with progress bars, into the
standard cache (HF_HOME), at one exact commit: the given revision, else the repo's current head resolved
once to its commit sha. The sha is returned so results can name the exact checkpoint. Offline (or the Hub
unreachable) the cached snapshot is used when there is one; otherwise the caller's "not available" rules
apply (semantic metrics pending), never a silent substitute.
"""
from __future__ import annotations

import re2
from pathlib import Path

REPO_SPEC = re2.compile(r"^(?P<repo>[\w.-]+/[\w.-]+)(?:@(?P<revision>[\w./-]+))?$")
MODEL_FILES = ["config.json", "*.safetensors", "pytorch_model.bin", "tokenizer.json", "tokenizer_config.json",
               "vocab.txt", "special_tokens_map.json"]


def looks_like_repo(spec: str) -> bool:
    """`org/name[@rev]` that is not an existing local path."""
    return bool(REPO_SPEC.match(spec)) and not Path(spec).exists()


def fetch_model(spec: str) -> tuple[Path | None, str | None, str]:
    """(local snapshot folder, commit sha, "") or (None, None, reason)."""
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import HfHubHTTPError, LocalEntryNotFoundError, OfflineModeIsEnabled

    match = REPO_SPEC.match(spec)
    repo, revision = match["repo"], match["revision"]
    try:
        if revision is None or not re2.fullmatch(r"[0-9a-f]{40}", revision):
            from huggingface_hub import HfApi

            revision = HfApi().model_info(repo, revision=revision).sha  # pin: one exact commit from here on
        folder = snapshot_download(repo, revision=revision, allow_patterns=MODEL_FILES)
        return Path(folder), revision, ""
    except (OfflineModeIsEnabled, LocalEntryNotFoundError, HfHubHTTPError, OSError) as first:
        try:  # offline or unreachable: a snapshot cached earlier still serves
            folder = snapshot_download(repo, revision=revision or "main", allow_patterns=MODEL_FILES,
                                       local_files_only=True)
            return Path(folder), Path(folder).name, ""
        except Exception:
            return None, None, (f"could not fetch {repo}{'@' + revision if revision else ''} from the Hub "
                                f"({type(first).__name__}) and no cached copy exists")
