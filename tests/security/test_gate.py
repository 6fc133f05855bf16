"""The lexer under the gates: literals can neither hide a token nor fake one, and
ordinary proofs (the starter course's reference proofs included) pass."""

from __future__ import annotations

import pytest

from tutor.lean.verdict import (
    UnknownDeclarations,
    blank_comments_and_strings,
    declarations,
    file_rejections,
    proof_rejections,
)
from webapp.courses.data.core_lean import WORLDS


@pytest.mark.parametrize(
    "text, visible, hidden",
    [
        ("have c : Char := '\"'\n#eval 1", "#eval", '"'),
        ("have c : Char := '\\''\n#eval 1", "#eval", "\\'"),
        ("exact h'\n#eval 1", "h'", None),
        ('exact r#"a"b"# #eval', "#eval", '"'),
        ('exact r"\\" #eval', "#eval", None),
        ("have «--» := 1 #eval", "#eval", "--"),
        ('s!"x{ "}" ++ y }z" #eval', "y", "z"),
        ('s!"{ s!"{by_elab 1}" }"', "by_elab", None),
        ("/- /- -/ #check -/ #eval", "#eval", "#check"),
        ('"a \\" #check" #eval', "#eval", "#check"),
    ],
)
def test_the_lexer_keeps_code_and_blanks_literals(
    text: str, visible: str, hidden: str | None
) -> None:
    blanked = blank_comments_and_strings(text)
    assert len(blanked) == len(text) and blanked.count("\n") == text.count("\n")
    assert visible in blanked
    if hidden is not None:
        assert hidden not in blanked


@pytest.mark.parametrize(
    "proof",
    [
        "  simp [h']\n  exact h'",
        "  exact 'a'.toNat_lt",
        '  have : "theorem #eval" = "theorem #eval" := rfl\n  simp',
        "  -- #eval in a comment\n  /- theorem -/ omega",
        "  set_option maxHeartbeats 400000 in\n  simp",
        "  exact ⟨_, rfl⟩",
        "  cases h with\n  | inl h => exact h\n  | inr h => exact h",
        "  have «my fact» : True := trivial\n  trivial",
    ],
)
def test_ordinary_proofs_pass(proof: str) -> None:
    assert proof_rejections(proof) == []


def test_every_reference_proof_of_the_starter_course_passes_the_gate() -> None:
    proofs = [proof for _, _, exercises in WORLDS for *_, proof in exercises]
    assert len(proofs) > 40
    assert [p for p in proofs if proof_rejections(p)] == []


def test_files_may_declare_but_not_run_code() -> None:
    assert file_rejections("open Nat in\ntheorem t : True := trivial\n#check t\n") == []
    for code in [
        "open Lean in #eval! 1",
        "run_cmd pure ()",
        "@[implemented_by f] def g : Nat := 0",
        "initialize pure ()",
        'elab "x" : tactic => pure ()',
        "#guard_msgs in #check 1",
        "simproc s (_) := fun _ => pure .continue",
    ]:
        assert file_rejections(code), code


def test_declarations_are_found_token_by_token_or_refused() -> None:
    found = declarations(
        "@[simp, aesop safe [constructors]] theorem u : True := trivial theorem v : True := "
        "trivial\nnamespace A.B\nprivate lemma w : True := trivial\nend A.B\n"
        "theorem _root_.x : True := trivial"
    )
    assert [(d.name, d.query) for d in found] == [
        ("u", "_root_.u"),
        ("v", "_root_.v"),
        ("A.B.w", "A.B.w"),
        ("x", "_root_.x"),
    ]
    for code in [
        "instance : Inhabited Nat := ⟨0⟩",
        "structure S where\n  p : True := trivial",
        "example : True := trivial",
    ]:
        with pytest.raises(UnknownDeclarations):
            declarations(code)


@pytest.mark.parametrize(
    "code",
    [
        'syntax "x" : command\n@[command_elab x] def f : Lean.Elab.Command.CommandElab :=\n'
        "  fun _ => pure ()\nx",
        "@[tactic x] def g : Lean.Elab.Tactic.Tactic := fun _ => pure ()",
        "@[term_elab x] def h : Lean.Elab.Term.TermElab := fun _ _ => pure default",
        "@[simp, macro x] def m : Lean.Macro := fun s => pure s",
        "attribute [local command_elab x] f",
        "@[app_unexpander Nat.succ] def u : Lean.PrettyPrinter.Unexpander := fun s => pure s",
        "@[norm_num Nat.succ _] def e : Mathlib.Meta.NormNum.NormNumExt := sorry",
    ],
)
def test_a_file_may_not_attach_an_elaborator_with_an_attribute(code: str) -> None:
    # `syntax` alone is harmless; the attribute is what makes Lean run the definition while
    # it elaborates the rest of the file (and in `lean -o`, before the kernel check).
    found = file_rejections(code)
    assert any("attribute" in r.message for r in found), found


def test_automation_tags_are_fine_in_files() -> None:
    code = (
        "@[simp, local simp ←, instance 100, reducible] theorem t : True := trivial\n"
        "attribute [-simp] t\nattribute [local instance] t\n@[ext] theorem e : True := trivial"
    )
    assert file_rejections(code) == []


def test_names_are_read_whole_from_the_source() -> None:
    found = declarations(
        "theorem «add zero».{u} (α : Sort u) : True := trivial\n"
        "namespace A.«b c»\nlemma x.y : True := trivial\nend A.«b c»\n"
        "theorem foo.{u} : True := trivial\nsection\ntheorem z : True := trivial\nend\n"
    )
    assert [(d.name, d.parts, d.query) for d in found] == [
        ("«add zero»", ("add zero",), "_root_.«add zero»"),
        ("A.«b c».x.y", ("A", "b c", "x", "y"), "_root_.A.«b c».x.y"),
        ("foo", ("foo",), "_root_.foo"),
        ("z", ("z",), "_root_.z"),
    ]
