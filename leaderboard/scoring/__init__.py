"""Scoring: the benchmark contract and registry, the scoring call, the aggregation engine, metrics,
matching (ICD-11, embeddings), the LLM judge, the letter parser and the scoring sandbox.

May import: intake, privacy, remote, leaderboard.settings/fast_json."""
