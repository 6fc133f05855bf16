# TrainingRun takes the queue bookkeeping every queued row keeps (webapp.core.models.QueuedWork):
# queued_at, requeues and claimed_by. A run already there was queued when it was made.

from typing import Any

import django.utils.timezone
from django.db import migrations, models
from django.db.models import F


def queued_when_made(apps: Any, schema_editor: Any) -> None:
    TrainingRun = apps.get_model("console", "TrainingRun")
    TrainingRun.objects.using(schema_editor.connection.alias).update(queued_at=F("created_at"))


class Migration(migrations.Migration):
    dependencies = [
        ("console", "0002_continual_lineage"),
    ]

    operations = [
        migrations.AddField(
            model_name="trainingrun",
            name="claimed_by",
            field=models.CharField(blank=True, max_length=64),
        ),
        migrations.AddField(
            model_name="trainingrun",
            name="queued_at",
            field=models.DateTimeField(default=django.utils.timezone.now),
        ),
        migrations.AddField(
            model_name="trainingrun",
            name="requeues",
            field=models.PositiveSmallIntegerField(default=0),
        ),
        migrations.RunPython(queued_when_made, migrations.RunPython.noop),
    ]
