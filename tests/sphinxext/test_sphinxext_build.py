"""Build tiny Sphinx projects that use the plugsim reference directives."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
import yaml
from sphinx.cmd.build import build_main

HERE = Path(__file__).parent

CONF = f"""
import sys
sys.path.insert(0, {str(HERE)!r})
project = "sample"
extensions = ["sdk.sphinxext"]
"""


def make_project(tmp_path: Path, body: str) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text(CONF)
    (src / "index.rst").write_text("Reference\n=========\n\n" + textwrap.dedent(body))
    return src


def build(src: Path, builder: str = "text", *extra: str) -> tuple[int, Path]:
    out = src.parent / f"out-{builder}"
    code = build_main(["-q", "-E", "-b", builder, *extra, str(src), str(out)])
    return code, out


def build_text(tmp_path: Path, body: str) -> str:
    src = make_project(tmp_path, body)
    code, out = build(src, "text", "-W")
    assert code == 0
    return (out / "index.txt").read_text()


def flat(text: str) -> str:
    """The text with every run of whitespace made one space (the builder wraps lines)."""
    return " ".join(text.split())


GADGET = """
.. plugsim:resource:: Sample::Gadget::Gadget
   :module: sphinxext_sample_plugin
"""


@pytest.fixture(scope="module")
def gadget_text(tmp_path_factory: pytest.TempPathFactory) -> str:
    return build_text(tmp_path_factory.mktemp("gadget"), GADGET)


def test_title_description_and_type_version(gadget_text: str) -> None:
    assert "Reference\n*********\n\n\nSample::Gadget::Gadget\n======================" in gadget_text
    assert "A gadget kept by the sample service." in gadget_text
    assert "Gadgets have a *name*, a size and a set of labels." in gadget_text
    assert "Added in version 1.2.0." in gadget_text


def test_properties_with_types_required_defaults_and_update_notes(gadget_text: str) -> None:
    assert '"name"\n   *String*, required. Changing it replaces the resource.' in gadget_text
    assert (
        '"size" *Integer*, optional. Default: "4". Can be updated without replacing '
        "the resource." in flat(gadget_text)
    )
    assert '"zone"\n   *String*, optional. Immutable: an update that changes it fails.' in (
        gadget_text
    )
    assert '"ports"\n   *List of Map*, optional.' in gadget_text
    required = gadget_text.index("Required\n")
    optional = gadget_text.index("Optional\n")
    assert required < gadget_text.index('"replicas"') < optional < gadget_text.index('"size"')


def test_constraints_are_readable(gadget_text: str) -> None:
    for rule in (
        '* matches the regular expression "[a-z][a-z0-9-]*"',
        "* length from 3 to 20 — Keep names short.",
        "* at least 3",
        "* 1 plus a multiple of 4",
        "* from 2 to 64",
        "* a multiple of 2",
        '* one of ""north"", ""south""',
        '* valid as "sample.flavor" (custom constraint)',
    ):
        assert rule in gadget_text


def test_nested_members_are_indented(gadget_text: str) -> None:
    assert 'Members:\n\n   "mode"\n      *String*, required. Default: ""fast"".' in gadget_text
    assert 'Each item is a map with these members:\n\n   "number"\n      *Integer*' in gadget_text


def test_previous_status_chain_becomes_version_notes(gadget_text: str) -> None:
    colour = gadget_text[gadget_text.index('"colour"') :]
    added = colour.index("Added in version 1.0.0.")
    deprecated = colour.index("Deprecated since version 1.4.0: Use paint instead.")
    assert added < deprecated < colour.index('"ports"')


def test_attributes_include_show(gadget_text: str) -> None:
    attrs = gadget_text[gadget_text.index("Attributes\n") :]
    assert '"show"\n   *Map*.\n\n   Detailed information about the resource.' in attrs
    assert '"address"\n   *String*.\n\n   The gadget\'s address.' in attrs


def test_hidden_items_are_never_shown(gadget_text: str) -> None:
    for hidden in ("secret_token", "Internal only.", "debug_hook", "internal_id", "Not for users"):
        assert hidden not in gadget_text


def test_hot_example_is_a_minimal_valid_resources_entry(gadget_text: str) -> None:
    section = gadget_text[gadget_text.index("HOT example") :]
    snippet = section[section.index("resources:") :]
    doc = yaml.safe_load(textwrap.dedent("   " + snippet))
    assert doc == {
        "resources": {
            "gadget": {
                "type": "Sample::Gadget::Gadget",
                "properties": {"name": "example", "replicas": 5, "settings": {"level": 1}},
            }
        }
    }


def test_class_option_documents_the_class(tmp_path: Path) -> None:
    text = build_text(
        tmp_path,
        """
        .. plugsim:resource:: Sample::Plain::Other
           :class: sphinxext_sample_plugin.Plain
        """,
    )
    assert "Sample::Plain::Other" in text
    assert "A type with no properties at all." in text
    assert "Properties" not in text
    assert '"show"' in text
    assert "resources:\n     other:\n       type: Sample::Plain::Other" in text


def test_module_directive_renders_every_visible_type_sorted(tmp_path: Path) -> None:
    text = build_text(tmp_path, ".. plugsim:resources:: sphinxext_sample_plugin\n")
    assert text.index("Sample::Gadget::Gadget") < text.index("Sample::Plain::Thing")
    assert "Sample::Ghost::Ghost" not in text
    assert "A retired type" not in text


def test_html_builder_in_parallel(tmp_path: Path) -> None:
    src = make_project(tmp_path, ".. plugsim:resources:: sphinxext_sample_plugin\n")
    (src / "second.rst").write_text("Second\n======\n\n" + GADGET)
    (src / "index.rst").write_text(
        (src / "index.rst").read_text() + "\n.. toctree::\n\n   second\n"
    )
    code, out = build(src, "html", "-W", "-j", "2")
    assert code == 0
    html = (out / "second.html").read_text()
    assert "Sample::Gadget::Gadget" in html
    assert "secret_token" not in html


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            ".. plugsim:resource:: Sample::Gadget::Gadget\n   :module: no_such_module_xyz\n",
            "plugsim:resource: cannot import module 'no_such_module_xyz': "
            "ModuleNotFoundError: No module named 'no_such_module_xyz'",
        ),
        (
            ".. plugsim:resource:: Sample::Nope::Nope\n   :module: sphinxext_sample_plugin\n",
            "plugsim:resource: module 'sphinxext_sample_plugin' has no resource type "
            "'Sample::Nope::Nope' (known: Sample::Gadget::Gadget, Sample::Ghost::Ghost, "
            "Sample::Plain::Thing)",
        ),
        (
            ".. plugsim:resource:: Sample::X::X\n   :class: sphinxext_sample_plugin.NOT_A_RESOURCE\n",
            "plugsim:resource: 'sphinxext_sample_plugin.NOT_A_RESOURCE' is not a Resource subclass",
        ),
        (
            ".. plugsim:resource:: Sample::X::X\n   :class: sphinxext_sample_plugin.Missing\n",
            "plugsim:resource: module 'sphinxext_sample_plugin' has no attribute 'Missing'",
        ),
        (
            ".. plugsim:resource:: Sample::X::X\n",
            "plugsim:resource: resource type 'Sample::X::X': give exactly one of :module: "
            "and :class:",
        ),
        (
            ".. plugsim:resource:: Sample::Ghost::Ghost\n   :module: sphinxext_sample_plugin\n",
            "plugsim:resource: resource type 'Sample::Ghost::Ghost' is HIDDEN and is not "
            "documented",
        ),
        (
            ".. plugsim:resources:: json\n",
            "plugsim:resources: module 'json' defines neither resource_mapping() nor "
            "available_resource_mapping()",
        ),
    ],
)
def test_errors_are_warnings_at_the_directive_location(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str, message: str
) -> None:
    src = make_project(tmp_path, "Some text.\n\n" + body)
    code, out = build(src)
    assert code == 0
    err = capsys.readouterr().err
    assert f"index.rst:6: WARNING: {message}" in err
    assert "Some text." in (out / "index.txt").read_text()


def test_warnings_fail_a_strict_build(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = make_project(tmp_path, ".. plugsim:resources:: no_such_module_xyz\n")
    code, _ = build(src, "text", "-W")
    assert code != 0
    assert "Traceback" not in capsys.readouterr().err


def test_a_broken_schema_is_a_warning_naming_the_plugin(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = make_project(tmp_path, "Text.\n\n.. plugsim:resources:: sphinxext_broken_plugin\n")
    code, _ = build(src)
    assert code == 0
    assert (
        "index.rst:6: WARNING: plugsim:resources: resource plug-in "
        "sphinxext_broken_plugin.Broken (Sample::Broken::Broken): Property size: "
        "Invalid type 'Bogus'; valid types are: Integer, String, Number, Boolean, Map, List, Any"
    ) in capsys.readouterr().err


def test_setup_metadata_is_parallel_safe() -> None:
    import sdk
    from sdk import sphinxext

    registered: list[type] = []

    class App:
        def add_domain(self, domain: type) -> None:
            registered.append(domain)

    meta = sphinxext.setup(App())  # type: ignore[arg-type]
    assert meta == {
        "version": sdk.__version__,
        "parallel_read_safe": True,
        "parallel_write_safe": True,
    }
    assert registered == [sphinxext.PlugsimDomain]
    assert sorted(sphinxext.PlugsimDomain.directives) == ["resource", "resources"]
