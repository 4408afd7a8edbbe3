"""``plugsim cloud``: salt-cloud's command line over the driver harness and a stored world.

Flags follow salt-cloud::

    plugsim cloud -p PROFILE NAME [NAME ...]        create
    plugsim cloud -m MAP [-P]                       create a map's nodes (-P: at the same time)
    plugsim cloud --list-providers | --list-profiles PROVIDER|all
    plugsim cloud -d NAME [NAME ...]                destroy
    plugsim cloud -Q | -F | -S                      list nodes (brief, full, query.selection)
    plugsim cloud -a ACTION NAME [k=v ...]          run an action on nodes
    plugsim cloud -f FUNCTION PROVIDER [k=v ...]    run a provider function
    plugsim cloud --list-images|--list-sizes|--list-locations PROVIDER
    plugsim cloud inventory                         what the fake cloud holds

The fake cloud, its virtual clock and seeded streams live in the engine's
store (``--state``, default ``$PLUGSIM_STATE`` or ``.plugsim/world.db``), so
a node created by one invocation is there for the next. Output is YAML like
salt-cloud's, or JSON with ``--out json``; ``--events`` prints the events the
drivers fired (to stderr). Errors are one line on stderr and exit status 1.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from typing import Any

import click
import yaml

from sdk.exception import PlugsimError
from simulator import masking
from simulator.cli._shared import emit_rows
from simulator.events import format_time

_ACTIONS = (
    "profile",
    "map",
    "destroy",
    "query",
    "full_query",
    "select_query",
    "action",
    "function",
    "list_providers",
    "list_profiles",
    "update_bootstrap",
)
_LISTINGS = {"list_images": "images", "list_sizes": "sizes", "list_locations": "locations"}
_AUTH_META = "cloud_rest_auth"
_NO_BOOTSTRAP_UPDATE = (
    "-u/--update-bootstrap is refused: plugsim never downloads bootstrap-salt.sh (nothing "
    "reaches the network and deployment is simulated), so there is nothing to update"
)


class _SaltCloudGroup(click.Group):
    """A group whose own flags take positional names (``-p web vm1``) unless a sub-command leads."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and (args[0] in self.commands or self._leads_to_command(ctx, args)):
            return super().parse_args(ctx, args)
        ctx.allow_interspersed_args = True
        click.Command.parse_args(self, ctx, args)
        names = list(ctx.args)
        ctx.args = []
        if names and names[0] in self.commands:
            ctx._protected_args, ctx.args = names[:1], names[1:]  # type: ignore[attr-defined]
            return ctx.args
        ctx.meta["plugsim.cloud.names"] = names
        if hasattr(ctx, "_protected_args"):
            ctx._protected_args = []
        return []

    def _leads_to_command(self, ctx: click.Context, args: list[str]) -> bool:
        """True when only group options come before a sub-command (``--state w.db inventory``)."""
        for i, arg in enumerate(args):
            if arg in self.commands:
                probe = click.Context(self, info_name=ctx.info_name, parent=ctx.parent)
                try:
                    rest = click.Command.parse_args(self, probe, list(args[:i]))
                except click.UsageError:
                    return False
                acting = [k for k in (*_ACTIONS, *_LISTINGS) if probe.params.get(k)]
                return not rest and not acting  # "-p web inventory" names a node
        return False


def _pairs(values: tuple[str, ...], option: str) -> dict[str, str]:
    out = {}
    for item in values:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"expected NAME=VALUE, got {item!r}", param_hint=option)
        out[key] = value
    return out


def _split_kwargs(names: list[str]) -> tuple[list[str], dict[str, Any]]:
    positional, kwargs = [], {}
    for item in names:
        key, sep, value = item.partition("=")
        if sep and key:
            try:
                kwargs[key] = yaml.safe_load(value) if value else ""
            except yaml.YAMLError:
                kwargs[key] = value
        else:
            positional.append(item)
    return positional, kwargs


def _emit(data: Any, out: str) -> None:
    data = masking.scrub_data(data)
    if out == "json":
        click.echo(json.dumps(data, indent=2, sort_keys=True, default=str))
    else:
        text = yaml.safe_dump(
            json.loads(json.dumps(data, default=str)), sort_keys=True, default_flow_style=False
        )
        click.echo(text.rstrip("\n"))


def _merge(into: dict[str, Any], more: dict[str, Any]) -> None:
    for key, value in more.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = value


@click.group(
    "cloud",
    cls=_SaltCloudGroup,
    invoke_without_command=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.option("-p", "--profile", metavar="PROFILE", help="Create NAME... from PROFILE.")
@click.option(
    "-m", "--map", metavar="MAP", help="Create the nodes of a map file (with -d: destroy them)."
)
@click.option(
    "-P",
    "--parallel",
    is_flag=True,
    help="Create a map's nodes at the same time (in virtual time).",
)
@click.option("--list-providers", is_flag=True, help="List the configured providers.")
@click.option(
    "--list-profiles",
    metavar="PROVIDER",
    help="List the profiles of PROVIDER ('all': every provider).",
)
@click.option(
    "-u",
    "--update-bootstrap",
    is_flag=True,
    help="Refused: plugsim never downloads bootstrap-salt.sh.",
)
@click.option("-d", "--destroy", is_flag=True, help="Destroy the named nodes.")
@click.option("-Q", "--query", is_flag=True, help="list_nodes on every provider.")
@click.option("-F", "--full-query", is_flag=True, help="list_nodes_full on every provider.")
@click.option("-S", "--select-query", is_flag=True, help="list_nodes_select on every provider.")
@click.option("-a", "--action", metavar="ACTION", help="Run ACTION on the named nodes.")
@click.option("-f", "--function", metavar="FUNCTION", help="Run FUNCTION on PROVIDER.")
@click.option("--list-images", metavar="PROVIDER", help="List PROVIDER's images.")
@click.option("--list-sizes", metavar="PROVIDER", help="List PROVIDER's sizes.")
@click.option("--list-locations", metavar="PROVIDER", help="List PROVIDER's locations.")
@click.option(
    "--providers-config",
    default=lambda: os.environ.get("PLUGSIM_CLOUD_PROVIDERS", "providers.yaml"),
    show_default="providers.yaml",
    help="salt-cloud providers file.",
)
@click.option(
    "--profiles-config",
    default=lambda: os.environ.get("PLUGSIM_CLOUD_PROFILES", "profiles.yaml"),
    show_default="profiles.yaml",
    help="salt-cloud profiles file.",
)
@click.option("--cloud-config", default=None, help="Global settings (query.selection ...).")
@click.option("--driver", "drivers", multiple=True, metavar="NAME=PATH", help="Driver source.")
@click.option("--driver-dir", "driver_dirs", multiple=True, help="Directory of driver modules.")
@click.option(
    "--rest-token",
    "rest_tokens",
    multiple=True,
    metavar="DIALECT=TOKEN",
    help="A token the fake API of DIALECT (digitalocean, linode ...) accepts; the "
    "credentials in the providers file are accepted anyway.",
)
@click.option(
    "--strict-auth",
    metavar="TOKEN",
    default=None,
    help="Make every fake API accept only TOKEN (remembered by the world).",
)
@click.option("--seed", type=int, default=None, help="Seed of a new world.")
@click.option("--faults", default=None, help="Fault preset, profile file or YAML rules.")
@click.option("--state", default=None, help="World store (default: $PLUGSIM_STATE).")
@click.option(
    "--world",
    "world_file",
    metavar="FILE|PRESET",
    default=None,
    help="World file (YAML) or preset (default, devstack) a new world starts from; "
    "an existing world keeps its own.",
)
@click.option(
    "--out",
    type=click.Choice(["yaml", "json"]),
    default="yaml",
    show_default=True,
    help="Output format of the result (salt-cloud's default is YAML-like).",
)
@click.option("--events", "show_events", is_flag=True, help="Print fired events on stderr.")
@click.option("-y", "--assume-yes", is_flag=True, help="Accepted for salt-cloud compatibility.")
@click.option("--debug", is_flag=True, help="Show tracebacks.")
@click.pass_context
def cloud(ctx: click.Context, **opts: Any) -> None:
    """salt-cloud over cloud driver modules, against the fake clouds, in virtual time."""
    parent = ctx.find_root().obj
    if opts["state"] is None:
        opts["state"] = getattr(parent, "state", None)
    if opts["world_file"] is None:  # plugsim --world devstack cloud ...
        opts["world_file"] = getattr(parent, "world", None)
    opts["debug"] = opts["debug"] or bool(getattr(parent, "debug", False))
    if ctx.invoked_subcommand is not None:
        ctx.obj = opts
        return
    names = ctx.meta.get("plugsim.cloud.names", [])
    if opts["update_bootstrap"]:
        click.echo(f"Error: {_NO_BOOTSTRAP_UPDATE}", err=True)
        sys.exit(1)
    chosen = [a for a in _ACTIONS if opts[a]] + [k for k in _LISTINGS if opts[k]]
    if chosen == ["map", "destroy"]:
        chosen = ["map_destroy"]
    if len(chosen) != 1:
        raise click.UsageError(
            "give exactly one of -p, -m, -d, -Q, -F, -S, -a, -f, --list-images, --list-sizes, "
            "--list-locations, --list-providers, --list-profiles"
            + (f" (got {len(chosen)})" if chosen else "")
        )
    if opts["parallel"] and chosen[0] != "map":
        raise click.UsageError("-P/--parallel goes with -m MAP")
    _run(chosen[0], names, opts)


def _open(opts: dict[str, Any]) -> tuple[Any, Any]:
    from simulator.drivers import DriverHarness
    from simulator.world import World

    world = World.open(
        opts["state"], seed=opts["seed"], faults=opts["faults"], world_file=opts["world_file"]
    )
    auth = world.store.get_meta(_AUTH_META, {}) or {}
    strict = opts["strict_auth"] or auth.get("strict")
    try:
        harness = DriverHarness(
            opts["providers_config"],
            opts["profiles_config"],
            settings=opts["cloud_config"],
            drivers=_pairs(opts["drivers"], "--driver"),
            driver_dirs=opts["driver_dirs"],
            seed=world.seed,
            cloud=world.cloud,
            rest_tokens=_pairs(opts["rest_tokens"], "--rest-token") or None,
            strict_auth=strict,
            accept_tokens=auth.get("accepted", []),
        )
        remembered = sorted(set(auth.get("accepted", [])) | set(harness.accepted_tokens))
        world.store.set_meta(_AUTH_META, {"strict": strict, "accepted": remembered})
    except BaseException:
        world.close()
        raise
    return world, harness


def _dispatch(what: str, names: list[str], opts: dict[str, Any], harness: Any) -> Any:
    positional, kwargs = _split_kwargs(names)
    if what in ("map", "map_destroy"):
        from simulator.drivers.cloudmap import load_map

        entries = load_map(opts["map"])
        if what == "map":
            return harness.create_map(entries, parallel=opts["parallel"])
        result: dict[str, Any] = {}
        before = harness.deleting()
        for entry in entries:
            if harness.locate(entry.name) is not None:
                _merge(result, harness.destroy(entry.name))
        harness.settle_deletions(before)
        return result
    if what == "list_providers":
        return {
            alias: {
                harness.config.driver_of(alias): {
                    "profiles": sorted(
                        p
                        for p, conf in harness.config.profiles.items()
                        if str(conf.get("provider", "")).split(":", 1)[0] == alias
                    )
                }
            }
            for alias in harness.aliases()
        }
    if what == "list_profiles":
        wanted = opts["list_profiles"]
        if wanted != "all":
            harness.config.resolve_provider(wanted, f"--list-profiles {wanted}")
        out: dict[str, Any] = {}
        for name, conf in sorted(harness.config.profiles.items()):
            alias = str(conf.get("provider", "")).split(":", 1)[0]
            if wanted in ("all", alias):
                driver = harness.config.driver_of(alias)
                out.setdefault(alias, {}).setdefault(driver, {})[name] = conf
        return out
    if what == "profile":
        if not positional:
            raise click.UsageError("-p PROFILE needs at least one NAME")
        created = {n: harness.create(opts["profile"], n) for n in positional}
        # salt-cloud's run_profile: a create that returned nothing failed (the driver logged why)
        return {n: r if r else {"Error": "Failed to deploy VM"} for n, r in created.items()}
    if what in ("query", "full_query", "select_query"):
        fun = {"query": "list_nodes", "full_query": "list_nodes_full"}.get(
            what, "list_nodes_select"
        )
        return harness.query(fun)
    if what in _LISTINGS:
        return harness.avail(_LISTINGS[what], opts[what])
    if what == "function":
        if len(positional) != 1:
            raise click.UsageError("-f FUNCTION needs exactly one PROVIDER")
        return harness.function(opts["function"], positional[0], kwargs or None)
    if not positional:
        raise click.UsageError(
            f"{'-d' if what == 'destroy' else '-a ACTION'} needs at least one NAME"
        )
    result: dict[str, Any] = {}
    before = harness.deleting()
    for name in positional:
        if what == "destroy":
            _merge(result, harness.destroy(name))
        else:
            _merge(result, harness.action(opts["action"], name, kwargs or None))
    if what == "destroy":  # the next invocation comes later: the provider is done deleting
        harness.settle_deletions(before)
    return result


def _run(what: str, names: list[str], opts: dict[str, Any]) -> None:
    world = None
    harness = None
    try:
        world, harness = _open(opts)
        _remember_secrets(harness)
        mark = harness.bus.mark()
        result = _dispatch(what, names, opts, harness)
        _emit(result, opts["out"])
        _listing_errors(harness)
        _record_events(world, harness, mark, opts["show_events"])
    except click.ClickException:
        raise
    except PlugsimError as ex:
        if harness is not None:  # "node not found" may come of a provider whose listing failed
            _listing_errors(harness)
        if opts["debug"]:
            traceback.print_exception(masking.scrub_exception(ex))
        click.echo(masking.scrub(f"Error: {ex}"), err=True)
        sys.exit(1)
    finally:
        if world is not None:
            world.close()


def _listing_errors(harness: Any) -> None:
    """Print each provider listing that failed, one line each (salt-cloud logs them per provider)."""
    for alias, message in dict.fromkeys(harness.listing_errors):
        click.echo(masking.scrub(f"Error: provider {alias}: {message}"), err=True)


def _remember_secrets(harness: Any) -> None:
    """Make every secret setting of the providers and profiles a secret to scrub."""
    from simulator.drivers._conformance_checks import secret_settings

    cfg = harness.config
    for alias in cfg.aliases():
        for _, value in secret_settings(cfg.provider_settings(alias), alias):
            masking.remember(value)
    for name, profile in cfg.profiles.items():
        for _, value in secret_settings(profile, name):
            masking.remember(value)


def _record_events(world: Any, harness: Any, mark: int, show: bool) -> None:
    fired = harness.bus.since(mark)
    history = world.store.get_meta("cloud_driver_events", []) or []
    history.extend(masking.scrub_data(e.to_dict()) for e in fired)
    world.store.set_meta("cloud_driver_events", history)
    if show:
        for event in fired:
            data = json.dumps(masking.scrub_data(event.data), sort_keys=True, default=str)
            click.echo(masking.scrub(f"{format_time(event.time)}  {event.tag}  {data}"), err=True)


@cloud.command("inventory")
@click.option(
    "-f",
    "--format",
    "fmt",
    type=click.Choice(["yaml", "json", "table"]),
    default=None,
    help="Output format (default: the group's --out).",
)
@click.option("--all", "show_all", is_flag=True, help="Include pre-seeded entities.")
@click.pass_obj
def inventory(opts: dict[str, Any], fmt: str | None, show_all: bool) -> None:
    """List what the fake cloud of the world holds (pre-seeded entities only with --all)."""
    from simulator.world import World

    try:
        with World.open(opts["state"], seed=opts["seed"], world_file=opts["world_file"]) as world:
            items = [i.to_dict() for i in world.cloud.inventory() if show_all or not i.preseeded]
    except PlugsimError as ex:
        click.echo(masking.scrub(f"Error: {ex}"), err=True)
        sys.exit(1)
    columns = ["service", "kind", "name", "id", "status"]
    fmt = fmt or opts["out"]
    if fmt == "table":
        emit_rows(items, columns, "table")
    else:
        _emit([{c: item[c] for c in columns} for item in items], fmt)
