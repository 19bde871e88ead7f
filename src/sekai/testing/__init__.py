"""Tools for testing environments: checkers, exact comparisons and a conformance suite.

* ``check_env``: one env against the ``Env`` contract;
* ``check_vector_backends``: one env on every vector backend, compared;
* ``check_native_matches``: a native vector env against a ``SyncVecEnv`` of single envs;
* ``assert_trees_equal`` / ``tree_difference``: exact, NaN-aware comparison of nested values;
* ``conformance_tests``: the conformance suite as a pytest test function for your envs.
"""

from __future__ import annotations

from sekai.testing.conformance import CONFORMANCE_CHECKS, conformance_tests
from sekai.testing.env_checker import check_env
from sekai.testing.native_matches import check_native_matches
from sekai.testing.trees import assert_trees_equal, tree_difference
from sekai.testing.vector_backends import VECTOR_BACKENDS, check_vector_backends

__all__ = [
    "check_env",
    "check_vector_backends",
    "VECTOR_BACKENDS",
    "check_native_matches",
    "assert_trees_equal",
    "tree_difference",
    "conformance_tests",
    "CONFORMANCE_CHECKS",
]
