"""Attributes, show, get_attr paths, references, names, clients and resource data."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_resource_fakes import Server, make, make_context, run

from sdk import attributes as a
from sdk import exception
from sdk.context import StackInfo
from sdk.resource import Resource
from sdk.rsrc_defn import ResourceDefinition


class WithAttrs(Server):
    attributes_schema = {
        "status": a.Schema("The status.", type=a.Schema.STRING),
        "networks": a.Schema("Addresses by network.", type=a.Schema.MAP),
        "missing": a.Schema("Gone server.", type=a.Schema.STRING),
    }

    def _resolve_attribute(self, name):
        server = self.client().servers.get(self.resource_id)
        if name == "status":
            return server.status
        if name == "networks":
            return {"private": ["10.0.0.5", "fd00::5"], "public": []}
        if name == "missing":
            return self.client().servers.get("srv-404").status
        return None


def created(cls=WithAttrs, **kwargs):
    r = make(cls, **kwargs)
    run(r.create())
    return r


def test_every_resource_has_show():
    r = make(Resource)
    assert "show" in r.attributes
    assert r.attributes["show"] is None  # no resource id yet
    assert r.attributes_schema == {}  # the class schema is not mutated


def test_declared_attributes_resolve():
    r = created()
    assert sorted(r.attributes) == ["missing", "networks", "show", "status"]
    assert r.FnGetAtt("status") == "ACTIVE"


def test_unknown_attribute_is_a_clear_error():
    r = created()
    with pytest.raises(exception.InvalidTemplateAttribute) as info:
        r.FnGetAtt("colour")
    assert str(info.value) == "The Referenced Attribute (web colour) is incorrect."


def test_not_found_while_resolving_gives_none():
    r = created()
    assert r.FnGetAtt("missing") is None


def test_other_resolution_errors_propagate():
    class Broken(WithAttrs):
        def _resolve_attribute(self, name):
            raise exception.Unauthorized("bad token")

    r = created(Broken)
    with pytest.raises(exception.Unauthorized):
        r.FnGetAtt("status")


def test_show_uses_entity_get_to_dict():
    r = created(props={"name": "w"})
    assert r.FnGetAtt("show") == {"id": "srv-1", "status": "ACTIVE", "name": "w", "flavor": "small"}


def test_show_is_none_without_entity():
    class NoEntity(Resource):
        def handle_create(self):
            self.resource_id_set("x")

    r = created(NoEntity)
    assert r.FnGetAtt("show") is None


def test_show_not_found_gives_none():
    r = created()
    r.client().servers.items.clear()
    assert r.FnGetAtt("show") is None
    assert r.attribute_errors == {}


def test_show_errors_give_none_and_are_noted():
    r = created()

    def boom(sid):
        raise exception.ServiceUnavailable("compute is down")

    r.client().servers.get = boom
    assert r.FnGetAtt("show") is None
    assert r.attribute_errors == {"show": "ServiceUnavailable: compute is down"}


def test_show_accepts_a_plain_dict_and_can_be_overridden():
    class Custom(WithAttrs):
        def _show_resource(self):
            return {"custom": True}

    assert created(Custom).FnGetAtt("show") == {"custom": True}


def test_fngetatt_paths_into_maps_and_lists():
    r = created()
    assert r.FnGetAtt("networks", "private", 1) == "fd00::5"
    assert r.FnGetAtt("networks", "private", "0") == "10.0.0.5"
    assert r.FnGetAtt("networks", "public") == []


@pytest.mark.parametrize(
    "path",
    [("nowhere",), ("private", 7), ("private", "x"), ("private", 0, "deeper"), (["a"],)],
)
def test_fngetatt_paths_that_lead_nowhere_are_null_as_in_heat(path):
    # Heat 27 (attributes.select_from_attribute): a KeyError, IndexError or TypeError
    # along the path makes the value None; templates test for it with if/equals.
    r = created()
    assert r.FnGetAtt("networks", *path) is None


def test_path_into_an_unknown_value_is_none():
    r = make(WithAttrs)  # not created: resolving would fail, so override
    r._resolve_attribute = lambda name: None
    assert r.FnGetAtt("networks", "private", 0) is None


def test_fngetatts_excludes_show():
    r = created()
    assert sorted(r.FnGetAtts()) == ["missing", "networks", "status"]


def test_reference_id():
    r = make(Server)
    assert r.FnGetRefId() == "web"
    r.resource_id_set(42)
    assert r.FnGetRefId() == "42"
    assert r.get_reference_id() == "42"


def test_attribute_cache_is_reset_when_the_resource_changes():
    r = created()
    assert r.FnGetAtt("status") == "ACTIVE"
    r.client().servers.items["srv-1"].suspended = True
    assert r.FnGetAtt("status") == "ACTIVE"  # cached
    r.state_set("SUSPEND", "IN_PROGRESS")
    assert r.FnGetAtt("status") == "SUSPENDED"


# --- names -----------------------------------------------------------------------


def test_physical_resource_name_is_deterministic():
    ctx, _ = make_context(stack=StackInfo(name="prod", id="4f1c"))
    r1 = make(Server, ctx=ctx)
    ctx2, _ = make_context(stack=StackInfo(name="prod", id="4f1c"))
    r2 = make(Server, ctx=ctx2)
    name = r1.physical_resource_name()
    assert name == r2.physical_resource_name()
    stack, res, suffix = name.split("-")
    assert (stack, res) == ("prod", "web")
    assert len(suffix) == 12 and suffix.isalnum() and suffix.islower()
    ctx3, _ = make_context(stack=StackInfo(name="prod", id="other"))
    assert make(Server, ctx=ctx3).physical_resource_name() != name


def test_physical_resource_name_is_reduced_to_the_limit():
    class Short(Server):
        physical_resource_name_limit = 20

    name = make(Short, name="a-very-long-resource-name").physical_resource_name()
    assert len(name) == 20
    assert name.startswith("de-")


@given(st.text(min_size=1, max_size=80), st.integers(min_value=4, max_value=60))
def test_reduce_physical_resource_name(name, limit):
    reduced = Resource.reduce_physical_resource_name(name, limit)
    assert len(reduced) <= limit
    if len(name) <= limit:
        assert reduced == name
    else:
        assert reduced[:2] == name[:2] and name.endswith(reduced[3:])


def test_reduce_physical_resource_name_limit_too_small():
    with pytest.raises(ValueError, match="at least 4"):
        Resource.reduce_physical_resource_name("abcdefgh", 3)


# --- clients ---------------------------------------------------------------------


def test_client_and_client_plugin_by_default_name_and_by_name():
    r = make(Server)
    assert r.client() is r.context.client_plugin("compute").client()
    assert r.client_plugin().name == "compute"
    assert r.client("compute") is r.client()


def test_client_without_default_name_is_a_configuration_error():
    r = make(Resource)
    with pytest.raises(exception.ConfigurationError) as info:
        r.client()
    assert str(info.value).startswith("Resource web (Test::Server) has no default_client_name")


def test_unknown_client_name():
    with pytest.raises(exception.ConfigurationError, match="No client named 'dns'"):
        make(Server).client("dns")


# --- data --------------------------------------------------------------------------


def test_resource_id_and_data_are_persisted_through_the_context():
    r = make(Server)
    r.resource_id_set("srv-9")
    r.data_set("password", "s3cret")
    assert r.context.saved["web"]["resource_id"] == "srv-9"
    assert r.context.saved["web"]["data"] == {"password": "s3cret"}
    assert r.data() == {"password": "s3cret"}
    r.data()["x"] = 1  # a copy
    assert r.data() == {"password": "s3cret"}
    assert r.data_delete("password") is True
    assert r.data_delete("password") is False
    assert r.context.saved["web"]["data"] == {}


def test_metadata_defaults_to_the_definition():
    r = make(Server, metadata={"role": "web"})
    assert r.metadata_get() == {"role": "web"}
    r.metadata_set({"role": "db"})
    assert r.metadata_get() == {"role": "db"}


def test_definition_type_and_stack():
    ctx, _ = make_context(stack=StackInfo(name="s", id="i"))
    r = Server("x", ResourceDefinition("x", "My::Type"), ctx)
    assert r.type() == "My::Type"
    assert r.stack.name == "s"
    assert str(r) == 'Server "x"'


def test_properties_carry_the_template_path():
    r = make(Server, props={"tags": "not-a-list"})
    with pytest.raises(exception.StackValidationFailed) as info:
        r.validate()
    assert str(info.value).startswith("resources.web.properties.tags: ")
