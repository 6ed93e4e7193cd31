"""One in-process run in a Python process of its own (`bench.inprocess.in_a_fresh_process`).

`python -m bench.one_run ORDER ANSWER`: ORDER is a JSON file naming the world, the
scenarios and the rounds; the run's samples, statements and answer sizes are written to
ANSWER as JSON. The process loads the site as gunicorn loads a worker (`dbd_site.wsgi`:
boot, then the frozen heap) and inherits the bench's environment (settings, database,
cache).
"""

import json
import sys
from pathlib import Path


def main(order_path: str, answer_path: str) -> None:
    import dbd_site.wsgi  # noqa: F401  (sets Django up as a worker is)
    from bench import inprocess
    from bench.world import World

    order = json.loads(Path(order_path).read_text())
    world = World.from_dict(order["world"])
    client = inprocess.signed_in_client(world.user_id)
    keys = set(order["keys"])  # none: every scenario
    chosen = [s for s in inprocess.scenarios(client, world) if not keys or s.key in keys]
    inprocess.measure(
        chosen,
        rounds=order["rounds"],
        per_round=order["per_round"],
        warmup=order["warmup"],
        say=lambda _: None,
    )
    Path(answer_path).write_text(json.dumps(inprocess.answer_of(chosen)))


if __name__ == "__main__":
    main(*sys.argv[1:3])
