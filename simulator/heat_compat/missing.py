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
