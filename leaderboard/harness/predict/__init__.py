"""`python -m leaderboard predict`: run a model behind any OpenAI-compatible chat endpoint on a built
dataset, following each benchmark's inference protocol, and write a prediction file that `validate`
accepts. Each benchmark's protocol lives in `benchmarks/<name>/protocol.py` (found by the registry);
this package holds what protocols share: the `Protocol` contract, the runner and the CLI."""
