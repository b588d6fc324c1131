"""Harness: producing predictions. The `predict` runner, the lmms-eval bridge and importer.

May import: scoring, intake, remote, leaderboard.settings/fast_json."""
