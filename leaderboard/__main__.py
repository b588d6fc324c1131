import gc
import os
import signal

# A one-shot command allocates its imports (tens of thousands of long-lived objects) and then tens of thousands of
# short-lived ones (a rescore: 50,586 keys and flags); the cyclic collector, at its default thresholds, walks the
# first again and again while the second are still alive. Off while importing (nothing there is garbage), then the
# imports frozen out of its sight and collections made rarer: ~0.03 s of a 0.4 s rescore. Memory is still freed
# by reference counting as before; only cycles wait for the (rarer) collections.
gc.disable()

# One BLAS thread unless the user says otherwise: scoring makes no product big enough to share, and
# OpenBLAS starting a thread per core at import costs a one-shot command ~0.05 s and as much CPU again.
# Set before numpy is imported (by .cli), the only time OpenBLAS reads it.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from .cli import main  # noqa: E402

gc.freeze()
gc.set_threshold(10_000, 10, 10)
gc.enable()

signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `... | head` ends quietly, like other Unix tools

raise SystemExit(main())
