"""Start-up cost of a one-shot command (`python -m leaderboard validate|score`).

pyarrow asks "is this a pandas object?" whenever it converts a Python value (`pa.array`, a scalar in
`pc.equal(x, "")`, `pc.fill_null(x, -1)` ...) and, to answer, imports pandas on the first conversion:
0.3-0.9 s on 2 cores, as long as reading and scoring a 178k-line file. Scoring never hands pandas
objects to pyarrow, so the one-shot commands let that probe find no pandas. pyarrow still imports
pandas when asked for it explicitly (`to_pandas()` retries the import), so nothing breaks; only the
"is it pandas?" test answers no. Processes that do use pandas (the Space) never call this.
"""
from __future__ import annotations

import sys


def skip_pyarrow_pandas_probe() -> None:
    if "pandas" in sys.modules:
        return  # already paid for (or in use): nothing to save
    import pyarrow as pa

    blocker = _NoPandas()
    sys.meta_path.insert(0, blocker)  # `import pandas` raises ImportError for the probe below
    try:
        pa.array([0])  # the first conversion runs the probe once; pyarrow remembers "no pandas"
    finally:
        sys.meta_path.remove(blocker)


class _NoPandas:
    """An import finder that refuses pandas (a meta path entry; see importlib.abc.MetaPathFinder)."""

    def find_spec(self, name, path=None, target=None):
        if name == "pandas" or name.startswith("pandas."):
            raise ImportError("pandas is not needed here")
        return None
