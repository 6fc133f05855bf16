from __future__ import annotations

from typing import Any

from django import forms

from webapp.console import training_bridge
from webapp.console.models import TrainingRun
from webapp.courses.models import Course


class LaunchForm(forms.ModelForm):
    course = forms.ModelChoiceField(
        queryset=Course.objects.all(),
        label="Problem set",
        empty_label="Choose a course",
        error_messages={"required": "Choose the course whose exercises the run trains on."},
    )
    steps = forms.IntegerField(min_value=1, max_value=100_000)
    alpha = forms.FloatField(min_value=0.0, max_value=1.0, label="EMA alpha")
    top_k = forms.IntegerField(min_value=1, max_value=1000, label="Top-k")
    switch_step = forms.IntegerField(min_value=0, max_value=100_000, label="Switch step")

    class Meta:
        model = TrainingRun
        fields = [
            "algorithm", "preset", "steps", "feedback_source", "alpha", "top_k",
            "switch_step", "course", "base_model",
        ]  # fmt: skip
        labels = {"feedback_source": "Feedback source", "base_model": "Base model"}
        widgets = {
            "base_model": forms.TextInput(attrs={"placeholder": "/path/to/model or smollm2"})
        }

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if "base_model" in cleaned and "course" in cleaned:
            for name, why in training_bridge.launch_refusals(
                cleaned["base_model"], cleaned["course"]
            ).items():
                self.add_error(name, why)
        return cleaned


class PromoteForm(forms.Form):
    checkpoint = forms.CharField(max_length=500)
    # Set only by the confirm page's button: a bare POST shows the confirm step instead.
    confirmed = forms.BooleanField(required=False)
