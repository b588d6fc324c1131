"""One submission aligned with X-PCR's answer key: the key read once into numpy codes (`_KeyIndex`, cached per
loaded key and shared by validation and scoring) and each key row's prediction, letter, confidence and
correctness (`_Scored`)."""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from benchmarks.xpcr.arrow_codes import _codes, _factorize, _ints, _np_bool
from benchmarks.xpcr.response_letters import _parse_responses
from leaderboard.scoring.letter_reader import read_unparsed
from benchmarks.xpcr.taxonomy import CATEGORIES, LETTERS, MODALITIES, STAGES, TIERS

ABLATIONS = "ablations"  # the answer key's config of ablated runs


class _KeyIndex:
    """Everything the scorer reads from the answer key, as numpy codes. The same for every submission,
    so it is built once per loaded key (see `key_index`) and shared by validation and scoring."""

    def __init__(self, key: pa.Table):
        self.key = key
        n = key.num_rows
        self.ids = key.column("id")
        self.ablation = _np_bool(pc.equal(self.column("config"), ABLATIONS))
        task = _codes(self.column("task"), ("chain", "cross_modal"))
        self.chain = (task == 0) & ~self.ablation
        self.cross = (task == 1) & ~self.ablation
        self.stage = _codes(self.column("stage"), STAGES)
        self.tier = _codes(self.column("tier"), TIERS)
        self.modality = _codes(self.column("modality"), MODALITIES)
        self.category = _codes(self.column("disease_category"), CATEGORIES)
        self.removed = _codes(self.column("removed_modality"), MODALITIES)
        self.group = _ints(self.column("case_group", pa.int8()), -1)
        self.n_options = _ints(self.column("n_options", pa.int8()), 0)
        self.gold = _codes(key.column("answer"), tuple(LETTERS))
        chain_rows = pa.array(self.chain)
        self.parent, self.parents = _factorize(self.column("parent_id").filter(chain_rows))
        self.free_strata = {c: _factorize(self.column(c).filter(chain_rows)) for c in ("source_dataset", "disease")}
        self.task_family = _factorize(self.column("task_family").filter(pa.array(self.cross)))
        self.ablation_rows = np.flatnonzero(self.ablation)
        item_id = self.column("item_id").take(pa.array(self.ablation_rows, pa.int64()))
        self.ablation_item = _ints(pc.index_in(item_id, value_set=self.ids), 0)  # full-input row of each ablation row
        self.size = n

    def column(self, name: str, kind: pa.DataType = pa.string()) -> pa.ChunkedArray:
        """A key column, or nulls when the build has none (e.g. no hospital cases: no ablations config)."""
        if name in self.key.column_names:
            return self.key.column(name)
        return pa.chunked_array([pa.nulls(self.key.num_rows, kind)])


_LAST_KEY: list[tuple[pa.Table, _KeyIndex]] = []


# The alignment of the last prediction table with the key: the key-aware validation checks and the score
# that follows read the same (key, table) pair, so the ids are matched once per submission.
_LAST_ALIGNED: list[tuple[_KeyIndex, pa.Table, tuple]] = []


def key_index(table: pa.Table) -> _KeyIndex:
    """The index of this key table, reused while the same table object is scored against."""
    if not (_LAST_KEY and _LAST_KEY[0][0] is table):
        _LAST_KEY[:] = [(table, _KeyIndex(table))]
        _LAST_ALIGNED.clear()
    return _LAST_KEY[0][1]


class _Scored:
    """One submission aligned with the key: its letters, confidences and correctness as numpy arrays.
    Key codes (stage, tier, ...) are read through to the shared `_KeyIndex`."""

    def __init__(self, key: pa.Table, preds: pa.Table, parse: bool = True, key_rows: np.ndarray | None = None):
        self.k = key_index(key)
        aligned = next(iter(_LAST_ALIGNED), None)  # a snapshot: another thread may replace it
        if aligned is not None and aligned[0] is self.k and aligned[1] is preds:
            self.given, self.conflict, self.answered, self._taken = aligned[2]  # validation aligned this table
        else:
            self._align(preds, self.k.size, key_rows)
            _LAST_ALIGNED[:] = [(self.k, preds, (self.given, self.conflict, self.answered, self._taken))]
        if parse:  # the key-aware validation checks need only the alignment
            self._letters()
            self.correct = self.answered & (self.pred >= 0) & (self.pred == self.k.gold)
            self.has_conf = self.answered & ~np.isnan(self.confidence)

    def __getattr__(self, name: str):
        return getattr(self.k, name)

    def _align(self, preds: pa.Table, n: int, key_rows: np.ndarray | None) -> None:
        position = self._positions(preds, n, key_rows)
        found = _np_bool(pc.is_valid(position))
        self._taken = preds.take(position) if preds.num_rows else None  # a null position gives a null row
        claimed = _codes(self._column("removed_modality"), MODALITIES)
        self.given = _codes(pc.utf8_upper(self._column("answer")), tuple(LETTERS))
        # A row that names a removed modality must be that ablation row; otherwise it is ignored.
        self.conflict = found & (claimed >= 0) & (claimed != self.removed)
        self.answered = found & ~self.conflict

    def _positions(self, preds: pa.Table, n: int, key_rows: np.ndarray | None) -> pa.Array:
        """Each key row's row in `preds`, null where none. From the validation's `key_rows` (each prediction's
        row in the key) when they hold for these tables, checked by one string comparison; otherwise by
        hashing the ids again."""
        if not preds.num_rows:
            return pa.nulls(n, pa.int32())
        if (key_rows is not None and len(key_rows) == preds.num_rows and 0 <= key_rows.min() and key_rows.max() < n
                and pc.all(pc.equal(self.ids.take(key_rows), preds.column("id"))).as_py()
                and np.bincount(key_rows, minlength=n).max() <= 1):
            inverse = np.full(n, -1, dtype=np.int64)
            inverse[key_rows] = np.arange(len(key_rows))
            return pa.array(inverse, mask=inverse < 0)
        return pc.index_in(self.ids, value_set=preds.column("id"))

    def _column(self, name: str, kind: pa.DataType = pa.string()):
        return pa.nulls(self.k.size, kind) if self._taken is None else self._taken.column(name).combine_chunks()

    def _letters(self) -> None:
        letters = np.where(self.answered, self.given, -1)
        responses = self._column("response")
        need = self.answered & (letters < 0) & _np_bool(pc.is_valid(responses))
        options = self.column("options", pa.list_(pa.string())) if "options" in self.key.column_names else None
        letters = np.where(need, _parse_responses(responses, self.n_options, need, options), letters)
        in_range = (letters >= 0) & (letters < self.n_options)
        self.pred = np.where(self.answered & in_range, letters, -1)
        self.parse_failures = self.answered & (self.pred < 0)
        confidence = self._column("confidence", pa.float64()).to_numpy(zero_copy_only=False).astype(np.float64)
        self.confidence = np.where(self.answered, confidence, np.nan)

    def read_tail(self, context):
        """With a letter reader configured (leaderboard/scoring/letter_reader.py), the free-text responses the rule
        left unparseable are read by it and the letters, correctness and parse failures updated; None without."""
        if context.service("letter_reader") is None:
            return None  # the rule alone: nothing gathered
        responses = self._column("response")
        rows = np.flatnonzero(self.parse_failures & (self.given < 0) & _np_bool(pc.is_valid(responses)))
        has_options = "options" in self.key.column_names
        options = (self.column("options", pa.list_(pa.string())).take(pa.array(rows)).to_pylist() if has_options
                   else [()] * len(rows))
        outcome = read_unparsed(context, rows.tolist(), responses.take(pa.array(rows)).to_pylist(), options,
                                [LETTERS[:int(self.n_options[row])] for row in rows])
        if outcome is None:
            return None
        for row, letter in outcome.letters.items():
            if letter is not None:
                self.pred[row] = LETTERS.index(letter)
        self.correct = self.answered & (self.pred >= 0) & (self.pred == self.k.gold)
        self.parse_failures = self.answered & (self.pred < 0)
        return outcome
