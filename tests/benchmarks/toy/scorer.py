"""Toy: accuracy of the chosen letter, per item, with a percentile bootstrap CI and a per-topic breakdown.
The scorer parses and scores each item; `leaderboard.scoring.engine` computes every published number and the item
set behind it (see docs/engine.md)."""
from __future__ import annotations

import numpy as np

from leaderboard.intake.answer_key import AnswerKey
from leaderboard.scoring.benchmark import Benchmark, MetricSpec, ScoringContext
from leaderboard.scoring.engine import mean_metrics
from leaderboard.intake.prediction_files import FieldSpec, PredictionSchema, ValidationReport
from leaderboard.scoring.result import Result


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
        numbers = mean_metrics({"accuracy": correct}, {"topic": key.table.column("topic").to_pylist()}, len(ids),
                               context.resamples, context.seed)
        return self.result(context, metrics=numbers.metrics, ci=numbers.ci, strata=numbers.strata,
                           cells=numbers.cells, n_items=len(ids), n_answered=sum(c is not None for c in chosen),
                           protocol=self.base_protocol(key, context))
