"""The worker side of ``ProcVecEnv``: the loop that serves a worker's sub-envs (private)."""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
from multiprocessing.connection import Connection
from typing import Any

from sekai.spaces import Space
from sekai.vector.workers.pickling import PROTOCOL, dumps, picklable
from sekai.vector.workers.shared_memory import SharedObservations
from sekai.vector.workers.sub_envs import SubEnvGroup

__all__ = ["frame", "unframe", "worker_main"]

# Every message is an 8-byte sequence number, a command's name (one byte of length, then ASCII;
# empty in a reply) and a pickle (empty for a payload of None). The worker answers every
# command, in order, with the same number and the pickle of ``(ok, data)``: ``data`` is the
# command's result when ``ok``, else ``(rank, exc_type, message, traceback)`` of the sub-env
# that failed. A worker first sends, unasked, the reply to its construction (number 0): the
# spaces of sub-env 0 from worker 0, None from the others. The parent numbers its commands in
# sequence and matches replies by number.


def frame(seq: int, body: bytes | None, command: str = "") -> bytes:
    """A message: ``seq`` in 8 bytes, the ``command``'s name, then ``body``."""
    name = command.encode("ascii")
    return b"".join((seq.to_bytes(8, "little"), bytes((len(name),)), name, body or b""))


def unframe(message: bytes) -> tuple[int, str, Any]:
    """``(seq, command, data)`` of a ``frame``, the pickle loaded (None when empty)."""
    end = 9 + message[8]
    body = memoryview(message)[end:]
    data = pickle.loads(body) if len(body) else None
    return int.from_bytes(message[:8], "little"), message[9:end].decode("ascii"), data


class _Worker(SubEnvGroup):
    """The sub-envs of one worker process, served over its pipe."""

    def __init__(self, conn: Connection, first: int, autoreset: bool) -> None:
        super().__init__(first, autoreset)
        self.conn = conn
        self.shm: SharedObservations | None = None
        self.seq = 0  # of the command being served

    def serve(self, payload: bytes) -> None:
        """Build the sub-envs, report, then answer commands until ``close`` or EOF."""
        try:
            self.build(payload)
        except Exception as exc:
            self._fail(0, exc)
        else:
            env = self.envs[0]
            self._reply(0, (env.observation_space, env.action_space) if self.first == 0 else None)
        self.frozen = [None] * len(self.envs)
        while True:
            try:
                message = self.conn.recv_bytes()
            except (EOFError, OSError):
                break
            self.seq = int.from_bytes(message[:8], "little")
            self.current = 0
            self.places = None
            command = None
            try:
                _, command, data = unframe(message)
                result = getattr(self, command)(data)
            except Exception as exc:
                self._fail(self.seq, exc)
            else:
                self._reply(self.seq, result)
            if command == "close":
                break
        if self.shm is not None:
            self.shm.close()

    def _reply(self, seq: int, data: Any) -> None:
        try:
            message = frame(seq, dumps((True, data)))
        except Exception as exc:  # blame the first sub-env whose part cannot be pickled
            rows = data if isinstance(data, list) else [data]
            self.blame(next((j for j, row in enumerate(rows) if not picklable(row)), 0))
            self._fail(seq, exc)
        else:
            self.conn.send_bytes(message)

    def _fail(self, seq: int, exc: Exception) -> None:
        self.conn.send_bytes(frame(seq, pickle.dumps((False, self.failure(exc)), PROTOCOL)))

    def row(self, j: int, obs: Any, *rest: Any) -> tuple[Any, ...]:
        """One sub-env's reply row; the observation goes to shared memory when in use."""
        if self.shm is None:
            return (obs, *rest)
        self.shm.write(self.first + j, obs)
        return rest

    def closing(self, j: int) -> None:
        """Announce that sub-env ``j`` is closing, so that the parent can name one that hangs."""
        self.conn.send_bytes(frame(self.seq, pickle.dumps((None, self.first + j), PROTOCOL)))

    def attach(self, data: tuple[str, Space[Any], int]) -> None:
        """Attach to the parent's shared-memory block: ``(name, space, num_envs)``."""
        name, space, num_envs = data
        self.shm = SharedObservations(space, num_envs, name)


def worker_main(
    conn: Connection, payload: bytes, first: int, autoreset: bool, inherited: tuple[int, ...]
) -> None:
    """Entry point of a worker process: ``payload`` pickles the factories of its sub-envs;
    ``inherited`` lists the parent's pipe ends that a forked worker holds copies of."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for fd in inherited:
        with contextlib.suppress(OSError):
            os.close(fd)
    _Worker(conn, first, autoreset).serve(payload)
