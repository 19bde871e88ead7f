"""Every registered environment keeps the environment contract.

``check_env`` (with the determinism check) finds nothing, ``env.spec.make()`` rebuilds an env
that replays it exactly, the async path replays the sync one, and the registered time limit
applies; see ``sekai.testing.conformance_tests``.
"""

from __future__ import annotations

import sekai
from sekai.testing import conformance_tests

ENV_IDS = [spec.id for spec in sekai.all_specs()]

test_registered_env = conformance_tests(
    ENV_IDS, checks=("check_env", "spec", "async", "time_limit")
)
