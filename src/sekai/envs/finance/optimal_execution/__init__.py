"""OptimalExecution-v0/-v1: liquidate a block of shares under market impact (Almgren-Chriss).

``env`` holds the single env ``OptimalExecutionEnv`` (and its constants ``SNAP`` and
``LINEAR_KAPPA_T``), ``vector`` its native twin ``OptimalExecutionVecEnv`` and ``viewer`` its
dashboard ``OptimalExecutionRenderer``; ``encoding`` maps the TWAP-centred action of -v1 to the
share sold and ``policies`` holds ``ScheduledActions``, the form of the reference policies.
"""

from sekai.envs.finance.optimal_execution.env import (
    LINEAR_KAPPA_T,
    SNAP,
    OptimalExecutionEnv,
)
from sekai.envs.finance.optimal_execution.vector import OptimalExecutionVecEnv
from sekai.envs.finance.optimal_execution.viewer import OptimalExecutionRenderer

__all__ = [
    "LINEAR_KAPPA_T",
    "SNAP",
    "OptimalExecutionEnv",
    "OptimalExecutionRenderer",
    "OptimalExecutionVecEnv",
]
