"""Heat-style plug-ins with implicit dependencies of their own (``add_dependencies``), as Heat's
networking types have: a link follows every segment of its fabric."""

from heat.engine import properties, resource, translation


class Segment(resource.Resource):
    """A piece of a fabric (what a link must follow)."""

    properties_schema = {
        "fabric": properties.Schema(properties.Schema.STRING, "Fabric name."),
        "size": properties.Schema(properties.Schema.INTEGER, "Size.", default=1),
    }

    def handle_create(self):
        self.resource_id_set(self.name)


class BigSegment(Segment):
    """A segment class of its own type name: Heat does not take it for a Test::Segment."""


class Link(resource.Resource):
    """Follows every segment on its fabric (named by ``fabric``, or the deprecated ``fabric_id``)."""

    properties_schema = {
        "fabric": properties.Schema(properties.Schema.STRING, "Fabric name."),
        "fabric_id": properties.Schema(properties.Schema.STRING, "Deprecated name of fabric."),
    }

    def translation_rules(self, props):
        return [
            translation.TranslationRule(
                props, translation.TranslationRule.REPLACE, ["fabric"], value_path=["fabric_id"]
            )
        ]

    def add_dependencies(self, deps):
        super(Link, self).add_dependencies(deps)  # noqa: UP008 - as Heat writes it
        for res in self.stack.values():
            if res.has_interface("Test::Segment"):
                try:
                    if res.properties.get("fabric") == self.properties["fabric"]:
                        deps += (self, res)
                except (ValueError, TypeError):
                    continue

    def handle_create(self):
        self.resource_id_set(self.name)


class Hasty(resource.Resource):
    """Records one edge, then fails (Heat keeps the edge and ignores the error)."""

    properties_schema = {"first": properties.Schema(properties.Schema.STRING, "A segment.")}

    def add_dependencies(self, deps):
        deps += (self, self.stack[self.properties["first"]])
        raise KeyError("no such thing")

    def handle_create(self):
        self.resource_id_set(self.name)


class Asker(resource.Resource):
    """Follows the segments of the fabric of a link it requires; asks the cloud (refused) first."""

    properties_schema = {
        "link": properties.Schema(properties.Schema.STRING, "A link."),
        "ask_cloud": properties.Schema(properties.Schema.BOOLEAN, "Ask first.", default=False),
    }

    def add_dependencies(self, deps):
        if self.properties["ask_cloud"]:
            self.client().show_fabric("x")
        for required in deps.graph()[self]:
            if not required.has_interface("Test::Link"):
                continue
            for res in self.stack.values():
                if res.has_interface("Test::Segment") and res.properties.get(
                    "fabric"
                ) == required.properties.get("fabric"):
                    deps += (self, res)

    def handle_create(self):
        self.resource_id_set(self.name)


class Plain(resource.Resource):
    """No implicit dependencies."""

    def handle_create(self):
        self.resource_id_set(self.name)


def resource_mapping():
    return {
        "Test::Segment": Segment,
        "Test::BigSegment": BigSegment,
        "Test::Link": Link,
        "Test::Hasty": Hasty,
        "Test::Asker": Asker,
        "Test::Plain": Plain,
    }
