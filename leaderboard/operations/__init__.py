"""Operations: running the leaderboard. Submission intake (the one upload door and its check children),
the scoring queue and worker, review of held submissions, the store, the Hub queue, data and ledger.

May import: publishing, scoring, intake, privacy, remote, leaderboard.settings/fast_json."""
