"""The op registry: (type, opset) -> op class. Modules register themselves with `@register`."""

from __future__ import annotations

import importlib
import pkgutil
import re
from dataclasses import dataclass
from typing import TypeVar, cast

from irpool.ops.base import KNOWN_OPSETS, Op
from irpool.ops.opsets import extension_op, reader_refusal

OpClass = TypeVar("OpClass", bound=type[Op])
FamilyOp = TypeVar("FamilyOp", bound=Op)

_BY_TYPE: dict[str, list[type[Op]]] = {}
_OPSET = re.compile(r"opset([1-9][0-9]*)\Z")  # as OpenVINO spells it: no "01", ASCII only


def register(cls: OpClass) -> OpClass:
    _BY_TYPE.setdefault(cls.type_name.lower(), []).append(cls)
    return cls


def register_member(
    base: type[FamilyOp], class_name: str, module: str, attributes: dict[str, object]
) -> type[FamilyOp]:
    """Register the class of one member of a family generated from its table row: a subclass
    of `base` named `class_name` in `module`, with `attributes` (type_name, version, ...)."""
    member = type(class_name, (base,), {**attributes, "__module__": module})
    return register(cast("type[FamilyOp]", member))


@dataclass(frozen=True, slots=True)
class Lookup:
    """The op class for a layer, or why there is none."""

    op: type[Op] | None
    # The type as the op spells it, when the layer's spelling differs only in case.
    canonical_type: str | None = None
    # None: irpool does not model the type; otherwise the reason the runtime rejects it.
    error: str | None = None
    # Why OpenVINO's IR reader cannot create the layer at all, modelled or not.
    refused: str | None = None
    # The extension library without which the reader cannot create it (openvino_tokenizers).
    extension: str | None = None


def lookup(type_name: str, version: str) -> Lookup:
    _load_all()
    refused = reader_refusal(type_name, version)
    family = _BY_TYPE.get(type_name.lower())
    extension = extension_op(type_name, version)
    if extension is not None:
        return Lookup(None, extension=extension)
    if family is None:
        return Lookup(None, refused=refused)
    spellings = {cls.type_name for cls in family}
    canonical = type_name if type_name in spellings else family[0].type_name
    match = _OPSET.match(version)
    opset = int(match.group(1)) if match else None
    if opset is None or opset not in KNOWN_OPSETS:
        known = f"opset1..opset{KNOWN_OPSETS[-1]}"
        blanks = _blanks_around(version)
        if blanks is not None:
            known = f"OpenVINO matches the name exactly, and this one has {blanks}"
        return Lookup(None, canonical, f'"{version}" is not an opset OpenVINO knows ({known})')
    for cls in family:
        if opset in cls.opsets:
            if refused is not None:  # a spelling the reader matches only exactly
                return Lookup(None, refused=refused)
            return Lookup(cls, canonical)
    return Lookup(None, canonical, f"{version} has no {canonical}; {_available(family)}")


def registered_ops() -> list[type[Op]]:
    """Every op class irpool models, each version."""
    _load_all()
    return [cls for family in _BY_TYPE.values() for cls in family]


def _blanks_around(version: str) -> str | None:
    """The blanks around an otherwise known opset name, shown: "' ' after it"."""
    name = version.strip()
    match = _OPSET.match(name)
    if name == version or match is None or int(match.group(1)) not in KNOWN_OPSETS:
        return None
    leading, trailing = version[: version.index(name)], version[version.index(name) + len(name) :]
    parts = [f"{leading!r} before it"] * bool(leading) + [f"{trailing!r} after it"] * bool(trailing)
    return " and ".join(parts)


def _available(family: list[type[Op]]) -> str:
    spans = ", ".join(
        f"{cls.label()} in opset{cls.opsets[0]}..opset{cls.opsets[-1]}" for cls in family
    )
    return f"it exists as {spans}"


_loaded = False


# The modules of this package that declare no op. Op modules import what they need of them;
# `convert_fold` needs NumPy, which validating a model without constants never loads.
SHARED_MODULES = frozenset(
    {
        "base",
        "explanation",
        "registry",
        "opsets",
        "pooling",
        "pooling_geometry",
        "folding",
        "convert_fold",
        "bounds",
    }
)


def op_modules() -> list[str]:
    """Every op module of this package: a new op needs no list to edit."""
    import irpool.ops as package

    return [
        f"irpool.ops.{module.name}"
        for module in pkgutil.iter_modules(package.__path__)
        if module.name not in SHARED_MODULES
    ]


def _load_all() -> None:
    global _loaded
    if _loaded:
        return
    for name in op_modules():
        importlib.import_module(name)
    _loaded = True
