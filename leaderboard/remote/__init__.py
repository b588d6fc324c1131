"""Remote: calls to services outside the process, each with one retry rule: the OpenAI-compatible
chat POST (the judge and the predict runner) and the Hugging Face Hub API (queue, data, shards).

May import: leaderboard.settings, leaderboard.fast_json."""
