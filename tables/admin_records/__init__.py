"""The admin of what happened: shoes, rounds and bets (and the audit trail), all read-only.

These rows change only through the services (``tables.services``, ``wallets.services``): nobody, not even a
superuser, adds, changes or deletes one here.

* :mod:`tables.admin_records.rounds`: **rounds**, a round's page being its recall for a dispute.
* :mod:`tables.admin_records.shoes`: **shoes**, with the seed once revealed and a verification of a finished one.
* :mod:`tables.admin_records.bets`: **bets**, with a streamed CSV export.
* :mod:`tables.admin_records.audit`: the **audit trail** (auditlog's ``LogEntry``), which nobody can delete.
* :mod:`tables.admin_records.display`: what they share: cards as faces, links to a row's page, an id search.

``tables/admin.py`` imports this package, so the admin's autodiscovery registers these.
"""

from tables.admin_records.audit import ReadOnlyLogEntryAdmin
from tables.admin_records.bets import BET_CSV_HEADER, BetAdmin, BetStatusFilter, bet_csv_response, bet_csv_rows
from tables.admin_records.display import card_face, card_faces
from tables.admin_records.rounds import RoundAdmin
from tables.admin_records.shoes import SECRET_SHOE_FIELDS, ShoeAdmin, ShoeStatusFilter

__all__ = [
    "BET_CSV_HEADER",
    "SECRET_SHOE_FIELDS",
    "BetAdmin",
    "BetStatusFilter",
    "ReadOnlyLogEntryAdmin",
    "RoundAdmin",
    "ShoeAdmin",
    "ShoeStatusFilter",
    "bet_csv_response",
    "bet_csv_rows",
    "card_face",
    "card_faces",
]
