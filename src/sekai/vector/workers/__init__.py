"""The workers behind ``ProcVecEnv`` and ``RayVecEnv`` (private).

- ``options``: ``WorkerOptions``, the pool's settings, checked once.
- ``exchange``: ``WorkerExchange``, the transport primitives a backend provides (start, post,
  ready, take, kill) and the protocol built on them: every worker started, a command to every
  worker with the lowest error raised, one worker's call within a limit, resets, ``close``.
- ``pool``: ``WorkerPoolVecEnv``, split stepping (``send`` / ``recv``), step timeouts and
  restarts on top of the exchange.
- ``restarts``: the restart seeds and the truncations owed after a rebuild.
- ``sub_envs``: ``SubEnvGroup``, the sub-envs a worker holds and runs each command on.
- ``pickling``: how payloads and replies are pickled, and the one pickling error.
- ``proc_worker``, ``shared_memory``: a worker process, and the observations it writes to
  shared memory.
- ``ray_worker``, ``ray_session``: a Ray actor, and the Ray connection the actors share.
"""
