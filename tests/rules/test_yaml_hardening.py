"""Hostile config and edition files (issue 10): each is a one-line ConfigError,
produced in bounded time and memory, and no YAML tag ever runs code."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from unosim.rules.config import ConfigError, load_config, name_slug, validate_config
from unosim.rules.editions import load_edition
from unosim.rules.errors import MAX_MESSAGE, quoted
from unosim.rules.limits import (
    MAX_CONFIG_BYTES,
    MAX_NAME_LENGTH,
    MAX_ROUNDS,
    MAX_SLUG_LENGTH,
    MAX_TARGET,
    MAX_TURNS,
    MAX_YAML_DEPTH,
    MAX_YAML_NODES,
)
from unosim.rules.yamlio import EDITIONS_DIR

CLASSIC_EDITION = (EDITIONS_DIR / "classic.yaml").read_text()


def write(path: Path, text: str | bytes) -> Path:
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def error(path: Path, *overrides: str, file: str = "") -> str:
    """The message ``load_config`` fails with: one line, naming the file at fault
    (``file``, by default ``path``), of bounded length."""
    with pytest.raises(ConfigError) as exc:
        load_config(path, overrides)
    msg = str(exc.value)
    assert "\n" not in msg and "\r" not in msg
    assert (file or path.name) in msg, msg
    assert len(msg) <= MAX_MESSAGE + 200, msg
    return msg


def list_bomb() -> str:
    """A 'billion laughs' list: 9 levels of 9 aliases, 9**9 strings once expanded."""
    lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for i in range(1, 9):
        lines.append(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]")
    return "\n".join(lines) + "\n"


def mapping_bomb() -> str:
    """The same with mappings: 10 levels of 6 aliases, each under its own key."""
    lines = ["m0: &m0 {x: 1, y: 2, z: 3, w: 4}"]
    for i in range(1, 11):
        pairs = ", ".join(f"k{j}: *m{i - 1}" for j in range(6))
        lines.append(f"m{i}: &m{i} {{{pairs}}}")
    return "\n".join(lines) + "\n"


# --- alias bombs: a subprocess, bounded in time and memory ----------------------------
PROBE = """
import sys
from unosim.rules.config import ConfigError, load_config
try:
    load_config(sys.argv[1], sys.argv[2:])
    print("loaded")
except ConfigError as exc:
    print(exc)
# VmHWM, not ru_maxrss: Linux carries ru_maxrss over from the forking parent
# (a pytest process of several hundred MB) across exec; VmHWM is this image's own.
print(next(line.split()[1] for line in open("/proc/self/status") if line.startswith("VmHWM")))
"""


def _cpu_limit() -> None:
    """In the child: SIGXCPU (a failed test) after 5 s of CPU."""
    resource.setrlimit(resource.RLIMIT_CPU, (5, 6))


def load_in_child(path: Path, *overrides: str) -> str:
    """What loading ``path`` prints in a fresh process that must finish within 5 s of CPU
    under 500 MB (a CPU limit, not a wall-clock one: a busy machine slows the child, it does
    not make it do more work; the wall-clock timeout only stops a hung child)."""
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, str(path), *overrides],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        preexec_fn=_cpu_limit,
    )
    assert proc.returncode == 0, proc.stderr
    message, rss_kib = proc.stdout.splitlines()
    assert int(rss_kib) < 500 * 1024, f"peak RSS {int(rss_kib) // 1024} MB"
    return message


def bomb_as_config(tmp: Path) -> tuple[Path, tuple[str, ...]]:
    return write(tmp / "bomb.yaml", list_bomb()), ()


def mapping_bomb_as_config(tmp: Path) -> tuple[Path, tuple[str, ...]]:
    return write(tmp / "bomb.yaml", mapping_bomb()), ()


def bomb_in_extends_parent(tmp: Path) -> tuple[Path, tuple[str, ...]]:
    write(tmp / "bomb.yaml", mapping_bomb())
    return write(tmp / "child.yaml", "extends: bomb.yaml\nplayers: 3\n"), ()


def bomb_in_edition_file(tmp: Path) -> tuple[Path, tuple[str, ...]]:
    write(tmp / "bomb.yaml", CLASSIC_EDITION + list_bomb())
    return write(tmp / "cfg.yaml", "edition: bomb.yaml\n"), ()


def bomb_in_set_value(tmp: Path) -> tuple[Path, tuple[str, ...]]:
    flow = "{" + ", ".join(mapping_bomb().splitlines()) + "}"
    return write(tmp / "cfg.yaml", "players: 3\n"), (f"house_rules={flow}",)


@pytest.mark.parametrize(
    "make",
    [
        bomb_as_config,
        mapping_bomb_as_config,
        bomb_in_extends_parent,
        bomb_in_edition_file,
        bomb_in_set_value,
    ],
)
def test_alias_bomb_is_refused_in_bounded_time_and_memory(make: Any, tmp_path: Path) -> None:
    path, overrides = make(tmp_path)
    message = load_in_child(path, *overrides)
    assert message.endswith(f"YAML aliases expand to more than {MAX_YAML_NODES} nodes"), message
    assert "bomb.yaml" in message or "--set house_rules=" in message, message


def test_bomb_files_are_small() -> None:
    # The files were 417 and 805 bytes: these are as small and as explosive.
    assert len(list_bomb()) < 500 and len(mapping_bomb()) < 900


def test_recursive_alias_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path / "x.yaml", "house_rules: &h\n  stacking: *h\n")
    assert "used inside its own anchor" in error(path)


def test_aliases_within_the_bound_still_load(tmp_path: Path) -> None:
    path = write(tmp_path / "x.yaml", "policy: &p strategic\nseats: [*p, random, *p, random]\n")
    assert load_config(path).seats == ["strategic", "random", "strategic", "random"]


def test_deeply_nested_yaml_is_refused(tmp_path: Path) -> None:
    flow = write(tmp_path / "flow.yaml", "a: " + "[" * 100_000 + "]" * 100_000 + "\n")
    assert f"nested more than {MAX_YAML_DEPTH} levels" in error(flow)
    block = "".join(" " * i + f"k{i}:\n" for i in range(MAX_YAML_DEPTH + 1))
    assert "nested more than" in error(write(tmp_path / "block.yaml", block))


def test_document_with_too_many_nodes_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path / "x.yaml", "seats: [" + ", ".join(["random"] * 20_000) + "]\n")
    assert f"more than {MAX_YAML_NODES} nodes" in error(path)


def test_oversized_config_file_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path / "big.yaml", "players: 4\n" + "#" * MAX_CONFIG_BYTES + "\n")
    assert "larger than" in error(path)
    edition = write(tmp_path / "big_edition.yaml", CLASSIC_EDITION + "#" * MAX_CONFIG_BYTES)
    cfg = write(tmp_path / "cfg.yaml", "edition: big_edition.yaml\n")
    assert "big_edition.yaml: is larger than" in error(cfg, file="big_edition.yaml")
    with pytest.raises(ConfigError, match="larger than"):
        load_edition(edition)


# --- errors quote values briefly, whatever their size ----------------------------------
def test_error_never_formats_the_whole_input() -> None:
    shared: Any = ["lol"] * 9
    for _ in range(40):  # 9**40 leaves if walked in full
        shared = [shared] * 9
    tracemalloc.start()
    with pytest.raises(ConfigError) as exc:
        validate_config({"players": shared, "house_rules": {"jump_in": shared}}, "inline")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 20 * 2**20
    assert "expected an integer, got [[[...]" in str(exc.value)
    assert len(quoted(shared)) <= 60


def test_huge_strings_and_keys_are_quoted_briefly(tmp_path: Path) -> None:
    long = "x" * 200_000
    assert len(error(write(tmp_path / "v.yaml", f"mode: {long}\n"))) < MAX_MESSAGE
    assert len(error(write(tmp_path / "k.yaml", f"{long}: 1\n"))) < MAX_MESSAGE
    assert len(error(write(tmp_path / "t.yaml", f"players: !{long} 4\n"))) < MAX_MESSAGE
    assert len(error(write(tmp_path / "e.yaml", f"edition: {long}\n"))) < MAX_MESSAGE
    assert len(error(write(tmp_path / "x.yaml", f"extends: {long}\n"))) < MAX_MESSAGE
    assert len(error(write(tmp_path / "s.yaml", "{}\n"), f"mode={long}")) < MAX_MESSAGE


def test_integer_too_long_to_print(tmp_path: Path) -> None:
    msg = error(write(tmp_path / "x.yaml", "target: " + "9" * 5000 + "\n"))
    assert "line 1" in msg and "5000 digits" in msg
    with pytest.raises(ConfigError) as exc:
        validate_config({"target": 10**5000}, "inline")
    assert str(exc.value) == (
        f"inline: target: must be <= {MAX_TARGET}, got an integer of about 5001 digits"
    )


# --- duplicate keys ------------------------------------------------------------------------
def test_duplicate_key_names_the_key_and_both_lines(tmp_path: Path) -> None:
    path = write(tmp_path / "x.yaml", "players: 3\nmode: round\n\nplayers: 5\n")
    assert error(path).endswith("x.yaml: duplicate key 'players' (lines 1 and 4)")


def test_duplicate_key_at_any_depth(tmp_path: Path) -> None:
    text = "house_rules:\n  stacking:\n    wd4_on_wd4: true\n    wd4_on_wd4: false\n"
    assert "duplicate key 'wd4_on_wd4' (lines 3 and 4)" in error(write(tmp_path / "x.yaml", text))
    flow = write(tmp_path / "flow.yaml", "behaviour: {uno_catch_rate: 1, uno_catch_rate: 0}\n")
    assert "duplicate key 'uno_catch_rate' (line 1, twice)" in error(flow)


def test_duplicate_key_in_edition(tmp_path: Path) -> None:
    write(tmp_path / "ed.yaml", CLASSIC_EDITION + "uno_penalty: 4\n")
    msg = error(write(tmp_path / "cfg.yaml", "edition: ed.yaml\n"), file="ed.yaml")
    first = 1 + next(i for i, line in enumerate(CLASSIC_EDITION.splitlines())
                     if line.startswith("uno_penalty:"))
    last = CLASSIC_EDITION.count("\n") + 1
    assert f"duplicate key 'uno_penalty' (lines {first} and {last})" in msg


def test_duplicate_key_in_set_value(tmp_path: Path) -> None:
    msg = error(write(tmp_path / "x.yaml", "{}\n"), "house_rules={jump_in: true, jump_in: false}")
    assert "--set house_rules=" in msg and "duplicate key 'jump_in'" in msg


def test_merge_key_override_is_not_a_duplicate(tmp_path: Path) -> None:
    text = (
        "house_rules:\n  stacking:\n"
        "    <<: {draw_two_on_draw_two: true, wd4_on_wd4: true}\n    wd4_on_wd4: false\n"
    )
    stacking = load_config(write(tmp_path / "x.yaml", text)).house_rules.stacking
    assert stacking.draw_two_on_draw_two and not stacking.wd4_on_wd4


# --- files that are not UTF-8 YAML text ------------------------------------------------------
@pytest.mark.parametrize(
    ("case", "content", "words"),
    [
        ("non_utf8", "players: 3\nname: caf\xe9\n".encode("latin-1"), "not UTF-8 text (byte 0xe9"),
        ("utf16_bom", "players: 3\n".encode("utf-16"), "UTF-16"),
        ("utf16_no_bom", "players: 3\n".encode("utf-16-le"), "NUL bytes"),
        ("binary", bytes(range(256)) * 4, "NUL bytes"),
        ("control_character", b"players: 3\nname: a\x1bb\n", "line 2: character #x001b"),
        ("empty", b"", "is empty"),
        ("comments_only", b"# nothing here\n", "is empty"),
    ],
)
def test_unreadable_file_is_one_line(tmp_path: Path, case: str, content: bytes, words: str) -> None:
    assert words in error(write(tmp_path / f"{case}.yaml", content))


def test_utf8_bom_is_accepted(tmp_path: Path) -> None:
    path = write(tmp_path / "bom.yaml", "\ufeffplayers: 3\n".encode())
    assert load_config(path).players == 3


def test_directory_as_config(tmp_path: Path) -> None:
    (tmp_path / "cfgdir").mkdir()
    assert error(tmp_path / "cfgdir").endswith("cfgdir: is a directory, not a YAML file")
    write(tmp_path / "x.yaml", "extends: cfgdir\n")
    assert "cannot find 'cfgdir'" in error(tmp_path / "x.yaml")


def test_device_as_config() -> None:
    with pytest.raises(ConfigError, match="/dev/null: is not a regular file"):
        load_config("/dev/null")


# --- numbers ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("key", "limit"), [("target", MAX_TARGET), ("max_turns", MAX_TURNS), ("max_rounds", MAX_ROUNDS)]
)
@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("100000000000000000000", "must be <= {limit}, got 100000000000000000000"),
        ("-5", "must be >= 1, got -5"),
        ("2.5", "expected an integer, got 2.5"),
        ("true", "expected an integer, got True"),
        ("'7'", "expected an integer, got '7'"),
    ],
)
def test_out_of_range_number_names_key_and_limit(
    tmp_path: Path, key: str, limit: int, value: str, words: str
) -> None:
    expected = f"{key}: {words.format(limit=limit)}"
    path = write(tmp_path / "x.yaml", f"mode: match\n{key}: {value}\n")
    assert error(path).endswith(expected)
    assert error(write(tmp_path / "y.yaml", "mode: match\n"), f"{key}={value}").endswith(expected)


# --- names -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "char", ["\0", "\n", "\r", "\t", "\x1b", "\x7f", "\x85", "\u2028", "\u2029"]
)
def test_name_with_control_character_is_refused(tmp_path: Path, char: str) -> None:
    name = json.dumps(f"my{char}run")  # a JSON string is a YAML double-quoted scalar
    msg = error(write(tmp_path / "x.yaml", f"name: {name}\n"))
    assert f"name: must not contain control characters, got {char!r} at position 2" in msg
    assert "name: must not contain" in error(write(tmp_path / "y.yaml", "{}\n"), f"name={name}")


def test_name_length_is_bounded(tmp_path: Path) -> None:
    ok = write(tmp_path / "ok.yaml", f"name: {'n' * MAX_NAME_LENGTH}\n")
    assert load_config(ok).name == "n" * MAX_NAME_LENGTH
    long = write(tmp_path / "long.yaml", f"name: {'n' * (MAX_NAME_LENGTH + 1)}\n")
    assert error(long).endswith(
        f"name: must be at most {MAX_NAME_LENGTH} characters long, got {MAX_NAME_LENGTH + 1}"
    )


def test_name_from_a_long_file_name_is_cut_to_the_limit(tmp_path: Path) -> None:
    path = write(tmp_path / f"{'f' * 200}.yaml", "players: 3\n")
    assert load_config(path).name == "f" * MAX_NAME_LENGTH


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("classic", "classic"),
        ("stacking_full", "stacking_full"),
        ("/abs/path", "abs-path"),
        ("../../../x", "x"),
        ("..", "run"),
        ("", "run"),
        ("a\0b\nc", "a-b-c"),
        ("Dos Años: 2 decks!", "Dos-Anos-2-decks"),
        ("日本", "run"),
        ("-_-", "_"),
    ],
)
def test_name_slug_is_a_safe_directory_name(name: str, slug: str) -> None:
    assert name_slug(name) == slug


def test_long_names_keep_distinct_bounded_slugs() -> None:
    a, b = name_slug("x" * 300), name_slug("x" * 301)
    assert a != b and len(a) == len(b) == MAX_SLUG_LENGTH and a.startswith("x" * 50)


# --- tags never run, traversal is one line --------------------------------------------------
@pytest.mark.parametrize(
    "tag",
    [
        "!!python/object/apply:os.system ['touch {mark}']",
        "!!python/object/new:os.system ['touch {mark}']",
        "!!python/name:os.system",
        "!!python/module:os",
        "!!python/object/apply:subprocess.check_call [[touch, '{mark}']]",
    ],
)
def test_python_tags_are_never_executed(tmp_path: Path, tag: str) -> None:
    mark = tmp_path / "executed"
    value = tag.format(mark=mark)
    assert "could not determine a constructor" in error(
        write(tmp_path / "x.yaml", f"players: {value}\n")
    )
    write(tmp_path / "ed.yaml", CLASSIC_EDITION.replace("uno_penalty: 2", f"uno_penalty: {value}"))
    error(write(tmp_path / "cfg.yaml", "edition: ed.yaml\n"), file="ed.yaml")
    assert "--set players=" in error(write(tmp_path / "y.yaml", "{}\n"), f"players={value}")
    assert not mark.exists()


def test_extends_traversal_is_one_line(tmp_path: Path) -> None:
    write(tmp_path / "outside.txt", "root:x:0:0:root:/root:/bin/bash\nbin:x:1:1::/:/bin/false\n")
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    child = write(deep / "child.yaml", "extends: ../../outside.txt\n")
    msg = error(child, file="outside.txt")
    assert msg.endswith("outside.txt: expected a mapping of keys at the top level, got str")
    child.write_text("extends: /\n")
    assert "cannot find '/'" in error(child)


def test_unusable_path_names_are_one_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="config file not found"):
        load_config("c" * 5000)  # longer than the OS takes: no OSError escapes
    with pytest.raises(ConfigError, match="config file not found"):
        load_config("~no_such_user_here/x.yaml")
    path = write(tmp_path / "x.yaml", "edition: ~no_such_user_here/ed.yaml\n")
    assert "edition: edition file not found: ~no_such_user_here/ed.yaml" in error(path)
    path.write_text(f"edition: {'e' * 5000}.yaml\n")
    assert "edition file not found: eeee" in error(path)


def test_control_characters_in_keys_and_file_names_are_escaped(tmp_path: Path) -> None:
    msg = error(write(tmp_path / "x.yaml", '"jump\\n\\u001b[2Jin": 1\n'))
    assert "x.yaml: jump\\n\\x1b[2Jin: unknown key" in msg
    odd = write(tmp_path / "odd\nname.yaml", "players: 3\n")
    with pytest.raises(ConfigError) as exc:
        load_config(odd)
    assert str(exc.value).endswith(
        "odd\\nname.yaml: name: must not contain control characters, got '\\n' at position 3"
    )


def test_a_document_read_again_is_parsed_once_and_given_out_fresh(tmp_path: Path) -> None:
    """A config and its edition are read many times in one command (the report's
    example games load them per replay): the text's parse is kept, each reader gets
    its own copy, and an error is raised again on every read."""
    from unosim.rules import yamlio

    text = "a: [1, {b: 2}]\nc: !!set {x, y}\n"
    first = yamlio.parse_yaml(text, "inline")
    assert text in yamlio._PARSED
    first["a"][1]["b"] = 99
    first["c"].add("z")
    again = yamlio.parse_yaml(text, "inline")
    assert again == {"a": [1, {"b": 2}], "c": {"x", "y"}} and again is not first
    bad = "{a: 1, a: 2}"
    for _ in range(2):
        with pytest.raises(ConfigError, match="duplicate key"):
            yamlio.parse_yaml(bad, "inline")
    assert bad not in yamlio._PARSED
    for i in range(yamlio._PARSED_MAX + 5):  # a bounded cache
        yamlio.parse_yaml(f"n: {i}\n", "inline")
    assert len(yamlio._PARSED) <= yamlio._PARSED_MAX
