import signal

from .cli import main

signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `... | head` ends quietly, like other Unix tools

raise SystemExit(main())
