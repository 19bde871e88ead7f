"""Fixtures shared by several test folders."""

from __future__ import annotations

import pytest

from sekai.finance.lob import engine as engines


@pytest.fixture(params=["numba", "python"])
def order_book_engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The order-book engine ``engine="auto"`` picks: numba when it is installed, else python.

    A module runs every test on both with ``pytestmark = pytest.mark.usefixtures(...)``.
    """
    if request.param == "numba":
        pytest.importorskip("numba")
    else:
        monkeypatch.setattr(engines, "numba_installed", lambda: False)
    return str(request.param)
