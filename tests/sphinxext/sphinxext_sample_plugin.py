"""A resource plug-in exercising every feature the reference directive renders."""

from __future__ import annotations

from sdk import attributes, constraints, properties, resource, support

P = properties.Schema
A = attributes.Schema


class Gadget(resource.Resource):
    """A gadget kept by the sample service.

    Gadgets have a *name*, a size and a set of labels.
    """

    support_status = support.SupportStatus(version="1.2.0")

    properties_schema = {
        "name": P(
            P.STRING,
            "The gadget's name.",
            required=True,
            constraints=[
                constraints.AllowedPattern("[a-z][a-z0-9-]*"),
                constraints.Length(min=3, max=20, description="Keep names short."),
            ],
        ),
        "size": P(
            P.INTEGER,
            "How big the gadget is.",
            default=4,
            constraints=[constraints.Range(2, 64), constraints.Modulo(step=2, offset=0)],
            update_allowed=True,
        ),
        "zone": P(
            P.STRING,
            "Where the gadget lives; fixed for its lifetime.",
            immutable=True,
            constraints=[constraints.AllowedValues(["north", "south"])],
        ),
        "replicas": P(
            P.INTEGER,
            "How many copies to keep.",
            required=True,
            constraints=[constraints.Range(min=3), constraints.Modulo(step=4, offset=1)],
        ),
        "flavor": P(
            P.STRING,
            "The flavor to build on.",
            constraints=[constraints.CustomConstraint("sample.flavor")],
        ),
        "secret_token": P(
            P.STRING,
            "Internal only.",
            support_status=support.SupportStatus(support.HIDDEN, version="1.3.0"),
        ),
        "colour": P(
            P.STRING,
            "The old name of the paint property.",
            support_status=support.SupportStatus(
                support.DEPRECATED,
                version="1.4.0",
                message="Use paint instead.",
                previous_status=support.SupportStatus(version="1.0.0"),
            ),
        ),
        "settings": P(
            P.MAP,
            "Tuning knobs.",
            required=True,
            schema={
                "mode": P(P.STRING, "Operating mode.", required=True, default="fast"),
                "level": P(
                    P.NUMBER,
                    "Effort level.",
                    required=True,
                    constraints=[constraints.Range(0.5, 1.5)],
                ),
                "debug_hook": P(
                    P.STRING,
                    "A hidden nested member.",
                    support_status=support.SupportStatus(support.HIDDEN),
                ),
            },
        ),
        "ports": P(
            P.LIST,
            "Ports to open.",
            schema={
                "number": P(P.INTEGER, "Port number.", constraints=[constraints.Range(1, 65535)])
            },
        ),
    }

    attributes_schema = {
        "address": A("The gadget's address.", type=A.STRING),
        "internal_id": A(
            "Not for users.",
            type=A.STRING,
            support_status=support.SupportStatus(support.HIDDEN),
        ),
    }


class Ghost(resource.Resource):
    """A retired type nobody should see."""

    support_status = support.SupportStatus(support.HIDDEN, version="2.0.0")


class Plain(resource.Resource):
    """A type with no properties at all."""


def resource_mapping():
    """Register the sample types."""
    return {
        "Sample::Gadget::Gadget": Gadget,
        "Sample::Ghost::Ghost": Ghost,
        "Sample::Plain::Thing": Plain,
    }


NOT_A_RESOURCE = object()
