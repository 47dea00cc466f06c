"""Player pages, one module each: thin views that call one selector and render a template.

- ``lobby``: ``/`` (live tiles) · ``multi``: ``/multi/`` (two to four tables at once)
- ``table``: ``/tables/<id>/`` · ``record``: ``/bets/`` and ``/bets/rounds/<id>/`` (+ CSV)
- ``rules``: ``/rules/`` and ``/tables/<id>/rules/`` · ``fair``: ``/fair/``
"""
