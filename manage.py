#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "baccarat_site.settings")
    # Development without DATABASE_URL / REDIS_URL: start (or find) the embedded servers before the settings
    # are read; the settings never start them.
    from baccarat_site.embedded import ensure_services

    ensure_services()
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
