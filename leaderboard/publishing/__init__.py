"""Publishing: what a reader sees. The board and its ranks (tie groups), breakdowns, tables, exports,
comparisons, the item browser, reports, the model registry and profiles, specialties, release checks.

May import: scoring, intake, privacy, remote, leaderboard.settings/fast_json."""
