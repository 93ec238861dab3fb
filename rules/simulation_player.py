"""A worker process of simulated fights (issue 46; `combat.simulations.Player` starts it).

It plays the batches it is sent (`rules.simulation.play_batch`) and sends each batch's
summary back, one batch at a time. A run's states come once per process (`state`
messages, kept by token, the newest `KEPT` of them), its batches as small messages that
name the state by its token. Pure: it reads no database and needs no Django, so it starts
in a fraction of a second. It ends when the server's end of its pipe closes.

Messages in: ("state", token, engine_key, state), ("batches", [(call, token, plan, seed,
part, index, size), ...]): a worker's share of a step, played in order. Out:
("answers", [("result", call, summary) or ("error", call, text), ...]), the first batch's
at once, then at most every `FLUSH_SECONDS`, the last when the share is played.
"""

import os
import signal
import sys
import time
from collections import OrderedDict
from multiprocessing.connection import Connection

from rules import simulation as sim
from rules.engine import engine_for

KEPT = 16
# Answers are sent in bunches, at most this often (the first batch's at once): every
# message wakes the server process's simulation thread, which then takes Python's turn
# from the page threads; one per batch of 25 fights (some 40 a second) slowed the rolls'
# p99 at other tables by half again (bench/simulation_wait.py).
FLUSH_SECONDS = 0.2


def main(fd: int) -> None:
    connection = Connection(fd)
    states: OrderedDict[str, tuple] = OrderedDict()
    while True:
        try:
            message = connection.recv()
        except (EOFError, OSError):
            return
        if message[0] == "state":
            _, token, engine_key, state = message
            states[token] = (engine_key, state)
            while len(states) > KEPT:
                states.popitem(last=False)
            continue
        _, batches = message
        answers, sent = [], None
        for call, token, plan, seed, part, index, size in batches:
            try:
                engine_key, state = states[token]
                summary = sim.play_batch(engine_for(*engine_key), state, plan, seed, part,
                                         index, size)
            except Exception as error:  # the rules' bug fails this run, not the process
                answers.append(("error", call, f"{type(error).__name__}: {error}"[:200]))
            else:
                answers.append(("result", call, summary))
            now = time.monotonic()
            if sent is None or now - sent >= FLUSH_SECONDS or answers[-1][0] == "error":
                sent = now  # the first at once (the page's first estimate), then in bunches
                if not _send(connection, answers):
                    return
                answers = []
        if answers and not _send(connection, answers):
            return


def _send(connection: Connection, answers: list) -> bool:
    try:
        connection.send(("answers", answers))
    except (BrokenPipeError, OSError):
        return False
    return True


if __name__ == "__main__":  # python -m rules.simulation_player FD NICE
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the server's Ctrl-C ends it by its pipe
    if hasattr(os, "nice") and int(sys.argv[2]) > 0:
        os.nice(int(sys.argv[2]))
    main(int(sys.argv[1]))
