"""Walk-forward evaluation: folds, the stitched out-of-sample series, and no look-ahead."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import sekai
from sekai.finance import MarketData, WalkForward, walk_forward

pd = pytest.importorskip("pandas")

LOOKBACK = 10


def _data(rows: int = 700, seed: int = 0) -> MarketData:
    rng = np.random.default_rng(seed)
    prices = 100.0 * np.exp(np.cumsum(rng.normal(0.0002, 0.01, size=(rows, 3)), axis=0))
    index = pd.bdate_range("2016-01-01", periods=rows)
    return MarketData.from_pandas(pd.DataFrame(prices, index=index, columns=["A", "B", "C"]))


def make_env(data: MarketData) -> Any:
    return sekai.make(
        "Portfolio-v0", data=data, lookback=LOOKBACK, episode_length=len(data) - LOOKBACK - 1
    )


class Momentum:
    """Fits nothing: holds the asset with the best mean return in the observed window."""

    def __call__(self, obs: Any) -> Any:
        scores = np.zeros(4)
        scores[int(np.argmax(obs["returns"].mean(axis=0)))] = 1.0
        return scores


class RecordingFit:
    """A fit that plays one full episode of its train env and keeps all it saw."""

    def __init__(self) -> None:
        self.seen: list[bytes] = []

    def __call__(self, env: Any) -> Any:
        obs, info = env.reset(seed=0)
        env.action_space.seed(0)
        parts = [obs["returns"].tobytes(), repr(info).encode()]
        done = False
        while not done:
            obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
            parts += [obs["returns"].tobytes(), np.float64(reward).tobytes(), repr(info).encode()]
            done = terminated or truncated
        parts.append(env.unwrapped.history.data.prices.tobytes())
        self.seen.append(b"".join(parts))
        return Momentum()


def test_five_folds_give_five_rows_and_one_stitched_series_over_the_test_rows() -> None:
    data = _data()
    result = walk_forward(
        data, make_env, lambda env: Momentum(), train_size=200, test_size=90, progress=False
    )
    assert isinstance(result, WalkForward)
    assert len(result.folds) == 5 and len(result.table) == 5
    assert list(result.table.index) == [0, 1, 2, 3, 4]
    index = result.returns.index
    assert isinstance(index, pd.DatetimeIndex)
    assert index.is_monotonic_increasing and index.is_unique
    # Fold k decides at rows a .. a+89 (a = 200 + 90k) and earns at rows a+1 .. a+90.
    rows = np.concatenate([np.arange(201 + 90 * k, 291 + 90 * k) for k in range(5)])
    np.testing.assert_array_equal(index.to_numpy(), data.timestamps[rows])
    np.testing.assert_array_equal(result.table["periods"].to_numpy(), 90)
    assert result.table["test_start"].tolist() == list(index[::90])
    stitched = np.cumprod(1.0 + result.returns.to_numpy())
    np.testing.assert_allclose(result.equity.to_numpy()[1:], stitched, rtol=1e-13)
    assert result.equity.index[0] == data.timestamps[200]
    assert result.summary.n_periods == 450


def test_no_test_row_is_visible_to_fit() -> None:
    data = _data(rows=560, seed=4)
    kwargs: dict[str, Any] = {"train_size": 200, "test_size": 80, "progress": False}
    reference = RecordingFit()
    base = walk_forward(data, make_env, reference, **kwargs)
    first_test_rows = [200 + 80 * k for k in range(len(base.folds))]
    for k, row in enumerate(first_test_rows):
        prices = data.prices.copy()
        prices[row:] *= np.exp(np.random.default_rng(k).normal(0.0, 0.05, prices[row:].shape))
        perturbed = MarketData(prices, timestamps=data.timestamps, assets=data.assets)
        probe = RecordingFit()
        again = walk_forward(perturbed, make_env, probe, **kwargs)
        # Every fit up to fold k saw exactly what it saw before the test rows changed.
        assert probe.seen[: k + 1] == reference.seen[: k + 1]
        # The perturbation does reach fold k's out-of-sample returns.
        assert not np.array_equal(
            again.folds[k].backtest.returns.to_numpy(), base.folds[k].backtest.returns.to_numpy()
        )


def test_expanding_embargo_and_step_move_the_folds() -> None:
    data = _data()
    result = walk_forward(
        data,
        make_env,
        lambda env: Momentum(),
        train_size=150,
        test_size=50,
        step=100,
        embargo=5,
        expanding=True,
        progress=False,
    )
    trains = [fold.train for fold in result.folds]
    assert all(t.timestamps[0] == data.timestamps[0] for t in trains)
    assert [len(t) for t in trains] == [150 + 100 * k for k in range(len(trains))]
    for k, fold in enumerate(result.folds):
        first = 150 + 100 * k + 5
        assert fold.backtest.returns.index[0] == data.timestamps[first + 1]
        assert fold.train.timestamps[-1] < data.timestamps[first]
    assert result.returns.index.is_monotonic_increasing


def test_bad_arguments_are_refused() -> None:
    data = _data(rows=300)

    def fit(env: Any) -> Any:
        return Momentum()

    with pytest.raises(ValueError, match="overlapping test periods"):
        walk_forward(data, make_env, fit, train_size=100, test_size=50, step=20)
    with pytest.raises(ValueError, match="no fold fits"):
        walk_forward(data, make_env, fit, train_size=250, test_size=60)
    with pytest.raises(TypeError, match="MarketData"):
        walk_forward(data.prices, make_env, fit, train_size=100, test_size=50)

    def everything(d: MarketData) -> Any:  # ignores the fold's data
        return make_env(data)

    with pytest.raises(ValueError, match="build the env on the data it is given"):
        walk_forward(data, everything, fit, train_size=100, test_size=50, progress=False)
    with pytest.raises(TypeError, match="sekai Env"):
        walk_forward(data, lambda d: "env", fit, train_size=100, test_size=50)


def test_plot_marks_every_fold(tmp_path: Any) -> None:
    pytest.importorskip("PIL")
    result = walk_forward(
        _data(), make_env, lambda env: Momentum(), train_size=200, test_size=90, progress=False
    )
    frame = result.plot(tmp_path / "folds.png")
    assert frame.dtype == np.uint8 and frame.shape[2] == 3
    assert (tmp_path / "folds.png").stat().st_size > 0
