"""One confirm in a loop, in process: what a single ``bet_place`` costs (3 chip-stack bets, a player's only
confirm of the round), next to the same loop on an earlier commit measured in the same run.

    .venv/bin/python bench/confirm.py [--against 0ccc64d^] [--confirms 300] [--pairs 4]

``--against`` names the commit to compare with (default: the one before round stakes, which the core's
simplification had to match). The script checks that commit out in a temporary git worktree and runs the
loop there and here alternately, each run in a fresh scratch database (``baccarat_confirm_*`` on the
configured PostgreSQL), and prints the median per confirm of each run and the median of those medians.
The first 50 confirms of a run warm it up and are not counted. The table's fan-out (``events.bets_changed``) and
the note to the player's other pages (``events.wallet_changed``) are switched off: this measures the money path,
not Redis."""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WARM_UP = 50
CHIPS = (1, 5, 25, 100)  # at most four chips on a spot: 400.00, under the default table's per-spot maximum
SPOTS = ("player", "banker", "tie", "player_pair", "banker_pair")


def loop(confirms: int) -> list[float]:
    """In this process (Django set up on the scratch database): ``confirms`` players each confirm once."""
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from tables import events
    from tables.services.placement import bet_place
    from tests.factories import make_round, make_table
    from wallets.services import wallet_deposit

    events.bets_changed = lambda **kwargs: None  # the money path alone
    events.wallet_changed = lambda **kwargs: None  # (the player's other pages: an announcement, as the totals)
    rng = random.Random(7)
    users = []
    for i in range(confirms):
        user = get_user_model().objects.create_user(username=f"p{i}", password=None)
        wallet_deposit(user=user, amount=Decimal("10000.00"), reason="bench")
        users.append(user)
    round_ = make_round(make_table("Confirm bench"), closes_in=3600)
    took = []
    for user in users:
        bets = [
            {"type": spot, "amount": f"{sum(rng.choice(CHIPS) for _ in range(rng.randint(1, 4)))}.00"}
            for spot in rng.sample(SPOTS, 3)
        ]
        started = time.perf_counter()
        bet_place(user=user, round_id=round_.pk, mode="traditional", bets=bets, idempotency_key=str(uuid.uuid4()))
        took.append((time.perf_counter() - started) * 1000)
    return took[WARM_UP:]


def run_in(tree: Path, db_url: str, confirms: int) -> float:
    """The loop in a child process in ``tree`` (its code, its migrations) on a fresh scratch database."""
    sys.path.insert(0, str(ROOT))
    from bench.scratch import drop_database, recreate_database

    name = f"baccarat_confirm_{uuid.uuid4().hex[:8]}"
    url = recreate_database(db_url, name)
    env = {**os.environ, "DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "baccarat_site.settings"}
    env["LOG_LEVEL"] = "WARNING"
    try:
        out = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--child", str(confirms)],
            cwd=tree,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
    finally:
        drop_database(db_url, name)
    return float(out.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", default="0ccc64d^", help="the commit to compare with")
    parser.add_argument("--confirms", type=int, default=300)
    parser.add_argument("--pairs", type=int, default=4, help="runs of each, alternating")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        sys.path.insert(0, os.getcwd())  # the tree the parent chose
        print(statistics.median(loop(args.child)))
        return 0

    sys.path.insert(0, str(ROOT))
    from bench.results import record
    from bench.scratch import service_urls

    db_url, redis_url = service_urls()
    os.environ["REDIS_URL"] = redis_url
    with tempfile.TemporaryDirectory(prefix="confirm-bench-") as scratch:
        old = Path(scratch) / "tree"
        subprocess.run(["git", "worktree", "add", "-q", "--detach", str(old), args.against], cwd=ROOT, check=True)
        try:
            here, there = [], []
            for _ in range(args.pairs):
                there.append(run_in(old, db_url, args.confirms))
                here.append(run_in(ROOT, db_url, args.confirms))
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(old)], cwd=ROOT, check=False)
    print(f"one confirm (3 chip-stack bets), {args.confirms - WARM_UP} counted per run, medians per run:")
    print(f"    this tree:        {', '.join(f'{v:.2f}' for v in here)} ms")
    print(f"    {args.against:<17} {', '.join(f'{v:.2f}' for v in there)} ms")
    ratio = statistics.median(here) / statistics.median(there)
    print(
        f"    median {statistics.median(here):.2f} ms against {statistics.median(there):.2f} ms = {ratio:.2f}×"
        "   (goal: no higher than before round stakes)"
    )
    record(
        "one confirm, 3 chip-stack bets (median of run medians)",
        statistics.median(here),
        "ms",
        baseline=statistics.median(there),
        goal=f"no higher than {args.against}",
        met=ratio <= 1.0,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
