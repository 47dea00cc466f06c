"""Sockets one daphne process holds: 10,000 idle table sockets with the page's heartbeat, next to a plain
``websockets`` server holding the same clients in the same run.

    .venv/bin/python bench/sockets_per_daphne.py [--clients 10000] [--client-procs 6] [--heartbeat 5]

The machinery is bench/fanout.py's (its docstring says what a run does), with one daphne and one baseline server,
and every client pinging as static/casino/table/live.js does (every 5 s, spread evenly) from connecting to the
end. Two goals: memory per idle socket (RSS, after the sockets connected and pinged twice) at most 2× the
baseline's, and the fan-out of ``round.result`` to all of them with p99 at most 1.5× the baseline's. Needs about
10,000 file descriptors in this process's children (``ulimit -n``) besides the server's own.

On a 2-core machine the client processes share the CPUs with the server they measure: the run prints how busy
they were next to the figures.
"""

from __future__ import annotations

import resource
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.fanout import parser, run, serve_baseline
from bench.results import record

MEMORY_RATIO = 2.0
FANOUT_RATIO = 1.5


def main() -> int:
    args = parser(__doc__, clients=10000, instances=1, client_procs=6, heartbeat=5.0, quiet_tables=0).parse_args()
    if args.baseline_server:
        serve_baseline(args)
        return 0
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    needed = args.clients + 1000
    if soft < needed:
        if hard != resource.RLIM_INFINITY and hard < needed:
            raise SystemExit(f"{args.clients} sockets need `ulimit -n {needed}` (the hard limit is {hard})")
        resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))  # inherited by the servers and the clients
    m = run(args)
    memory_met = m.daphne_kib <= MEMORY_RATIO * m.base_kib
    fanout_met = m.delivered and m.p99 <= FANOUT_RATIO * m.base_p99
    per = f"{m.clients:,} sockets on {m.instances} daphne" + ("s" if m.instances > 1 else "")
    record(
        f"memory per idle socket, {per}",
        m.daphne_kib,
        "KiB",
        baseline=m.base_kib,
        goal=f"≤ {MEMORY_RATIO:g}× baseline",
        met=memory_met,
    )
    record(
        f"round.result to all {per}, p99",
        m.p99,
        "ms",
        baseline=m.base_p99,
        goal=f"≤ {FANOUT_RATIO:g}× baseline",
        met=fanout_met,
    )
    print(
        f"goals: memory per socket {m.daphne_kib:.1f} KiB vs {m.base_kib:.1f} KiB "
        f"({m.daphne_kib / m.base_kib:.2f}×, ≤ {MEMORY_RATIO:g}×) {'met' if memory_met else 'MISSED'}; "
        f"fan-out p99 {m.p99:.1f} ms vs {m.base_p99:.1f} ms ({m.p99 / m.base_p99:.2f}×, ≤ {FANOUT_RATIO:g}×"
        f"{'' if m.delivered else ', and not every socket got every round.result'}) "
        f"{'met' if fanout_met else 'MISSED'}"
    )
    return 0 if memory_met and fanout_met else 1


if __name__ == "__main__":
    sys.exit(main())
