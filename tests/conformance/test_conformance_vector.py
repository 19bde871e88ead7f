"""Every registered environment behaves the same on every vector backend.

Each case runs ``sekai.testing.check_vector_backends`` for one backend against ``sync`` (the
reference) in one autoreset mode, with episodes cut to 5 steps so that every rollout crosses
autoresets (or frozen sub-envs) whatever the env's own episode length; see
``sekai.testing.conformance_tests``. The ``ray`` cases run on the test process's shared local
Ray (``local_ray``) rather than on one started and shut down for this module alone.
"""

from __future__ import annotations

import pytest

import sekai
from sekai.testing import conformance_tests

pytestmark = pytest.mark.usefixtures("local_ray")

ENV_IDS = [spec.id for spec in sekai.all_specs()]

test_backend_matches_sync = conformance_tests(ENV_IDS, checks=("vector_backends",))
