"""Classroom.students keeps its table, now through Membership, which adds `joined_at`.
Seats that existed before get their class's creation time: the earliest they can have
been taken, so a teacher keeps seeing what she saw before."""

from django.conf import settings
from django.db import migrations, models
from django.db.models import OuterRef, Subquery
from django.utils import timezone


def seats_date_from_their_class(apps, schema_editor):
    Membership = apps.get_model("accounts", "Membership")
    Classroom = apps.get_model("accounts", "Classroom")
    created = Classroom.objects.filter(pk=OuterRef("classroom_id")).values("created_at")[:1]
    Membership.objects.update(joined_at=Subquery(created))


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0005_school_sign_in"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="Membership",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        (
                            "classroom",
                            models.ForeignKey(
                                on_delete=models.deletion.CASCADE,
                                related_name="memberships",
                                to="accounts.classroom",
                            ),
                        ),
                        (
                            "student",
                            models.ForeignKey(
                                db_column="user_id",
                                on_delete=models.deletion.CASCADE,
                                related_name="memberships",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "db_table": "accounts_classroom_students",
                        "unique_together": {("classroom", "student")},
                    },
                ),
                migrations.AlterField(
                    model_name="classroom",
                    name="students",
                    field=models.ManyToManyField(
                        blank=True,
                        related_name="classrooms",
                        through="accounts.Membership",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            database_operations=[],
        ),
        migrations.AddField(
            model_name="membership",
            name="joined_at",
            field=models.DateTimeField(default=timezone.now),
        ),
        migrations.RunPython(seats_date_from_their_class, migrations.RunPython.noop),
    ]
