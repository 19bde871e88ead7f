"""A kit for native vector envs built on one single env, the ``template``.

``TemplateVecEnv`` builds ``template = env_class(**kwargs)``, so validation, spaces and
parameters are the single env's, and keeps the state of every sub-env in arrays with a
leading ``num_envs`` axis. Each parameter is a ``Param`` declared in the class body: it reads
and writes the template's attribute, so all sub-envs share it and the batched dynamics read it
from the template on every step. ``float_actions`` and ``replace_rows`` are the array helpers
such envs share.
"""

from __future__ import annotations

from typing import Any, ClassVar, Generic, TypeVar

import numpy as np
from numpy.typing import NDArray

from sekai.core.env import Env
from sekai.error import InvalidAction
from sekai.vector.native import NativeVecEnv
from sekai.vector.vec_env import VecEnv, per_env_values

__all__ = ["Param", "TemplateVecEnv", "float_actions", "replace_rows"]

EnvT = TypeVar("EnvT", bound=Env[Any, Any])


class Param:
    """A parameter of ``template``, shared by every sub-env of a ``TemplateVecEnv``.

    Declared in the class body (``sigma = Param()``); reading or writing ``vec.sigma`` reads
    or writes ``vec.template.sigma``. ``Param(reason)`` is read-only: assigning it raises
    ``AttributeError`` quoting ``reason``. On the class itself it gives the single env class's
    attribute of that name when there is one (so ``MarketMakingVecEnv.metadata`` is
    ``MarketMakingEnv.metadata``), else the descriptor.
    """

    __slots__ = ("name", "reason")

    def __init__(self, reason: str | None = None) -> None:
        self.name = ""
        self.reason = reason

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: TemplateVecEnv[Any] | None, objtype: type | None = None) -> Any:
        if obj is None:
            return getattr(getattr(objtype, "env_class", None), self.name, self)
        return getattr(obj.template, self.name)

    def __set__(self, obj: TemplateVecEnv[Any], value: Any) -> None:
        self.check_writable(obj)
        setattr(obj.template, self.name, value)

    def check_writable(self, obj: TemplateVecEnv[Any]) -> None:
        """Raise ``AttributeError`` if this parameter is read-only."""
        if self.reason is not None:
            raise AttributeError(f"{type(obj).__name__}.{self.name} is read-only: {self.reason}.")


def _same_value(a: Any, b: Any) -> bool:
    """Equality for ``set_attr`` lists: identity, else element-wise with NaN equal to NaN."""
    if a is b:
        return True
    try:
        return bool(np.array_equal(a, b, equal_nan=True))
    except (TypeError, ValueError):
        pass  # no NaN test for the dtype (objects, strings): compare without it
    try:
        return bool(np.array_equal(a, b))
    except Exception:
        return False


class TemplateVecEnv(NativeVecEnv, Generic[EnvT]):
    """A native vector env whose parameters are those of one single env, ``template``.

    ``TemplateVecEnv(num_envs, *, autoreset=True, max_episode_steps=None, **kwargs)`` builds
    ``template = env_class(**kwargs)``, takes its spaces and calls ``_allocate()``. Subclasses
    set ``env_class``, declare each parameter as a ``Param`` class attribute, create their
    state arrays in ``_allocate`` and implement the ``NativeVecEnv`` hooks; ``metadata`` is
    one already (read-only: the single env class's). For parameters, ``get_attr``/``call``
    give ``[value] * num_envs`` and ``set_attr`` takes one value, or a ``num_envs``-long list
    of equal values (``ValueError`` for different ones); other names follow ``NativeVecEnv``.
    """

    env_class: ClassVar[type[Env[Any, Any]]]
    template: EnvT
    metadata = Param("it describes the environment class")

    def __init__(
        self,
        num_envs: int,
        *,
        autoreset: bool = True,
        max_episode_steps: int | None = None,
        **kwargs: Any,
    ) -> None:
        template: Any = self.env_class(**kwargs)
        self.template = template
        super().__init__(
            num_envs,
            template.observation_space,
            template.action_space,
            autoreset=autoreset,
            max_episode_steps=max_episode_steps,
        )
        self._allocate()

    def _allocate(self) -> None:
        """Create the state arrays; called last in ``__init__``, with ``template`` and the
        spaces set (none by default)."""

    @classmethod
    def _param(cls, name: str) -> Param | None:
        """The ``Param`` declared as ``name`` on the class or a base, else None."""
        for klass in cls.__mro__:
            if name in klass.__dict__:
                member = klass.__dict__[name]
                return member if isinstance(member, Param) else None
        return None

    def get_attr(self, name: str) -> list[Any]:
        """Per-sub-env values of ``name``; a parameter gives ``[value] * num_envs``."""
        if self._param(name) is None:
            return super().get_attr(name)
        return [getattr(self, name)] * self.num_envs

    def call(self, name: str, *args: Any, **kwargs: Any) -> list[Any]:
        """Call ``name`` (or read it); a parameter's result is repeated for every sub-env."""
        if self._param(name) is None:
            return super().call(name, *args, **kwargs)
        member = getattr(self, name)
        return [member(*args, **kwargs) if callable(member) else member] * self.num_envs

    def set_attr(self, name: str, values: Any) -> None:
        """Set ``name``; a parameter takes one value or a list of ``num_envs`` equal values."""
        param = self._param(name)
        if param is None:
            super().set_attr(name, values)
            return
        param.check_writable(self)
        if isinstance(values, list):
            entries = per_env_values(name, values, self.num_envs)
            first = entries[0]
            if not all(_same_value(first, other) for other in entries[1:]):
                raise ValueError(
                    f"{type(self).__name__} shares {name!r} between all sub-envs, so "
                    f"set_attr({name!r}, values) needs equal values; for different values per "
                    "sub-env use make_vec(..., vectorization_mode='sync')."
                )
            values = first
        setattr(self, name, values)


def float_actions(
    vec: VecEnv[Any, Any], actions: Any, shape: tuple[int, ...]
) -> NDArray[np.float64]:
    """The batch ``actions`` of ``vec`` as a new finite float64 array of ``shape``.

    Any other shape, a non-numeric dtype or a NaN/inf entry raises ``InvalidAction`` with
    ``vec.batch_action_space``.
    """
    try:
        array = np.asarray(actions)
    except (TypeError, ValueError) as exc:
        raise InvalidAction(actions, vec.batch_action_space) from exc
    if array.shape != shape or array.dtype.kind not in "iuf":
        raise InvalidAction(actions, vec.batch_action_space)
    batch = array.astype(np.float64)
    if not np.isfinite(batch).all():
        raise InvalidAction(actions, vec.batch_action_space)
    return batch


def replace_rows(array: NDArray[Any], indices: NDArray[np.intp], value: Any) -> NDArray[Any]:
    """A copy of ``array`` with ``value`` at ``indices``, so arrays handed out stay intact."""
    result = array.copy()
    result[indices] = value
    return result
