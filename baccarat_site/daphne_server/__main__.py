"""``python -m baccarat_site.daphne_server [daphne's arguments]``."""

from baccarat_site.daphne_server.server import LeanCommandLineInterface

LeanCommandLineInterface.entrypoint()
