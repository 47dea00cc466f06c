"""Reading the environment: typed helpers that refuse what they do not understand, and the development switch.

Plain Python with no side effect, so the settings, ``manage.py`` and the test set-up share them before Django
(or an embedded server) starts.
"""

from __future__ import annotations

import ipaddress
import os
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent

TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"0", "false", "no", "off"})


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool = False) -> bool:
    """``1/true/yes/on`` or ``0/false/no/off`` (any case, spaces ignored); unset or empty is ``default``.

    Anything else raises ImproperlyConfigured: ``DEBUG=ture`` or ``SECURE_SSL_REDIRECT=disabled`` must not
    quietly read as off (or on).
    """
    value = os.environ.get(name, "").strip().lower()
    if not value:
        return default
    if value in TRUE_WORDS:
        return True
    if value in FALSE_WORDS:
        return False
    raise ImproperlyConfigured(
        f"{name}={os.environ[name]!r} is neither on nor off: use one of "
        f"{', '.join(sorted(TRUE_WORDS))} or {', '.join(sorted(FALSE_WORDS))} (or leave it empty for the default)."
    )


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    return default if value in (None, "") else int(value)


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def env_networks(name: str, default: str = "") -> list[str]:
    """A comma-separated list of addresses and networks (``10.0.0.10``, ``10.0.0.0/24``, ``::1``), in their normal
    form; anything that is neither raises ImproperlyConfigured, naming it (a proxy that is not trusted after all
    is found only when every client shares its address)."""
    networks = []
    for item in env_list(name, default):
        try:
            networks.append(str(ipaddress.ip_network(item, strict=False)))
        except ValueError:
            raise ImproperlyConfigured(
                f"{name}: {item!r} is not an address or a network (e.g. 10.0.0.10 or 10.0.0.0/24)."
            ) from None
    return networks


def var_dir() -> Path:
    """Where the embedded servers keep their data (``BACCARAT_VAR_DIR``, default ``var/``); not created here."""
    return Path(env_str("BACCARAT_VAR_DIR") or BASE_DIR / "var")


def development_mode() -> bool:
    """Development (embedded servers, a development key) or production (everything from the environment).

    ``BACCARAT_DEV=1`` says development (``make run``, ``make test``, ``python -m baccarat_site.run`` and the test
    set-up set it); anything else, unset included, is production. Nothing is guessed: not from ``DEBUG``, not from
    a ``var/`` folder left next to the code (a production box with a copy of ``var/`` would otherwise start on a
    development key and a database of its own). A production box that lost a URL refuses to start.
    """
    return env_bool("BACCARAT_DEV")
