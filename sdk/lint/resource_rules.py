"""Rules on resource classes (PS1xx): documentation, support status, handlers, clients.

Every check reads the class with :mod:`ast`; no handler is ever run.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from sdk.lint.registry import Hit, Severity, rule
from sdk.lint.schema_model import class_properties
from sdk.lint.source import ClassInfo, PluginModule

_CHECK = re.compile(r"^check_(?P<action>[a-z_]+)_complete$")


def _docstring_node(cls: ClassInfo) -> ast.Constant | None:
    body = cls.node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        if isinstance(body[0].value.value, str):
            return body[0].value
    return None


def _docstring(node: ast.Constant | None) -> str:
    """The text of a docstring node (``_docstring_node`` only returns string constants)."""
    return node.value if node is not None and isinstance(node.value, str) else ""


def _is_handler(name: str) -> bool:
    return name.startswith("handle_") or _CHECK.match(name) is not None


def handler_functions(cls: ClassInfo) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The class's own ``handle_*`` and ``check_*_complete`` methods, in source order."""
    return [fn for name, fn in cls.own_methods().items() if _is_handler(name)]


@rule(
    "PS101",
    "resource-docstring-missing",
    severity=Severity.ERROR,
    family="resource",
    scope="module",
    message="resource class {cls} has no docstring",
    summary="A resource class must say what it is in a docstring.",
    doc="""
        The class docstring is the resource's description: documentation is
        generated from it and template authors read it to decide whether the type
        fits their need. Every public resource class needs one.
    """,
    bad="""
        class Volume(resource.Resource):
            properties_schema = {}
    """,
    good="""
        class Volume(resource.Resource):
            \"\"\"A block storage volume that servers can attach.\"\"\"

            properties_schema = {}
    """,
)
def check_docstring_missing(module: PluginModule) -> Iterator[Hit]:
    """Resource classes without a (non-blank) docstring."""
    for cls in module.resource_classes:
        node = _docstring_node(cls)
        if node is None or not _docstring(node).strip():
            yield module.hit(cls.node, cls=cls.name)


@rule(
    "PS102",
    "resource-docstring-summary",
    severity=Severity.WARNING,
    family="resource",
    scope="module",
    message="resource class {cls}: docstring {problem}",
    summary="The docstring's summary line breaks PEP 257.",
    doc="""
        PEP 257 asks for a one-line summary that ends with a period, separated from
        any further description by a blank line. Tools that show a one-line
        description of each resource type take that line.
    """,
    bad="""
        class Volume(resource.Resource):
            \"\"\"A block storage volume
            that servers can attach\"\"\"
    """,
    good="""
        class Volume(resource.Resource):
            \"\"\"A block storage volume.

            Servers attach it with an attachment resource.
            \"\"\"
    """,
)
def check_docstring_summary(module: PluginModule) -> Iterator[Hit]:
    """PEP 257 summary-line problems in resource class docstrings."""
    for cls in module.resource_classes:
        node = _docstring_node(cls)
        if node is None or not _docstring(node).strip():
            continue
        lines = _docstring(node).expandtabs().splitlines()
        while lines and not lines[0].strip():
            lines.pop(0)
        summary = lines[0].strip()
        if len(lines) > 1 and lines[1].strip():
            yield module.hit(
                node,
                cls=cls.name,
                problem="summary does not fit on one line or is not followed by a blank line",
            )
        elif not summary.endswith((".", "?", "!")):
            yield module.hit(node, cls=cls.name, problem="summary line does not end with a period")


@rule(
    "PS103",
    "resource-support-status-missing",
    severity=Severity.WARNING,
    family="resource",
    scope="module",
    message="resource class {cls} does not set support_status",
    summary="A resource class should say since when (and how well) it is supported.",
    doc="""
        ``support_status`` tells users from which version a resource type exists and
        whether it is supported, deprecated or unsupported. Contributed plug-ins
        must set it to UNSUPPORTED (see ``--inclusion``).
    """,
    bad="""
        class Volume(resource.Resource):
            \"\"\"A block storage volume.\"\"\"
    """,
    good="""
        class Volume(resource.Resource):
            \"\"\"A block storage volume.\"\"\"

            support_status = support.SupportStatus(version="1.0.0")
    """,
)
def check_support_status(module: PluginModule) -> Iterator[Hit]:
    """Resource classes that neither set nor inherit (in-module) ``support_status``."""
    for cls in module.resource_classes:
        if cls.attribute("support_status") is None:
            yield module.hit(cls.node, cls=cls.name)


@rule(
    "PS104",
    "check-without-handler",
    severity=Severity.ERROR,
    family="resource",
    scope="module",
    message="{cls}.{check} is defined but {cls}.{handler} is not",
    summary="check_<action>_complete polls the token of a handle_<action> that does not exist.",
    doc="""
        The engine calls ``check_<action>_complete(token)`` with the value returned
        by ``handle_<action>()``. Without the handler the check polls nothing. For
        delete, the base class's default ``handle_delete`` counts when ``entity``
        is set, and ``handle_snapshot_delete`` counts as well.
    """,
    bad="""
        class Volume(resource.Resource):
            def check_create_complete(self, token):
                return True
    """,
    good="""
        class Volume(resource.Resource):
            def handle_create(self):
                return self.client().volumes.create()

            def check_create_complete(self, token):
                return self.client().volumes.get(token).status == "available"
    """,
)
def check_check_without_handler(module: PluginModule) -> Iterator[Hit]:
    """``check_<action>_complete`` methods without the matching handler."""
    for cls in module.resource_classes:
        for name, fn in cls.own_methods().items():
            match = _CHECK.match(name)
            if match is None:
                continue
            action = match.group("action")
            handler = f"handle_{action}"
            if cls.method(handler) is not None:
                continue
            if action == "delete" and (
                cls.method("handle_snapshot_delete") is not None or cls.defines("entity")
            ):
                continue
            yield module.hit(fn, cls=cls.name, check=name, handler=handler)


@rule(
    "PS105",
    "update-allowed-without-handle-update",
    severity=Severity.WARNING,
    family="resource",
    scope="module",
    message="{cls}: property {prop} is update_allowed but {cls} has no handle_update, "
    "so every update replaces the resource",
    summary="update_allowed properties without handle_update: every update will replace.",
    doc="""
        ``update_allowed=True`` promises an in-place update. Without
        ``handle_update`` the base class replaces the resource on any change, which
        is what ``update_allowed=False`` already means.
    """,
    bad="""
        class Volume(resource.Resource):
            properties_schema = {
                "name": properties.Schema(properties.Schema.STRING, _("Name."),
                                          update_allowed=True),
            }
    """,
    good="""
        class Volume(resource.Resource):
            properties_schema = {
                "name": properties.Schema(properties.Schema.STRING, _("Name."),
                                          update_allowed=True),
            }

            def handle_update(self, json_snippet, tmpl_diff, prop_diff):
                if "name" in prop_diff:
                    self.client().volumes.rename(self.resource_id, prop_diff["name"])
    """,
)
def check_update_allowed_without_handler(module: PluginModule) -> Iterator[Hit]:
    """Updatable properties on classes that cannot update."""
    for cls in module.resource_classes:
        if cls.method("handle_update") is not None:
            continue
        props = class_properties(cls) or []
        for prop in props:
            if prop.update_allowed:
                yield module.hit(prop.key_node, cls=cls.name, prop=prop.path)


@rule(
    "PS106",
    "handle-update-without-updatable-property",
    severity=Severity.WARNING,
    family="resource",
    scope="module",
    message="{cls}.handle_update is defined but no property of {cls} is update_allowed",
    summary="handle_update can never be called with a change.",
    doc="""
        The engine only updates in place when every changed property is
        ``update_allowed``. If none is, ``handle_update`` is dead code: mark the
        properties it handles ``update_allowed=True`` or remove it.
    """,
    bad="""
        class Volume(resource.Resource):
            properties_schema = {
                "name": properties.Schema(properties.Schema.STRING, _("Name.")),
            }

            def handle_update(self, json_snippet, tmpl_diff, prop_diff):
                self.client().volumes.rename(self.resource_id, prop_diff["name"])
    """,
    good="""
        class Volume(resource.Resource):
            properties_schema = {
                "name": properties.Schema(properties.Schema.STRING, _("Name."),
                                          update_allowed=True),
            }

            def handle_update(self, json_snippet, tmpl_diff, prop_diff):
                self.client().volumes.rename(self.resource_id, prop_diff["name"])
    """,
)
def check_handle_update_without_property(module: PluginModule) -> Iterator[Hit]:
    """``handle_update`` on a class whose (statically known) properties are all fixed."""
    for cls in module.resource_classes:
        fn = cls.own_methods().get("handle_update")
        if fn is None:
            continue
        props = class_properties(cls)
        if props is None:
            continue
        if not any(p.update_allowed for p in props):
            yield module.hit(fn, cls=cls.name)


@rule(
    "PS107",
    "add-dependencies-overridden",
    severity=Severity.WARNING,
    family="resource",
    scope="module",
    message="{cls} overrides {method}; express dependencies through properties",
    summary="Overriding add_dependencies hides dependencies from the engine.",
    doc="""
        The engine infers dependencies from the properties and attributes a
        resource references. Hidden dependencies added by overriding
        ``add_dependencies`` (or plugsim's ``implicit_requirements``) have
        caused failures in other operations; the plug-in guide asks authors
        not to do it. Heat's own networking types do it only because
        neutron orders ports after subnets by itself.
    """,
    bad="""
        class Port(resource.Resource):
            def add_dependencies(self, deps):
                super().add_dependencies(deps)
                deps += (self, self.stack["router"])
    """,
    good="""
        class Port(resource.Resource):
            properties_schema = {
                "router": properties.Schema(properties.Schema.STRING, _("Router id.")),
            }
    """,
)
def check_add_dependencies(module: PluginModule) -> Iterator[Hit]:
    """Classes that define ``add_dependencies`` or ``implicit_requirements``."""
    for cls in module.resource_classes:
        for method in ("add_dependencies", "implicit_requirements"):
            fn = cls.own_methods().get(method)
            if fn is not None:
                yield module.hit(fn, cls=cls.name, method=method)


@rule(
    "PS108",
    "entity-without-client",
    severity=Severity.ERROR,
    family="resource",
    scope="module",
    message="{cls} sets entity but not default_client_name, so the default handle_delete "
    "has no client",
    summary="entity needs default_client_name for the default handle_delete.",
    doc="""
        The default ``handle_delete`` deletes ``client().<entity>`` by
        ``resource_id``; the client is the one named by ``default_client_name``.
        Setting one without the other makes it fail at delete time.
    """,
    bad="""
        class Alarm(resource.Resource):
            entity = "alarms"
    """,
    good="""
        class Alarm(resource.Resource):
            entity = "alarms"
            default_client_name = "aodh"
    """,
)
def check_entity_without_client(module: PluginModule) -> Iterator[Hit]:
    """``entity`` without ``default_client_name``."""
    for cls in module.resource_classes:
        found = cls.attribute("entity")
        if found is not None and cls.attribute("default_client_name") is None:
            yield module.hit(found[0], cls=cls.name)


@rule(
    "PS109",
    "client-without-entity",
    severity=Severity.WARNING,
    family="resource",
    scope="module",
    message="{cls} sets default_client_name but neither entity nor handle_delete, "
    "so deleting it leaves the physical resource behind",
    summary="default_client_name without entity (and no handle_delete) deletes nothing.",
    doc="""
        With neither ``entity`` nor its own ``handle_delete`` a resource's delete
        is a no-op: the physical resource leaks. Set ``entity`` to the client's
        collection name or write ``handle_delete``.
    """,
    bad="""
        class Alarm(resource.Resource):
            default_client_name = "aodh"

            def handle_create(self):
                self.resource_id_set(self.client().alarms.create().id)
    """,
    good="""
        class Alarm(resource.Resource):
            default_client_name = "aodh"
            entity = "alarms"

            def handle_create(self):
                self.resource_id_set(self.client().alarms.create().id)
    """,
)
def check_client_without_entity(module: PluginModule) -> Iterator[Hit]:
    """``default_client_name`` with no ``entity`` and no ``handle_delete``."""
    for cls in module.resource_classes:
        found = cls.attribute("default_client_name")
        if found is None or cls.attribute("entity") is not None:
            continue
        if cls.method("handle_delete") is None and cls.method("handle_create") is not None:
            yield module.hit(found[0], cls=cls.name)


@rule(
    "PS110",
    "attributes-without-resolver",
    severity=Severity.ERROR,
    family="resource",
    scope="module",
    message="{cls} declares attributes_schema but defines neither _resolve_attribute nor FnGetAtt",
    summary="Declared attributes must be resolved by the plug-in.",
    doc="""
        Attributes in ``attributes_schema`` get their values from
        ``_resolve_attribute(name)`` (or, for full control, ``FnGetAtt``).
        Without either, every ``get_attr`` of them yields nothing.
    """,
    bad="""
        class Volume(resource.Resource):
            attributes_schema = {
                "size": attributes.Schema(_("Size in GB."), type=attributes.Schema.INTEGER),
            }
    """,
    good="""
        class Volume(resource.Resource):
            attributes_schema = {
                "size": attributes.Schema(_("Size in GB."), type=attributes.Schema.INTEGER),
            }

            def _resolve_attribute(self, name):
                return getattr(self.client().volumes.get(self.resource_id), name)
    """,
)
def check_attributes_resolver(module: PluginModule) -> Iterator[Hit]:
    """``attributes_schema`` without a resolver in the class or its in-module ancestors."""
    for cls in module.resource_classes:
        found = cls.attribute("attributes_schema")
        if found is None:
            continue
        if isinstance(found[1], ast.Dict) and not found[1].keys:
            continue
        if cls.method("_resolve_attribute") is None and cls.method("FnGetAtt") is None:
            yield module.hit(found[0], cls=cls.name)


_REQUESTS_VERBS = ("get", "post", "put", "patch", "delete", "head", "options", "request")


def _calls_in(fn: ast.AST) -> Iterator[ast.Call]:
    for node in ast.walk(fn):
        if isinstance(node, ast.Call):
            yield node


@rule(
    "PS111",
    "sleep-in-handler",
    severity=Severity.ERROR,
    family="resource",
    scope="module",
    message="{cls}.{func} calls time.sleep; return a token and poll in check_<action>_complete",
    summary="time.sleep inside a handler blocks every other resource.",
    doc="""
        Handlers run on the engine's event loop. ``time.sleep`` stops every other
        resource of the stack (and, in plugsim, does not advance virtual time).
        Return from the handler and let ``check_<action>_complete`` poll instead.
    """,
    bad="""
        class Server(resource.Resource):
            def handle_create(self):
                server = self.client().servers.create()
                while server.status != "ACTIVE":
                    time.sleep(5)
                    server = self.client().servers.get(server.id)
    """,
    good="""
        class Server(resource.Resource):
            def handle_create(self):
                server = self.client().servers.create()
                self.resource_id_set(server.id)
                return server.id

            def check_create_complete(self, server_id):
                return self.client().servers.get(server_id).status == "ACTIVE"
    """,
)
def check_sleep_in_handler(module: PluginModule) -> Iterator[Hit]:
    """``time.sleep`` calls inside handler methods."""
    for cls in module.resource_classes:
        for fn in handler_functions(cls):
            for call in _calls_in(fn):
                if module.qualified(call.func) == "time.sleep":
                    yield module.hit(call, cls=cls.name, func=fn.name)


@rule(
    "PS112",
    "requests-without-timeout",
    severity=Severity.ERROR,
    family="resource",
    scope="module",
    message="{cls}.{func} calls {call} without timeout=, which can hang the handler forever",
    summary="A requests call inside a handler without a timeout can block forever.",
    doc="""
        ``requests`` waits forever by default. A handler stuck on a dead endpoint
        holds up the whole stack; pass ``timeout=`` on every call.
    """,
    bad="""
        class Webhook(resource.Resource):
            def handle_create(self):
                requests.post(self.properties["url"], json={})
    """,
    good="""
        class Webhook(resource.Resource):
            def handle_create(self):
                requests.post(self.properties["url"], json={}, timeout=10)
    """,
)
def check_requests_timeout(module: PluginModule) -> Iterator[Hit]:
    """``requests.<verb>(...)`` calls without ``timeout=`` inside handlers."""
    for cls in module.resource_classes:
        for fn in handler_functions(cls):
            for call in _calls_in(fn):
                name = module.qualified(call.func)
                if name is None or not name.startswith("requests."):
                    continue
                if name.rsplit(".", 1)[-1] not in _REQUESTS_VERBS:
                    continue
                keywords = {kw.arg for kw in call.keywords}
                if "timeout" in keywords or None in keywords:
                    continue
                yield module.hit(call, cls=cls.name, func=fn.name, call=f"{name}()")
