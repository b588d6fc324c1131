"""CSV export escaping at its edges: cells that open with a tab or a carriage return (both start a formula
in some spreadsheets, OWASP), and formula-like column headers, which strata tables build from dataset values."""
import csv
import io
import json

import pandas as pd

from leaderboard.scoring import registry
from leaderboard.scoring.result import ModelInfo, Result
from leaderboard.publishing.breakdowns import breakdown
from leaderboard.publishing.tables import FORMULA_PREFIXES, Entry, export_csv, export_json

BENCH = registry.scorer("medreamm")


def rows_of(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def test_cells_opening_with_tab_or_carriage_return_get_an_apostrophe():
    table = pd.DataFrame({"model": ["\t=1+1", "\r=2+2", "mid\tcell", "ok"], "score": [1.5, -2.0, 3.0, 4.0]})
    rows = rows_of(export_csv(table))
    assert rows[0] == ["model", "score"]
    assert [r[0] for r in rows[1:]] == ["'\t=1+1", "'\r=2+2", "mid\tcell", "ok"]  # only a leading one counts
    assert [r[1] for r in rows[1:]] == ["1.5", "-2.0", "3.0", "4.0"]  # numbers stay numbers, even negative
    assert json.loads(export_json(table))[1]["model"] == "\r=2+2"  # JSON is not a spreadsheet: values as they are


def test_every_formula_prefix_is_escaped_in_cells_and_headers():
    assert FORMULA_PREFIXES == ("=", "+", "-", "@", "\t", "\r")
    table = pd.DataFrame({f"{p}head": [f"{p}cell"] for p in FORMULA_PREFIXES})
    rows = rows_of(export_csv(table))
    assert rows == [[f"'{p}head" for p in FORMULA_PREFIXES], [f"'{p}cell" for p in FORMULA_PREFIXES]]


def test_formula_like_stratum_labels_are_escaped_in_the_breakdown_download():
    """Strata labels are dataset values; a value like '=HYPERLINK(...)' is a cell of the breakdown's CSV (the
    Space's "Download this breakdown")."""
    cells = {"=HYPERLINK(\"http://x\",\"y\")": {"n": 12, "metrics": {"top5_primary_icd": 50.0}},
             "-Cardio": {"n": 15, "metrics": {"top5_primary_icd": 40.0}},
             "Neuro": {"n": 11, "metrics": {"top5_primary_icd": 30.0}}}
    result = Result(benchmark="medreamm", model=ModelInfo(name="@Model"), metrics={"top5_primary_icd": 41.0},
                    source="submission", n_items=38, n_answered=38, strata={"classification": cells})
    frame = breakdown(BENCH, [Entry(result, "sub-1")], "classification", "top5_primary_icd").frame()
    header, *rows = list(csv.reader(io.StringIO(export_csv(frame))))
    assert header == ["model", "source", "stratum", "value", "metric", "top5_primary_icd", "n", "ci_low", "ci_high",
                      "empty_because", "flag"]
    by_value = {row[3]: row for row in rows}
    assert set(by_value) == {"'=HYPERLINK(\"http://x\",\"y\")", "'-Cardio", "Neuro"}
    assert all(row[0] == "'@Model" for row in rows)
    assert [by_value[v][5:7] for v in ("'=HYPERLINK(\"http://x\",\"y\")", "'-Cardio", "Neuro")] == \
           [["50.0", "12"], ["40.0", "15"], ["30.0", "11"]]
    exact = {line["value"]: line["n"] for line in json.loads(export_json(frame))}
    assert exact == {"=HYPERLINK(\"http://x\",\"y\")": 12, "-Cardio": 15, "Neuro": 11}  # JSON keeps them as they are


def test_json_export_is_readable_utf8_with_values_as_they_are():
    table = pd.DataFrame({"model": ["Modèle-β", "=1+1"], "score": [41.5, None]})
    text = export_json(table)
    assert json.loads(text) == [{"model": "Modèle-β", "score": 41.5}, {"model": "=1+1", "score": None}]
    assert "Modèle-β" in text and "\\u" not in text  # UTF-8 as is, not \u escapes
    assert text.startswith('[\n  {\n    "model"')  # one field per line: readable
