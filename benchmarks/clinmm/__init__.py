"""ClinMM-Bench: dual-judge diagnostic accuracy (0-2) and atomic-fact reasoning quality.

Everything about this benchmark lives in this folder; see README.md. Discovered by `leaderboard.scoring.registry`."""
POSITION = 2  # display order: the papers' order
