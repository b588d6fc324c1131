import sys

USAGE = """usage: python -m space            start the leaderboard Space (http://127.0.0.1:7860 by default)
       python -m space deploy ...  publish it as a Hub Space (python -m space deploy --help)

The Space is configured by environment variables, not flags; the main ones:
  LEADERBOARD_DATA     built datasets folder (default: hub/)
  LEADERBOARD_STORE    the results store: results/ public, private/ private (default: store/)
  GRADIO_SERVER_PORT   port (default 7860); GRADIO_SERVER_NAME: address (default 127.0.0.1)
  JUDGE_BASE_URL, JUDGE_MODEL   the LLM judge (for the benchmarks that use one)
  LETTER_READER_MODEL  a model at JUDGE_BASE_URL for the responses the letter rule cannot read (off by default)
Every variable, with its default: leaderboard/settings.py and docs/deploying.md."""

if sys.argv[1:2] == ["deploy"]:
    from .deploy import main as deploy_main

    sys.exit(deploy_main(sys.argv[2:]))
if sys.argv[1:]:  # no flags: `--help` (or a typo) must not start a server
    print(USAGE, file=sys.stdout if sys.argv[1] in ("-h", "--help") else sys.stderr)
    sys.exit(0 if sys.argv[1] in ("-h", "--help") else 2)

from .app import main  # noqa: E402

main()
