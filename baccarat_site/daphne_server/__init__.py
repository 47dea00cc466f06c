"""daphne as the casino runs it: ``python -m baccarat_site.daphne_server`` takes daphne's own arguments and serves
with :class:`~baccarat_site.daphne_server.server.LeanServer` (daphne's server with a lighter queue per connection),
the garbage collector's oldest generation looked at less often (``server.tune_garbage_collector``).

This module imports nothing of daphne (whose import installs Twisted's asyncio reactor): whatever starts a daphne
builds its command line here.
"""

from __future__ import annotations

import sys
from pathlib import Path

APPLICATION = "baccarat_site.asgi:application"


def command(host: str, port: int, *options: str, python: str | Path = sys.executable) -> list[str]:
    """The command line that serves the casino's ASGI application with this daphne on ``host``:``port``."""
    return [str(python), "-m", __name__, *options, "-b", host, "-p", str(port), APPLICATION]
