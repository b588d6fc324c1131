"""X-PCR: stage-wise, tier, chain-completion, calibration and modality accuracy over the progressive

Everything about this benchmark lives in this folder; see README.md. Discovered by `leaderboard.scoring.registry`."""
POSITION = 5  # display order: the papers' order
