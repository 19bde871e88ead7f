"""The ``sekai`` command line."""

from __future__ import annotations

import argparse
import ast
import importlib
import inspect
import math
import os
import re
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

__all__ = ["build_parser", "main"]


def _int_parser(low: int, words: str) -> Callable[[str], int]:
    """An argparse ``type`` taking an int ``>= low`` (``words`` names that range)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"invalid int value: '{text}'") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be a {words} integer, got {value}")
        return value

    return parse


_positive_int = _int_parser(1, "positive")
_non_negative_int = _int_parser(0, "non-negative")
_QUIET_HELP = "no progress bar (one is drawn only on a terminal: stderr, else stdout)"
_KWARGS_HELP = (
    "keyword arguments for the environment, such as n_assets=10: each VALUE is read as a "
    "Python literal (10, 0.5, True, None, 'text', [1, 2]), else kept as text"
)
_T = TypeVar("_T")


def _keyword(text: str) -> tuple[str, Any]:
    """``KEY=VALUE`` as ``(KEY, VALUE)``: VALUE a Python literal if it reads as one, else text."""
    key, equals, value = text.partition("=")
    if not equals or not key.isidentifier():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE with KEY a Python name, got '{text}'")
    try:
        return key, ast.literal_eval(value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return key, value


class _Command(argparse.ArgumentParser):
    """A subcommand's parser. It takes ``KEY=VALUE`` words after its options too (argparse
    ends the positional arguments at the first option) and reports every word it does not
    know with its own usage."""

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        parsed, extras = super().parse_known_args(args, namespace)
        takes_keywords = hasattr(parsed, "kwargs")
        unknown = [word for word in extras if not takes_keywords or word.startswith("-")]
        if unknown:
            self.error(f"unrecognized arguments: {' '.join(unknown)}")
        if takes_keywords:
            pairs = list(parsed.kwargs)
            for word in extras:
                try:
                    pairs.append(_keyword(word))
                except argparse.ArgumentTypeError as exc:
                    self.error(f"argument KEY=VALUE: {exc}")
            keys = [key for key, _ in pairs]
            twice = sorted({key for key in keys if keys.count(key) > 1})
            if twice:
                self.error(f"argument KEY=VALUE: {', '.join(twice)} given more than once")
            parsed.kwargs = dict(pairs)
        return parsed, []


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``sekai`` command."""
    from sekai._version import __version__

    parser = argparse.ArgumentParser(
        prog="sekai", description="Inspect and check sekai environments."
    )
    parser.add_argument("--version", action="version", version=f"sekai {__version__}")
    parser.add_argument(
        "-m",
        "--import",
        dest="modules",
        action="append",
        default=[],
        metavar="MODULE",
        help="import MODULE first, so that the environments it registers are available",
    )
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Command)

    listing = commands.add_parser("list", help="list the registered environments")
    listing.add_argument("--namespace", help="only this namespace ('' for none)")

    info = commands.add_parser(
        "info", help="show an environment's spec, spaces, episode length and reward"
    )
    info.add_argument("env_id")
    info.add_argument("kwargs", nargs="*", type=_keyword, metavar="KEY=VALUE", help=_KWARGS_HELP)

    check = commands.add_parser("check", help="run check_env on an environment")
    check.add_argument("env_id")
    check.add_argument("kwargs", nargs="*", type=_keyword, metavar="KEY=VALUE", help=_KWARGS_HELP)
    check.add_argument("--steps", type=_positive_int, default=500)
    check.add_argument("--determinism", action="store_true", help="also compare two rollouts")
    check.add_argument("--strict", action="store_true", help="fail on warnings too")
    check.add_argument("--quiet", action="store_true", help=_QUIET_HELP)

    bench = commands.add_parser("bench", help="time random steps of an environment")
    bench.add_argument("env_id")
    bench.add_argument("kwargs", nargs="*", type=_keyword, metavar="KEY=VALUE", help=_KWARGS_HELP)
    bench.add_argument("--steps", type=_positive_int, default=10000, help="timed calls")
    bench.add_argument("--num-envs", type=_positive_int, default=1, help="sub-envs per call")
    bench.add_argument(
        "--mode",
        choices=("auto", "native", "sync", "async", "proc", "ray"),
        default="auto",
        help="vectorisation mode (auto: native when the env has one, else sync)",
    )
    bench.add_argument(
        "--workers", type=_positive_int, default=None, help="worker processes of proc or ray"
    )
    bench.add_argument("--seed", type=_non_negative_int, default=0)
    bench.add_argument("--quiet", action="store_true", help=_QUIET_HELP)
    return parser


def _import_modules(modules: Sequence[str]) -> None:
    if modules and os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError as exc:
            if exc.name is None:  # raised by hand in the module: name the module itself
                exc.name = name
            raise


def _list(namespace: str | None) -> int:
    import sekai

    specs = sorted(sekai.all_specs(), key=lambda s: s.id)
    if namespace is not None:
        specs = [s for s in specs if (s.namespace or "") == namespace]
    if not specs:
        if namespace is None:
            print("No environments registered.")
        else:
            print(f"No environments in namespace '{namespace}'.")
        return 0
    width = max(len("ID"), *(len(s.id) for s in specs))
    print(f"{'ID':<{width}}  {'MAX STEPS':>9}  ENTRY POINT")
    for s in specs:
        steps = "-" if s.max_episode_steps is None else str(s.max_episode_steps)
        entry = s.entry_point if isinstance(s.entry_point, str) else repr(s.entry_point)
        suffix = "  [native vec]" if s.vector_entry_point is not None else ""
        print(f"{s.id:<{width}}  {steps:>9}  {entry}{suffix}")
    return 0


def _shown(kwargs: dict[str, Any]) -> str:
    return ", ".join(f"{key}={value!r}" for key, value in kwargs.items())


def _built(env_id: str, kwargs: dict[str, Any], build: Callable[[], _T]) -> _T:
    """``build()``; with ``kwargs`` given, a ``TypeError`` or ``ValueError`` it raises becomes
    a ``SekaiError`` that names them (main prints it as a command-line error)."""
    from sekai.error import SekaiError

    try:
        return build()
    except (TypeError, ValueError) as exc:
        if not kwargs:
            raise
        raise SekaiError(f"{env_id} with {_shown(kwargs)}: {exc}") from exc


def _episode_length(env: Any) -> str:
    """The most steps an episode runs: the env's own length (``episode_length`` or
    ``n_steps``) and the time limits of its wrappers."""
    import sekai

    own = getattr(env.unwrapped, "episode_length", getattr(env.unwrapped, "n_steps", None))
    if not isinstance(own, int) or isinstance(own, bool):
        own = None
    layers = list(env) if isinstance(env, sekai.Wrapper) else [env]
    limits = [layer.max_episode_steps for layer in layers if isinstance(layer, sekai.TimeLimit)]
    limit = min(limits, default=None)
    if own is None and limit is None:
        return "no set length (the environment ends the episode)"
    if limit is None:
        return f"at most {own:,} steps"
    if own is None:
        return f"at most {limit:,} steps (TimeLimit)"
    return f"at most {min(own, limit):,} steps (its own length {own:,}, TimeLimit {limit:,})"


_SENTENCE = re.compile(r"(?<=[.;])\s+")
_REWARD = re.compile(r"reward\b:?\s*", re.IGNORECASE)


def _reward(env: Any) -> str:
    """The reward: the env's ``reward_description``, else its ``reward_fn``, else what its
    class docstring says of it."""
    unwrapped = env.unwrapped
    described = getattr(unwrapped, "reward_description", None)
    if isinstance(described, str):
        return described
    function = getattr(unwrapped, "reward_fn", None)
    if function is not None:
        return repr(function)
    doc = " ".join((inspect.getdoc(type(unwrapped)) or "").split())
    for clause in _SENTENCE.split(doc):
        match = _REWARD.match(clause)
        if match:
            return clause[match.end() :].rstrip(".;").replace("``", "")
    return f"not described (see {type(unwrapped).__name__}'s documentation)"


def _info(env_id: str, kwargs: dict[str, Any]) -> int:
    import dataclasses

    import sekai

    found = sekai.spec(env_id)
    given = {key: value for key, value in kwargs.items() if key != "max_episode_steps"}
    print(dataclasses.replace(found, kwargs={**found.kwargs, **given}).pprint())
    with _built(env_id, kwargs, lambda: sekai.make(env_id, **kwargs)) as env:
        print(f"observation_space={env.observation_space!r}")
        print(f"action_space={env.action_space!r}")
        print(f"episode_length={_episode_length(env)}")
        print(f"reward={_reward(env)}")
        if env.metadata:
            print(f"metadata={env.metadata}")
        if isinstance(env, sekai.Wrapper):
            print("wrappers=" + " -> ".join(type(layer).__name__ for layer in env))
    return 0


def _check(
    env_id: str,
    kwargs: dict[str, Any],
    steps: int,
    determinism: bool,
    strict: bool,
    quiet: bool,
) -> int:
    import sekai
    from sekai.utils.progress import Progress

    env = _built(env_id, kwargs, lambda: sekai.make(env_id, **kwargs))
    with env, Progress(label=env_id, enabled=not quiet) as bar:

        def report(done: int, total: int) -> None:
            if bar.total != total:
                bar.total = total
            bar.update(done - bar.done)

        issues = sekai.check_env(
            env,
            n_steps=steps,
            check_determinism=determinism,
            progress=report if bar.active else None,
        )
    for issue in issues:
        print(issue)
    if not issues:
        print(f"{env_id}: all checks passed.")
    failed = any(issue.startswith("ERROR") for issue in issues) or (strict and bool(issues))
    return 1 if failed else 0


def _bench(args: argparse.Namespace) -> int:
    import sekai
    from sekai.utils.progress import Progress

    if args.workers is not None and args.mode not in ("proc", "ray"):
        print("error: --workers applies to --mode proc or ray only", file=sys.stderr)
        return 2
    if args.mode == "native" and sekai.spec(args.env_id).vector_entry_point is None:
        print(
            f"error: {args.env_id} has no native vector implementation; "
            "use --mode sync, async, proc or ray",
            file=sys.stderr,
        )
        return 2
    steps: int = args.steps
    kwargs: dict[str, Any] = args.kwargs
    warmup = min(steps // 10, 100)
    step: Callable[[], Any]
    if args.num_envs > 1 or args.mode not in ("auto", "sync"):
        try:
            vec = _built(
                args.env_id,
                kwargs,
                lambda: sekai.make_vec(
                    args.env_id,
                    num_envs=args.num_envs,
                    vectorization_mode=None if args.mode == "auto" else args.mode,
                    vector_kwargs={"num_workers": args.workers} if args.workers else None,
                    **kwargs,
                ),
            )
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        closer: Callable[[], None] = vec.close
        sample = vec.batch_action_space.sample
        label = f"{type(vec).__name__} x{args.num_envs}"

        def start() -> None:
            vec.reset(seed=args.seed)
            vec.batch_action_space.seed(args.seed)

        def step() -> Any:
            return vec.step(sample())

    else:
        env = _built(args.env_id, kwargs, lambda: sekai.make(args.env_id, **kwargs))
        closer = env.close
        env_sample = env.action_space.sample
        label = "single env"

        def start() -> None:
            env.reset(seed=args.seed)
            env.action_space.seed(args.seed)

        def step() -> Any:
            if env.step(env_sample()).done:
                env.reset()

    try:
        start()
        for _ in range(warmup):
            step()
        with Progress(steps, args.env_id, enabled=not args.quiet) as bar:
            chunk = max(steps // 100, 1)  # update the bar every chunk steps: the loop stays bare
            began = time.perf_counter()
            for first in range(0, steps, chunk):
                size = min(chunk, steps - first)
                for _ in range(size):
                    step()
                bar.update(size)
            elapsed = time.perf_counter() - began
    finally:
        closer()
    total = steps * args.num_envs
    rate = total / elapsed if elapsed > 0 else math.inf
    print(f"{args.env_id} [{label}]: {total:,} env steps in {elapsed:.2f}s = {rate:,.0f} steps/s")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    from sekai.error import SekaiError

    args = build_parser().parse_args(argv)
    try:
        _import_modules(args.modules)
        if args.command == "list":
            return _list(args.namespace)
        if args.command == "info":
            return _info(args.env_id, args.kwargs)
        if args.command == "bench":
            return _bench(args)
        return _check(
            args.env_id, args.kwargs, args.steps, args.determinism, args.strict, args.quiet
        )
    except SekaiError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except ImportError as exc:
        print(f"error: could not import {exc.name}: {exc}", file=sys.stderr)
        return 2
