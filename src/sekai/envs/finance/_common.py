"""The finance envs' shared checks under their former module path; they live in ``_checks``."""

from sekai.envs.finance._checks import EPISODE_ENDED as EPISODE_ENDED
from sekai.envs.finance._checks import action_floats as action_floats
from sekai.envs.finance._checks import check_float as check_float
from sekai.envs.finance._checks import check_int as check_int
from sekai.envs.finance._checks import episode_ended as episode_ended

__all__ = ["EPISODE_ENDED", "action_floats", "check_float", "check_int", "episode_ended"]
