"""``sekai info/check/bench ID KEY=VALUE ...``: keyword arguments for the env, the episode
length and reward that ``info`` shows, subcommand usage on a bad option, and plausible
"Did you mean" suggestions."""

from __future__ import annotations

import argparse
from typing import Any

import pytest

import sekai
from sekai.cli import _keyword, main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def usage_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """The stderr of a command line that argparse refuses (exit status 2)."""
    with pytest.raises(SystemExit) as exc:
        main(list(argv))
    assert exc.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    return err


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str, dict[str, Any]]]:
    """Records every ``sekai.make`` and ``sekai.make_vec`` call: (function, id, kwargs)."""
    seen: list[tuple[str, str, dict[str, Any]]] = []
    make, make_vec = sekai.make, sekai.make_vec

    def spy_make(id: str, **kwargs: Any) -> Any:
        seen.append(("make", id, kwargs))
        return make(id, **kwargs)

    def spy_make_vec(id: str, **kwargs: Any) -> Any:
        seen.append(("make_vec", id, kwargs))
        return make_vec(id, **kwargs)

    monkeypatch.setattr(sekai, "make", spy_make)
    monkeypatch.setattr(sekai, "make_vec", spy_make_vec)
    return seen


# --- KEY=VALUE ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "pair"),
    [
        ("n_assets=10", ("n_assets", 10)),
        ("cost=0.001", ("cost", 0.001)),
        ("flag=True", ("flag", True)),
        ("seed=None", ("seed", None)),
        ("weights=[0.5, 0.5]", ("weights", [0.5, 0.5])),
        ("pair=(1, 2)", ("pair", (1, 2))),
        ("options={'a': 1}", ("options", {"a": 1})),
        ("name='quoted'", ("name", "quoted")),
        ("name=plain", ("name", "plain")),
        ("sampler=random", ("sampler", "random")),
        ("empty=", ("empty", "")),
        ("formula=a=b", ("formula", "a=b")),
        ("date=2020-01-02", ("date", "2020-01-02")),
        # never evaluated: kept as the text it is
        ("code=__import__('os').getcwd()", ("code", "__import__('os').getcwd()")),
        ("sum=1+2j", ("sum", 1 + 2j)),
    ],
)
def test_values_are_python_literals_else_text(text: str, pair: tuple[str, Any]) -> None:
    assert _keyword(text) == pair
    assert type(_keyword(text)[1]) is type(pair[1])


@pytest.mark.parametrize("text", ["plain", "=1", "1x=2", "a-b=3", "a b=1"])
def test_a_word_that_is_not_key_value_is_refused(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="expected KEY=VALUE"):
        _keyword(text)


def test_bench_passes_keyword_arguments_to_the_env(
    capsys: pytest.CaptureFixture[str], calls: list[tuple[str, str, dict[str, Any]]]
) -> None:
    code, out, _ = run(capsys, "bench", "Portfolio-v0", "n_assets=10", "--steps", "20")
    assert code == 0 and out.startswith("Portfolio-v0 [single env]: 20 env steps in ")
    assert calls == [("make", "Portfolio-v0", {"n_assets": 10})]


def test_keyword_arguments_may_follow_the_options(
    capsys: pytest.CaptureFixture[str], calls: list[tuple[str, str, dict[str, Any]]]
) -> None:
    code, out, _ = run(
        capsys,
        "bench",
        "Portfolio-v0",
        "--steps",
        "10",
        "n_assets=3",
        "--num-envs",
        "4",
        "episode_length=30",
    )
    assert code == 0 and out.startswith("Portfolio-v0 [PortfolioVecEnv x4]: 40 env steps in ")
    assert calls == [
        (
            "make_vec",
            "Portfolio-v0",
            {
                "num_envs": 4,
                "vectorization_mode": None,
                "vector_kwargs": None,
                "n_assets": 3,
                "episode_length": 30,
            },
        )
    ]


def test_check_passes_keyword_arguments_to_the_env(
    capsys: pytest.CaptureFixture[str], calls: list[tuple[str, str, dict[str, Any]]]
) -> None:
    argv = ("check", "CartPole-v1", "sutton_barto_reward=True", "--steps", "20")
    code, out, _ = run(capsys, *argv)
    assert (code, out) == (0, "CartPole-v1: all checks passed.\n")
    assert calls[0] == ("make", "CartPole-v1", {"sutton_barto_reward": True})


def test_info_shows_the_env_made_with_the_keyword_arguments(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "info", "Portfolio-v0", "n_assets=10", "episode_length=50")
    assert code == 0
    lines = out.splitlines()
    assert "kwargs={'n_assets': 10, 'episode_length': 50}" in lines
    assert "action_space=Box(0.0, 1.0, (11,), float32)" in lines
    assert "episode_length=at most 50 steps" in lines


def test_a_value_the_env_refuses_is_an_error_naming_it(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "check", "Portfolio-v0", "n_assets=ten")
    assert (code, out) == (2, "")
    assert err == (
        "error: Portfolio-v0 with n_assets='ten': n_assets must be an int, got str 'ten'.\n"
    )
    # info prints the registry entry first, as it always has, then the error.
    code, out, err = run(capsys, "info", "Portfolio-v0", "n_assets=ten")
    assert code == 2
    assert out.splitlines()[0] == "id=Portfolio-v0"
    assert "kwargs={'n_assets': 'ten'}" in out.splitlines()
    assert err.startswith("error: Portfolio-v0 with n_assets='ten': ")
    code, _, err = run(capsys, "bench", "CartPole-v1", "colour=3", "--num-envs", "2")
    assert code == 2
    assert err.startswith("error: CartPole-v1 with colour=3: ")
    assert "colour" in err.split(": ", 2)[2]


def test_a_key_given_twice_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    err = usage_error(capsys, "bench", "Portfolio-v0", "n_assets=4", "--steps", "5", "n_assets=5")
    assert err.startswith("usage: sekai bench ")
    assert err.endswith("sekai bench: error: argument KEY=VALUE: n_assets given more than once\n")


def test_a_word_that_is_not_key_value_gets_the_usage(capsys: pytest.CaptureFixture[str]) -> None:
    err = usage_error(capsys, "info", "MountainCar-v0", "foo")
    assert err == (
        "usage: sekai info [-h] env_id [KEY=VALUE ...]\n"
        "sekai info: error: argument KEY=VALUE: expected KEY=VALUE with KEY a Python name, "
        "got 'foo'\n"
    )


# --- a bad option gets the subcommand's usage --------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "usage", "unknown"),
    [
        (
            ("info", "CartPole-v1", "--bogus"),
            "usage: sekai info [-h] env_id [KEY=VALUE ...]\n",
            "--bogus",
        ),
        (
            ("check", "CartPole-v1", "--stpes", "5"),
            "usage: sekai check [-h] [--steps STEPS]",
            "--stpes",
        ),
        (
            ("bench", "CartPole-v1", "n=1", "--threads", "4"),
            "usage: sekai bench [-h] [--steps STEPS]",
            "--threads",
        ),
        (("list", "--bogus"), "usage: sekai list [-h] [--namespace NAMESPACE]\n", "--bogus"),
        (("list", "x=1"), "usage: sekai list [-h] [--namespace NAMESPACE]\n", "x=1"),
    ],
)
def test_a_bad_option_gets_the_subcommands_usage(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], usage: str, unknown: str
) -> None:
    err = usage_error(capsys, *argv)
    assert err.startswith(usage)
    assert err.endswith(f"sekai {argv[0]}: error: unrecognized arguments: {unknown}\n")


def test_the_global_usage_is_unchanged(capsys: pytest.CaptureFixture[str]) -> None:
    err = usage_error(capsys, "--bogus", "list")
    assert err.startswith("usage: sekai [-h] [--version] [-m MODULE] {list,info,check,bench} ...")


# --- info: episode length and reward -----------------------------------------------------------

INFO = {
    "Acrobot-v1": (
        "at most 500 steps (TimeLimit)",
        "-1 per step and 0 on the terminal step, reached when -cos t1 - cos(t1 + t2) > 1",
    ),
    "CartPole-v1": (
        "at most 500 steps (TimeLimit)",
        "+1 per step, the terminating one included (with sutton_barto_reward: 0 per step, -1 "
        "on termination)",
    ),
    "LimitOrderBook-v0": (
        "at most 300 steps",
        "change of marked-to-mid wealth minus inventory_penalty·q²·dt",
    ),
    "Market-v0": ("at most 252 steps", "LogReturn()"),
    "MarketMaking-v0": (
        "at most 200 steps",
        "ΔW - ½·risk_aversion·sigma²·dt·q² with wealth W = cash + q·mid",
    ),
    "MarketMaking-v1": (
        "at most 200 steps",
        "order_size·(p_b·δ_b + p_a·δ_a) - ½·risk_aversion·sigma²·dt·E[q'²], the expected step "
        "reward given the state and the quotes",
    ),
    "MountainCar-v0": ("at most 200 steps (TimeLimit)", "-1 per step"),
    "MountainCarContinuous-v0": (
        "at most 999 steps (TimeLimit)",
        "100 on reaching the goal minus 0.1 * action**2 every step (unclipped action)",
    ),
    "OptimalExecution-v0": (
        "at most 25 steps",
        "(basis points of the arrival notional) 1e4·(n(S̃ - s0) - λ·sigma²·τ·x²)/(X0·s0)",
    ),
    "Pendulum-v1": (
        "at most 200 steps (TimeLimit)",
        "-(angle_normalize(theta)**2 + 0.1 theta_dot**2 + 0.001 u**2)",
    ),
    "Portfolio-v0": ("at most 252 steps", "LogReturn()"),
    "Trading-v0": ("at most 252 steps", "LogReturn()"),
    "MarketDiscrete-v0": ("at most 252 steps", "LogReturn()"),
    "OptimalExecution-v1": (
        "at most 25 steps",
        "(percent) 100·(-n(epsilon + eta·n/tau) - gamma·n·x - λ·sigma²·τ·x²)/(X0·s0), the "
        "expected step gain given the state and the action",
    ),
    "Portfolio-v1": (
        "at most 252 steps",
        "the step's expected log return given the state and the action, costs included, minus "
        "that of the equal-weight portfolio, over its per-step variance",
    ),
    "Trading-v1": (
        "at most 252 steps",
        "the step's expected log return given the state and the action, costs included, minus "
        "that of holding the asset, over its per-step variance",
    ),
}


def test_every_built_in_env_has_its_line() -> None:
    assert set(INFO) == {spec.id for spec in sekai.all_specs() if spec.namespace is None}


@pytest.mark.parametrize("env_id", sorted(INFO))
def test_info_shows_episode_length_and_reward(
    capsys: pytest.CaptureFixture[str], env_id: str
) -> None:
    code, out, _ = run(capsys, "info", env_id)
    length, reward = INFO[env_id]
    lines = out.splitlines()
    assert code == 0
    at = lines.index(next(line for line in lines if line.startswith("action_space=")))
    assert lines[at + 1 : at + 3] == [f"episode_length={length}", f"reward={reward}"]


def test_info_reports_the_episode_length_the_env_will_have(
    capsys: pytest.CaptureFixture[str],
) -> None:
    lines = {
        argv: run(capsys, "info", *argv)[1].splitlines()
        for argv in [
            ("Trading-v0", "max_episode_steps=100"),
            ("CartPole-v1", "max_episode_steps=-1"),
            ("LimitOrderBook-v0", "session_length=30.0", "decision_interval=0.5"),
        ]
    }
    assert [
        next(line for line in out if line.startswith("episode_length=")) for out in lines.values()
    ] == [
        "episode_length=at most 100 steps (its own length 252, TimeLimit 100)",
        "episode_length=no set length (the environment ends the episode)",
        "episode_length=at most 60 steps",
    ]


def test_info_shows_the_reward_function_given(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "info", "Trading-v0", "reward=None")
    assert code == 0 and "reward=LogReturn()" in out.splitlines()


class _Silent(sekai.Env[int, int]):
    def __init__(self) -> None:
        self.observation_space = sekai.Discrete(2)
        self.action_space = sekai.Discrete(2)

    def reset(self, *, seed: Any = None, options: Any = None) -> Any:
        return sekai.ResetResult(0, {})

    def step(self, action: Any) -> Any:
        return sekai.StepResult(0, 0.0, False, False, {})


def test_info_says_when_an_env_describes_neither(capsys: pytest.CaptureFixture[str]) -> None:
    sekai.register("cli/Silent-v0", _Silent)
    try:
        code, out, _ = run(capsys, "info", "cli/Silent-v0")
    finally:
        sekai.deregister("cli/Silent-v0")
    assert code == 0
    assert out.splitlines()[-2:] == [
        "episode_length=no set length (the environment ends the episode)",
        "reward=not described (see _Silent's documentation)",
    ]


# --- Did you mean ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("asked", "suggested"),
    [
        ("CartPole-v0", "'CartPole-v1'"),  # used to offer 'Market-v0' too
        ("Cartpole-v1", "'CartPole-v1'"),
        ("CartPol-v1", "'CartPole-v1'"),
        ("Pendulum-v0", "'Pendulum-v1'"),
        ("MountainCar-v1", "'MountainCar-v0'"),
        ("OrderBook-v0", "'LimitOrderBook-v0'"),
        ("Markt-v0", "'Market-v0'"),
    ],
)
def test_unknown_ids_get_plausible_suggestions(
    capsys: pytest.CaptureFixture[str], asked: str, suggested: str
) -> None:
    code, out, err = run(capsys, "info", asked)
    assert (code, out) == (2, "")
    assert err == (
        f"error: Environment '{asked}' is not in the registry. Did you mean: {suggested}? "
        "See sekai.all_specs() or `sekai list` for the registered ids.\n"
    )


def test_an_id_like_none_gets_no_suggestion(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "info", "Blackjack-v1")
    assert code == 2 and "Did you mean" not in err
