from __future__ import annotations

from django import forms

from webapp.attempts.models import MAX_PROOF_CHARS

MAX_IMPORT_BYTES = 5 * 1024 * 1024


class ProofForm(forms.Form):
    # The page renders the field by hand; its `maxlength` comes from here (the browser stops
    # at the limit and says so). do_submit_attempt checks again, with a message.
    proof = forms.CharField(
        strip=False,
        required=False,
        max_length=MAX_PROOF_CHARS,
        widget=forms.Textarea(attrs={"rows": 12, "spellcheck": "false", "class": "lean-editor"}),
    )


class ImportForm(forms.Form):
    course_slug = forms.SlugField(
        label="Course slug", max_length=80, help_text="created if it does not exist"
    )
    course_title = forms.CharField(
        required=False, max_length=200, help_text="title for a new course"
    )
    file = forms.FileField(
        help_text="JSONL with the fields of miniF2F: name, formal_statement, ..."
    )

    def clean_file(self) -> object:
        upload = self.cleaned_data["file"]
        if upload.size > MAX_IMPORT_BYTES:
            raise forms.ValidationError("The file is over 5 MB: split it and import the parts.")
        return upload
