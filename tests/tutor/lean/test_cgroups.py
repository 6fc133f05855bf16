"""Per-REPL cgroup v2 limits (tutor/lean/cgroups.py): detection says why not, and the
write path is run against a fake cgroupfs folder (plain files standing in for the
kernel's interface files)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.tutor.lean.conftest import FAKE_COMMAND
from tutor.lean import LeanChecker, cgroups
from tutor.lean.repl import ReplProcess, SpawnSpec


def fake_cgroupfs(root: Path, controllers: str = "cpu io memory pids") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "cgroup.controllers").write_text(controllers + "\n")
    (root / "cgroup.subtree_control").write_text("")
    return root


@pytest.fixture
def fresh_support() -> Iterator[None]:
    cgroups.support.cache_clear()
    yield
    cgroups.support.cache_clear()


def test_own_cgroup_reads_the_unified_line(tmp_path: Path) -> None:
    proc = tmp_path / "cgroup"
    proc.write_text("12:pids:/docker/x\n0::/system.slice/leancoach.service\n")
    assert cgroups.own_cgroup(tmp_path / "mnt", proc) == (
        tmp_path / "mnt" / "system.slice" / "leancoach.service"
    )
    proc.write_text("4:memory:/a\n1:cpu:/\n")  # cgroup v1 only
    assert cgroups.own_cgroup(tmp_path / "mnt", proc) is None


def test_without_cgroup_v2_the_reason_says_so(tmp_path: Path) -> None:
    proc = tmp_path / "cgroup"
    proc.write_text("4:memory:/a\n")
    found = cgroups.detect(mount=tmp_path, proc_file=proc)
    assert not found.usable and "cgroup v2 is not mounted" in found.reason
    found = cgroups.detect(tmp_path / "nowhere")
    assert not found.usable and "not mounted" in found.reason


def test_a_cgroup_without_the_pids_controller_is_not_used(tmp_path: Path) -> None:
    parent = fake_cgroupfs(tmp_path / "cg", controllers="cpu memory")
    found = cgroups.detect(parent)
    assert not found.usable and "pids controller" in found.reason


def test_a_cgroup_that_refuses_to_delegate_says_what_to_do(tmp_path: Path) -> None:
    parent = fake_cgroupfs(tmp_path / "cg")
    control = parent / "cgroup.subtree_control"
    control.unlink()
    control.mkdir()  # writing it fails, as the kernel's EBUSY for a cgroup with processes
    found = cgroups.detect(parent)
    assert not found.usable and "LEANCOACH_CGROUP_ROOT" in found.reason


def test_a_delegated_cgroup_gets_memory_and_pids_enabled_for_children(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parent = fake_cgroupfs(tmp_path / "cg")
    monkeypatch.setenv("LEANCOACH_CGROUP_ROOT", str(parent))
    found = cgroups.detect()
    assert found.usable and found.parent == parent
    assert (parent / "cgroup.subtree_control").read_text() == "+memory +pids"


def test_each_repl_gets_its_own_cgroup_with_limits_and_leaves_it_when_killed(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    parent = fake_cgroupfs(tmp_path / "cg")
    plan = cgroups.CgroupPlan(parent, memory_mb=512, pids_max=64)
    process = ReplProcess(SpawnSpec(argv=list(FAKE_COMMAND), cgroup=plan))
    assert process.request({"cmd": ""}, 10)["env"] == 0
    [made] = [p for p in parent.iterdir() if p.is_dir()]
    assert made.name.startswith("leancoach-repl-")
    assert (made / "memory.max").read_text() == str(512 << 20)
    assert (made / "memory.oom.group").read_text() == "1"
    assert (made / "pids.max").read_text() == "64"
    # The child moved itself in between fork and exec, before it could start anything.
    assert (made / "cgroup.procs").read_text() == str(process.pid)
    with caplog.at_level(logging.WARNING, logger="tutor.lean.cgroups"):
        process.kill()
    assert (made / "cgroup.kill").read_text() == "1"
    # A real cgroup folder is removed; this fake one keeps its plain files, and says so.
    assert "could not remove the cgroup" in caplog.text


def test_a_cgroup_that_cannot_be_made_fails_the_start(tmp_path: Path) -> None:
    plan = cgroups.CgroupPlan(tmp_path / "missing", memory_mb=512)
    with pytest.raises(OSError):
        ReplProcess(SpawnSpec(argv=list(FAKE_COMMAND), cgroup=plan))


def test_the_checker_uses_a_delegated_cgroup_and_says_so(
    make_checker: Callable[..., LeanChecker],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    fresh_support: None,
) -> None:
    parent = fake_cgroupfs(tmp_path / "cg")
    monkeypatch.setenv("LEANCOACH_CGROUP_ROOT", str(parent))
    checker = make_checker(memory_mb=512)
    assert "cgroup memory.max and pids.max per REPL" in checker.status().limits
    assert checker.check("theorem t : True := by\n  trivial").valid
    [process] = checker.pool.idle_processes()
    [made] = [p for p in parent.iterdir() if p.is_dir()]
    assert (made / "cgroup.procs").read_text() == str(process.pid)
    assert (made / "pids.max").read_text() == str(checker.config.pids_max)


def test_without_cgroups_the_reason_is_logged_once_and_shown_in_the_status(
    make_checker: Callable[..., LeanChecker],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    fresh_support: None,
) -> None:
    monkeypatch.setenv("LEANCOACH_CGROUP_ROOT", str(tmp_path / "not-a-cgroup"))
    with caplog.at_level(logging.WARNING, logger="tutor.lean.cgroups"):
        first, second = make_checker(), make_checker()
    assert caplog.text.count("no per-REPL cgroup") == 1
    for checker in (first, second):
        assert "no per-REPL cgroup: cgroup v2 is not mounted" in checker.status().limits
    assert first.check("theorem t : True := by\n  trivial").valid  # rlimits only, still checks
    assert "no per-REPL cgroup (switched off)" in make_checker(cgroup=False).status().limits
