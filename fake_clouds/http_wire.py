"""A world's HTTP APIs served to ``requests`` while the engine runs, built on first use.

:meth:`fake_clouds.core.world.FakeCloud.http_wire` is entered around every engine run,
most of which make no HTTP request at all. Entering it installs one function in place
of ``requests.adapters.HTTPAdapter.send`` (or, when ``requests`` is not imported yet,
an import hook that installs it the moment ``requests.adapters`` is imported, so a
plug-in importing ``requests`` mid-run cannot reach the real network either). Nothing
else is imported or built.

A request then walks the layers the eager wire used to stack, innermost mock first:

1. the BIG-IPs' iControl REST (any ``https://HOST/mgmt/...``, :mod:`fake_clouds.bigip.wire`);
2. the Docker Engine API (:data:`DOCKER_BASES`, :mod:`fake_clouds.docker.wire`);
3. the services of the world with a ``serve_http(mock)`` method;
4. the send in place before: refusing every non-loopback host in one line
   (:mod:`fake_clouds.http_refusal`), or a caller's own mock, which keeps answering.

A layer's ``responses`` mock and WSGI application are built when the first request that
could concern it arrives and serve the rest of the run; each reads the world live. A
request no layer answers passes on to the next, as ``responses``' pass-through did.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from importlib.abc import Loader, MetaPathFinder
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any

from fake_clouds.http_refusal import refusing_send

Send = Callable[..., Any]

#: Every iControl REST URL, whatever the host (the BIG-IP wire answers these).
BIGIP_URLS = re.compile(r"^https://[^/?#]+/mgmt(/[^?#]*)?(\?.*)?$")
#: Where the Docker wire answers: ``DockerEngine.default_base_url`` and its aliases.
DOCKER_BASES = ("http://docker.fake:2375", "http+docker://localhost")
_EVERYTHING = re.compile(".*")
#: marks a send installed by a wire: the cloud it serves
_MARK = "_plugsim_wire_cloud"


def _docker_url(url: str) -> bool:
    return url.startswith(DOCKER_BASES)


def _bigip_url(url: str) -> bool:
    return BIGIP_URLS.match(url) is not None


def _always(url: str) -> bool:
    return True


def _build_bigip(cloud: Any, mock: Any) -> None:
    from fake_clouds.bigip.wire import BigIPServer

    BigIPServer(cloud, mock=mock)


def _build_docker(cloud: Any, mock: Any) -> None:
    from fake_clouds.docker.wire import DockerServer

    DockerServer(cloud, mock=mock)


def _build_services(cloud: Any, mock: Any) -> None:
    for name in cloud.service_names():
        hook = getattr(cloud.service(name), "serve_http", None)
        if callable(hook):
            hook(mock)


#: innermost first: (which URLs the layer may answer, how its routes are added to a mock)
LAYERS: tuple[tuple[Callable[[str], bool], Callable[[Any, Any], None]], ...] = (
    (_bigip_url, _build_bigip),
    (_docker_url, _build_docker),
    (_always, _build_services),
)


class HttpWire:
    """One entry of a world's HTTP wire (a context manager; see the module's text)."""

    def __init__(self, cloud: Any) -> None:
        """Serve *cloud*'s HTTP APIs while the ``with`` block lasts."""
        self.cloud = cloud
        self.active = False
        self._adapter: Any = None  # the HTTPAdapter class this wire patched
        self._previous: Send | None = None
        self._sends: list[Send | None] = [None] * len(LAYERS)

    def __enter__(self) -> HttpWire:
        self.active = True
        adapters = sys.modules.get("requests.adapters")
        if adapters is not None and hasattr(adapters, "HTTPAdapter"):
            self._install(adapters.HTTPAdapter)
        else:
            _PENDING.append(self)
            if _HOOK not in sys.meta_path:
                sys.meta_path.insert(0, _HOOK)
        return self

    def __exit__(self, *exc: object) -> None:
        self.active = False
        if self in _PENDING:
            _PENDING.remove(self)
            if not _PENDING and _HOOK in sys.meta_path:
                sys.meta_path.remove(_HOOK)
        if self._adapter is not None:
            self._adapter.send = self._previous
            self._adapter = None
        self._sends = [None] * len(LAYERS)

    def _install(self, adapter: Any) -> None:
        """Put this wire's send in place of *adapter*'s (unless it serves this cloud already)."""
        previous = adapter.send
        if getattr(previous, _MARK, None) is self.cloud:
            return  # an enclosing wire of the same world answers exactly as this one would
        self._previous = previous
        bottom = refusing_send(previous)

        def send(adapter_self: Any, request: Any, *args: Any, **kwargs: Any) -> Any:
            if not self.active:  # kept past the run (a library imported meanwhile did)
                return previous(adapter_self, request, *args, **kwargs)
            return self._send(0, bottom, adapter_self, request, *args, **kwargs)

        setattr(send, _MARK, self.cloud)
        self._adapter = adapter
        adapter.send = send

    def _send(
        self, layer: int, bottom: Send, adapter: Any, request: Any, *args: Any, **kw: Any
    ) -> Any:
        url = str(request.url or "")
        while layer < len(LAYERS):
            wanted, build = LAYERS[layer]
            if wanted(url):
                served = self._sends[layer]
                if served is None:
                    served = self._sends[layer] = self._mock(layer, bottom, build)
                return served(adapter, request, *args, **kw)
            layer += 1
        return bottom(adapter, request, *args, **kw)

    def _mock(self, layer: int, bottom: Send, build: Callable[[Any, Any], None]) -> Send:
        """Layer *layer*'s ``responses`` mock, as a send passing what it does not answer on."""
        import responses

        def below(adapter: Any, request: Any, *args: Any, **kwargs: Any) -> Any:
            return self._send(layer + 1, bottom, adapter, request, *args, **kwargs)

        mock = responses.RequestsMock(
            assert_all_requests_are_fired=False,
            passthru_prefixes=(_EVERYTHING,),  # type: ignore[arg-type]
            real_adapter_send=below,
        )
        build(self.cloud, mock)
        return mock.unbound_on_send()


#: wires entered before ``requests.adapters`` was imported, outermost first
_PENDING: list[HttpWire] = []


class _PatchOnImport(MetaPathFinder):
    """Installs the pending wires' sends as soon as ``requests.adapters`` is imported."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> ModuleSpec | None:
        """Wrap the loader of ``requests.adapters``; every other import is left alone."""
        if fullname != "requests.adapters":
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None and spec.loader is not None:
                spec.loader = _PatchingLoader(spec.loader)
                return spec
        return None


class _PatchingLoader(Loader):
    """A module loader that installs the pending wires once ``requests.adapters`` has run."""

    def __init__(self, loader: Loader) -> None:
        self.loader = loader

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        # the module's own loader again, for whatever asks it later
        module.__loader__ = self.loader
        if module.__spec__ is not None:
            module.__spec__.loader = self.loader
        self.loader.exec_module(module)
        for wire in list(_PENDING):
            wire._install(module.HTTPAdapter)
        _PENDING.clear()
        if _HOOK in sys.meta_path:
            sys.meta_path.remove(_HOOK)


_HOOK = _PatchOnImport()
