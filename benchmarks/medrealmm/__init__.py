"""MedRealMM: the model's next physician reply, graded per rubric criterion by an LLM judge.

Everything about this benchmark lives in this folder; see README.md. Discovered by `leaderboard.scoring.registry`."""
POSITION = 3  # display order: the papers' order
