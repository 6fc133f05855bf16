"""Rules real Lean enforces that the doubles (fake_repl.py, fake_lean.py) enforce too. Tests only.

Each rule names the upstream file that shows it. A double that accepts what Lean refuses
would let a test pass that fails on the first real run, so each rule here has a test that
shows the double refusing (tests/tutor/lean/test_double_rules.py).
"""

from __future__ import annotations

import mmap
import os
import re
import sys

# `import Mathlib`: Lean maps every imported .olean file whole (lean4 src/runtime/object.cpp's
# compacted regions, read by `readModuleData`), and an `import Mathlib` process peaks around
# 6.5 GB resident (zcash/ironwood#144: "Importing the Mathlib umbrella made each affected Lean
# process peak around 6.5 GB RSS", 6.57 GB measured); mimalloc (lean4#7736) and the thread
# stacks reserve address space beyond what is resident. This double reserves 12 GiB of address
# space for it (an estimate from those reports: 8 GiB, the old default, stopped it), so any
# RLIMIT_AS below that stops the import here the way it stops Lean. FAKE_MATHLIB_ADDRESS_SPACE_MB
# overrides it for a test; `bench/bench_verify.py --real` prints the real peak.
MATHLIB_ADDRESS_SPACE_MB = 12288
_MAP_NORESERVE = getattr(mmap, "MAP_NORESERVE", 0x4000)
_RESERVED: list[mmap.mmap] = []  # kept for the process's life, like Lean's mapped .olean files


def is_mathlib(module: str) -> bool:
    return module == "Mathlib" or module.startswith("Mathlib.")


def reserve_import_memory(modules: list[str]) -> None:
    """Map the address space `import Mathlib` needs; under a smaller RLIMIT_AS die as Lean
    does when it cannot map or allocate: "INTERNAL PANIC: out of memory", exit code 1."""
    if not any(is_mathlib(m) for m in modules):
        return
    size = int(os.environ.get("FAKE_MATHLIB_ADDRESS_SPACE_MB", MATHLIB_ADDRESS_SPACE_MB))
    try:
        _RESERVED.append(
            mmap.mmap(
                -1,
                size * 1024 * 1024,
                flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | _MAP_NORESERVE,
                prot=0,  # address space only: nothing is committed or resident
            )
        )
    except (OSError, ValueError, OverflowError):
        sys.stderr.write("INTERNAL PANIC: out of memory\n")
        sys.stderr.flush()
        os._exit(1)
    resident = int(os.environ.get("FAKE_MATHLIB_RESIDENT_MB", "0"))
    if resident:
        _touch_file_pages(resident)


def _touch_file_pages(size_mb: int) -> None:
    """Resident, file-backed, shared pages, as the mapped .olean files of an import are:
    they count in VmRSS but not in RssAnon."""
    import tempfile

    with tempfile.TemporaryFile() as handle:
        handle.write(b"\x01" * (size_mb * 1024 * 1024))
        handle.flush()
        mapping = mmap.mmap(handle.fileno(), size_mb * 1024 * 1024, prot=mmap.PROT_READ)
    for offset in range(0, len(mapping), mmap.PAGESIZE):
        _ = mapping[offset]
    _RESERVED.append(mapping)


# `lemma` is not Lean: Mathlib declares it (Mathlib/Tactic/Lemma.lean, `syntax (name := lemma)
# declModifiers group("lemma " declId ...) : command`, expanded to `theorem` by
# `@[macro «lemma»]`). Without a Mathlib import, core Lean's parser stops at the word.
LEMMA_WITHOUT_MATHLIB = "unexpected identifier; expected command"


def lemma_allowed(imports: list[str]) -> bool:
    return any(is_mathlib(m) for m in imports)


# Infotree syntax kinds of command roots (what `"infotree": "full"` shows as node.stx.kind):
# `lemma ...` keeps Mathlib's own kind `lemma` (the syntax above; the macro expands it in a
# child node), and `open X in theorem ...` / `set_option o v in theorem ...` is one
# `Lean.Parser.Command.in` root (lean4 src/Lean/Parser/Command.lean,
# `@[builtin_command_parser] def «in» := trailing_parser withOpen (" in " >> commandParser)`).
LEMMA_KIND = "lemma"
IN_KIND = "Lean.Parser.Command.in"
_IN_COMMAND = re.compile(r"^\s*(open|set_option)\b.*\sin\s+\S")


def root_kind(line: str, default: str) -> str:
    stripped = line.lstrip()
    if _IN_COMMAND.match(line):
        return IN_KIND
    if stripped.startswith("lemma ") or re.match(
        r"^(@\[[^\]]*\]\s*)?((private|protected|noncomputable)\s+)*lemma\s", stripped
    ):
        return LEMMA_KIND
    return default


# A name's components, as Lean's `Name` holds them: `A.«b c».d` is ["A", "b c", "d"], and an
# explicit universe list `foo.{u}` is not part of the name (lean4 src/Lean/Parser/Term.lean,
# `declId := ident (".{" ident,+ "}")?`).
def name_parts(text: str) -> list[str]:
    parts: list[str] = []
    i = 0
    while i < len(text):
        if text[i] == "«":
            end = text.find("»", i + 1)
            end = len(text) if end < 0 else end
            parts.append(text[i + 1 : end])
            i = end + 1
        else:
            j = i
            while j < len(text) and text[j] not in ".«":
                j += 1
            parts.append(text[i:j])
            i = j
        if text[i : i + 2] == ".{" or i >= len(text):
            break
        i += 1  # the dot
    return parts


# The verifier's environment must hold Init: every file without `prelude` imports it
# (lean4 src/Lean/Elab/Import.lean, `headerToImports`), and a prelude file could declare its
# own `Nat`; SafeVerify refuses a target or submission that does not import Init
# (GasStationManager/SafeVerify Main.lean, `checkImportSuperset`). Without it, replaying any
# ordinary constant fails with the kernel's unknown-constant error.
INIT = "Init"


# `native_decide` at v4.32: the tactic compiles and runs the decision, then asserts its result
# with a fresh axiom named after the declaration that used it (lean4#12217, "one axiom per
# native computation", merged for v4.29: `Lean.Meta.nativeEqTrue` in
# src/Lean/Meta/Native.lean adds `axiomDecl` `mkAuxDeclName (`_native ++ tacticName ++ `ax)`),
# so `#print axioms t` lists `t._native.native_decide.ax_1_1` (recorded on v4.32.2:
# "'t_native' depends on axioms: [propext, Quot.sound, t_native._native.native_decide.ax_1_1]")
# where earlier toolchains listed `Lean.ofReduceBool`, now deprecated. The axiom is a constant
# of the file's own environment, so the REPL's pickle carries it.
def native_decide_axiom(declaration: str, use: int = 1) -> str:
    return f"{declaration}._native.native_decide.ax_1_{use}"


def is_native_decide_axiom(axiom: str, declaration: str) -> bool:
    """For real Lean: the numbering after `ax_` is Lean's auxiliary-name counter, so only the
    prefix is pinned."""
    return axiom.startswith(f"{declaration}._native.native_decide.ax_")


# What the kernel would check by running compiled code (lean4 src/kernel/type_checker.cpp,
# `reduce_native`), and the axioms whose types hold them: the verifier sends no constant that
# mentions one to the kernel (tutor/lean/verifier/Main.lean, `nativeReductions`).
NATIVE_REDUCTIONS = ("Lean.reduceBool", "Lean.reduceNat", "Lean.ofReduceBool", "Lean.ofReduceNat")
