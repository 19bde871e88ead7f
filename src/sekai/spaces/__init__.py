"""Spaces: the sets that observations and actions live in."""

from __future__ import annotations

from sekai.spaces import utils as utils
from sekai.spaces.box import Box
from sekai.spaces.dict import Dict
from sekai.spaces.discrete import Discrete
from sekai.spaces.masked_box import MaskedBox
from sekai.spaces.multi_binary import MultiBinary
from sekai.spaces.multi_discrete import MultiDiscrete
from sekai.spaces.sequence import Sequence
from sekai.spaces.space import Space
from sekai.spaces.tuple import Tuple
from sekai.spaces.utils import (
    batch_space,
    concatenate,
    flatdim,
    flatten,
    flatten_space,
    iterate,
    register_space_type,
    space_from_jsonable,
    unflatten,
    zero_sample,
)

__all__ = [
    "Space",
    "Box",
    "Discrete",
    "MultiDiscrete",
    "MultiBinary",
    "Dict",
    "Tuple",
    "Sequence",
    "MaskedBox",
    "flatdim",
    "flatten",
    "unflatten",
    "flatten_space",
    "batch_space",
    "concatenate",
    "iterate",
    "space_from_jsonable",
    "register_space_type",
    "zero_sample",
]
