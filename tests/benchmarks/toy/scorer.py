"""Toy: accuracy of the chosen letter, per item, with a percentile bootstrap CI and a per-topic breakdown."""
from __future__ import annotations

import numpy as np

from leaderboard.aggregate import by_stratum, overall
from leaderboard.answer_key import AnswerKey
from leaderboard.benchmark import Benchmark, MetricSpec, ScoringContext
from leaderboard.prediction_files import FieldSpec, PredictionSchema, ValidationReport
from leaderboard.result import Result


class Toy(Benchmark):
    name = "toy"
    pretty_name = "Toy"
    id_column = "id"
    answer_columns = ("answer",)
    strata_columns = ("topic",)
    schema = PredictionSchema(fields=(FieldSpec("answer", "choice", required=True, choices=("A", "B", "C", "D")),))
    metrics = (MetricSpec("accuracy", "Accuracy"),)
    primary_metric = "accuracy"
    decisions = ("Missing items count as wrong.",)

    def score(self, key: AnswerKey, report: ValidationReport, context: ScoringContext) -> Result:
        ids = key.table.column("id").to_pylist()
        gold = key.table.column("answer").to_pylist()
        chosen = [(report.valid.get(i) or {}).get("answer") for i in ids]
        correct = np.array([c is not None and c.upper() == g for c, g in zip(chosen, gold)], dtype=float)
        metrics, ci = overall({"accuracy": correct}, context.resamples, context.seed)
        return Result(benchmark=self.name, model=context.model, metrics=metrics, ci=ci, n_items=len(ids),
                      n_answered=sum(c is not None for c in chosen), parse_failures=0,
                      strata=by_stratum({"accuracy": correct}, {"topic": key.table.column("topic").to_pylist()}),
                      protocol=self.base_protocol(key, context))
