"""Med-CMR: five-option MCQ accuracy (item-weighted, per task, per medical-intelligence category) and the

Everything about this benchmark lives in this folder; see README.md. Discovered by `leaderboard.scoring.registry`."""
POSITION = 4  # display order: the papers' order
