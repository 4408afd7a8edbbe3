"""Custom constraints: base class, registries, entry points, context at validation."""

import importlib.metadata

import pytest

from sdk import constraints as c
from sdk import exception
from sdk import properties as p
from sdk.context import LocalContext


class EvenLength(c.BaseCustomConstraint):
    """Accepts strings of even length; needs no client."""

    def validate(self, value, context=None):
        self._error_message = None if len(value) % 2 == 0 else f"length {len(value)} is odd"
        return self._error_message is None


class FlavorLookup(c.BaseCustomConstraint):
    """Checks a flavor name through the 'compute' client plug-in."""

    resource_client_name = "compute"
    expected_exceptions = (exception.NotFound,)

    def validate_with_client(self, client, value):
        client.client_plugin(self.resource_client_name).client().find_flavor(value)


class FakeCompute:
    def __init__(self):
        self.looked_up = []

    def find_flavor(self, name):
        self.looked_up.append(name)
        if name not in ("m1.small", "m1.large"):
            raise exception.NotFound(f"Flavor {name} not found")
        return name


class GetterLookup(c.BaseCustomConstraint):
    resource_client_name = "compute"
    resource_getter_name = "find_flavor"
    expected_exceptions = (exception.NotFound,)


@pytest.fixture
def registry():
    return c.ConstraintRegistry(group=None)


def test_register_and_get_returns_a_fresh_instance(registry):
    registry.register("even", EvenLength)
    first, second = registry.get("even"), registry.get("even")
    assert isinstance(first, EvenLength) and first is not second
    assert registry.names() == ["even"]
    assert "even" in registry and "odd" not in registry


def test_unknown_name_is_a_clear_error(registry):
    registry.register("even", EvenLength)
    with pytest.raises(exception.EntityNotFound) as info:
        registry.get("flavor")
    assert str(info.value) == (
        "The custom constraint (flavor) could not be found (registered: even)"
    )


def test_register_rejects_non_constraint_classes(registry):
    with pytest.raises(exception.PluginLoadError, match="must be a BaseCustomConstraint subclass"):
        registry.register("x", object)
    with pytest.raises(exception.PluginLoadError, match="non-empty string"):
        registry.register("", EvenLength)


def test_custom_constraint_uses_given_registry_and_message(registry):
    registry.register("even", EvenLength)
    schema = p.Schema(
        p.Schema.STRING, constraints=[c.CustomConstraint("even", environment=registry)]
    )
    schema.validate_constraints("ab")
    with pytest.raises(exception.StackValidationFailed) as info:
        schema.validate_constraints("abc", path=["x"])
    assert str(info.value) == (
        "x: 'abc' does not satisfy the custom constraint 'even': length 3 is odd"
    )


def test_custom_constraint_description_replaces_message(registry):
    registry.register("even", EvenLength)
    constraint = c.CustomConstraint("even", description="must be even", environment=registry)
    with pytest.raises(ValueError, match="^must be even$"):
        constraint.validate("abc")


def test_environment_may_carry_a_registry_attribute(registry):
    class Env:
        constraints = registry

    registry.register("even", EvenLength)
    assert c.CustomConstraint("even", environment=Env()).registry() is registry
    with pytest.raises(exception.ConfigurationError, match="has no constraint registry"):
        c.CustomConstraint("even", environment=object()).registry()


def test_unregistered_custom_constraint_fails_validation_with_its_name(registry):
    constraint = c.CustomConstraint("nosuch", environment=registry)
    with pytest.raises(ValueError) as info:
        constraint.validate("v")
    assert str(info.value) == (
        "The custom constraint (nosuch) could not be found (registered: none)"
    )


def test_context_reaches_the_custom_constraint(registry):
    registry.register("flavor", FlavorLookup)
    compute = FakeCompute()
    ctx = LocalContext({"compute": compute})
    constraint = c.CustomConstraint("flavor", environment=registry)
    constraint.validate("m1.small", context=ctx)
    with pytest.raises(ValueError) as info:
        constraint.validate("m9.huge", context=ctx)
    assert str(info.value) == (
        "'m9.huge' does not satisfy the custom constraint 'flavor': Flavor m9.huge not found"
    )
    assert compute.looked_up == ["m1.small", "m9.huge"]


def test_resource_getter_name_on_the_client(registry):
    registry.register("flavor", GetterLookup)
    ctx = LocalContext({"compute": FakeCompute()})
    constraint = c.CustomConstraint("flavor", environment=registry)
    constraint.validate("m1.large", context=ctx)
    with pytest.raises(ValueError, match="Flavor tiny not found"):
        constraint.validate("tiny", context=ctx)


def test_client_checks_are_skipped_without_a_context(registry):
    registry.register("flavor", FlavorLookup)
    c.CustomConstraint("flavor", environment=registry).validate("anything")


def test_properties_pass_their_context_to_custom_constraints(registry):
    registry.register("flavor", FlavorLookup)
    schema = {
        "flavor": p.Schema(
            p.Schema.STRING, constraints=[c.CustomConstraint("flavor", environment=registry)]
        )
    }
    ctx = LocalContext({"compute": FakeCompute()})
    p.Properties(schema, {"flavor": "m1.small"}, context=ctx).validate()
    props = p.Properties(
        schema, {"flavor": "bad"}, context=ctx, path=["resources", "vm", "properties"]
    )
    with pytest.raises(exception.StackValidationFailed) as info:
        props.validate()
    assert str(info.value) == (
        "resources.vm.properties.flavor: 'bad' does not satisfy the custom constraint "
        "'flavor': Flavor bad not found"
    )


def test_list_values_are_checked_item_by_item(registry):
    registry.register("even", EvenLength)
    constraint = c.CustomConstraint("even", environment=registry)
    constraint.validate(["ab", "cdef"])
    with pytest.raises(ValueError, match="'xyz' does not satisfy"):
        constraint.validate(["ab", "xyz"])


def test_custom_constraint_needs_a_name():
    with pytest.raises(exception.InvalidSchemaError, match="needs a constraint name"):
        c.CustomConstraint("")


def test_custom_constraint_not_for_maps():
    with pytest.raises(
        exception.InvalidSchemaError, match="CustomConstraint constraint invalid for Map"
    ):
        p.Schema(p.Schema.MAP, constraints=[c.CustomConstraint("x")])


def test_custom_constraints_are_not_run_on_defaults_at_build_time():
    schema = p.Schema(p.Schema.STRING, default="x", constraints=[c.CustomConstraint("nosuch")])
    assert schema.default == "x"


# -- entry points ---------------------------------------------------------------------


@pytest.fixture
def plugin_module(tmp_path, monkeypatch):
    (tmp_path / "myconstraints.py").write_text(
        "from sdk.constraints import BaseCustomConstraint\n"
        "class Upper(BaseCustomConstraint):\n"
        "    def validate(self, value, context=None):\n"
        "        self._error_message = 'not upper case'\n"
        "        return value.isupper()\n"
        "NotAClass = 42\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    calls = []

    def fake_entry_points(group):
        calls.append(group)
        return [
            importlib.metadata.EntryPoint("upper", "myconstraints:Upper", group),
            importlib.metadata.EntryPoint("broken", "no_such_module_xyz:Thing", group),
            importlib.metadata.EntryPoint("weird", "myconstraints:NotAClass", group),
        ]

    monkeypatch.setattr(importlib.metadata, "entry_points", fake_entry_points)
    return calls


def test_entry_points_load_once_lazily_and_broken_ones_are_reported(plugin_module):
    registry = c.ConstraintRegistry()
    assert plugin_module == []  # nothing read at construction
    assert registry.names() == ["upper"]
    registry.get("upper")
    assert plugin_module == ["plugsim.constraints"]  # read exactly once
    errors = dict(registry.load_errors)
    assert sorted(errors) == [
        "broken = no_such_module_xyz:Thing",
        "weird = myconstraints:NotAClass",
    ]
    assert errors["broken = no_such_module_xyz:Thing"].startswith("ModuleNotFoundError:")
    assert (
        "must be a BaseCustomConstraint subclass, got 42"
        in errors["weird = myconstraints:NotAClass"]
    )
    constraint = c.CustomConstraint("upper", environment=registry)
    constraint.validate("ABC")
    with pytest.raises(ValueError, match="not upper case"):
        constraint.validate("abc")


def test_python_registration_wins_over_entry_point(plugin_module):
    registry = c.ConstraintRegistry()
    registry.register("upper", EvenLength)
    assert isinstance(registry.get("upper"), EvenLength)


def test_failing_entry_point_listing_is_reported(monkeypatch):
    def boom(group):
        raise RuntimeError("bad metadata")

    monkeypatch.setattr(importlib.metadata, "entry_points", boom)
    registry = c.ConstraintRegistry()
    assert registry.names() == []
    assert registry.load_errors == [("group plugsim.constraints", "RuntimeError: bad metadata")]


def test_default_registry_functions(monkeypatch):
    fresh = c.ConstraintRegistry(group=None)
    monkeypatch.setattr(c, "_DEFAULT_REGISTRY", fresh)
    monkeypatch.setattr("sdk._constraint_registry._DEFAULT_REGISTRY", fresh)
    c.register_constraint("even", EvenLength)
    assert c.registered_constraints() == ["even"]
    assert isinstance(c.get_constraint("even"), EvenLength)
    assert c.default_registry() is fresh
    c.CustomConstraint("even").validate("ab")


class Raising(c.BaseCustomConstraint):
    def validate(self, value, context=None):
        raise ValueError(f"{value} is right out")


class NoClientSet(c.BaseCustomConstraint):
    pass


def test_a_validate_that_raises_is_a_failure_message(registry):
    registry.register("raising", Raising)
    with pytest.raises(ValueError) as info:
        c.CustomConstraint("raising", environment=registry).validate("five")
    assert str(info.value) == (
        "'five' does not satisfy the custom constraint 'raising': five is right out"
    )


def test_a_constraint_that_checks_nothing_is_reported(registry):
    registry.register("nothing", NoClientSet)
    ctx = LocalContext({"compute": FakeCompute()})
    with pytest.raises(ValueError) as info:
        c.CustomConstraint("nothing", environment=registry).validate("v", context=ctx)
    assert "Custom constraint NoClientSet must set resource_client_name" in str(info.value)


def test_a_missing_client_is_reported_not_raised(registry):
    registry.register("flavor", GetterLookup)
    with pytest.raises(ValueError) as info:
        c.CustomConstraint("flavor", environment=registry).validate("m1", context=LocalContext())
    assert str(info.value) == (
        "'m1' does not satisfy the custom constraint 'flavor': "
        "No client named 'compute' in this context (known: none)"
    )


def test_error_text_defaults_when_the_constraint_gives_none(registry):
    class Silent(c.BaseCustomConstraint):
        def validate(self, value, context=None):
            return False

    registry.register("silent", Silent)
    checker = registry.get("silent")
    assert checker.validate("x") is False
    assert checker.message is None
    assert checker.error("x") == "'x' is not valid"
