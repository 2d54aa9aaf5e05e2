"""YAML files: reading one safely, and finding the built-in configs and editions.

Config and edition files are user input, so reading one is bounded: at most
``MAX_CONFIG_BYTES`` of UTF-8, at most ``MAX_YAML_NODES`` nodes (an alias
counts as a copy at each use, which stops "billion laughs" bombs while they
are still small), at most ``MAX_YAML_DEPTH`` levels, and no key twice in a
mapping. Every problem is a one-line ``ConfigError`` naming the file.

The built-in files ship inside the package (package data), so a bare name
such as ``classic`` works from any folder and from an installed wheel, not
only from a checkout.
"""

from __future__ import annotations

import codecs
import os
import stat
import threading
from collections.abc import Hashable
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node

from unosim.rules.errors import MAX_QUOTE, ConfigError, clip, quoted
from unosim.rules.limits import MAX_CONFIG_BYTES, MAX_YAML_DEPTH, MAX_YAML_NODES

__all__ = [
    "CONFIGS_DIR",
    "EDITIONS_DIR",
    "is_bare",
    "list_shipped",
    "parse_yaml",
    "read_yaml",
    "shipped_file",
]

# Found through the import system, never the checkout. A regular package
# installed from a wheel (or editable) lives on the file system, and configs
# need real paths: they name each other (``extends:``) and errors name files.
CONFIGS_DIR = Path(str(resources.files("unosim.rules") / "configs"))
EDITIONS_DIR = CONFIGS_DIR / "editions"


def is_bare(name: str) -> bool:
    """Whether ``name`` has no folder part, so it may name a built-in file."""
    return "/" not in name and os.sep not in name


def shipped_file(name: str, folder: Path = CONFIGS_DIR) -> Path | None:
    """The built-in file a bare name means (``stacking`` or ``stacking.yaml``), if any.

    >>> shipped_file("stacking").name, shipped_file("nope")
    ('stacking.yaml', None)
    """
    if not is_bare(name):
        return None
    for candidate in (folder / name, folder / f"{name}.yaml"):
        if os.path.isfile(candidate):  # False, not an error, for a name too long
            return candidate
    return None


def list_shipped(folder: Path = CONFIGS_DIR) -> list[str]:
    """Names of the built-in files in ``folder`` (configs by default, or ``EDITIONS_DIR``)."""
    return sorted(p.stem for p in folder.glob("*.yaml"))


class _Refused(yaml.YAMLError):
    """A well-formed document this reader will not take (its message is the whole story)."""


_MERGE_TAG = "tag:yaml.org,2002:merge"


class _BoundedLoader(yaml.SafeLoader):
    """``SafeLoader`` that counts nodes while composing and refuses duplicate keys.

    PyYAML shares an aliased node instead of copying it, so loading a bomb is
    cheap; what explodes is every later walk over the data (validation,
    ``repr``, merging). Counting each alias use as the size of its target
    bounds all of them.
    """

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._nodes = 0
        self._depth = 0
        self._aliased = False
        self._sizes: dict[str, int] = {}  # anchor -> nodes at and below it, aliases expanded

    def _count(self, n: int) -> None:
        self._nodes += n
        if self._nodes > MAX_YAML_NODES:
            what = "YAML aliases expand to" if self._aliased else "the YAML document has"
            raise _Refused(f"{what} more than {MAX_YAML_NODES} nodes")

    def compose_node(self, parent: Node | None, index: int) -> Node | None:
        # A node starts here, so the parser's next event is a node event, with its mark;
        # the stubs leave peek_event untyped.
        event: yaml.NodeEvent = self.peek_event()  # type: ignore[no-untyped-call]
        line = event.start_mark.line + 1 if event.start_mark else 0
        if isinstance(event, yaml.AliasEvent):
            if event.anchor in self.anchors:  # else the base class reports it undefined
                if event.anchor not in self._sizes:
                    raise _Refused(
                        f"YAML alias {quoted(event.anchor)} at line {line} "
                        "is used inside its own anchor"
                    )
                self._aliased = True
                self._count(self._sizes[event.anchor])
            return super().compose_node(parent, index)
        if self._depth >= MAX_YAML_DEPTH:
            raise _Refused(f"YAML nested more than {MAX_YAML_DEPTH} levels deep (line {line})")
        before = self._nodes
        self._depth += 1
        node = super().compose_node(parent, index)
        self._depth -= 1
        self._count(1)
        if event.anchor is not None:
            self._sizes[event.anchor] = self._nodes - before
        return node

    def construct_object(self, node: Node, deep: bool = False) -> Any:
        # int() of 5000 digits, or a timestamp in month 13, raises ValueError;
        # Python's advice after the ';' is for programmers.
        try:
            return super().construct_object(node, deep)
        except (ValueError, OverflowError) as exc:
            reason = str(exc).partition(";")[0]
            raise yaml.constructor.ConstructorError(
                None, None, f"cannot read this value: {reason}", node.start_mark
            ) from None

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Hashable, Any]:
        first_at: dict[Hashable, int] = {}  # key -> index of its first pair in node.value
        for i, (key_node, _) in enumerate(node.value):
            if key_node.tag == _MERGE_TAG:  # ``<<: *base`` keys may be overridden
                continue
            key = self.construct_object(key_node, deep=deep)
            try:
                first = first_at.setdefault(key, i)
            except TypeError:  # an unhashable key: the base class reports it
                continue
            if first != i:
                a, b = (n.start_mark.line + 1 for n in (node.value[first][0], key_node))
                where = f"lines {a} and {b}" if a != b else f"line {a}, twice"
                raise _Refused(f"duplicate key {quoted(key)} ({where})")
        return super().construct_mapping(node, deep)


def _decode(raw: bytes, path: Path) -> str:
    """UTF-8 text (a BOM is allowed); anything else is refused by name."""
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise ConfigError(path, None, "is UTF-16 (or UTF-32) text; save it as UTF-8")
    if b"\0" in raw:
        raise ConfigError(
            path, None, "holds NUL bytes: binary data or UTF-16 text, not UTF-8 YAML"
        )
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(
            path, None, f"is not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start})"
        ) from None


def _read_bytes(path: Path) -> bytes:
    """The file's bytes, if it is a regular file of at most ``MAX_CONFIG_BYTES``."""
    too_big = f"is larger than the {MAX_CONFIG_BYTES:,} bytes a config or edition may have"
    try:
        info = path.stat()
        if stat.S_ISDIR(info.st_mode):
            raise ConfigError(path, None, "is a directory, not a YAML file")
        if not stat.S_ISREG(info.st_mode):
            raise ConfigError(path, None, "is not a regular file")
        if info.st_size > MAX_CONFIG_BYTES:
            raise ConfigError(path, None, too_big)
        with path.open("rb") as f:
            raw = f.read(MAX_CONFIG_BYTES + 1)  # the file may have grown since stat
    except OSError as exc:
        raise ConfigError(path, None, f"cannot read file: {exc.strerror or exc}") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise ConfigError(path, None, too_big)
    return raw


# Documents already parsed, by their text: a config and its edition are read again and
# again in one command (a run's report replays its example games from their rules, and
# each replay loads the config and the edition), and PyYAML's pure-Python parser costs
# milliseconds a file. Only what parsed is kept; an error is raised anew every time.
_PARSED: dict[str, Any] = {}
_PARSED_MAX = 64  # documents kept (configs and editions are a few kB each)
_PARSED_LOCK = threading.Lock()


def _copy(data: Any) -> Any:
    """A fresh copy of parsed YAML (mappings, lists, scalars), so a caller that changes
    what it got never changes what the next caller gets."""
    if isinstance(data, dict):
        return {k: _copy(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_copy(v) for v in data]
    if isinstance(data, set):  # ``!!set``: its members are scalars
        return set(data)
    return data


def _load(text: str) -> Any:
    if text in _PARSED:
        return _copy(_PARSED[text])
    loader = _BoundedLoader(text)  # the reader refuses control characters at once
    try:
        data = loader.get_single_data()
    finally:
        loader.dispose()
    kept = _copy(data)
    with _PARSED_LOCK:  # configs may be read from several threads
        while len(_PARSED) >= _PARSED_MAX:
            _PARSED.pop(next(iter(_PARSED)))
        _PARSED[text] = kept
    return data


def parse_yaml(text: str, source: str | os.PathLike[str], key: str | None = None) -> Any:
    """The data of one YAML document, read within the bounds above.

    Every error is a one-line ``ConfigError`` naming ``source`` (and ``key``, for
    a ``--set`` value); no tag ever constructs a Python object.

    >>> parse_yaml("[1, {a: true}]", "inline")
    [1, {'a': True}]
    >>> parse_yaml("{a: 1, b: 2, a: 3}", "inline")
    Traceback (most recent call last):
    unosim.rules.errors.ConfigError: inline: duplicate key 'a' (line 1, twice)
    """
    try:
        return _load(text)
    except _Refused as exc:
        raise ConfigError(source, key, str(exc)) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        problem = clip(str(exc.problem or exc.context), 2 * MAX_QUOTE)
        raise ConfigError(source, key, f"malformed YAML: {where}{problem}") from None
    except yaml.reader.ReaderError as exc:
        line = text.count("\n", 0, exc.position) + 1
        raise ConfigError(
            source, key, f"malformed YAML: line {line}: character #x{exc.character:04x} "
            "is not allowed in YAML"
        ) from None
    except yaml.YAMLError as exc:
        raise ConfigError(source, key, f"malformed YAML: {clip(str(exc), 2 * MAX_QUOTE)}") from None


def read_yaml(path: Path) -> dict[str, Any]:
    """The mapping a config or edition file holds; any problem is a one-line ConfigError."""
    data = parse_yaml(_decode(_read_bytes(path), path), path)
    if data is None:
        raise ConfigError(path, None, "is empty: expected a mapping of keys")
    if not isinstance(data, dict):
        raise ConfigError(
            path,
            None,
            f"expected a mapping of keys at the top level, got {type(data).__name__}",
        )
    return data
