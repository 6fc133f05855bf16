from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command

pytestmark = pytest.mark.django_db


def _seed(*args: str) -> str:
    out = StringIO()
    call_command("seed_demo", *args, stdout=out)
    return out.getvalue()


def test_it_prints_each_new_password_once() -> None:
    first = _seed()
    assert first.count("password:") == 3
    second = _seed()
    assert "password:" not in second
    assert "--reset-passwords" in second


def test_the_printed_passwords_log_in() -> None:
    output = _seed()
    for line in output.splitlines():
        if "password:" in line:
            name, password = line.split()[0], line.split()[-1]
            assert User.objects.get(username=name).check_password(password)


def test_roles_land_in_their_groups() -> None:
    _seed()
    assert User.objects.get(username="student").groups.filter(name="students").exists()
    assert User.objects.get(username="teacher").groups.filter(name="teachers").exists()
    admin = User.objects.get(username="admin")
    assert admin.is_superuser and admin.groups.filter(name="admins").exists()
    assert not User.objects.get(username="student").is_staff


def test_reset_passwords_sets_new_ones() -> None:
    _seed()
    assert _seed("--reset-passwords").count("password:") == 3
