"""The sekai command line."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

import sekai
from sekai.cli import build_parser, main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"sekai {sekai.__version__}"


def test_subcommand_required(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main([])
    assert exc.value.code == 2
    assert "usage: sekai" in capsys.readouterr().err


def test_list_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "list")
    assert code == 0
    lines = out.splitlines()
    width = max(len(s.id) for s in sekai.all_specs())
    assert lines[0] == f"{'ID':<{width}}  MAX STEPS  ENTRY POINT"
    row = next(line for line in lines if line.startswith("CartPole-v1 "))
    assert row == (
        f"{'CartPole-v1':<{width}}  {'500':>9}  sekai.envs.classic_control.cartpole:CartPoleEnv"
    )
    ids = [line.split()[0] for line in lines[1:]]
    assert ids == sorted(ids)


def test_list_namespace_filter(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "list", "--namespace", "nowhere")
    assert (code, out) == (0, "No environments in namespace 'nowhere'.\n")
    code, out, _ = run(capsys, "list", "--namespace", "")
    assert "CartPole-v1" in out


def test_info(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "info", "CartPole-v1")
    assert code == 0
    assert out.splitlines()[0] == "id=CartPole-v1"
    assert "max_episode_steps=500" in out
    assert "observation_space=Box([-4.8, -inf, -0.41887903, -inf]" in out
    assert "action_space=Discrete(2)" in out
    assert "metadata={'render_fps': 50}" in out
    assert out.rstrip().endswith("wrappers=TimeLimit -> CartPoleEnv")


def test_check_passes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "check", "Pendulum-v1", "--steps", "50", "--determinism")
    assert (code, out) == (0, "Pendulum-v1: all checks passed.\n")


def test_unknown_id_suggests(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "info", "CartPol-v1")
    assert code == 2
    assert err.startswith("error: ") and "Did you mean: 'CartPole-v1'" in err


@pytest.mark.parametrize(
    ("value", "message"),
    [("0", "must be a positive integer, got 0"), ("x", "invalid int value: 'x'")],
)
def test_bad_steps(capsys: pytest.CaptureFixture[str], value: str, message: str) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["check", "CartPole-v1", "--steps", value])
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_plugin_import(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plugin = tmp_path / "my_sekai_plugin.py"
    plugin.write_text(
        "import sekai\n"
        "sekai.register('plugin/Thing-v0', 'sekai.envs.classic_control.cartpole:CartPoleEnv')\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", ".")])
    try:
        code, out, _ = run(capsys, "-m", "my_sekai_plugin", "list", "--namespace", "plugin")
        assert code == 0 and "plugin/Thing-v0" in out
    finally:
        sekai.deregister("plugin/Thing-v0")


def test_missing_plugin(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "-m", "no_such_module_xyz", "list")
    assert code == 2
    assert err.startswith("error: could not import no_such_module_xyz:")


def test_parser_shape() -> None:
    usage = build_parser().format_usage()
    assert usage.startswith("usage: sekai [-h] [--version] [-m MODULE] {list,info,check,bench}")


BENCH_LINE = re.compile(
    r"^(?P<id>\S+) \[(?P<label>[^\]]+)\]: (?P<total>[\d,]+) env steps in \d+\.\d\ds "
    r"= [\d,]+ steps/s$"
)


def test_bench_single_env(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "bench", "CartPole-v1", "--steps", "200")
    match = BENCH_LINE.match(out.strip())
    assert code == 0 and match is not None
    assert (match["id"], match["label"], match["total"]) == ("CartPole-v1", "single env", "200")


def test_bench_vectorised_picks_native_by_default(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "bench", "MarketMaking-v0", "--steps", "50", "--num-envs", "64")
    match = BENCH_LINE.match(out.strip())
    assert code == 0 and match is not None
    assert (match["label"], match["total"]) == ("MarketMakingVecEnv x64", "3,200")


def test_bench_sync_mode(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "bench", "Pendulum-v1", "--steps", "20", "--num-envs", "3")
    match = BENCH_LINE.match(out.strip())
    assert code == 0 and match is not None and match["label"] == "SyncVecEnv x3"


@pytest.mark.usefixtures("local_ray")
def test_bench_ray_mode(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("ray")
    argv = ("bench", "CartPole-v1", "--mode", "ray", "--workers", "2", "--num-envs", "4")
    code, out, _ = run(capsys, *argv, "--steps", "20")
    match = BENCH_LINE.match(out.strip())
    assert code == 0 and match is not None
    assert (match["label"], match["total"]) == ("RayVecEnv x4", "80")


def test_bench_workers_need_proc(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "bench", "CartPole-v1", "--workers", "2")
    assert (code, err) == (2, "error: --workers applies to --mode proc or ray only\n")


def test_bench_native_without_vector_entry_point(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "bench", "CartPole-v1", "--mode", "native")
    assert code == 2
    assert err.startswith("error: ") and "no native vector implementation" in err


def test_bench_bad_seed(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["bench", "CartPole-v1", "--seed", "-1"])
    assert exc.value.code == 2
    assert "must be a non-negative integer, got -1" in capsys.readouterr().err
