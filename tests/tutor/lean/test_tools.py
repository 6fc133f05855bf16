"""The agent tools over a workspace: writes, checks, lemmas, library search, path safety."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tutor.lean import LeanChecker
from tutor.lean.tools import RG_MAX_LINES, LeanWorkspace, find_rg

STATEMENT = "theorem add_zero' (n : Nat) : n + 0 = n := by"


@pytest.fixture
def workspace(tmp_path: Path, checker: LeanChecker) -> LeanWorkspace:
    return LeanWorkspace(tmp_path / "ws", checker=checker)


def test_write_then_compile_reports_messages_and_validity(workspace: LeanWorkspace) -> None:
    written = workspace.lean_write_file(
        "theorem t (n : Nat) : n + 0 = n := by\n  sorry\n", "Proof.lean"
    )
    assert written["ok"] and written["path"] == "Proof.lean" and not written["valid"]
    assert written["sorries"] == [{"line": 2, "column": 2, "goal": "n : Nat\n⊢ n + 0 = n"}]
    assert any("sorry" in m for m in written["messages"])
    checked = workspace.lean_check_file("Proof.lean")
    assert checked["ok"] and checked["valid"] is False
    good = workspace.lean_write_file(
        "theorem t (n : Nat) : n + 0 = n := by\n  simp\n", "sub/dir/Good.lean"
    )
    assert good["valid"] and (workspace.root / "sub" / "dir" / "Good.lean").is_file()


@pytest.mark.parametrize(
    "name",
    [
        "../escape.lean",
        "a/../../escape.lean",
        "/etc/escape.lean",
        "~/escape.lean",
        "a\\..\\b.lean",
        "x.py",
        "",
        "a/\x00.lean",
    ],
)
def test_names_that_could_leave_the_workspace_are_refused(
    workspace: LeanWorkspace, name: str
) -> None:
    result = workspace.lean_write_file("theorem t : True := trivial", name)
    assert result["ok"] is False and result["error"]
    assert not (workspace.root.parent / "escape.lean").exists()
    assert workspace.lean_check_file(name)["ok"] is False


def test_a_symlinked_file_is_neither_written_nor_read(
    workspace: LeanWorkspace, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.lean"
    outside.write_text("secret")
    os.symlink(outside, workspace.root / "link.lean")
    assert workspace.lean_write_file("overwritten", "link.lean")["ok"] is False
    assert outside.read_text() == "secret"
    read = workspace.lean_check_file("link.lean")
    assert read["ok"] is False and "symlink" in read["error"]


def test_a_symlinked_folder_is_not_crossed(workspace: LeanWorkspace, tmp_path: Path) -> None:
    outside = tmp_path / "outside_dir"
    outside.mkdir()
    os.symlink(outside, workspace.root / "dir")
    assert workspace.lean_write_file("theorem t : True := trivial", "dir/x.lean")["ok"] is False
    assert list(outside.iterdir()) == []


def test_a_posed_statement_must_be_proved_unchanged(tmp_path: Path, checker: LeanChecker) -> None:
    workspace = LeanWorkspace(tmp_path / "ws", checker=checker, statement=STATEMENT)
    good = workspace.lean_write_file(f"import Mathlib\n\n{STATEMENT}\n  simp\n", "P.lean")
    assert good["valid"], good
    located = workspace.lean_write_file(
        f"import Mathlib\n\n{STATEMENT}\n  simp\n  -- fake: error unsolved_goals\n", "P.lean"
    )
    assert located["messages"][0].startswith("5:")  # line 5 of the file the model wrote
    edited = workspace.lean_write_file(
        "theorem add_zero' (n : Nat) : n = n := by\n  rfl\n", "P.lean"
    )
    assert not edited["valid"] and "posed statement" in edited["messages"][0]
    smuggled = workspace.lean_write_file(
        f"axiom cheat : False\n{STATEMENT}\n  exact cheat.elim\n", "P.lean"
    )
    assert not smuggled["valid"]
    after = workspace.lean_write_file(
        f"{STATEMENT}\n  exact cheat.elim\naxiom cheat : False\n", "P.lean"
    )
    assert not after["valid"] and "axiom" in after["messages"][0]


def test_lemmas_used_are_those_the_library_knows(workspace: LeanWorkspace) -> None:
    code = (
        "import Mathlib\n"
        "theorem mine (a b : Nat) : a + b = b + a := by\n"
        "  have h := Nat.add_comm a b  -- Nat.add_zero is only in a comment\n"
        "  exact h\n"
        "theorem again (a b : Nat) : a + b = b + a := mine a b\n"
    )
    workspace.lean_write_file(code, "L.lean")
    report = workspace.lean_check_file("L.lean", return_lemmas=True)
    assert report["lemmas"] == ["Nat.add_comm"]
    assert "lemmas" not in workspace.lean_check_file("L.lean")


def test_rg_searches_the_library_and_shows_at_most_five_lines(
    tmp_path: Path, checker: LeanChecker, monkeypatch: pytest.MonkeyPatch
) -> None:
    library = tmp_path / "Mathlib"
    (library / "Algebra").mkdir(parents=True)
    (library / "Algebra" / "Group.lean").write_text(
        "".join(f"theorem mul_comm_{i} : True := trivial\n" for i in range(8))
    )
    (library / "Other.txt").write_text("theorem mul_comm_in_text : True := trivial\n")
    monkeypatch.setenv("LEANCOACH_LIBRARY_SRC", str(library))
    workspace = LeanWorkspace(tmp_path / "ws", checker=checker)
    output = workspace.rg_in_mathlib(r"mul_comm_\d")
    lines = output.split("\n")
    assert len([line for line in lines if line.startswith("Algebra/Group.lean:")]) == RG_MAX_LINES
    assert lines[0] == "Algebra/Group.lean:1:theorem mul_comm_0 : True := trivial"
    assert "3 more" in lines[-1]
    assert "No matches" in workspace.rg_in_mathlib("mul_comm", glob="Topology/**")
    assert "No matches" in workspace.rg_in_mathlib("mul_comm_in_text")
    assert workspace.rg_in_mathlib("(unclosed").startswith("rg error")


def test_rg_says_plainly_when_no_lean_is_installed(tmp_path: Path, checker: LeanChecker) -> None:
    output = LeanWorkspace(tmp_path / "ws", checker=checker).rg_in_mathlib("mul_comm")
    assert "no Lean is installed" in output and "make lean" in output


def test_ripgrep_is_found() -> None:
    assert find_rg() is not None


def test_tools_say_when_lean_is_unavailable(tmp_path: Path) -> None:
    workspace = LeanWorkspace(tmp_path / "ws", checker=LeanChecker())
    result = workspace.lean_write_file("theorem t : True := trivial", "T.lean")
    assert result["ok"] and result["valid"] is False
    assert result["error"].startswith("Lean is unavailable") and "make lean" in result["error"]


def test_rg_falls_back_to_the_toolchains_core_sources(
    tmp_path: Path, checker: LeanChecker, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A REPL from LEAN_REPL_CMD without a manifest: search `lean --print-prefix`/src/lean.
    prefix = tmp_path / "toolchain"
    (prefix / "src" / "lean" / "Init").mkdir(parents=True)
    (prefix / "src" / "lean" / "Init" / "Core.lean").write_text("theorem Nat.le_refl_core : True\n")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    lean = bin_dir / "lean"
    lean.write_text(f"#!/bin/sh\necho {prefix}\n")
    lean.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("LEAN_REPL_CMD", str(lean))
    output = LeanWorkspace(tmp_path / "ws", checker=checker).rg_in_mathlib("le_refl_core")
    assert output == "Init/Core.lean:1:theorem Nat.le_refl_core : True"
