"""``sekai bench --mode native`` on an environment without a native vector version."""

from __future__ import annotations

import pytest

from sekai.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("env_id", ["CartPole-v1", "Pendulum-v1"])
def test_bench_native_names_the_bare_id_before_the_hint(
    capsys: pytest.CaptureFixture[str], env_id: str
) -> None:
    code, out, err = run(capsys, "bench", env_id, "--mode", "native", "--num-envs", "4")
    assert (code, out) == (2, "")
    assert err == (
        f"error: {env_id} has no native vector implementation; "
        "use --mode sync, async, proc or ray\n"
    )


def test_bench_native_checks_workers_first(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "bench", "CartPole-v1", "--mode", "native", "--workers", "2")
    assert (code, err) == (2, "error: --workers applies to --mode proc or ray only\n")


def test_bench_native_unknown_id_is_a_registry_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "bench", "CartPol-v1", "--mode", "native")
    assert code == 2 and err.startswith("error: Environment 'CartPol-v1' is not in the registry")


def test_bench_native_still_runs_an_env_that_has_one(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "bench", "MarketMaking-v0", "--mode", "native", "--steps", "5")
    assert code == 0 and out.startswith("MarketMaking-v0 [MarketMakingVecEnv x1]: 5 env steps")
