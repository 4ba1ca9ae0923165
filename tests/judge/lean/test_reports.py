"""Reading what a probe left in a layer the untrusted build wrote: never through a symlink."""

from __future__ import annotations

import json
import os
from pathlib import Path

from judge.lean.steps import discard_report, read_name_list, read_report

REPORT = ".lake/judge/axioms.json"


def write(root: Path, relative: str, text: str) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_a_plain_report_is_read_and_validated(tmp_path: Path) -> None:
    write(tmp_path, REPORT, json.dumps(["cheat", "bad name", "x" * 201, 3, "cheat", "sorryAx"]))

    assert read_name_list(tmp_path, REPORT) == ("cheat", "sorryAx")


def test_a_symlinked_report_or_folder_is_never_followed(tmp_path: Path) -> None:
    outside = write(tmp_path / "outside", "secret.json", json.dumps(["fromOutside"]))
    layer = tmp_path / "layer"
    (layer / ".lake" / "judge").mkdir(parents=True)
    os.symlink(outside, layer / REPORT)
    assert read_report(layer, REPORT) is None
    assert read_name_list(layer, REPORT) is None

    other = tmp_path / "other"
    (other / ".lake").mkdir(parents=True)
    os.symlink(outside.parent, other / ".lake" / "judge")
    os.rename(outside, outside.parent / "axioms.json")
    assert read_name_list(other, REPORT) is None


def test_discarding_removes_the_link_not_its_target(tmp_path: Path) -> None:
    target = tmp_path / "outside"
    write(target, "axioms.json", "[]")
    layer = tmp_path / "layer"
    (layer / ".lake").mkdir(parents=True)
    os.symlink(target, layer / ".lake" / "judge")

    discard_report(layer, REPORT)

    assert not os.path.lexists(layer / ".lake" / "judge")
    assert (target / "axioms.json").read_text() == "[]"


def test_discarding_a_plain_report_and_a_missing_one(tmp_path: Path) -> None:
    path = write(tmp_path, REPORT, '["forged"]')

    discard_report(tmp_path, REPORT)
    discard_report(tmp_path / "nothing-here", REPORT)

    assert not path.exists()
    assert path.parent.is_dir()
