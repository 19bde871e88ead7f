"""VecEnv, NativeVecEnv and the vector wrapper bases are generic in the batch types."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

import sekai
from sekai.vector import (
    AsyncVecEnv,
    NativeVecEnv,
    ProcVecEnv,
    SyncVecEnv,
    VecActionWrapper,
    VecEnv,
    VecObservationWrapper,
    VecResetResult,
    VecRewardWrapper,
    VecStepResult,
    VecWrapper,
)


class BatchCounter(sekai.NativeVecEnv[np.ndarray, np.int64]):
    """Each sub-env counts the actions it is given; the episode ends at ``limit``."""

    def __init__(self, num_envs: int, limit: int = 3) -> None:
        super().__init__(
            num_envs, sekai.Box(0, limit, shape=(1,), dtype=np.int64), sekai.Discrete(2)
        )
        self.limit = limit
        self.count = np.zeros(num_envs, dtype=np.int64)

    def _reset_envs(self, indices: NDArray[np.intp], options: Sequence[Any]) -> None:
        self.count[indices] = 0

    def _observe(self) -> np.ndarray:
        return self.count[:, None].copy()

    def _step(self, actions: Any) -> tuple[Any, Any, Any, Mapping[str, Any]]:
        self.count += np.asarray(actions, dtype=np.int64)
        terminated = self.count >= self.limit
        return self.count.astype(np.float64), terminated, np.zeros_like(terminated), {}


def test_native_vec_env_subclass_of_a_subscripted_base_steps():
    venv = BatchCounter(3)
    assert isinstance(venv, NativeVecEnv) and isinstance(venv, VecEnv)
    reset = venv.reset(seed=0)
    assert isinstance(reset, VecResetResult)
    assert reset.observations.tolist() == [[0], [0], [0]]
    for _ in range(2):
        result = venv.step(np.array([1, 0, 1]))
    assert isinstance(result, VecStepResult)
    assert result.observations.tolist() == [[2], [0], [2]]
    assert result.rewards.tolist() == [2.0, 0.0, 2.0]
    result = venv.step(np.array([1, 1, 0]))
    assert result.terminated.tolist() == [True, False, False]
    assert result.observations.tolist() == [[0], [1], [2]]
    assert result.infos[0]["final_observation"].tolist() == [3]
    venv.close()


def test_generic_bases_take_their_type_parameters():
    assert len(VecEnv.__parameters__) == 2
    assert len(NativeVecEnv.__parameters__) == 2
    assert len(VecWrapper.__parameters__) == 4
    assert len(VecObservationWrapper.__parameters__) == 3
    assert len(VecActionWrapper.__parameters__) == 3
    assert len(VecRewardWrapper.__parameters__) == 2
    assert NativeVecEnv[np.ndarray, np.int64].__origin__ is NativeVecEnv
    assert VecStepResult[np.ndarray].__origin__ is VecStepResult
    assert VecResetResult[np.ndarray].__origin__ is VecResetResult


def test_subclasses_of_subscripted_vector_wrapper_bases_work():
    class Doubled(VecObservationWrapper[np.ndarray, np.ndarray, np.ndarray]):
        def observation(self, batch: np.ndarray) -> np.ndarray:
            return batch * 2

    class FromBools(VecActionWrapper[np.ndarray, np.ndarray, np.ndarray]):
        def action(self, actions: np.ndarray) -> np.ndarray:
            return np.asarray(actions, dtype=np.int64)

    class Negated(VecRewardWrapper[np.ndarray, np.ndarray]):
        def reward(self, rewards: NDArray[np.float64]) -> NDArray[np.float64]:
            return -rewards

    class Passing(VecWrapper[np.ndarray, np.ndarray, np.ndarray, np.ndarray]):
        pass

    venv = Passing(Negated(FromBools(Doubled(BatchCounter(2)))))
    assert venv.reset(seed=1).observations.tolist() == [[0], [0]]
    result = venv.step(np.array([True, False]))
    assert result.observations.tolist() == [[2], [0]]
    assert result.rewards.tolist() == [-1.0, -0.0]
    venv.close()


def test_concrete_backends_stay_usable_unsubscripted():
    assert not getattr(SyncVecEnv, "__parameters__", ())
    assert not getattr(AsyncVecEnv, "__parameters__", ())
    assert not getattr(ProcVecEnv, "__parameters__", ())
    venv = SyncVecEnv([lambda: sekai.make("CartPole-v1")] * 2)
    assert venv.reset(seed=0).observations.shape == (2, 4)
    assert venv.step(np.array([0, 1])).rewards.tolist() == [1.0, 1.0]
    venv.close()


# -- what a type checker sees ---------------------------------------------------------------

_SAMPLE = textwrap.dedent(
    """
    from collections.abc import Mapping, Sequence
    from typing import Any

    import numpy as np
    from numpy.typing import NDArray

    import sekai
    from sekai.vector import VecActionWrapper, VecObservationWrapper, VecRewardWrapper

    Obs = NDArray[np.float32]
    Act = NDArray[np.int64]


    class Counter(sekai.NativeVecEnv[Obs, Act]):
        def _reset_envs(self, indices: NDArray[np.intp], options: Sequence[Any]) -> None:
            pass

        def _observe(self) -> Obs:
            return np.zeros((self.num_envs, 1), dtype=np.float32)

        def _step(self, actions: Act) -> tuple[Any, Any, Any, Mapping[str, Any]]:
            return actions, actions > 0, actions < 0, {}


    class AsFloat64(VecObservationWrapper[NDArray[np.float64], Act, Obs]):
        def observation(self, batch: Obs) -> NDArray[np.float64]:
            return batch.astype(np.float64)


    class FromBools(VecActionWrapper[Obs, NDArray[np.bool_], Act]):
        def action(self, actions: NDArray[np.bool_]) -> Act:
            return actions.astype(np.int64)


    class Negated(VecRewardWrapper[Obs, Act]):
        def reward(self, rewards: NDArray[np.float64]) -> NDArray[np.float64]:
            return -rewards


    def check(venv: Counter, actions: Act, flags: NDArray[np.bool_]) -> None:
        reveal_type(venv.reset(seed=0))  # native reset
        reveal_type(venv.step(actions))  # native step
        reveal_type(venv.step(actions).observations)  # native observations
        reveal_type(AsFloat64(venv).step(actions).observations)  # observation wrapper
        reveal_type(FromBools(venv).step(flags))  # action wrapper
        reveal_type(Negated(venv).reset().observations)  # reward wrapper
        reveal_type(sekai.SyncVecEnv([]).reset().observations)  # sync backend
        venv.step("left")  # wrong actions
    """
)


@pytest.fixture(scope="module")
def mypy_report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """mypy's message for each commented line of ``_SAMPLE``, keyed by the comment."""
    api = pytest.importorskip("mypy.api")
    folder = tmp_path_factory.mktemp("typing")
    sample = folder / "vector_sample.py"
    sample.write_text(_SAMPLE)
    config = folder / "mypy.ini"
    config.write_text("[mypy]\ncheck_untyped_defs = True\n")
    stdout, stderr, _ = api.run(
        [
            str(sample),
            "--config-file",
            str(config),
            "--cache-dir",
            str(folder / "cache"),
            "--follow-imports",
            "silent",
            "--no-error-summary",
            "--hide-error-context",
        ]
    )
    labels = {
        number: line.split("# ", 1)[1]
        for number, line in enumerate(_SAMPLE.splitlines(), 1)
        if "  # " in line
    }
    report: dict[str, str] = {}
    for line in stdout.splitlines():
        found = re.match(rf"{re.escape(str(sample))}:(\d+): (.*)", line)
        assert found, f"unexpected mypy output: {line!r} ({stderr})"
        report[labels.get(int(found[1]), f"line {found[1]}")] = found[2]
    return report


def _floats(revealed: str, bits: int) -> bool:
    """Whether ``revealed`` names the float type of ``bits`` bits (numpy spells it two ways)."""
    return f"numpy.float{bits}" in revealed or f"_{bits}Bit" in revealed


def _revealed(report: dict[str, str], label: str) -> str:
    message = report[label]
    assert message.startswith("note: Revealed type is "), message
    return message.removeprefix("note: Revealed type is ")


@pytest.mark.tools  # CI's sb3 run, which has the dev extra, selects it
def test_mypy_sees_the_native_batch_types(mypy_report):
    reset = _revealed(mypy_report, "native reset")
    assert reset.startswith('"sekai.vector.result.VecResetResult[numpy.ndarray[')
    assert _floats(reset, 32)
    step = _revealed(mypy_report, "native step")
    assert step.startswith('"sekai.vector.result.VecStepResult[numpy.ndarray[')
    assert _floats(step, 32)
    observations = _revealed(mypy_report, "native observations")
    assert observations.startswith('"numpy.ndarray[') and _floats(observations, 32)


@pytest.mark.tools
def test_mypy_sees_the_wrapper_batch_types(mypy_report):
    assert _floats(_revealed(mypy_report, "observation wrapper"), 64)
    acting = _revealed(mypy_report, "action wrapper")
    assert acting.startswith('"sekai.vector.result.VecStepResult[') and _floats(acting, 32)
    assert _floats(_revealed(mypy_report, "reward wrapper"), 32)


@pytest.mark.tools
def test_mypy_reports_actions_of_the_wrong_type(mypy_report):
    message = mypy_report["wrong actions"]
    assert message.startswith('error: Argument 1 to "step"') and "[arg-type]" in message


def test_unsubscripted_backends_are_any_to_mypy(mypy_report):
    assert _revealed(mypy_report, "sync backend") == '"Any"'
    assert set(mypy_report) == {
        "native reset",
        "native step",
        "native observations",
        "observation wrapper",
        "action wrapper",
        "reward wrapper",
        "sync backend",
        "wrong actions",
    }
