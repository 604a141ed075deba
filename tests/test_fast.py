"""``sessiontools._fast.frozen`` makes classes that behave as ``dataclass(frozen=True,
slots=True)`` makes them: each class it made is compared with its twin from the standard
decorator (same fields, defaults and methods), on construction, ``repr``, ``==``, ``hash``,
frozen fields, pickling, copies, ``replace``, ``asdict``, signature and dataclass metadata."""

from __future__ import annotations

import copy
import dataclasses
import importlib
import inspect
import pickle
import pkgutil
from types import MappingProxyType
from typing import Any, ClassVar

import pytest

import sessiontools
from sessiontools import Usage
from sessiontools._fast import fast_maker, frozen

_GENERATED = {
    "__init__",
    "__repr__",
    "__eq__",
    "__hash__",
    "__setattr__",
    "__delattr__",
    "__getstate__",
    "__setstate__",
    "__match_args__",
    "__slots__",
    "__dataclass_fields__",
    "__dataclass_params__",
    "__weakref__",
    "__dict__",
}


def _made_by_frozen() -> list[type]:
    """Every class of the package that ``frozen`` made (its ``__hash__`` is ``_fast``'s)."""
    found = []
    for info in pkgutil.walk_packages(sessiontools.__path__, "sessiontools."):
        if info.name == "sessiontools.__main__":  # runs the command
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and value.__module__ == module.__name__
                and getattr(value.__hash__, "__module__", "") == "sessiontools._fast"
            ):
                found.append(value)
    return found


CLASSES = _made_by_frozen()


def test_the_package_defines_its_types_with_frozen() -> None:
    names = {c.__name__ for c in CLASSES}
    assert {"Entry", "Usage", "Message", "Run", "Turn", "Span", "ReadPosition"} <= names
    assert len(CLASSES) >= 30


def _twin(cls: type) -> Any:
    """The class the standard decorator makes of the same body."""
    namespace: dict[str, Any] = {
        "__annotations__": {f.name: f.type for f in dataclasses.fields(cls)},
        "__module__": cls.__module__,
        "__qualname__": cls.__qualname__,
    }
    for f in dataclasses.fields(cls):
        if f.default is not dataclasses.MISSING:
            namespace[f.name] = dataclasses.field(default=f.default, compare=f.compare, repr=f.repr)
        elif not (f.compare and f.repr):
            namespace[f.name] = dataclasses.field(compare=f.compare, repr=f.repr)
    for name, value in cls.__dict__.items():
        if (
            name not in _GENERATED
            and name not in namespace
            and name not in {f.name for f in dataclasses.fields(cls)}
        ):
            namespace[name] = value
    if "__eq__" in cls.__dict__ and cls.__eq__.__module__ != "sessiontools._fast":
        namespace["__eq__"] = cls.__eq__
    return dataclasses.dataclass(frozen=True, slots=True)(type(cls.__name__, (), namespace))


def _value(annotation: Any, variant: int) -> Any:
    """A value of a field's type (its annotation, a string), hashable."""
    text = str(annotation)
    if text.startswith("int") or text == "float":
        return 7 + variant
    if text.startswith("str"):
        return f"v{variant}"
    if text == "bool":
        return bool(variant)
    if text.startswith("bytes"):
        return b"\x00\x01" if variant else b"\x02"
    if text.startswith(("tuple", "Mapping")):
        return ("a", "b")[: variant + 1] if "str" in text else ()
    if text.startswith("Usage"):
        return Usage(1, 2, variant, 4)
    return None if variant else "raw"


def _args(cls: type, variant: int) -> list[Any]:
    return [_value(f.type, variant) for f in dataclasses.fields(cls)]


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__qualname__)
def test_each_class_behaves_as_the_standard_one(cls: type) -> None:
    twin = _twin(cls)
    assert inspect.signature(cls) == inspect.signature(twin)
    assert cls.__match_args__ == twin.__match_args__  # type: ignore[attr-defined]
    assert cls.__slots__ == twin.__slots__
    for attr in ("init", "repr", "eq", "order", "unsafe_hash", "frozen"):
        assert getattr(cls.__dataclass_params__, attr) == getattr(  # type: ignore[attr-defined]
            twin.__dataclass_params__, attr
        ), attr
    # every parameter this Python has (match_args, kw_only, slots... from 3.12 on)
    assert repr(cls.__dataclass_params__) == repr(twin.__dataclass_params__)  # type: ignore[attr-defined]
    assert [(f.name, f.default, f.compare, f.repr, f.type) for f in dataclasses.fields(cls)] == [
        (f.name, f.default, f.compare, f.repr, f.type) for f in dataclasses.fields(twin)
    ]
    a, b = (_args(cls, v) for v in (0, 1))
    for args in (a, b):
        mine, theirs = cls(*args), twin(*args)
        assert repr(mine) == repr(theirs)
        own_eq = cls.__eq__.__module__ != "sessiontools._fast"  # it names its class: not the twin
        assert mine == cls(*args) if own_eq else (mine == cls(*args)) == (theirs == twin(*args))
        assert mine.__eq__(object()) is NotImplemented
        try:
            expected_hash: Any = hash(theirs)
        except TypeError as e:
            with pytest.raises(TypeError, match=str(e)):
                hash(mine)
        else:
            assert hash(mine) == expected_hash
        for name in (f.name for f in dataclasses.fields(cls)):
            with pytest.raises(dataclasses.FrozenInstanceError, match=name):
                setattr(mine, name, 1)
            with pytest.raises(dataclasses.FrozenInstanceError, match=name):
                delattr(mine, name)
        assert repr(pickle.loads(pickle.dumps(mine))) == repr(mine)
        assert pickle.loads(pickle.dumps(mine)) == mine or repr(mine).count("nan")
        assert copy.copy(mine) == mine and copy.deepcopy(mine) == mine
        assert dataclasses.asdict(mine) == dataclasses.asdict(theirs)
        assert dataclasses.replace(mine) == mine
        assert fast_maker(cls)(*args) == mine
        # the compiled __init__ keeps the signature the lazy one announced
        assert inspect.signature(cls) == inspect.signature(twin)
    if cls.__eq__.__module__ == "sessiontools._fast":
        assert (cls(*a) == cls(*b)) == (twin(*a) == twin(*b))
        assert (cls(*a) != cls(*b)) == (twin(*a) != twin(*b))


def test_defaults_keywords_and_errors_as_the_standard_init() -> None:
    assert Usage() == Usage(0, 0, 0, 0) and Usage(output_tokens=3).output_tokens == 3
    with pytest.raises(TypeError):
        Usage(1, 2, 3, 4, 5)
    with pytest.raises(TypeError):
        Usage(nope=1)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Usage(1, input_tokens=1)  # type: ignore[misc]


def test_the_first_construction_compiles_init_once() -> None:
    @frozen
    class Point:
        """A point."""

        x: int
        y: int = 2

    lazy = Point.__init__
    assert Point(1).y == 2
    compiled = Point.__init__
    assert compiled is not lazy
    assert Point(1, 3).y == 3 and Point.__init__ is compiled
    assert (
        repr(Point(x=1))
        == "test_the_first_construction_compiles_init_once.<locals>.Point(x=1, y=2)"
    )


def test_a_recursive_repr_is_cut_as_the_standard_one() -> None:
    @frozen
    class Box:
        """A box."""

        inside: Any

    items: list[Any] = []
    box = Box(items)
    items.append(box)
    assert repr(box).endswith("Box(inside=[...])")


@pytest.mark.parametrize(
    "body",
    [
        {"__annotations__": {"x": "list[int]"}, "x": dataclasses.field(default_factory=list)},
        {"__annotations__": {"x": "int"}, "x": dataclasses.field(default=1, init=False)},
        {"__annotations__": {"x": "int"}, "__post_init__": lambda self: None},
        {"__annotations__": {"x": "int"}, "__init__": lambda self: None},
    ],
)
def test_what_frozen_does_not_make_is_refused(body: dict[str, Any]) -> None:
    with pytest.raises(TypeError, match="@frozen"):
        frozen(type("C", (), {"__doc__": "C.", **body}))


def test_what_the_standard_decorator_checks_is_checked_and_the_rest_is_left_to_it() -> None:
    """``frozen`` makes the slotted class itself (``_slotted``) and refuses what the standard
    decorator refuses; a class variable (``ClassVar``), a base or non-string annotations go
    to the standard decorator, which treats them as it does."""
    with pytest.raises(ValueError, match="mutable default"):
        frozen(type("C", (), {"__doc__": "C.", "__annotations__": {"x": "list[int]"}, "x": []}))
    with pytest.raises(TypeError, match="'y' is a field but has no type annotation"):
        frozen(
            type(
                "C",
                (),
                {"__doc__": "C.", "__annotations__": {"x": "int"}, "y": dataclasses.field()},
            )
        )

    @frozen
    class Counted:
        """A class variable is not a field."""

        made: ClassVar[int] = 0
        x: int = 1

    assert [f.name for f in dataclasses.fields(Counted)] == ["x"]
    assert Counted.made == 0 and Counted().x == 1 and Counted.__slots__ == ("x",)
    assert Counted.__match_args__ == ("x",)  # type: ignore[attr-defined]

    plain = frozen(type("P", (), {"__doc__": "P.", "__annotations__": {"x": int}, "x": 2}))
    assert plain().x == 2 and dataclasses.fields(plain)[0].type is int


def test_a_class_without_a_docstring_is_refused() -> None:
    with pytest.raises(TypeError, match="docstring"):
        frozen(type("C", (), {"__annotations__": {"x": "int"}}))


def test_mappings_and_nil_are_kept_as_given() -> None:
    pins = sessiontools.PinsEntry(MappingProxyType({"a": "1"}))
    assert pins.pins["a"] == "1" and pins == sessiontools.PinsEntry(MappingProxyType({"a": "1"}))


def test_fast_maker_compiles_its_constructor_on_the_first_call() -> None:
    """A maker is a stand-in until its first call (nothing compiled at import), which puts the
    compiled constructor's code in its place: later calls run that directly."""
    make = fast_maker(Usage)
    assert make.__code__.co_varnames == ("args",)
    assert make(1, 2, 3, 4) == Usage(1, 2, 3, 4)
    names = tuple(f.name for f in dataclasses.fields(Usage))
    assert make.__code__.co_varnames[: len(names)] == names
    made = make(5, 6, 7, 8)
    assert made == Usage(5, 6, 7, 8) and type(made) is Usage
    with pytest.raises(TypeError):
        make(1, 2, 3)  # every field, positionally, as before
    other = fast_maker(Usage)  # a maker of its own, still a stand-in
    assert other.__code__.co_varnames == ("args",) and other(0, 0, 0, 0) == Usage()


def test_fast_maker_makes_a_twin_then_the_class() -> None:
    """A maker sets the slots of a value of a twin class (no frozen ``__setattr__``) and then
    makes it a value of the class by assigning ``__class__``: a third of the time of calling
    each slot's ``__set__``. A class with a base of its own is made the slower way. Either
    way the value is the class's, equal to one its ``__init__`` makes, and frozen."""
    from sessiontools import Turn

    args = (1, 2, 3, "p", "m", "n", "s", Usage(1, 2, 3, 4), ("c1",), 0, 3600)
    make = fast_maker(Turn)
    turn = make(*args)
    assert "_twin" in make.__code__.co_names
    assert type(turn) is Turn and turn == Turn(*args) and hash(turn) == hash(Turn(*args))
    assert pickle.loads(pickle.dumps(turn)) == turn
    with pytest.raises(dataclasses.FrozenInstanceError):
        turn.seq = 2  # type: ignore[misc]

    @dataclasses.dataclass(frozen=True, slots=True)
    class Base:
        a: int

    @dataclasses.dataclass(frozen=True, slots=True)
    class Derived(Base):
        b: int = 0

    make_derived = fast_maker(Derived)
    derived = make_derived(1, 2)
    assert "_twin" not in make_derived.__code__.co_names
    assert type(derived) is Derived and derived == Derived(1, 2)
