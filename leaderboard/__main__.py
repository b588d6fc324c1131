import gc
import os
import signal

# One BLAS thread unless the user says otherwise: scoring makes no product big enough to share, and
# OpenBLAS starting a thread per core at import costs a one-shot command ~0.05 s and as much CPU again.
# Set before numpy is imported (by .cli), the only time OpenBLAS reads it.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from .cli import main  # noqa: E402

# A one-shot command builds tens of thousands of objects that live until it ends (a rescore decodes 50,586
# cached verdicts) and makes little cyclic garbage: the collector's default (a pass every 700 allocations,
# walking everything alive) cost ~7 % of a rescore. Collection stays on, just less often; what the imports
# made is frozen out of every pass.
gc.freeze()
gc.set_threshold(20_000, 20, 20)

signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `... | head` ends quietly, like other Unix tools

raise SystemExit(main())
