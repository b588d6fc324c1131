"""ranked_table: every filtered row of a benchmark's boards in one frame (main board first, then the sample
board), as the board ranked them, for tests that check ranks and filters across both boards. Built on the
product's board (its masks and frames); the Space draws the same rows through Board.view."""
import numpy as np
import pandas as pd

from leaderboard.publishing.board import BOARDS, Filters
from leaderboard.publishing.entry import Entry

ALWAYS_SHOWN = ("rank", "model", "source")



def ranked_table(benchmark, entries: list, filters: Filters | None = None,
                 limit: int | None = None) -> pd.DataFrame:
    """The filtered rows of the requested boards in download shape (ids as headers, full precision): main board
    first, then the sample board, each ranked on its whole board (filters never renumber)."""
    filters = filters or Filters()
    if not all(isinstance(e, Entry) for e in entries):  # the same list object keeps its cached board
        entries = [e if isinstance(e, Entry) else Entry(e, f"row{i}") for i, e in enumerate(entries)]
    board = BOARDS.get(benchmark, entries)
    frames = []
    for name in filters.boards:
        view = board.parts[name].frame.iloc[np.flatnonzero(board.mask(name, filters))]
        if limit is not None:
            view = view.head(limit)
        frames.append(view.assign(board=name))
    table = pd.concat(frames, ignore_index=True).drop(columns=["source_kind", "size"])
    keep = [m.name for m in benchmark.metrics if filters.columns is None or m.name in filters.columns
            or m.name == benchmark.primary_metric]
    table = table.drop(columns=[m.name for m in benchmark.metrics if m.name not in keep])
    return drop_empty_columns(table, keep=(*ALWAYS_SHOWN, benchmark.primary_metric))



def drop_empty_columns(table: pd.DataFrame, keep: tuple[str, ...]) -> pd.DataFrame:
    """Columns with nothing in any visible row (e.g. CIs when only paper rows are shown) only add noise."""
    empty = [c for c in table.columns if c not in keep and (table[c].isna() | table[c].astype(object).eq("")).all()]
    return table.drop(columns=empty)

