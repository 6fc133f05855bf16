"""scripts/install_lean.sh: offline it stops fast with exit code 3; on a stand-in toolchain
(stubs for elan, git, curl and lake that build the doubles instead of Lean) it writes the
REPL's manifest before the verifier, keeps it when the verifier does not build, and ends with
the self-test; with Lean installed (marked `lean`), its manifest points at a REPL that
answers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.tutor.lean.real_lean import REAL_REPL, needs_real_lean

SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "install_lean.sh"


def test_offline_it_explains_and_exits_3_quickly(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "LEANCOACH_LEAN_HOME": str(tmp_path / "lean"),
        "ELAN_HOME": str(tmp_path / "elan"),
        # A closed local port: the probe fails at once whatever this machine's network.
        "LEANCOACH_INSTALL_PROBE_URL": "http://127.0.0.1:9/",
    }
    started = time.monotonic()
    done = subprocess.run(
        ["bash", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 3, done.stderr
    assert time.monotonic() - started < 15
    assert "cannot be installed here" in done.stderr and "unavailable" in done.stderr
    assert not (tmp_path / "lean").exists() and not (tmp_path / "elan").exists()


@needs_real_lean
@pytest.mark.lean
def test_the_installed_manifest_is_complete() -> None:
    if REAL_REPL.source != "installer":
        pytest.skip("the REPL in use was not installed by scripts/install_lean.sh")
    from tutor.lean.detect import manifest_path

    manifest = json.loads(manifest_path().read_text())
    assert manifest["toolchain"].startswith("leanprover/lean4:")
    assert all(Path(p).exists() for p in manifest["sandbox_paths"])
    assert Path(manifest["library_src"]).is_dir()
    assert Path(manifest["cwd"], "lean-toolchain").is_file()


def test_make_run_installs_lean_itself_and_falls_back_fast_offline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from webapp.launch import _offer_lean_install

    monkeypatch.setenv("LEANCOACH_LEAN_HOME", str(tmp_path / "lean"))
    monkeypatch.setenv("ELAN_HOME", str(tmp_path / "elan"))
    monkeypatch.setenv("LEANCOACH_INSTALL_PROBE_URL", "http://127.0.0.1:9/")
    monkeypatch.delenv("LEANCOACH_OFFER_LEAN", raising=False)
    started = time.monotonic()
    assert _offer_lean_install("No Lean REPL found") is False
    assert time.monotonic() - started < 5
    assert not (tmp_path / "lean").exists() and not (tmp_path / "elan").exists()


def test_the_installer_pins_a_release_the_repl_tags_and_builds_the_verifier() -> None:
    text = SCRIPT.read_text()
    assert 'VERSION="${LEANCOACH_LEAN_VERSION:-v4.32.0}"' in text
    assert "leancoach-verify" in text and '"verifier_command"' in text


FAKES = Path(__file__).resolve().parents[2] / "fakes"

_LAKE = """#!{python}
import os, pathlib, sys
args = sys.argv[1:]
here = pathlib.Path.cwd()
if args[:1] == ["build"]:
    if (here / "Main.lean").exists():  # the kernel verifier
        if os.environ.get("FAKE_VERIFIER_BUILD") == "fail":
            print("Main.lean:1:0: error: unknown constant 'Lean.Kernel.Environment.addDeclCore'",
                  file=sys.stderr)
            sys.exit(1)
        target, body = "leancoach-verify", 'exec {python} {fakes}/fake_lean.py "$@"'
    else:  # the REPL, scripted to fail `simp` on the golden false statement
        target = "repl"
        body = 'FAKE_REPL_TACTICS={table} exec {python} {fakes}/fake_repl.py "$@"'
    path = here / ".lake" / "build" / "bin" / target
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\\n" + body + "\\n")
    path.chmod(0o755)
elif args[:1] == ["env"]:
    os.environ["LEAN_PATH"] = str(here / ".lake" / "build" / "lib")
    os.execvp(args[1], args[1:])
"""


def _stand_in_toolchain(tmp_path: Path) -> dict[str, str]:
    """PATH entries for elan, git, curl and a toolchain whose lake builds the doubles."""
    bin_dir, toolchain = tmp_path / "bin", tmp_path / "toolchain"
    (toolchain / "bin").mkdir(parents=True)
    bin_dir.mkdir()
    table = tmp_path / "tactics.json"
    table.write_text(
        json.dumps(
            [
                {
                    "goal": "n : Nat\n⊢ n + 1 = n",
                    "tactic": "simp",
                    "error": "unsolved goals\nn : Nat\n⊢ False",
                }
            ]
        )  # fmt: skip
    )
    stubs = {
        bin_dir / "curl": "#!/bin/sh\nexit 0\n",
        bin_dir / "git": '#!/bin/sh\nfor last; do :; done\nmkdir -p "$last/.git"\n',
        bin_dir / "elan": f'#!/bin/sh\n[ "$1" = run ] && echo {toolchain}\nexit 0\n',
        toolchain / "bin" / "lake": _LAKE.format(python=sys.executable, fakes=FAKES, table=table),
    }
    for path, text in stubs.items():
        path.write_text(text)
        path.chmod(0o755)
    return {
        **os.environ,
        "PATH": f"{bin_dir}:{toolchain / 'bin'}:{os.environ['PATH']}",
        "ELAN_HOME": str(tmp_path / "elan"),
        "LEANCOACH_LEAN_HOME": str(tmp_path / "lean"),
        "LEANCOACH_PYTHON": sys.executable,
        "LEANCOACH_BWRAP": "none",  # the stand-ins are scripts outside any sandbox's binds
    }


def test_on_a_stand_in_toolchain_it_installs_and_ends_with_a_passing_self_test(
    tmp_path: Path,
) -> None:
    env = _stand_in_toolchain(tmp_path)
    env.pop("LEANCOACH_VERIFIER_CMD", None)  # the manifest's verifier, not the suite's
    done = subprocess.run(["bash", str(SCRIPT)], env=env, capture_output=True, text=True,
                          timeout=600, cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    manifest = json.loads((tmp_path / "lean" / "repl.json").read_text())
    assert manifest["verifier_command"][0].endswith("leancoach-verify")
    assert set(manifest["verifier_env"]) == {"LEAN_PATH", "LEAN_SYSROOT"}
    lines = [line for line in done.stdout.splitlines() if line.startswith(("ok  ", "FAIL"))]
    assert len(lines) == 8 and all(line.startswith("ok  ") for line in lines), done.stdout
    assert "skip a correct proof with `lemma` under Mathlib" in done.stdout
    result = json.loads((tmp_path / "lean" / "selftest.json").read_text())
    assert result["ok"] is True and result["summary"] == "8/8 golden cases as expected"


def test_the_repl_manifest_is_written_even_when_the_verifier_does_not_build(
    tmp_path: Path,
) -> None:
    env = {**_stand_in_toolchain(tmp_path), "FAKE_VERIFIER_BUILD": "fail"}
    env.pop("LEANCOACH_VERIFIER_CMD", None)
    done = subprocess.run(["bash", str(SCRIPT)], env=env, capture_output=True, text=True,
                          timeout=600, cwd=tmp_path)  # fmt: skip
    assert done.returncode == 4, done.stdout + done.stderr
    manifest = json.loads((tmp_path / "lean" / "repl.json").read_text())
    assert manifest["command"] and "verifier_command" not in manifest
    assert "did not build" in manifest["verifier_error"]
    assert "unknown constant" in done.stderr
    # Every case that should be proved says "could not check", naming the step and the
    # command that failed; the false ones still get their definite answers.
    failed = [line for line in done.stdout.splitlines() if line.startswith("FAIL")]
    assert len(failed) == 3, done.stdout
    for line in failed:
        assert "got could not check" in line and "could not confirm" in line
        assert "step: setup; command: the verifier's build" in line and "lake build" in line
    result = json.loads((tmp_path / "lean" / "selftest.json").read_text())
    assert result["ok"] is False
