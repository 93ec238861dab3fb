"""A worker process of simulated fights (issue 46; `combat.simulations.Player` starts it).

It plays the batches it is sent (`rules.simulation.play_batch`) and sends each batch's
summary back, one batch at a time. A run's states come once per process (`state`
messages, kept by token, the newest `KEPT` of them), its batches as small messages that
name the state by its token. Pure: it reads no database and needs no Django, so it starts
in a fraction of a second. It ends when the server's end of its pipe closes.

Messages in: ("state", token, engine_key, state), ("batch", call, token, plan, seed,
part, index, size). Out: ("result", call, summary) or ("error", call, text).
"""

import os
import signal
import sys
from collections import OrderedDict
from multiprocessing.connection import Connection

from rules import simulation as sim
from rules.engine import engine_for

KEPT = 16


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
        _, call, token, plan, seed, part, index, size = message
        try:
            engine_key, state = states[token]
            summary = sim.play_batch(engine_for(*engine_key), state, plan, seed, part, index,
                                     size)
        except Exception as error:  # the rules' bug fails this run, not the process
            answer = ("error", call, f"{type(error).__name__}: {error}"[:200])
        else:
            answer = ("result", call, summary)
        try:
            connection.send(answer)
        except (BrokenPipeError, OSError):
            return


if __name__ == "__main__":  # python -m rules.simulation_player FD NICE
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the server's Ctrl-C ends it by its pipe
    if hasattr(os, "nice") and int(sys.argv[2]) > 0:
        os.nice(int(sys.argv[2]))
    main(int(sys.argv[1]))
