"""The user guide builds with ``mkdocs build --strict``: no broken links, anchors or nav entries."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.tools  # CI's sb3 run, which has the dev extra, selects them

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(
    any(importlib.util.find_spec(name) is None for name in ("mkdocs", "mkdocstrings")),
    reason="mkdocs or mkdocstrings is not installed (the docs extra)",
)
def test_mkdocs_build_strict(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    built = {path.parent.name for path in tmp_path.glob("*/index.html")}
    pages = {path.stem for path in (ROOT / "docs").glob("*.md")} - {"index"}
    assert pages <= built, f"pages missing from the site: {sorted(pages - built)}"


def test_every_page_is_in_the_nav() -> None:
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    for page in sorted((ROOT / "docs").glob("*.md")):
        assert f": {page.name}" in config, f"{page.name} is not in the nav of mkdocs.yml"
