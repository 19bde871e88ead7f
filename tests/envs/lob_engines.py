"""A fixture that runs every test of a module on both order-book engines."""

from __future__ import annotations

import pytest

from sekai.finance.lob import engine as engines


@pytest.fixture(autouse=True, params=["numba", "python"])
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The engine ``engine="auto"`` picks: numba when it is installed, else python."""
    if request.param == "numba":
        pytest.importorskip("numba")
    else:
        monkeypatch.setattr(engines, "numba_installed", lambda: False)
    return str(request.param)
