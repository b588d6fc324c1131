"""MedReaMM: ranked top-10 diagnoses vs ICD-11-coded ground truth, in ICD and semantic matching.

Everything about this benchmark lives in this folder; see README.md. Discovered by `leaderboard.scoring.registry`."""
POSITION = 1  # display order: the papers' order
