"""Snapshots: the database (SQLite backup API) and the checkpoint registry, keep-N retention,
checksums, and a restore that brings both back."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from webapp.core.snapshots import SnapshotConfig, client_major, snapshots, take_snapshot
from webapp.courses.models import Course


@pytest.fixture
def registry(settings: Any, tmp_path: Path) -> Path:
    settings.CHECKPOINT_ROOT = tmp_path / "checkpoints"
    settings.CHECKPOINT_ROOT.mkdir()
    (settings.CHECKPOINT_ROOT / "serving.json").write_text(json.dumps({"path": "a/step-1"}))
    return settings.CHECKPOINT_ROOT


@pytest.mark.skipif(connection.vendor != "sqlite", reason="this test restores into SQLite")
def test_restore_brings_back_the_database_and_the_registry(
    registry: Path, tmp_path: Path, transactional_db: None, capsys: Any
) -> None:
    Course.objects.create(slug="kept", title="Kept")
    call_command("snapshot", "--dir", str(tmp_path / "snaps"), "--keep", "3")
    folder = Path(capsys.readouterr().out.strip())
    manifest = json.loads((folder / "manifest.json").read_text())
    assert set(manifest["files"]) == {"db.sqlite3", "checkpoints.tar.gz"}

    Course.objects.create(slug="later", title="Made after the snapshot")
    Course.objects.filter(slug="kept").delete()
    (registry / "serving.json").write_text(json.dumps({"path": "b/step-9"}))

    with pytest.raises(CommandError, match="--yes"):
        call_command("restore_snapshot", str(folder))
    call_command("restore_snapshot", str(folder), "--yes")
    assert set(Course.objects.values_list("slug", flat=True)) == {"kept"}
    assert json.loads((registry / "serving.json").read_text()) == {"path": "a/step-1"}
    assert list(tmp_path.glob("checkpoints.before-restore-*"))  # the replaced one is kept


def test_retention_keeps_the_newest_n_and_damage_is_refused(
    registry: Path, tmp_path: Path, transactional_db: None
) -> None:
    config = SnapshotConfig(tmp_path / "snaps", keep=2)
    week = 7 * 86400
    made = [take_snapshot(config, when=1_790_000_000 + i * week) for i in range(3)]
    assert snapshots(config.root) == made[1:]  # the oldest went
    (made[-1] / "checkpoints.tar.gz").write_bytes(b"damaged")
    with pytest.raises(CommandError, match="checksum"):
        call_command("restore_snapshot", str(made[-1]), "--yes")


def _fake_tool(tmp_path: Path, name: str, version: str) -> str:
    """A `name` on PATH that only answers --version (as Debian's client prints it)."""
    folder = tmp_path / "bin"
    folder.mkdir(exist_ok=True)
    tool = folder / name
    tool.write_text(f"#!/bin/sh\necho '{name} (PostgreSQL) {version} (Debian {version}-1)'\n")
    tool.chmod(0o755)
    return f"{folder}:{os.environ['PATH']}"


def test_it_reads_the_client_major_version(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("PATH", _fake_tool(tmp_path, "pg_dump", "17.6"))
    assert client_major("pg_dump") == 17


@pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL")
def test_an_older_pg_dump_is_refused_with_the_fix(
    tmp_path: Path, monkeypatch: Any, transactional_db: None
) -> None:
    server = connection.pg_version // 10000  # type: ignore[attr-defined]
    monkeypatch.setenv("PATH", _fake_tool(tmp_path, "pg_dump", f"{server - 1}.2"))
    with pytest.raises(ValueError, match=f"postgresql-client-{server}"):
        take_snapshot(SnapshotConfig(tmp_path / "snaps"))
    assert not snapshots(tmp_path / "snaps")  # nothing half-made is left as a snapshot


@pytest.mark.skipif(
    connection.vendor != "postgresql" or shutil.which("pg_dump") is None,
    reason="needs PostgreSQL and its client tools",
)
def test_postgres_restore_brings_back_the_database(
    registry: Path, tmp_path: Path, transactional_db: None
) -> None:
    Course.objects.create(slug="kept", title="Kept")
    folder = take_snapshot(SnapshotConfig(tmp_path / "snaps"))
    assert (folder / "db.pgdump").stat().st_size > 0
    Course.objects.create(slug="later", title="Made after the snapshot")
    Course.objects.filter(slug="kept").delete()
    call_command("restore_snapshot", str(folder), "--yes")
    connection.close()  # pg_restore replaced the tables under this connection
    assert set(Course.objects.values_list("slug", flat=True)) == {"kept"}
