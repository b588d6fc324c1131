import os
import signal

# One BLAS thread unless the user says otherwise: scoring makes no product big enough to share, and
# OpenBLAS starting a thread per core at import costs a one-shot command ~0.05 s and as much CPU again.
# Set before numpy is imported (by .cli), the only time OpenBLAS reads it.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from .cli import main  # noqa: E402

signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `... | head` ends quietly, like other Unix tools

raise SystemExit(main())
