"""Columns that only look like fields are refused, not traded as assets.

The cases: an investing.com export (``Date, Price, Open, High, Low, Vol., Change %``) whose
``frame[["Price", "Vol."]]`` traded the volume as a second asset, and a long CSV whose ticker
column is ``Code``, which failed with "'SPX' is not a number".
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sekai.finance.data import MarketData

pd = pytest.importorskip("pandas")

ROWS = 40


def _investing() -> Any:
    rng = np.random.default_rng(3)
    price = 3000.0 * np.exp(np.cumsum(rng.normal(0.0, 0.01, ROWS)))
    return pd.DataFrame(
        {
            "Price": price,
            "Open": price * 0.998,
            "High": price * 1.004,
            "Low": price * 0.995,
            "Vol.": rng.uniform(2e9, 4e9, ROWS),
            "Change %": rng.normal(0.0, 1.0, ROWS),
        },
        index=pd.bdate_range("2019-01-02", periods=ROWS, name="Date"),
    )


@pytest.mark.parametrize(
    "columns",
    [["Price", "Vol."], ["Price"], ["Vol."], ["Change %"], ["Price", "chg"], ["%"]],
)
def test_a_frame_of_field_lookalikes_is_refused(columns: list[str]) -> None:
    frame = _investing()
    frame = frame.assign(chg=frame["Change %"], **{"%": frame["Change %"]})
    with pytest.raises(ValueError, match="look like fields, not assets"):
        MarketData.from_pandas(frame[columns])


def test_the_refusal_gives_the_fix_and_the_fix_reads_one_asset() -> None:
    frame = _investing()
    with pytest.raises(ValueError) as caught:
        MarketData.from_pandas(frame[["Price", "Vol."]])
    message = str(caught.value)
    assert "frame.rename(columns={'Price': 'close', 'Vol.': 'volume'})" in message
    assert "price_field='Price'" in message
    with pytest.raises(ValueError, match=r"frame.drop\(columns=\['Change %'\]\)"):
        MarketData.from_pandas(frame)
    renamed = frame.rename(columns={"Price": "close", "Vol.": "volume"}).drop(columns="Change %")
    data = MarketData.from_pandas(renamed)
    assert data.n_assets == 1 and set(data.fields) == {"close", "open", "high", "low", "volume"}
    np.testing.assert_array_equal(data.prices[:, 0], frame["Price"].to_numpy())


def test_price_field_names_a_column_that_is_no_field_name() -> None:
    frame = _investing()
    both = frame[["Price", "Open"]].rename(columns={"Open": "Volume"})
    data = MarketData.from_pandas(both, price_field="Price")
    assert data.price_field == "price" and data.n_assets == 1
    assert list(data.fields) == ["price", "volume"]
    np.testing.assert_array_equal(data.prices[:, 0], frame["Price"].to_numpy())
    alone = MarketData.from_pandas(frame[["Price"]], price_field="Price")
    np.testing.assert_array_equal(alone.prices[:, 0], frame["Price"].to_numpy())
    with pytest.raises(ValueError, match=r"'Vol.'.*volume"):
        MarketData.from_pandas(frame[["Price", "Vol."]], price_field="Price")


def test_asset_columns_are_still_assets() -> None:
    frame = _investing()
    tickers = pd.DataFrame(
        {"SPX": frame["Price"], "PRICELN": frame["Open"], "VOLV": frame["Low"]},
        index=frame.index,
    )
    assert MarketData.from_pandas(tickers).assets == ("SPX", "PRICELN", "VOLV")


def _long_csv(path: Path) -> Path:
    dates = pd.bdate_range("2020-01-02", periods=10).strftime("%Y-%m-%d")
    rows = [
        f"{day},{code},{base + k}"
        for k, day in enumerate(dates)
        for code, base in (("SPX", 3200.0), ("NDX", 8800.0))
    ]
    path.write_text("Date,Code,Close\n" + "\n".join(rows) + "\n")
    return path


def test_a_long_csv_with_another_ticker_column_name_gets_the_option(tmp_path: Path) -> None:
    path = _long_csv(tmp_path / "indices.csv")
    with pytest.raises(ValueError, match=r"column 'Code' holds text .*asset='Code'"):
        MarketData.read_csv(path)
    data = MarketData.read_csv(path, asset="Code")
    assert data.assets == ("NDX", "SPX") and data.n_steps == 10
    assert data.prices[0].tolist() == [8800.0, 3200.0]


def test_a_long_parquet_with_another_ticker_column_name_gets_the_option(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    frame = pd.read_csv(_long_csv(tmp_path / "indices.csv"))
    path = tmp_path / "indices.parquet"
    frame.to_parquet(path, index=False)
    with pytest.raises(ValueError, match=r"column 'Code' holds text .*asset='Code'"):
        MarketData.read_parquet(path)
    assert MarketData.read_parquet(path, asset="Code").assets == ("NDX", "SPX")


def test_a_bad_number_in_a_wide_file_still_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "SPX.csv"
    path.write_text("Date,Close\n2020-01-02,3257.85\n2020-01-03,x\n2020-01-06,3246.28\n")
    with pytest.raises(ValueError, match=r"line 3, column 'Close': 'x' is not a number"):
        MarketData.read_csv(path)
