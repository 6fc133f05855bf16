"""scripts/install_lean.sh: offline it stops fast with exit code 3; with Lean installed
(marked `lean`), its manifest points at a REPL that answers."""

from __future__ import annotations

import json
import os
import subprocess
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
