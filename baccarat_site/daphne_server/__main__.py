"""``python -m baccarat_site.daphne_server [daphne's arguments]``."""

from baccarat_site.daphne_server.server import LeanCommandLineInterface, tune_garbage_collector

tune_garbage_collector()
LeanCommandLineInterface.entrypoint()
