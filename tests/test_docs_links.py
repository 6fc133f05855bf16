"""Every relative link in the repository's Markdown resolves inside the repository.

A reader of a clone has the repository and nothing beside it: a link to a file that moved, to
a heading that was renamed, or to a path outside the repository (`../shared/...`) is dead for
them. The checker itself (tests/support/markdown_links.py) is tested on small trees first, so
that a checker that finds nothing cannot pass for a clean repository.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.markdown_links import anchors, heading_text, links, problems, slug

ROOT = Path(__file__).resolve().parents[1]


def test_every_relative_link_in_the_repositorys_markdown_resolves() -> None:
    found = problems(ROOT)
    assert not found, "dead or outside links:\n" + "\n".join(
        str(p).replace(f"{ROOT}/", "") for p in found
    )


def test_the_repository_has_markdown_with_links_to_check() -> None:
    """The check above reads the files it should: README links into docs/."""
    targets = {link.target for link in links(ROOT / "README.md")}
    assert any(target.startswith("docs/") for target in targets), targets


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path


def _reasons(root: Path) -> dict[str, str]:
    return {p.link.target: p.reason for p in problems(root)}


def test_a_missing_file_and_a_path_outside_the_repository_are_found(tmp_path: Path) -> None:
    root = _tree(
        tmp_path / "repo",
        {
            "README.md": "See [ops](docs/OPS.md), [gone](docs/GONE.md) and "
            "[design](../shared/design/ARCHITECTURE.md).\n",
            "docs/OPS.md": "# Ops\n",
        },
    )
    (tmp_path / "shared/design").mkdir(parents=True)
    (tmp_path / "shared/design/ARCHITECTURE.md").write_text("# A\n")  # exists, but outside
    reasons = _reasons(root)
    assert set(reasons) == {"docs/GONE.md", "../shared/design/ARCHITECTURE.md"}
    assert "no file" in reasons["docs/GONE.md"]
    assert "outside the repository" in reasons["../shared/design/ARCHITECTURE.md"]


def test_relative_links_resolve_from_the_linking_files_folder(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "docs/A.md": "[b](B.md) [readme](../README.md) [root](/bench/x.py) [bad](docs/B.md)\n",
            "docs/B.md": "# B\n",
            "README.md": "# R\n",
            "bench/x.py": "",
        },
    )
    assert set(_reasons(root)) == {"docs/B.md"}  # docs/docs/B.md does not exist


def test_anchors_follow_githubs_heading_slugs(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "docs/X.md": "# Operations runbook\n"
            "## Production with compose (`docker/`)\n"
            "### The verification step (tutor/lean/kernel_check.py)\n"
            "## Back up and restore\n"
            "## Back up and restore\n"
            "## FD→GRPO, *mixed* and `the_loss`\n"
            "```\n# not a heading\n```\n"
            "Setext heading\n--------------\n",
            "README.md": "[a](docs/X.md#production-with-compose-docker) "
            "[b](docs/X.md#the-verification-step-tutorleankernel_checkpy) "
            "[c](docs/X.md#back-up-and-restore-1) "
            "[d](docs/X.md#fdgrpo-mixed-and-the_loss) "
            "[e](docs/X.md#setext-heading) "
            "[f](docs/X.md#not-a-heading) "
            "[g](docs/X.md#back-up-and-restore-2) "
            "[h](#nowhere)\n",
        },
    )
    assert set(_reasons(root)) == {
        "docs/X.md#not-a-heading",
        "docs/X.md#back-up-and-restore-2",
        "#nowhere",
    }


def test_code_and_external_links_are_not_checked(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "README.md": "`[x](missing.md)` and [web](https://example.org/a.md) "
            "[mail](mailto:a@b.c)\n"
            "```md\n[y](missing-too.md)\n```\n"
            "[ref]: also-missing.md\n",
        },
    )
    assert set(_reasons(root)) == {"also-missing.md"}


def test_installed_folders_are_neither_read_nor_valid_targets(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "node_modules/pkg/README.md": "[x](nothing.md)\n",
            ".venv/lib/README.md": "[x](nothing.md)\n",
            "var/log.md": "# log\n",
            "README.md": "[log](var/log.md)\n",
        },
    )
    assert _reasons(root) == {
        "var/log.md": "points into an installed or generated folder, absent from a clone"
    }


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Serving path: stock parts", "serving-path-stock-parts"),
        ("Pointing the coach at an LLM", "pointing-the-coach-at-an-llm"),
        ("Serving a real model on a GPU with vLLM", "serving-a-real-model-on-a-gpu-with-vllm"),
        ("Limits & retries", "limits--retries"),
        ('"Ask the prover"', "ask-the-prover"),
        ("Memory at 8B on 8 x H200", "memory-at-8b-on-8-x-h200"),
    ],
)
def test_slugs(raw: str, expected: str) -> None:
    assert slug(heading_text(raw)) == expected


def test_html_anchors_count(tmp_path: Path) -> None:
    path = _tree(tmp_path, {"A.md": '<a id="here"></a>\n# Title\n'}) / "A.md"
    assert anchors(path) == {"here", "title"}
