"""Dynamic rules on resource classes (PS15x): the plug-in driven on a fake cloud.

Each resource class the module registers through ``resource_mapping()`` is
created, its attributes resolved and its updatable properties changed, in a
fresh in-memory world with its own fake cloud (see :mod:`sdk.lint.dynamic`).
The run happens once per module, the first time one of these rules asks, and
not at all with ``--no-dynamic`` (``lint_paths(..., dynamic=False)``).

A finding points at the class's own definition (its ``class`` statement, or
the attribute, property or method concerned), in whichever file defines it:
a package whose ``__init__.py`` maps classes of its sibling modules gets each
finding in the sibling's file. Only a class without a ``class`` statement to
point at (made by ``type()``, defined inside a function) is reported at the
mapping function.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sdk.lint.dynamic import ClassRun, drive_class
from sdk.lint.loading import is_resource_class
from sdk.lint.mapping_rules import MAPPING_FUNCTIONS, loaded, mapping_calls
from sdk.lint.registry import Hit, Severity, rule
from sdk.lint.report import display_path
from sdk.lint.schema_model import class_attributes, class_properties, walk_properties
from sdk.lint.source import ClassInfo, PluginModule

#: ``module.cache`` keys the runner sets: the configuration and whether to run at all.
CONFIG_KEY = "lint_config"
ENABLED_KEY = "dynamic_enabled"


def runs(module: PluginModule) -> list[ClassRun]:
    """The dynamic runs of the classes *module* registers (computed once, cached)."""
    if "dynamic_runs" in module.cache:
        return module.cache["dynamic_runs"]
    out: list[ClassRun] = []
    result = loaded(module)
    if module.cache.get(ENABLED_KEY, True) and result is not None and result.module is not None:
        config = module.cache.get(CONFIG_KEY)
        configured = getattr(config, "properties", {}) or {}
        companions = getattr(config, "companions", {}) or {}
        seen: set[int] = set()
        for call in mapping_calls(module):
            types = {
                name: cls
                for name, cls in (call.mapping or {}).items()
                if isinstance(name, str) and is_resource_class(cls)
            }
            for type_name, cls in sorted(types.items()):
                if id(cls) in seen:
                    continue
                seen.add(id(cls))
                out.append(
                    drive_class(type_name, cls, configured, companions=companions, types=types)
                )
    module.cache["dynamic_runs"] = out
    return out


def _class_source(module: PluginModule, cls: type) -> PluginModule | None:
    """The parsed source file that defines *cls*, or None when it has none we can read.

    The linted file itself when the class is defined there; else the file
    :func:`inspect.getsourcefile` names (an importable module), else the file of
    the sibling module the import brought in (it has left ``sys.modules``).
    Parsed files are cached on *module*.
    """
    result = loaded(module)
    owner = getattr(result.module, "__name__", None) if result is not None else None
    if cls.__module__ == owner:
        return module
    filename: str | None
    try:
        filename = inspect.getsourcefile(cls)
    except (TypeError, OSError):
        filename = None
    if filename is None and result is not None:
        filename = result.sources.get(cls.__module__)
    if filename is None or not filename.endswith(".py"):
        return None
    path = Path(filename)
    if path.resolve() == module.path.resolve():
        return module
    sources: dict[str, PluginModule | None] = module.cache.setdefault("dynamic_sources", {})
    key = str(path.resolve())
    if key not in sources:
        try:
            sources[key] = PluginModule.read(path, display_path(path))
        except (OSError, UnicodeDecodeError):
            sources[key] = None
    return sources[key]


def _find_class(source: PluginModule, qualname: str) -> ClassInfo | None:
    """The ``class`` statement of *qualname* in *source* (nested classes too), else None."""
    parts = qualname.split(".")
    if "<locals>" in parts:
        return None  # defined inside a function: no stable statement to point at
    if len(parts) == 1:
        return source.classes.get(qualname)
    body: list[ast.stmt] = source.tree.body
    found: ast.ClassDef | None = None
    for part in parts:
        matches = [s for s in body if isinstance(s, ast.ClassDef) and s.name == part]
        if not matches:
            return None
        found = matches[-1]  # the binding that wins at run time
        body = found.body
    return ClassInfo(source, found) if found is not None else None


def _class_info(module: PluginModule, run: ClassRun) -> ClassInfo | None:
    """Where *run*'s class is defined: its ``class`` statement in its own source file.

    None when the class has no source statement (made by ``type()``, defined in
    a function, a file that cannot be read): its findings then point at the
    mapping function of the linted module.
    """
    cache: dict[int, ClassInfo | None] = module.cache.setdefault("dynamic_class_infos", {})
    key = id(run.cls)
    if key not in cache:
        source = _class_source(module, run.cls)
        cache[key] = _find_class(source, run.cls.__qualname__) if source is not None else None
    return cache[key]


def _fallback(module: PluginModule) -> Hit:
    for function in MAPPING_FUNCTIONS:
        fn = module.functions.get(function)
        if fn is not None:
            return module.hit(fn)
    return module.hit(1)


def _property_nodes(info: ClassInfo | None) -> dict[str, Any]:
    """Property path -> its schema entry in the class's source (empty without a source)."""
    if info is None:
        return {}
    return {p.path: p for p in walk_properties(class_properties(info) or [])}


def _at(module: PluginModule, info: ClassInfo | None, node: Any, **args: Any) -> Hit:
    """A hit at *node* of *info*'s file, or at the mapping function when there is no class."""
    if info is None or node is None:
        base = _fallback(module)
        return Hit(base.path, base.line, base.col, dict(args))
    return info.module.hit(node, **args)


@rule(
    "PS150",
    "dynamic-checks-skipped",
    severity=Severity.INFO,
    family="dynamic",
    scope="module",
    message="{cls} ({type_name}): dynamic checks skipped: {reason}",
    summary="The plug-in could not be driven on a fake cloud, so PS151-PS159 did not run.",
    doc="""
        The dynamic rules create the resource on a fake cloud. They need a
        property map that works: from the ``[tool.plugsim.lint] properties``
        table (``"Type::Name" = { prop = value }``), a ``lint_properties``
        class attribute, or generated from the schema. When no map can be had,
        or the create does not complete with it (wrong guess, a handler that
        blocks, the virtual-time limit), the checks are skipped with the
        reason rather than reporting guesses. A handler that raises a
        programming error (``KeyError`` …) in its own code is not a skip but
        the error PS154. A type that needs other
        resources to exist (an attachment needs a server and a volume) names
        them as companions, created in the same stack: a
        ``lint_companions`` class attribute or the ``[tool.plugsim.lint]
        companions`` table (``"Type::Name" = { server = { type = ...,
        properties = {...} } }``), and its property map refers to them with
        ``get_resource`` / ``get_attr``. Like every dynamic finding, it
        points at the class's own definition, also when the mapping that
        lists the class is in another file (a package's ``__init__.py``).
    """,
    bad="""
        class Server(resource.Resource):
            properties_schema = {
                "image": properties.Schema(properties.Schema.STRING, _("Image."),
                                           required=True,
                                           constraints=[constraints.CustomConstraint("glance.image")]),
            }
    """,
    good="""
        class Server(resource.Resource):
            lint_properties = {"image": "cirros"}

            properties_schema = {
                "image": properties.Schema(properties.Schema.STRING, _("Image."),
                                           required=True,
                                           constraints=[constraints.CustomConstraint("glance.image")]),
            }
    """,
)
def check_skipped(module: PluginModule) -> Iterator[Hit]:
    """Classes whose dynamic run could not happen, or whose update probe stopped early."""
    for run in runs(module):
        info = _class_info(module, run)
        node = info.node if info is not None else None
        if run.skipped is not None:
            yield _at(
                module,
                info,
                node,
                cls=run.cls.__name__,
                type_name=run.type_name,
                reason=run.skipped,
            )
        props = _property_nodes(info)
        for prop, note in run.notes:
            spec = props.get(prop) if prop is not None else None
            at = spec.key_node if spec is not None else node
            yield _at(module, info, at, cls=run.cls.__name__, type_name=run.type_name, reason=note)


@rule(
    "PS151",
    "attribute-unresolved",
    severity=Severity.WARNING,
    family="dynamic",
    scope="module",
    message="{cls}: attribute {attr} is declared but _resolve_attribute {problem} "
    "on a created resource",
    summary="A declared attribute that the created resource cannot resolve.",
    doc="""
        After the resource is created on a fake cloud, every attribute of
        ``attributes_schema`` is resolved through ``_resolve_attribute`` (or
        ``FnGetAtt``). One that raises or returns ``None`` gives templates a
        ``get_attr`` that never has a value: resolve it or remove it.
    """,
    bad="""
        attributes_schema = {
            "size": attributes.Schema(_("Size in GB."), type=attributes.Schema.INTEGER),
            "colour": attributes.Schema(_("Colour."), type=attributes.Schema.STRING),
        }

        def _resolve_attribute(self, name):
            if name == "size":
                return self.client().entities.get(self.resource_id).size
    """,
    good="""
        attributes_schema = {
            "size": attributes.Schema(_("Size in GB."), type=attributes.Schema.INTEGER),
        }

        def _resolve_attribute(self, name):
            if name == "size":
                return self.client().entities.get(self.resource_id).size
    """,
)
def check_attribute_unresolved(module: PluginModule) -> Iterator[Hit]:
    """Declared attributes that raise or are None on a created resource."""
    for run in runs(module):
        info = _class_info(module, run)
        specs = {a.name: a for a in (class_attributes(info) or [])} if info is not None else {}
        for attr, problem in sorted(run.unresolved.items()):
            spec = specs.get(attr)
            node = spec.node if spec is not None else (info.node if info is not None else None)
            yield _at(module, info, node, cls=run.cls.__name__, attr=attr, problem=problem)


@rule(
    "PS152",
    "create-without-resource-id",
    severity=Severity.ERROR,
    family="dynamic",
    scope="module",
    message="{cls}.handle_create completed without calling resource_id_set",
    summary="handle_create never records the physical resource's id.",
    doc="""
        Without ``resource_id_set`` the engine does not know which physical
        resource belongs to the stack: the default ``handle_delete`` deletes
        nothing, attributes cannot be resolved and the resource leaks. The
        rule creates the resource on a fake cloud and checks that its
        ``resource_id`` is set once the create has completed.
    """,
    bad="""
        def handle_create(self):
            self.client().entities.create("widget", {}, name=self.physical_resource_name())
    """,
    good="""
        def handle_create(self):
            widget = self.client().entities.create(
                "widget", {}, name=self.physical_resource_name()
            )
            self.resource_id_set(widget.id)
    """,
)
def check_create_without_id(module: PluginModule) -> Iterator[Hit]:
    """Created resources whose ``resource_id`` is still None."""
    for run in runs(module):
        if not run.no_resource_id:
            continue
        info = _class_info(module, run)
        node = (info.method("handle_create") or info.node) if info is not None else None
        yield _at(module, info, node, cls=run.cls.__name__)


@rule(
    "PS153",
    "update-ignores-property",
    severity=Severity.WARNING,
    family="dynamic",
    scope="module",
    message="{cls}: property {prop} is update_allowed but changing it in place changed "
    "nothing observable (fake cloud, show, attributes, resource data)",
    summary="handle_update ignores a property it allows to change.",
    doc="""
        Each ``update_allowed`` property is changed in turn to another valid
        value and the stack updated. When the update completes in place but
        neither the fake cloud (its entities and other service state, such as
        the config agent's jobs), the resource's ``show``, any of its
        attributes nor its resource data changed, ``handle_update`` dropped
        the change: the
        template says one thing and the cloud another. Apply it, or drop
        ``update_allowed`` so that a change replaces the resource. A property
        that only takes effect later (a removal policy used when a group
        shrinks) is reported too: suppress it on its line with the reason.
        Each property is probed alone on the created stack and changed back
        afterwards (on a new stack when it cannot be undone). A value the
        plug-in's own validation refuses is not probed.
    """,
    bad="""
        def handle_update(self, json_snippet, tmpl_diff, prop_diff):
            if "name" in prop_diff:
                self.client().entities.update(self.resource_id, name=prop_diff["name"])
            # "size" is update_allowed too, but never applied
    """,
    good="""
        def handle_update(self, json_snippet, tmpl_diff, prop_diff):
            attrs = {k: v for k, v in prop_diff.items() if k != "name"}
            self.client().entities.update(self.resource_id, attrs, name=prop_diff.get("name"))
    """,
)
def check_update_ignored(module: PluginModule) -> Iterator[Hit]:
    """Updatable properties whose change had no observable effect."""
    for run in runs(module):
        info = _class_info(module, run)
        props = _property_nodes(info)
        for name in run.ignored_updates:
            spec = props.get(name)
            node = spec.key_node if spec is not None else (info.node if info else None)
            yield _at(module, info, node, cls=run.cls.__name__, prop=name)


def _oracle_hits(module: PluginModule, check: str) -> Iterator[Hit]:
    """One hit per finding of the oracle *check*, at the handler it names (else the class)."""
    for run in runs(module):
        info = _class_info(module, run)
        for kind, method, message in run.oracle_findings:
            if kind != check:
                continue
            node = None
            if info is not None:
                node = info.method(method) or info.node
            # the linted module's import name is plugsim's own (a hash): the class says enough
            message = message.replace(f"{run.cls.__module__}.", "")
            yield _at(module, info, node, cls=run.cls.__name__, detail=message)


@rule(
    "PS155",
    "update-replaces-cloud-object",
    severity=Severity.ERROR,
    family="dynamic",
    scope="module",
    message="{cls}: {detail}",
    summary="An update the schema allows in place makes a new cloud object.",
    doc="""
        A property marked ``update_allowed`` promises that changing it keeps
        the physical resource. Each such property is changed in turn on a
        fake cloud, and the cloud object behind the resource must still be
        the same one afterwards: the same identity and the same creation
        instant. A ``handle_update`` that creates a new object, deletes the
        old one and switches ``resource_id`` breaks that promise (whatever
        else pointed at the old object now dangles) even when the new object
        gets the old name. Change the object in place, or drop
        ``update_allowed`` so that the engine replaces the resource openly.
    """,
    bad="""
        def handle_update(self, json_snippet, tmpl_diff, prop_diff):
            new = self.client().entities.create("box", dict(prop_diff), name=self.name)
            self.client().entities.delete(self.resource_id)
            self.resource_id_set(new.id)
    """,
    good="""
        def handle_update(self, json_snippet, tmpl_diff, prop_diff):
            self.client().entities.update(self.resource_id, dict(prop_diff))
    """,
)
def check_update_replaces(module: PluginModule) -> Iterator[Hit]:
    """In-place updates that replaced the cloud object."""
    yield from _oracle_hits(module, "replaced")


@rule(
    "PS156",
    "repeated-update-writes",
    severity=Severity.WARNING,
    family="dynamic",
    scope="module",
    message="{cls}: {detail}",
    summary="Updating to the template the stack already has makes write calls.",
    doc="""
        The created stack is updated to the very template it was created
        from. Nothing changed, so nothing may be written to the cloud (the
        empty plan after an apply): a write here means the plug-in touches
        the cloud on every update, racing with whatever else manages the
        object and burning its rate limits.
    """,
    bad="""
        async def update(self, after, before=None):
            await super().update(after, before)
            self.client().entities.update(self.resource_id, self.fields())
    """,
    good="""
        def handle_update(self, json_snippet, tmpl_diff, prop_diff):
            if prop_diff:
                self.client().entities.update(self.resource_id, dict(prop_diff))
    """,
)
def check_repeated_update(module: PluginModule) -> Iterator[Hit]:
    """No-change updates that wrote to the cloud."""
    yield from _oracle_hits(module, "repeated")


@rule(
    "PS157",
    "retried-create-doubles",
    severity=Severity.ERROR,
    family="dynamic",
    scope="module",
    message="{cls}: {detail}",
    summary="A create retried after a transient fault leaves two cloud objects.",
    doc="""
        A 409 conflict is injected on the call right after the one that
        made the cloud object. The engine retries the create (deleting what
        the resource knows of first); when ``handle_create`` records the id
        only after that later call, the first object is unknown, is never
        deleted and the retry makes a second one. Call ``resource_id_set``
        as soon as the cloud has answered the create.
    """,
    bad="""
        def handle_create(self):
            box = self.client().entities.create("box", {}, name=self.name)
            self.client().entities.get(box.id)
            self.resource_id_set(box.id)
    """,
    good="""
        def handle_create(self):
            box = self.client().entities.create("box", {}, name=self.name)
            self.resource_id_set(box.id)
            self.client().entities.get(box.id)
    """,
)
def check_retried_create(module: PluginModule) -> Iterator[Hit]:
    """Retried creates that left more cloud objects than a clean create."""
    yield from _oracle_hits(module, "doubled")


@rule(
    "PS158",
    "suspend-changes-nothing",
    severity=Severity.WARNING,
    family="dynamic",
    scope="module",
    message="{cls}: {detail}",
    summary="Suspend or resume completes without changing the cloud object.",
    doc="""
        A plug-in that implements ``handle_suspend`` (or ``handle_resume``)
        is suspended and resumed on a fake cloud. Each action must change
        the cloud object behind the resource (its status, or another field):
        one that completes while the object stays as it was tells the stack
        ``SUSPEND_COMPLETE`` for a server that is still running.
    """,
    bad="""
        def handle_suspend(self):
            return None
    """,
    good="""
        def handle_suspend(self):
            self.client().servers.suspend(self.resource_id)
            return self.resource_id
    """,
)
def check_suspend_changes_nothing(module: PluginModule) -> Iterator[Hit]:
    """Suspends and resumes that left the cloud object unchanged."""
    yield from _oracle_hits(module, "suspend")


@rule(
    "PS159",
    "stale-attribute",
    severity=Severity.WARNING,
    family="dynamic",
    scope="module",
    message="{cls}: {detail}",
    summary="An attribute keeps a value the cloud object no longer has.",
    doc="""
        An attribute whose value after create equals the field of the same
        name on the cloud object (``status``, ``name``, ``size`` ...) mirrors
        that field. After suspend and resume it must still equal it: a value
        kept in resource data or computed once at create goes stale, and
        templates reading it with ``get_attr`` see the past. A ``status``
        attribute is also read again afresh after the cloud object's status
        is changed out of band (to its kind's error status, then back).
    """,
    bad="""
        def _resolve_attribute(self, name):
            if name == "status":
                return self.data().get("status")  # stored at create
    """,
    good="""
        def _resolve_attribute(self, name):
            if name == "status":
                return self.client().servers.get(self.resource_id).status
    """,
)
def check_stale_attribute(module: PluginModule) -> Iterator[Hit]:
    """Attributes that no longer mirror the cloud object after an action."""
    yield from _oracle_hits(module, "stale")
