"""The error of a Heat plug-in that uses a name the compatibility layer does not provide."""

from __future__ import annotations

from sdk import exception


class MissingHeatName(exception.PluginLoadError, AttributeError):
    """A Heat plug-in used a name the compatibility layer does not provide."""

    def __init__(self, qualified_name: str, where: str | None = None) -> None:
        self.qualified_name = qualified_name
        #: the plug-in file that needs the name, when known
        self.where = where
        prefix = f"{where}: " if where else ""
        super().__init__(
            f"{prefix}{qualified_name} is not provided by plugsim's Heat compatibility layer "
            f"(simulator.heat_compat); the plug-in needs it"
        )


class HeatLacksName(exception.PluginLoadError, AttributeError):
    """A Heat plug-in used a name Heat's own class lacks too: it fails the same way in Heat."""

    def __init__(self, owner: str, name: str, where: str | None = None) -> None:
        self.qualified_name = f"{owner}.{name}"
        self.where = where
        prefix = f"{where}: " if where else ""
        super().__init__(
            f"{prefix}Heat's own {owner} has no {name!r} either: the plug-in fails the same "
            f"way under Heat (a bug of the plug-in, not a gap of plugsim)"
        )


class MissingCloudEndpoint(exception.PluginLoadError, AttributeError):
    """A Heat plug-in used an endpoint the fake cloud's service client does not offer."""

    def __init__(self, service: str, client: object, name: str, where: str | None = None) -> None:
        #: the client name the plug-in asked for (``nova``)
        self.service = service
        #: the attribute of the client the plug-in read
        self.endpoint = name
        self.where = where
        prefix = f"{where}: " if where else ""
        super().__init__(
            f"{prefix}the fake cloud's {service!r} client ({type(client).__name__}) has no "
            f"{name!r}; the plug-in needs this endpoint"
        )


class MissingCloudService(exception.PluginLoadError, AttributeError):
    """A Heat plug-in asked for a client of a service the fake cloud does not run."""

    def __init__(self, service: str, detail: str, where: str | None = None) -> None:
        #: the client name the plug-in asked for (``keystone``)
        self.service = service
        self.where = where
        prefix = f"{where}: " if where else ""
        super().__init__(
            f"{prefix}the fake cloud has no {service!r} service ({detail}); "
            f"the plug-in needs this endpoint"
        )
