"""Snapshots of the database and the checkpoint registry, with keep-N retention and restore.

A snapshot is one folder `<root>/snapshot-<UTC time>/` holding:
- the database: `db.sqlite3` (SQLite's online backup API: consistent while the app writes)
  or `db.pgdump` (pg_dump's custom format, for pg_restore);
- `checkpoints.tar.gz`: the checkpoint registry (settings.CHECKPOINT_ROOT: checkpoints, the
  serving pointer and its history);
- `manifest.json`: when, which engine, file sizes and SHA-256 sums (restore checks them).
It is written under a temporary name and renamed when complete, so a half-written snapshot is
never taken for one. `python manage.py snapshot` makes one (Celery beat runs it weekly when
LEANCOACH_SNAPSHOT_EVERY_DAYS is set); `python manage.py restore_snapshot DIR --yes` restores.
Why this and not django-dbbackup: docs/OPERATIONS.md, "Back up and restore".
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sqlite3
import subprocess
import tarfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import connection

PREFIX = "snapshot-"


@dataclass
class SnapshotConfig:
    root: Path
    keep: int = 8  # eight weekly snapshots: two months back

    def __post_init__(self) -> None:
        if self.keep < 1:
            raise ValueError("keep must be at least 1")


def default_config() -> SnapshotConfig:
    root = os.environ.get("LEANCOACH_SNAPSHOT_DIR") or str(Path(settings.VAR_DIR) / "snapshots")
    return SnapshotConfig(Path(root), int(os.environ.get("LEANCOACH_SNAPSHOT_KEEP", "8")))


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _dump_database(folder: Path) -> Path:
    db = settings.DATABASES["default"]
    if connection.vendor == "sqlite":
        target = folder / "db.sqlite3"
        if connection.in_atomic_block:  # the backup would wait forever on our own transaction
            raise ValueError("take SQLite snapshots outside a transaction")
        connection.ensure_connection()
        with sqlite3.connect(target) as out:
            connection.connection.backup(out)
        out.close()
        return target
    if connection.vendor == "postgresql":
        target = folder / "db.pgdump"
        check_pg_client("pg_dump")
        subprocess.run(["pg_dump", "--format=custom", f"--file={target}", *_pg_args(db)],
                       check=True, env=_pg_env(db))  # fmt: skip
        return target
    raise ValueError(f"no snapshot method for the {connection.vendor} database")


def client_major(tool: str) -> int:
    """The major version of `pg_dump` / `pg_restore` on PATH ("pg_dump (PostgreSQL) 15.20 ...")."""
    out = subprocess.run([tool, "--version"], capture_output=True, text=True, check=True).stdout
    found = re.search(r"\)\s*(\d+)", out)
    if found is None:
        raise ValueError(f"cannot read the version of {tool}: {out.strip()!r}")
    return int(found.group(1))


def check_pg_client(tool: str) -> None:
    """pg_dump refuses a server newer than itself, after the snapshot has started ("server
    version mismatch"): say beforehand which client to install. The images install the one
    matching POSTGRES_MAJOR (docker/Dockerfile); this catches any other setup."""
    connection.ensure_connection()
    server = connection.pg_version // 10000  # type: ignore[attr-defined]
    client = client_major(tool)
    if client < server:
        raise ValueError(
            f"{tool} is version {client} but the PostgreSQL server is {server}: install "
            f"postgresql-client-{server} (in the images: build with POSTGRES_MAJOR={server})"
        )


def _pg_args(db: dict[str, Any]) -> list[str]:
    return [f"--host={db.get('HOST') or 'localhost'}", f"--port={db.get('PORT') or 5432}",
            f"--username={db.get('USER') or 'postgres'}", f"--dbname={db['NAME']}"]  # fmt: skip


def _pg_env(db: dict[str, Any]) -> dict[str, str]:
    return {**os.environ, "PGPASSWORD": str(db.get("PASSWORD") or "")}


def _archive_registry(folder: Path) -> Path:
    target = folder / "checkpoints.tar.gz"
    root = Path(settings.CHECKPOINT_ROOT)
    with tarfile.open(target, "w:gz") as tar:
        if root.exists():
            tar.add(root, arcname="checkpoints")
    return target


def take_snapshot(config: SnapshotConfig | None = None, when: float | None = None) -> Path:
    config = config or default_config()
    config.root.mkdir(parents=True, exist_ok=True)
    when = time.time() if when is None else when
    name = PREFIX + time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(when))
    partial = config.root / f".{name}.partial"
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir()
    files = [_dump_database(partial), _archive_registry(partial)]
    manifest = {
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(when)),
        "database": connection.vendor,
        "files": {f.name: {"bytes": f.stat().st_size, "sha256": _sha256(f)} for f in files},
    }
    (partial / "manifest.json").write_text(json.dumps(manifest, indent=2))
    final = config.root / name
    partial.rename(final)
    prune(config)
    return final


def snapshots(root: Path) -> list[Path]:
    """Complete snapshots, oldest first (names sort by time)."""
    if not root.exists():
        return []
    return sorted(p for p in root.iterdir() if p.name.startswith(PREFIX) and p.is_dir())


def prune(config: SnapshotConfig) -> list[Path]:
    """Keep the newest config.keep snapshots; return the ones removed."""
    old = snapshots(config.root)[: -config.keep]
    for path in old:
        shutil.rmtree(path)
    return old


def verify(folder: Path) -> dict[str, Any]:
    manifest = json.loads((folder / "manifest.json").read_text())
    for name, meta in manifest["files"].items():
        if _sha256(folder / name) != meta["sha256"]:
            raise ValueError(f"{folder / name} does not match its checksum: snapshot damaged")
    return manifest


def restore_snapshot(folder: Path) -> dict[str, Any]:
    """Put the snapshot's database and checkpoint registry back in place of the current ones.
    The current registry is kept beside it as `<root>.before-restore-<time>`."""
    manifest = verify(folder)
    if manifest["database"] != connection.vendor:
        raise ValueError(
            f"snapshot of a {manifest['database']} database; this is {connection.vendor}"
        )
    if connection.vendor == "sqlite":
        connection.ensure_connection()
        with sqlite3.connect(folder / "db.sqlite3") as source:
            source.backup(connection.connection)
        source.close()
    else:
        db = settings.DATABASES["default"]
        check_pg_client("pg_restore")
        subprocess.run(["pg_restore", "--clean", "--if-exists", "--no-owner", *_pg_args(db),
                        str(folder / "db.pgdump")], check=True, env=_pg_env(db))  # fmt: skip
    root = Path(settings.CHECKPOINT_ROOT)
    if root.exists():
        root.rename(root.with_name(f"{root.name}.before-restore-{int(time.time())}"))
    unpacked = root.with_name(f".{root.name}.restoring")
    shutil.rmtree(unpacked, ignore_errors=True)
    with tarfile.open(folder / "checkpoints.tar.gz") as tar:
        tar.extractall(unpacked, filter="data")
    inner = unpacked / "checkpoints"
    if inner.exists():
        inner.rename(root)
    else:
        root.mkdir(parents=True)
    shutil.rmtree(unpacked, ignore_errors=True)
    return manifest
