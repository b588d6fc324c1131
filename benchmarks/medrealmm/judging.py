"""MedRealMM judge calls: one call per rubric criterion (the paper's protocol), built from the case
context read lazily from the built dataset, and a strict verdict parser.

Kept apart from the benchmark module so the bench and tests can reuse the exact request shape.
"""
from __future__ import annotations

import bisect
import hashlib
import re2
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Iterator

import pyarrow as pa
import pyarrow.parquet as pq

from benchmarks.medrealmm.taxonomy import ROLE_ZH
from leaderboard.intake.answer_key import AnswerKey, MissingConfig, config_files
from leaderboard.scoring.judge import (JudgeCall, JudgeParseError, Prompt, item_digest, item_key_id, load_prompt, parse_json_object)
from leaderboard.scoring.judge.cache import text_sha
from leaderboard.scoring.memo import current as memo_current

PROMPTS = Path(__file__).resolve().parent / "prompts"  # this benchmark's versioned judge prompts

PROMPT_NAME = "medrealmm_criterion"
CONTEXT_COLUMNS = ["id", "department", "patient_metadata", "dialogue"]
# what a cache key needs, without the image bytes: the dialogue's roles, texts and image count per turn, and
# the dataset's SHA-256 of each image
KEY_COLUMNS = ["id", "department", "patient_metadata", "image_sha256", "dialogue.list.element.role",
               "dialogue.list.element.text", "dialogue.list.element.images.list.element.path"]
BATCH_CASES = 512  # cases per judge.run: bounds memory (images, calls) whatever the release size
# cases per lookup of cached verdicts: key contexts hold no image bytes (~1 MB of text per 2,048 cases), and
# the first lookup of a full rescore is then large enough for the cache to read its table in one pass
KEY_BATCH_CASES = 2048
VERDICT_SCHEMA = {
    "type": "object",
    "properties": {"canary": {"type": "string"}, "criterion_id": {"type": "string"}, "met": {"type": "boolean"},
                   "evidence": {"type": "string"}, "rationale": {"type": "string"}},
    "required": ["canary", "criterion_id", "met", "evidence", "rationale"],
    "additionalProperties": False,
}

_THINK_OPEN = re2.compile(rb"(?i)<(think|thinking|reasoning)>")


def clean_response(text: str | None) -> str:
    r"""The reply without reasoning traces (<think>...</think>), stripped.

    Same result as `re.sub(r"<(think|thinking|reasoning)>.*?</\1>", "", text, flags=re.S | re.I)`, but each
    opening tag finds its closing tag by bisection in a precomputed list: the regex scanned to the end of
    the text for every unclosed "<think>" (quadratic; "<think>" x 14,000 froze the server). RE2 runs on the
    UTF-8 bytes, encoded once: its wrapper re-encodes a str on every call, which per tag would be quadratic."""
    if "<" not in (text or ""):  # no tag at all (most replies): nothing to cut
        return (text or "").strip()
    data = text.encode("utf-8", "surrogatepass")
    closes: dict[bytes, list[int]] = {}
    out, kept_from, pos = [], 0, 0
    while (opening := _THINK_OPEN.search(data, pos)) is not None:
        name = opening.group(1).lower()
        if name not in closes:
            closes[name] = [m.start() for m in re2.finditer(b"(?i)</" + name + b">", data)]
        k = bisect.bisect_left(closes[name], opening.end())
        if k == len(closes[name]):
            pos = opening.start() + 1  # unclosed: the regex moves on by one character
            continue
        out.append(data[kept_from:opening.start()])
        kept_from = pos = closes[name][k] + len(name) + 3
    out.append(data[kept_from:])
    return b"".join(out).decode("utf-8", "surrogatepass").strip()


def parse_verdict(raw: str) -> dict:
    """{"met": bool, "rationale": str}; anything else is a JudgeParseError (re-asked, then a failure). The
    canary, criterion id and evidence are checked by the client (leaderboard/scoring/judge/grounding.py)."""
    value = parse_json_object(raw)
    met = value.get("met")
    if isinstance(met, str) and met.strip().lower() in ("true", "false"):
        met = met.strip().lower() == "true"
    if met in (0, 1) and not isinstance(met, bool):
        met = bool(met)
    if not isinstance(met, bool):
        raise JudgeParseError("'met' must be true or false")
    rationale = value.get("rationale", "")
    return {"met": met, "rationale": rationale[:500] if isinstance(rationale, str) else ""}


def render_dialogue(turns: list[dict]) -> tuple[str, list[bytes]]:
    """Numbered turns with [图片k] markers, and the image bytes in the same order."""
    lines, images = [], []
    for t, turn in enumerate(turns, start=1):
        before = len(images)
        images.extend(image["bytes"] for image in turn.get("images") or [])
        lines.append(_turn_line(t, turn.get("role"), turn.get("text"), before, len(images)))
    return "\n".join(lines), images


def _turn_line(t: int, role: str | None, text: str | None, first_image: int, end_image: int) -> str:
    """One numbered turn; its images are numbers first_image+1 .. end_image of the dialogue."""
    markers = "".join(f"[图片{k}]" for k in range(first_image + 1, end_image + 1))
    role = ROLE_ZH.get(role or "", role or "未知")
    text = (text or "").strip()
    return f"[{t}] {role}：{text}{' ' if text and markers else ''}{markers}"


def _render_column(dialogues) -> list[tuple[str, list[bytes], int]]:
    """render_dialogue for every row of a `dialogue` column, read column by column (one list per field,
    not a dict per turn and image: a rescore reads 5,620 dialogues and judges none of them), with each
    row's image count. A column read without the image bytes (only their paths) renders the same text,
    with no bytes."""
    turns = dialogues.values  # offsets index into the unsliced child, whatever the column's own offset
    turn_offsets = dialogues.offsets.to_pylist()
    roles, texts = turns.field("role").to_pylist(), turns.field("text").to_pylist()
    image_lists = turns.field("images")
    image_offsets = image_lists.offsets.to_pylist()
    with_bytes = image_lists.values.type.get_field_index("bytes") >= 0
    image_bytes = image_lists.values.field("bytes").to_pylist() if with_bytes else None
    valid = dialogues.is_valid().to_pylist() if dialogues.null_count else None
    # _turn_line's parts for every turn at once: role names, stripped texts, image counts
    heads = [ROLE_ZH.get(r or "", r or "未知") + "：" for r in roles]
    texts = [(x or "").strip() for x in texts]
    counts = [b - a for a, b in zip(image_offsets, image_offsets[1:])]
    out = []
    for row in range(len(dialogues)):
        lines, images, count = [], [], 0
        if valid is not None and not valid[row]:  # a null dialogue renders as an empty one
            out.append(("", images, 0))
            continue
        start = turn_offsets[row]
        for t in range(start, turn_offsets[row + 1]):
            if counts[t]:  # the slow path only for turns with images
                before, count = count, count + counts[t]
                if with_bytes:
                    images.extend(image_bytes[image_offsets[t]:image_offsets[t + 1]])
                markers = "".join(f"[图片{k}]" for k in range(before + 1, count + 1))
                lines.append(f"[{t - start + 1}] {heads[t]}{texts[t]}{' ' if texts[t] else ''}{markers}")
            else:
                lines.append(f"[{t - start + 1}] {heads[t]}{texts[t]}")
        out.append(("\n".join(lines), images, count))
    return out


@dataclass
class CaseContext:
    case_id: str
    department: str
    patient_metadata: str
    dialogue: str
    images: list[bytes] = field(default_factory=list)
    # the dataset's SHA-256 of each image, in dialogue order, standing for `images` in the cache key when
    # the bytes were not read (key contexts: enough to look verdicts up, not to ask the judge)
    image_sha256: list[str] | None = None
    # the text_sha of `dialogue`, standing for it in the cache key when a scoring memo gave it (then the
    # dialogue was not rendered and `dialogue` is "")
    dialogue_sha256: str | None = None


def data_folder(key: AnswerKey, context) -> Path:
    """The public dataset folder (where the dialogue lives). The answer key records it as its
    source ("DATA" or "DATA + ANSWERS"); a `data_path` on the context wins when the CLI sets one."""
    explicit = getattr(context, "data_path", None)
    return Path(explicit) if explicit else Path(key.source.split(" + ")[0])


def iter_contexts(folder: Path, wanted: set[str], batch_cases: int = BATCH_CASES) -> Iterator[list[CaseContext]]:
    """Batches of case contexts for the wanted ids, streamed from the Parquet shards (images included)."""
    for path in _files(folder):
        parquet = pq.ParquetFile(path)
        if "dialogue" not in parquet.schema_arrow.names:
            raise LookupError(f"{folder} has no `dialogue` column; pass the public dataset folder as --data")
        for batch in parquet.iter_batches(batch_size=batch_cases, columns=CONTEXT_COLUMNS):
            batch, keep, ids = _wanted_rows(batch, wanted)
            if not keep:
                continue
            departments = batch.column("department").to_pylist()
            metadata = batch.column("patient_metadata").to_pylist()
            yield [CaseContext(ids[n], departments[k] or "未知", metadata[k] or "（无）", dialogue, images)
                   for k, (n, (dialogue, images, _)) in enumerate(zip(keep, _render_column(batch.column("dialogue"))))]


def iter_key_contexts(folder: Path, wanted: set[str], batch_cases: int = KEY_BATCH_CASES
                      ) -> Iterator[list[CaseContext]] | None:
    """Like iter_contexts, but without reading a single image: each case's images stand in its cache key as
    the dataset's `image_sha256` (written by the builder from the same bytes, in dialogue order), and
    `images` stays empty. Enough to look verdicts up; a case with a miss is read again with its images
    to be judged. None when a shard lacks `image_sha256` (a dataset built before it was published)."""
    files = _files(folder)
    for path in files:
        names = pq.ParquetFile(path).schema_arrow.names
        if "dialogue" not in names or "image_sha256" not in names:
            return None
    return _key_batches(files, wanted, batch_cases)


def _key_batches(files: list[Path], wanted: set[str], batch_cases: int) -> Iterator[list[CaseContext]]:
    memo = memo_current()
    for path in files:
        parquet = pq.ParquetFile(path)
        memo_key = _digests_key(memo, path, parquet)
        stored = memo.get(memo_key) if memo_key else None
        if not (isinstance(stored, list) and len(stored) == parquet.metadata.num_rows):
            stored = None
        # with the digests memoised, the dialogue is not even read; else read, rendered, and (memo) digested
        columns = [c for c in KEY_COLUMNS if not c.startswith("dialogue.")] if stored is not None else KEY_COLUMNS
        computed, offset = ([] if memo_key and stored is None else None), 0
        for batch in parquet.iter_batches(batch_size=batch_cases, columns=columns):
            if stored is not None:
                dialogues = [("", digest, count) for digest, count in stored[offset:offset + batch.num_rows]]
            elif computed is not None:  # every row rendered and digested, for the memo of the whole file
                dialogues = [(text, text_sha(text), count) for text, _, count in _render_column(batch.column("dialogue"))]
                computed += [[digest, count] for _, digest, count in dialogues]
            else:
                dialogues = None  # no memo: only the wanted rows are rendered, below
            offset += batch.num_rows
            batch, keep, ids = _wanted_rows(batch, wanted)
            if not keep:
                continue
            if dialogues is None:
                dialogues = [(text, None, count) for text, _, count in _render_column(batch.column("dialogue"))]
            else:
                dialogues = [dialogues[n] for n in keep]
            departments = batch.column("department").to_pylist()
            metadata = batch.column("patient_metadata").to_pylist()
            shas = batch.column("image_sha256").to_pylist()
            cases = []
            for k, (n, (dialogue, dialogue_sha, count)) in enumerate(zip(keep, dialogues)):
                digests = shas[k]
                if digests is None or len(digests) != count:  # not this dialogue's images: read them instead
                    digests = None
                cases.append(CaseContext(ids[n], departments[k] or "未知", metadata[k] or "（无）", dialogue, [],
                                         image_sha256=digests, dialogue_sha256=dialogue_sha))
            yield cases
        if computed is not None and len(computed) == parquet.metadata.num_rows:
            memo.put(memo_key, computed)


DIALOGUE_LEAVES = tuple(c for c in KEY_COLUMNS if c.startswith("dialogue."))


def _digests_key(memo, path: Path, parquet) -> str | None:
    """The memo key of a shard's dialogue digests (each row's rendered text_sha and image count): the renderer's
    source and the dialogue's key columns AS STORED in the file (every row group's column chunks, pages and
    their headers byte for byte, with the codec, the encodings and the Arrow type), so a rescore of the same
    file finds them without decoding, rendering or hashing a dialogue. Other bytes, even decoding to the same
    values, are only another key (computed again). None without a memo or when a chunk's place is unknown."""
    if memo is None:
        return None
    meta = parquet.metadata
    h = hashlib.sha256(str(parquet.schema_arrow.field("dialogue").type).encode())
    with open(path, "rb") as handle:
        for g in range(meta.num_row_groups):
            group = meta.row_group(g)
            h.update(b"\ngroup %d rows %d" % (g, group.num_rows))
            for c in range(group.num_columns):
                chunk = group.column(c)
                if chunk.path_in_schema not in DIALOGUE_LEAVES:
                    continue
                starts = [o for o in (chunk.dictionary_page_offset if chunk.has_dictionary_page else None,
                                      chunk.data_page_offset) if o is not None and o >= 0]
                if not starts or chunk.total_compressed_size <= 0:
                    return None
                handle.seek(min(starts))
                data = handle.read(chunk.total_compressed_size)
                described = f"{chunk.path_in_schema}|{chunk.compression}|{chunk.physical_type}|{chunk.encodings}"
                h.update(b"\n%s %d:" % (described.encode(), len(data)))
                h.update(data)
    return memo.key("medrealmm-dialogue-digests-v2", renderer_id(), h.hexdigest())


@lru_cache(maxsize=1)
def renderer_id() -> str:
    """SHA-256 of the sources that decide how a dialogue renders (this module and the role names): any edit
    to them is a new memo key, so digests memoised under an older renderer are never read back."""
    h = hashlib.sha256(b"medrealmm-render-v1")
    for path in (Path(__file__), Path(__file__).with_name("taxonomy.py")):
        h.update(b"\n" + path.read_bytes())
    return h.hexdigest()


def _files(folder: Path) -> list[Path]:
    try:
        return config_files(folder, "default")
    except MissingConfig:
        return []


def _wanted_rows(batch, wanted: set[str]):
    """(the batch's wanted rows, their positions in the batch, the batch's ids)."""
    ids = batch.column("id").to_pylist()
    keep = [n for n, i in enumerate(ids) if i in wanted]
    if keep and len(keep) < len(ids):
        batch = batch.take(keep)
    return batch, keep, ids


def criterion_calls(case: CaseContext, response: str, criteria: list[str], prompt: Prompt) -> list[JudgeCall]:
    """One call per criterion text; the judge sees the context, the quoted response and the criterion text
    only (never its points or polarity, as in the paper's phi_J(x, y, c_j))."""
    if case.dialogue_sha256 is not None and not case.dialogue:  # a memoised key context: no text to send
        raise ValueError(f"case {case.case_id}: a key context (dialogue digest only) cannot build judge calls; "
                         "read the case with iter_contexts")
    shared, item = _shared(case, response)
    return [JudgeCall(f"{case.case_id}#{j}", prompt, {**shared, "criterion": criterion}, images=case.images,
                      item=item, criterion_id=item_key_id(criterion), evidence=_met)
            for j, criterion in enumerate(criteria)]


def _met(value: dict) -> bool:
    """A verdict that the behaviour is present quotes where; one that it is absent has nothing to quote."""
    return value["met"]


def criterion_keys(judge, case: CaseContext, response: str, criteria: list[str], prompt: Prompt,
                   quoted: tuple[str, bool] | None = None) -> tuple[list[str], bool]:
    """(the cache key of each of `criterion_calls`, whether the reply was flagged as addressing the grader),
    without building the calls (for `judge.lookup`): a rescore keys 50,586 criteria. `quoted`: the reply's
    `judge.quoted_many` entry (memoised: no injection detector run)."""
    item = criterion_item(case, response, quoted)
    return judge.item_keys(prompt, VERDICT_SCHEMA, item, "criterion", criteria), item[2]


def criterion_item(case: CaseContext, response: str, quoted: tuple[str, bool] | None = None) -> tuple:
    """The case's part of its criteria's cache keys (item_digest's triple), for `judge.items_keys` to key
    a batch of cases at once; its last element says whether the reply was flagged as addressing the grader."""
    return _shared(case, response, quoted)[1]


def _shared(case: CaseContext, response: str, quoted: tuple[str, bool] | None = None) -> tuple[dict, tuple]:
    """The variables every criterion call of a case shares, and their digest (the case's part of every
    criterion's cache key, hashed once; from the images or the dataset's digests of them)."""
    shared = {"department": case.department, "patient_metadata": case.patient_metadata, "dialogue": case.dialogue,
              "candidate": response}
    known = {"dialogue": case.dialogue_sha256} if case.dialogue_sha256 is not None else None
    return shared, item_digest(shared, case.images, image_sha256=case.image_sha256, quoted=quoted, known=known)


def default_prompt() -> Prompt:
    return load_prompt(PROMPT_NAME, folder=PROMPTS)
