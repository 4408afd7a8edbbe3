"""Constraints from the guide's "Property Constraints" section, and the Schema base."""

import pytest

from sdk import constraints as c
from sdk import exception

S = c.Schema

ALL_TYPES = (S.INTEGER, S.STRING, S.NUMBER, S.BOOLEAN, S.MAP, S.LIST, S.ANY)


def failure(constraint, value, schema=None, context=None):
    """Return the ValueError message of a failed validation."""
    with pytest.raises(ValueError) as info:
        constraint.validate(value, schema, context)
    return str(info.value)


# -- Schema base -----------------------------------------------------------------


def test_type_constants_and_types_tuple():
    assert (S.INTEGER, S.STRING, S.NUMBER, S.BOOLEAN, S.MAP, S.LIST, S.ANY) == (
        "Integer",
        "String",
        "Number",
        "Boolean",
        "Map",
        "List",
        "Any",
    )
    assert S.TYPES == ALL_TYPES


def test_unknown_type_name_is_named():
    with pytest.raises(exception.InvalidSchemaError) as info:
        S("Strng")
    assert str(info.value) == (
        "Invalid type 'Strng'; valid types are: Integer, String, Number, Boolean, Map, List, Any"
    )


def test_str_to_num():
    assert S.str_to_num("42") == 42 and isinstance(S.str_to_num("42"), int)
    assert S.str_to_num("4.5") == 4.5
    assert S.str_to_num(" 7 ") == 7
    assert S.str_to_num(3.0) == 3.0 and isinstance(S.str_to_num(3.0), float)
    for bad in ("abc", "", True, None, [1], "nan", "inf"):
        with pytest.raises(ValueError):
            S.str_to_num(bad)


def test_validate_constraints_raises_with_path():
    schema = S(S.INTEGER, constraints=[c.Range(max=10)])
    schema.validate_constraints(10)
    with pytest.raises(exception.StackValidationFailed) as info:
        schema.validate_constraints(11, path=["resources", "web", "properties", "size"])
    assert info.value.path == ["resources", "web", "properties", "size"]
    assert info.value.error_message == "11 is greater than the maximum 10"
    assert str(info.value) == "resources.web.properties.size: 11 is greater than the maximum 10"


def test_constraints_must_be_constraint_objects():
    with pytest.raises(exception.InvalidSchemaError, match="got 'min 3'"):
        S(S.STRING, constraints=["min 3"])
    with pytest.raises(exception.InvalidSchemaError, match="must be a list"):
        S(S.STRING, constraints=c.Length(min=1))


def test_nested_schema_only_for_map_and_list():
    with pytest.raises(exception.InvalidSchemaError) as info:
        S(S.STRING, schema={"a": S(S.STRING)})
    assert str(info.value) == "A nested schema is valid only for Map or List, not String"
    with pytest.raises(exception.InvalidSchemaError, match="single item schema is valid only"):
        S(S.MAP, schema=S(S.STRING))


def test_to_dict():
    schema = S(S.STRING, "a name", default="x", constraints=[c.Length(1, 8)])
    assert schema.to_dict() == {
        "type": "String",
        "description": "a name",
        "default": "x",
        "required": False,
        "constraints": [{"type": "Length", "min": 1, "max": 8}],
    }


# -- applicability (checked when the schema is built) -------------------------------

APPLICABLE = {
    "AllowedPattern": {S.STRING},
    "AllowedValues": {S.STRING, S.INTEGER, S.NUMBER, S.BOOLEAN, S.LIST, S.ANY},
    "Length": {S.STRING, S.LIST, S.MAP},
    "Range": {S.INTEGER, S.NUMBER},
    "Modulo": {S.INTEGER, S.NUMBER},
}


def make(name):
    return {
        "AllowedPattern": lambda: c.AllowedPattern("[a-z]+"),
        "AllowedValues": lambda: c.AllowedValues(["1", "2"]),
        "Length": lambda: c.Length(max=5),
        "Range": lambda: c.Range(min=0),
        "Modulo": lambda: c.Modulo(step=2, offset=0),
    }[name]()


@pytest.mark.parametrize("name", sorted(APPLICABLE))
@pytest.mark.parametrize("data_type", ALL_TYPES)
def test_constraint_applicability(name, data_type):
    constraint = make(name)
    assert set(constraint.valid_types) == APPLICABLE[name]
    if data_type in APPLICABLE[name]:
        assert S(data_type, constraints=[constraint]).constraints == [constraint]
    else:
        with pytest.raises(exception.InvalidSchemaError) as info:
            S(data_type, constraints=[constraint])
        assert str(info.value) == f"{name} constraint invalid for {data_type}"


def test_allowed_values_is_not_for_maps_as_the_guide_says():
    assert S.MAP not in c.AllowedValues(["a"]).valid_types


# -- AllowedPattern ------------------------------------------------------------------


def test_allowed_pattern_matches_the_whole_value():
    p = c.AllowedPattern("(Ba[rc]?)+")
    for good in ("Ba", "Bar", "BacBar", "BaBaBa"):
        p.validate(good)
    assert failure(p, "Barx") == "'Barx' does not match pattern '(Ba[rc]?)+'"
    assert failure(p, "xBar") == "'xBar' does not match pattern '(Ba[rc]?)+'"
    assert failure(p, 5) == "5 does not match pattern '(Ba[rc]?)+'"


def test_allowed_pattern_alternation_is_anchored_as_a_whole():
    c.AllowedPattern("a|ab").validate("ab")


def test_allowed_pattern_rejects_bad_regex_at_build_time():
    with pytest.raises(exception.InvalidSchemaError, match="'\\(' is not a valid regular"):
        c.AllowedPattern("(")
    with pytest.raises(exception.InvalidSchemaError, match="needs a regular expression"):
        c.AllowedPattern(3)


# -- AllowedValues ---------------------------------------------------------------------


def test_allowed_values_message():
    v = c.AllowedValues(["small", "large"])
    v.validate("small")
    assert failure(v, "huge") == "'huge' is not one of the allowed values: 'small', 'large'"


def test_allowed_values_compares_in_the_schema_type():
    schema = S(S.INTEGER, constraints=[c.AllowedValues(["1", "2"])])
    schema.validate_constraints(2)
    with pytest.raises(exception.StackValidationFailed, match="3 is not one of"):
        schema.validate_constraints(3)
    boolean = S(S.BOOLEAN, constraints=[c.AllowedValues(["true"])])
    boolean.validate_constraints(True)
    with pytest.raises(exception.StackValidationFailed):
        boolean.validate_constraints(False)


def test_allowed_values_does_not_confuse_true_and_one():
    v = c.AllowedValues([1])
    with pytest.raises(ValueError):
        v.validate(True)


def test_allowed_values_checks_every_list_item():
    v = c.AllowedValues(["a", "b"])
    v.validate(["a", "b", "a"], S(S.LIST))
    assert failure(v, ["a", "z"], S(S.LIST)) == "'z' is not one of the allowed values: 'a', 'b'"


def test_allowed_values_accepts_a_single_string():
    v = c.AllowedValues("only")
    assert v.allowed == ("only",)
    v.validate("only")


def test_allowed_values_needs_a_sequence():
    with pytest.raises(exception.InvalidSchemaError, match="needs a list of values"):
        c.AllowedValues({"a": 1}.keys())


# -- Length ------------------------------------------------------------------------------


def test_length_on_strings_lists_and_maps():
    length = c.Length(min=1, max=3)
    for good in ("a", "abc", [1], [1, 2, 3], {"a": 1}):
        length.validate(good)
    assert failure(length, "") == "length 0 is less than the minimum 1"
    assert failure(length, [1, 2, 3, 4]) == "length 4 is greater than the maximum 3"
    assert failure(length, {}) == "length 0 is less than the minimum 1"


def test_length_bounds_default_to_none_but_one_is_needed():
    assert c.Length(max=3).min is None
    assert c.Length(min=3).max is None
    with pytest.raises(exception.InvalidSchemaError, match="needs a min and/or a max"):
        c.Length()
    with pytest.raises(exception.InvalidSchemaError, match="Length min must be an integer"):
        c.Length(min="1")
    with pytest.raises(exception.InvalidSchemaError, match="min 5 is greater than max 2"):
        c.Length(5, 2)


# -- Range -------------------------------------------------------------------------------------


def test_range():
    r = c.Range(min=1, max=10)
    for good in (1, 10, 5.5, "7"):
        r.validate(good)
    assert failure(r, 0) == "0 is less than the minimum 1"
    assert failure(r, 10.5) == "10.5 is greater than the maximum 10"
    assert failure(r, "x") == "'x' is not a number"


def test_range_bounds():
    assert c.Range(max=3).min is None
    with pytest.raises(exception.InvalidSchemaError, match="needs a min and/or a max"):
        c.Range()
    with pytest.raises(exception.InvalidSchemaError, match="Range max must be a number"):
        c.Range(max="10")
    with pytest.raises(exception.InvalidSchemaError, match="Range min must be a number"):
        c.Range(min=True)


# -- Modulo -------------------------------------------------------------------------------------


def test_modulo_offset_plus_multiples_of_step():
    m = c.Modulo(step=2, offset=1)
    for good in (1, 3, 5, -1, 101):
        m.validate(good)
    assert failure(m, 4) == "4 is not 1 plus a multiple of 2"


def test_modulo_negative_step_and_offset():
    m = c.Modulo(step=-3, offset=-1)
    for good in (-1, -4, 2, 5):
        m.validate(good)
    with pytest.raises(ValueError):
        m.validate(3)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"step": 2}, "A Modulo constraint needs both a step and an offset"),
        ({"offset": 0}, "A Modulo constraint needs both a step and an offset"),
        ({"step": 0, "offset": 0}, "Modulo step cannot be 0"),
        (
            {"step": 2, "offset": 2},
            "Modulo offset 2 must be smaller (in absolute value) than step 2",
        ),
        (
            {"step": 2, "offset": -3},
            "Modulo offset -3 must be smaller (in absolute value) than step 2",
        ),
        ({"step": 3, "offset": -1}, "Modulo step 3 and offset -1 must have the same sign"),
        ({"step": 2.5, "offset": 0}, "Modulo step must be an integer, got 2.5"),
        ({"step": 2, "offset": "1"}, "Modulo offset must be an integer, got '1'"),
    ],
)
def test_modulo_rules(kwargs, message):
    with pytest.raises(exception.InvalidSchemaError) as info:
        c.Modulo(**kwargs)
    assert str(info.value) == message


# -- description replaces the message ------------------------------------------------------------


@pytest.mark.parametrize(
    "constraint, bad",
    [
        (c.AllowedPattern("[0-9]+", description="digits only"), "x"),
        (c.AllowedValues(["a"], description="digits only"), "b"),
        (c.Length(max=1, description="digits only"), "ab"),
        (c.Range(max=1, description="digits only"), 2),
        (c.Modulo(step=2, offset=0, description="digits only"), 3),
    ],
)
def test_description_replaces_message(constraint, bad):
    assert failure(constraint, bad) == "digits only"
    assert str(constraint) == "digits only"


def test_constraint_str_without_description():
    assert str(c.Range(1, 5)) == "Range(min=1, max=5)"
    assert str(c.AllowedPattern("x+")) == "AllowedPattern('x+')"
    assert str(c.CustomConstraint("flavor")) == "CustomConstraint('flavor')"


def test_description_must_be_a_string():
    with pytest.raises(exception.InvalidSchemaError, match="description of a Range"):
        c.Range(1, description=5)
