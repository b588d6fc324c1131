"""Intake: reading and validating prediction files before anything is scored. The file formats and
their row readers, the Parquet guard, the line reader, the validation report, the authors' own formats,
file hints, answer keys and run settings.

May import: leaderboard.settings, leaderboard.fast_json. Nothing else of
the package: every other job reads an upload through here."""
