"""Services: everything of the tables that writes (selectors read; edges call one service each).

- ``placement``: a player's batch of bets on one round, all or nothing (``bet_place``).
- ``settlement``: paying a dealt round and refunding a cancelled one, set-based.
- ``transitions``: the round state machine, shoes included, every step a compare-and-set.
- ``ticker``: one table's due steps under its row lock, as the Celery tick runs them.
- ``controls``: the operators' pause, resume, cancel, close, reopen and retire, and the opening hours.
- ``chat``: the table chat's writes (send, delete, mute, unmute).
- ``risk``: raising and acknowledging the floor's risk alerts.
- ``variants``: creating variants from code (demo data, tests, tools).
- ``rate``: the per-player limit on bet confirms that REST and the socket share.
"""
