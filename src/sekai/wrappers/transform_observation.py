"""gymnasium's ``wrappers.transform_observation`` module path to the matching sekai wrappers."""

from sekai.wrappers.observation import (
    DtypeObservation,
    FilterObservation,
    FlattenObservation,
    RescaleObservation,
    TransformObservation,
)

__all__ = [
    "DtypeObservation",
    "FilterObservation",
    "FlattenObservation",
    "RescaleObservation",
    "TransformObservation",
]
