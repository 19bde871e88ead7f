"""Run the examples of the user guide (docs/*.md) and compare what they print.

Conventions a page follows (see docs/index.md, "About the examples"):

* Every ```` ```python ```` block is executed. The blocks of one page run in order in one
  namespace, in a fresh interpreter per page, so registrations and imports never leak from
  one page to another.
* A call ``print(...)  # text`` is checked: what it writes (without the final newline) must
  equal ``text`` exactly. A ``print`` without a trailing comment is run but not checked.
* A ```` ```console ```` block is a transcript of the command line: each ``$ sekai ...`` line is
  run (``sekai.cli.main`` in the page's interpreter) and its stdout and stderr together must
  equal the lines that follow it, up to the next ``$`` line.
* An HTML comment on the line just before a fence changes how the block is treated:
  ``<!-- docs-test: skip -->`` shows it without running it, and
  ``<!-- docs-test: requires NAME ... -->`` runs it only when every NAME is available: an
  importable module, a ``module.attribute``, or ``env:ID`` for a registered environment id.
  Such a block must not define names that later blocks use. A block skipped for a
  missing requirement is reported by ``test_optional_block`` as skipped.

Run one page by hand with ``python tests/docs/test_docs.py docs/PAGE.md [--keep-going]``.
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import importlib.util
import io
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import tokenize
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGES = sorted(DOCS.glob("*.md"))
PAGE_TIMEOUT = 180.0

_FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,})\s*(?P<info>[^`]*?)\s*$")
_MARKER = re.compile(r"^<!--\s*docs-test:\s*(?P<body>.*?)\s*-->\s*$")
_CHECK = "__docs_check__"
KEEP_GOING = False  # --keep-going: report every mismatch of a page instead of the first
_MISMATCHES: list[str] = []  # what --keep-going has seen so far


@dataclasses.dataclass(frozen=True)
class Block:
    """One fenced code block of a page."""

    page: str
    line: int  # 1-based line of the first line of code (just after the opening fence)
    language: str
    code: str
    skip: bool = False
    requires: tuple[str, ...] = ()

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


def parse_blocks(path: Path) -> list[Block]:
    """Every fenced code block of ``path``, with the marker that precedes it (if any)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        match = _FENCE.match(lines[i])
        if match is None:
            i += 1
            continue
        fence, info = match["fence"], match["info"]
        start = i + 1
        end = start
        while end < len(lines) and not (
            lines[end].startswith(fence) and lines[end].strip() == lines[end][: len(fence)]
        ):
            end += 1
        if end == len(lines):
            raise ValueError(f"{path.name}:{i + 1}: code block is never closed")
        skip, requires = False, ()
        previous = lines[i - 1].strip() if i > 0 else ""
        marker = _MARKER.match(previous)
        if marker is not None:
            words = marker["body"].split()
            if words == ["skip"]:
                skip = True
            elif len(words) > 1 and words[0] == "requires":
                requires = tuple(words[1:])
            else:
                raise ValueError(f"{path.name}:{i}: unknown docs-test marker {previous!r}")
        language = info.split()[0] if info else ""
        code = "\n".join(lines[start:end]) + "\n"
        blocks.append(Block(path.name, start + 1, language, code, skip, requires))
        i = end + 1
    return blocks


def _available(name: str) -> bool:
    """Whether a requirement is met: ``env:ID``, an importable module, or ``module.attribute``."""
    if name.startswith("env:"):
        import sekai

        return name[4:] in {spec.id for spec in sekai.all_specs()}
    try:
        if importlib.util.find_spec(name) is not None:
            return True
    except ImportError:
        return False
    module, _, attribute = name.rpartition(".")
    if not module:
        return False
    try:
        return hasattr(importlib.import_module(module), attribute)
    except ImportError:
        return False


def missing_requirements(block: Block) -> list[str]:
    """The requirements of ``block`` that are not available here."""
    return [name for name in block.requires if not _available(name)]


def expected_outputs(code: str) -> dict[int, str]:
    """``{line: text}`` for every line of ``code`` that ends with a ``# text`` comment."""
    comments = {}
    for token in tokenize.generate_tokens(io.StringIO(code).readline):
        if token.type == tokenize.COMMENT:
            comments[token.start[0]] = token.string[1:].removeprefix(" ")
    return comments


class _CheckPrints(ast.NodeTransformer):
    """Route each ``print(...)`` whose last line carries a comment through the checker."""

    def __init__(self, comments: dict[int, str], shift: int) -> None:
        self.comments = comments
        self.shift = shift  # from a line of the block to the line of the page
        self.checked: set[int] = set()

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        end = node.end_lineno
        if (
            isinstance(node.func, ast.Name)
            and node.func.id == "print"
            and end is not None
            and end in self.comments
        ):
            self.checked.add(end + self.shift)
            checker = ast.Name(id=_CHECK, ctx=ast.Load())
            line = ast.Constant(value=end + self.shift)
            return ast.copy_location(
                ast.Call(func=checker, args=[line, *node.args], keywords=node.keywords), node
            )
        return node


class DocsFailure(AssertionError):
    """An example printed something other than its comment says."""


def _make_checker(comments: dict[int, str], block: Block, seen: set[int]) -> Any:
    def check(line: int, *args: Any, **kwargs: Any) -> None:
        seen.add(line)
        buffer = io.StringIO()
        print(*args, **{**kwargs, "file": buffer})
        got = buffer.getvalue().removesuffix("\n")
        expected = comments[line]
        print(got)
        if got != expected:
            message = (
                f"{block.page}:{line}: printed\n    {got!r}\nbut the comment says\n    {expected!r}"
            )
            if not KEEP_GOING:
                raise DocsFailure(message)
            _MISMATCHES.append(message)
            print(message, file=sys.stderr)

    return check


def run_python(block: Block, namespace: dict[str, Any]) -> int:
    """Run a python block in ``namespace``; the number of checked ``print`` lines."""
    comments = expected_outputs(block.code)
    shift = block.line - 1
    tree = ast.parse(block.code, filename=block.where)
    transformer = _CheckPrints(comments, shift)
    tree = ast.fix_missing_locations(transformer.visit(tree))
    # Line numbers in tracebacks point into the page: shift them to the block's position.
    ast.increment_lineno(tree, shift)
    seen: set[int] = set()
    namespace[_CHECK] = _make_checker({k + shift: v for k, v in comments.items()}, block, seen)
    exec(compile(tree, str(DOCS / block.page), "exec"), namespace)
    checked = transformer.checked
    never = sorted(checked - seen)
    if never:
        raise DocsFailure(f"{block.page}:{never[0]}: this checked print never ran")
    return len(checked)


def _transcript(block: Block) -> Iterator[tuple[int, str, list[str]]]:
    """``(line, command, expected output lines)`` for each ``$`` line of a console block."""
    lines = block.code.splitlines()
    k = 0
    while k < len(lines):
        if not lines[k].startswith("$ "):
            raise DocsFailure(f"{block.page}:{block.line + k}: expected a '$ ' command line")
        command = lines[k][2:]
        output = []
        j = k + 1
        while j < len(lines) and not lines[j].startswith("$ "):
            output.append(lines[j])
            j += 1
        yield block.line + k, command, output
        k = j


def run_console(block: Block) -> None:
    from sekai.cli import main

    for line, command, expected in _transcript(block):
        argv = shlex.split(command)
        if argv[:1] == ["sekai"]:
            argv = argv[1:]
        elif argv[:3] == ["python", "-m", "sekai"]:
            argv = argv[3:]
        else:
            raise DocsFailure(f"{block.page}:{line}: only sekai commands can be checked")
        buffer = io.StringIO()
        with (
            contextlib.redirect_stdout(buffer),
            contextlib.redirect_stderr(buffer),
            contextlib.suppress(SystemExit),  # argparse exits on usage errors
        ):
            main(argv)
        got = buffer.getvalue().rstrip("\n").splitlines()
        if got != expected:
            shown = "\n".join(f"    {x}" for x in got)
            raise DocsFailure(f"{block.page}:{line}: `{command}` printed\n{shown}")


def run_page(path: Path) -> dict[str, Any]:
    """Run every block of the page ``path``; a report of what ran, what was skipped, and why."""
    report: dict[str, Any] = {"checked": 0, "blocks": 0, "skipped": [], "error": None}
    namespace: dict[str, Any] = {"__name__": "__main__"}
    for block in parse_blocks(path):
        if block.language not in ("python", "console") or block.skip:
            continue
        missing = missing_requirements(block)
        if missing:
            report["skipped"].append([block.line, missing])
            continue
        try:
            if block.language == "python":
                report["checked"] += run_python(block, namespace)
            else:
                report["checked"] += sum(1 for _ in _transcript(block))
                run_console(block)
        except DocsFailure as exc:
            report["error"] = str(exc)
            return report
        except BaseException:
            report["error"] = f"{block.where}: the example raised\n{traceback.format_exc()}"
            return report
        report["blocks"] += 1
    if _MISMATCHES:
        report["error"] = "\n".join(_MISMATCHES)
    return report


def _run_in_subprocess(page: Path) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as cwd:
        report_file = Path(cwd) / "report.json"
        proc = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), str(page), str(report_file)],
            cwd=cwd,
            env={**os.environ, "TMPDIR": cwd},  # a page's temporary files go with cwd
            capture_output=True,
            text=True,
            timeout=PAGE_TIMEOUT,
        )
        if proc.returncode != 0 or not report_file.exists():
            pytest.fail(f"{page.name}: the page runner failed\n{proc.stdout}\n{proc.stderr}")
        report: dict[str, Any] = json.loads(report_file.read_text())
    return report


_OUTSIDE_TEST_EXTRA = {
    "stable_baselines3": "sb3",
    "sb3_contrib": "sb3",
    "torch": "sb3",
    "quantstats": "quantstats",
}
"""What a block may require beyond the test extra, and the marker of its tests: CI's second
run (the sb3 and dev extras) selects the pages with such blocks."""


def _marks(blocks: list[Block]) -> list[pytest.MarkDecorator]:
    names = {_OUTSIDE_TEST_EXTRA[r] for b in blocks for r in b.requires if r in _OUTSIDE_TEST_EXTRA}
    return [getattr(pytest.mark, name) for name in sorted(names)]


@pytest.mark.parametrize(
    "page", [pytest.param(p, id=p.name, marks=_marks(parse_blocks(p))) for p in PAGES]
)
def test_page_examples(page: Path) -> None:
    report = _run_in_subprocess(page)
    if report["error"]:
        pytest.fail(report["error"], pytrace=False)


_OPTIONAL = [(page, block) for page in PAGES for block in parse_blocks(page) if block.requires]


@pytest.mark.parametrize(
    ("page", "block"),
    [pytest.param(page, block, id=block.where, marks=_marks([block])) for page, block in _OPTIONAL],
)
def test_optional_block(page: Path, block: Block) -> None:
    """Blocks that need an optional package run with their page; this reports the missing ones."""
    missing = missing_requirements(block)
    if missing:
        pytest.skip(f"{block.where} needs {', '.join(missing)}")


def test_markers_and_fences_parse() -> None:
    for page in PAGES:
        for block in parse_blocks(page):
            assert block.language, f"{block.where}: give every code block a language"


def test_docs_exist() -> None:
    assert PAGES, f"no pages found in {DOCS}"


_SELF_TEST_PAGE = """\
```python
x = 2
print(x + 1)  # 3
```

<!-- docs-test: skip -->
```python
raise RuntimeError("never run")
```

<!-- docs-test: requires no_such_module_for_docs -->
```python
raise RuntimeError("never run either")
```

```python
for i in range(2):
    print(x * i)  # 0
```
"""


def test_the_runner_checks_comments(tmp_path: Path) -> None:
    page = tmp_path / "self-test.md"
    page.write_text(_SELF_TEST_PAGE)
    report = run_page(page)
    assert report["checked"] == 1  # the block that failed is not counted
    assert report["skipped"] == [[13, ["no_such_module_for_docs"]]]
    # The loop prints 0, then 2: the second print does not match its comment.
    assert report["error"] is not None
    assert report["error"].startswith("self-test.md:18: printed\n    '2'")


def test_the_runner_reports_unrun_checks(tmp_path: Path) -> None:
    page = tmp_path / "unrun.md"
    page.write_text("```python\nif False:\n    print(1)  # 1\n```\n")
    assert run_page(page)["error"] == "unrun.md:3: this checked print never ran"


def test_the_runner_checks_console_transcripts(tmp_path: Path) -> None:
    page = tmp_path / "console.md"
    page.write_text("```console\n$ sekai info CartPole-v1\nid=CartPole-v2\n```\n")
    error = run_page(page)["error"]
    assert error is not None
    assert error.startswith("console.md:2: `sekai info CartPole-v1` printed")


if __name__ == "__main__":
    args = sys.argv[1:]
    if "--keep-going" in args:
        args.remove("--keep-going")
        KEEP_GOING = True
    page_report = run_page(Path(args[0]).resolve())
    if len(args) > 1:
        Path(args[1]).write_text(json.dumps(page_report))
    else:
        print(json.dumps(page_report, indent=2))
    sys.exit(0)
