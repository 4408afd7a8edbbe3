"""Measure which of Salt's own cloud drivers run unmodified against plugsim's fakes.

For every driver in Salt's ``salt/cloud/clouds`` this writes a providers
file and a profile the way the driver's own documentation writes them (no
plugsim-specific option, no ``--driver`` mapping, no ``--rest-token``) and
runs, in real-Salt mode::

    salt-cloud -p PROFILE NAME     create
    salt-cloud -Q                  list_nodes
    salt-cloud -F                  list_nodes_full
    salt-cloud -a ACTION NAME      one action (show_instance)
    salt-cloud -d NAME             destroy

and records what worked and, for the first step that did not, why (the
error's first line). ``--write`` puts the table into docs/cloud-drivers.rst
between the ``salt-drivers-table`` markers. Run it where Salt is installed
(``pip install 'plugsim[salt]'``; ``nox -s salt_drivers``)::

    python tools/salt_drivers.py [--write] [--json]
"""

from __future__ import annotations

import argparse
import datetime
import json
import logging
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DOC = ROOT / "docs" / "cloud-drivers.rst"
START = ".. salt-drivers-table-start"
END = ".. salt-drivers-table-end"
STEPS = ("-p", "-Q", "-F", "-a", "-d")

#: driver -> (provider settings, profile settings) as the driver's documentation writes them.
#: ``{key}`` in a value is replaced by the path of a throw-away key file.
DOCUMENTED: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "digitalocean": (
        {
            "personal_access_token": "xxx",
            "ssh_key_file": "{key}",
            "ssh_key_names": "my-key-name,my-key-name-2",
        },
        {"size": "s-1vcpu-1gb", "image": "ubuntu-22-04-x64", "location": "nyc3"},
    ),
    "linode": (
        {
            "apikey": "f4ZsmwtB1c7f85Jdu43RgXVDFlNjuJaeIYV8QMftTqKScEB2vSos",
            "password": "F00barbaz1",
        },
        {"size": "g6-nanode-1", "image": "linode/ubuntu22.04", "location": "us-east"},
    ),
    "vultr": (
        {"api_key": "ABCDEFGHIJKLMNOPQRSTUVWXYZ123456"},
        {"location": 1, "image": 160, "size": 95, "enable_private_network": True},
    ),
    "ec2": (
        {
            "id": "AKIAIOSFODNN7EXAMPLE",
            "key": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "keyname": "default",
            "private_key": "{key}",
            "securitygroup": "default",
        },
        {"image": "ami-0abcdef1234567890", "size": "t3.micro", "ssh_username": "ubuntu"},
    ),
    "cloudstack": (
        {
            "host": "cloud.example.com",
            "path": "/client/api",
            "apikey": "documented-api-key",
            "secretkey": "documented-secret-key",
        },
        {"image": "Ubuntu 22.04", "size": "Small Instance", "location": "zone1"},
    ),
    "hetzner": (
        {"key": "documented-hetzner-token"},
        {"size": "cx22", "image": "ubuntu-22.04", "location": "fsn1"},
    ),
    "scaleway": (
        {"access_key": "SCW0123456789ABCDEFG", "token": "documented-scaleway-token"},
        {"image": "ubuntu_jammy", "commercial_type": "DEV1-S"},
    ),
    "gce": (
        {
            "project": "my-project",
            "service_account_email_address": "sa@my-project.iam.gserviceaccount.com",
            "service_account_private_key": "{key}",
        },
        {"image": "ubuntu-2204-lts", "size": "e2-micro", "location": "us-central1-a"},
    ),
    "packet": (
        {"token": "documented-equinix-token", "project_id": "1234"},
        {"size": "c3.small.x86", "image": "ubuntu_22_04", "location": "da"},
    ),
    "proxmox": (
        {
            "user": "myuser@pam",
            "password": "mypassword",
            "url": "hypervisor.domain.tld",
            "port": 8006,
            "verify_ssl": True,
        },
        {
            "image": "local:vztmpl/ubuntu-12.04-standard_12.04-1_amd64.tar.gz",
            "technology": "lxc",
            "host": "myvmhost",
            "ip_address": "192.168.100.155",
            "password": "topsecret",
        },
    ),
    "joyent": (
        {"user": "fred", "password": "saltybacon", "private_key": "{key}", "keyname": "k"},
        {"size": "g4-highcpu-1G", "image": "ubuntu-22.04", "location": "us-east-1"},
    ),
    "aliyun": (
        {"id": "documented-id", "key": "documented-key", "location": "cn-qingdao"},
        {"size": "ecs.t1.small", "image": "ubuntu1404_32_20G_aliaegis_20150325.vhd"},
    ),
    "tencentcloud": (
        {"id": "documented-id", "key": "documented-key", "location": "ap-guangzhou"},
        {"size": "S1.SMALL1", "image": "img-31tjrtph", "availability_zone": "ap-guangzhou-3"},
    ),
    "qingcloud": (
        {
            "access_key_id": "documented-id",
            "secret_access_key": "documented-key",
            "zone": "pek2",
            "key_filename": "{key}",
        },
        {"image": "trustysrvx64a", "size": "c1m1", "login_keypair": "kp-1"},
    ),
    "softlayer": (
        {"user": "MYUSER1138", "apikey": "documented-api-key"},
        {"image": "UBUNTU_LATEST", "cpu_number": 1, "ram": 1024, "location": "dal05"},
    ),
    "oneandone": (
        {"api_token": "documented-token", "ssh_private_key": "{key}"},
        {"fixed_instance_size_id": "S", "appliance_id": "ubuntu"},
    ),
    "profitbricks": (
        {"username": "user@example.com", "password": "secret", "datacenter_id": "dc-1"},
        {"image": "Ubuntu-22.04", "size": "Small Instance"},
    ),
    "dimensiondata": (
        {"user_id": "user", "key": "secret", "region": "dd-na"},
        {"image": "Ubuntu 22.04", "size": "Small", "location": "NA9"},
    ),
    "opennebula": (
        {"xml_rpc": "http://one.example.com:2633/RPC2", "user": "oneadmin", "password": "pw"},
        {"template": "ubuntu", "image": "ubuntu"},
    ),
    "openstack": (
        # the docstring's second form, against a DevStack world ("user_domain_name:
        # default," there carries a stray comma, a typo no keystone accepts; the
        # password is the devstack world's, as a real DevStack's is its local.conf's)
        {
            "region_name": "RegionOne",
            "auth": {
                "username": "demo",
                "password": "plugsim",
                "project_name": "demo",
                "user_domain_name": "default",
                "project_domain_name": "default",
                "auth_url": "http://openstack/identity",
            },
        },
        # the docstring's minimum profile with DevStack's image and flavor; DevStack's public
        # range (172.24.4.0/24) is private, so Salt's default public_ips finds no address on
        # a real DevStack either: the floating IP shade's auto_ip adds is the one to use
        {
            "image": "cirros-0.6.3-x86_64-disk",
            "size": "ds1G",
            "ssh_key_name": "mykey",
            "ssh_key_file": "{key}",
            "ssh_interface": "floating_ips",
        },
    ),
}

#: driver -> the world (preset) its documentation's cloud looks like; others: the default world.
WORLDS = {"openstack": "devstack"}

#: Drivers that drive a local hypervisor or an existing machine, not a cloud API plugsim fakes.
NOT_A_CLOUD_API = {
    "libvirt": "drives a local libvirt hypervisor",
    "lxc": "drives LXC containers through a Salt minion",
    "vagrant": "drives Vagrant through a Salt minion",
    "virtualbox": "drives a local VirtualBox",
    "xen": "drives a XenServer host (XenAPI over its own socket)",
    "vmware": "drives vCenter through pyVmomi (SOAP)",
    "saltify": "installs Salt on an existing machine (nothing to create)",
    "parallels": "Parallels Automation (its own XML API)",
    "clc": "CenturyLink Cloud (service shut down)",
    "gogrid": "GoGrid (service shut down)",
    "pyrax": "Rackspace through pyrax (OpenStack; see the openstack row)",
    "softlayer_hw": "SoftLayer bare metal (same API as softlayer)",
}


def salt_drivers() -> list[str]:
    """Return the driver names of Salt's in-tree cloud drivers (virtual names), sorted."""
    from simulator.drivers.loader import salt_clouds_dir, salt_in_tree_drivers

    names = {}
    for name, module in salt_in_tree_drivers().items():
        names.setdefault(module, name)
    stems = {p.stem for p in (salt_clouds_dir() or Path()).glob("*.py")}
    out = []
    for module, name in names.items():
        stem = module.rsplit(".", 1)[-1]
        if stem in stems and not stem.startswith("_"):
            out.append(name if stem != "vultrpy" else "vultr")
    return sorted(set(out))


def _first_line(ex: BaseException, key_file: str) -> str:
    """Return the error's first line without machine-specific paths (deterministic docs)."""
    text = str(ex).strip().splitlines()[0] if str(ex).strip() else type(ex).__name__
    text = text.replace(str(Path(key_file).parent), "<tmp>")
    text = re.sub(r"\S*/(salt/cloud/clouds/\w+\.py)", r"\1", text)
    return text[:240]


def measure(driver: str, key_file: str) -> dict[str, Any]:
    """Run the five steps for *driver*; return ``{"steps": {...}, "why": str, "passed": n}``."""
    from simulator.drivers import DriverHarness

    row: dict[str, Any] = {"driver": driver, "steps": dict.fromkeys(STEPS, "-"), "why": ""}
    if driver in NOT_A_CLOUD_API:
        row["why"] = f"not a cloud API: {NOT_A_CLOUD_API[driver]}"
        row["passed"] = 0
        return row
    providers, profiles = configs(driver, key_file)
    world = WORLDS.get(driver)
    name = f"{driver}-measured"
    harness = None
    errors = _ErrorLog()
    logging.getLogger().addHandler(errors)
    try:
        harness = DriverHarness(providers, profiles, salt_mode=True, world=world)
        alias = f"my-{driver}"

        def create() -> Any:
            # salt-cloud's run_profile: a create returning nothing failed ("Failed to deploy
            # VM"); the reason is what the driver logged
            result = harness.create(f"{driver}-vm", name)
            if not result:
                raise RuntimeError(f"create() returned {result!r}: {errors.last()}")
            return result

        steps = [
            ("-p", create),
            ("-Q", lambda: _listed(harness.call(alias, "list_nodes"), name)),
            ("-F", lambda: _listed(harness.call(alias, "list_nodes_full"), name)),
            ("-a", lambda: harness.action("show_instance", name)),
            ("-d", lambda: harness.destroy(name)),
        ]
        for flag, step in steps:
            try:
                step()
            except Exception as ex:  # noqa: BLE001 - every failure is a measured reason
                row["steps"][flag] = "no"
                row["why"] = row["why"] or f"{flag}: {_first_line(ex, key_file)}"
            else:
                row["steps"][flag] = "yes"
            if flag == "-p" and row["steps"][flag] == "no":
                break
    except Exception as ex:  # noqa: BLE001 - loading failed: the reason is the measurement
        row["why"] = f"load: {_first_line(ex, key_file)}"
    finally:
        logging.getLogger().removeHandler(errors)
        if harness is not None and harness.salt_mode is not None:
            harness.salt_mode.close()
    row["passed"] = sum(1 for v in row["steps"].values() if v == "yes")
    row["conformance"] = _conformance(providers, profiles, world) if row["passed"] else ""
    return row


def configs(driver: str, key_file: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Return the providers and profiles the measurement of *driver* uses (``{key}`` filled)."""
    provider, profile = DOCUMENTED.get(driver, ({}, {}))

    def fill(settings: dict[str, Any]) -> dict[str, Any]:
        return {
            k: (v.format(key=key_file) if isinstance(v, str) else v) for k, v in settings.items()
        }

    providers = {f"my-{driver}": {"driver": driver, **fill(provider)}}
    profiles = {f"{driver}-vm": {"provider": f"my-{driver}", **fill(profile)}}
    return providers, profiles


def show_configs(drivers: list[str], key_file: str) -> str:
    """Return the providers/profiles YAML of every measured driver (what ``nox`` shows)."""
    import yaml

    parts = []
    for driver in drivers:
        if driver in NOT_A_CLOUD_API:
            continue
        providers, profiles = configs(driver, "/path/to/ssh/key/file")
        world = WORLDS.get(driver)
        head = f"# {driver}" + (f" (world: {world})" if world else "")
        body = yaml.safe_dump({"providers": providers, "profiles": profiles}, sort_keys=False)
        parts.append(head + "\n" + body)
    return "\n".join(parts)


class _ErrorLog(logging.Handler):
    """Keeps the last error a driver logged (Salt's drivers log why a create failed)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())

    def last(self) -> str:
        lines = [ln.strip() for m in self.messages[-1:] for ln in m.splitlines() if ln.strip()]
        return lines[-1] if lines else "nothing was logged"


def _conformance(providers: dict[str, Any], profiles: dict[str, Any], world: Any = None) -> str:
    """Return the baseline conformance findings, summarised: guide rules departed from, gaps."""
    from simulator.drivers import check_driver

    findings = check_driver(None, providers, profiles, fault_kinds=[], world=world)
    departures = sorted({f.check for f in findings if f.origin == "driver"})
    gaps = sorted({f.message.split(": ", 1)[0] for f in findings if f.origin == "plugsim"})
    parts = []
    if departures:
        parts.append("departs from the guide: " + ", ".join(departures))
    if gaps:
        parts.append(f"{len(gaps)} plugsim gap(s)")
    return "; ".join(parts) or "conforms"


def _listed(nodes: Any, name: str) -> Any:
    if not isinstance(nodes, dict) or name not in nodes:
        raise LookupError(f"the listing does not show {name!r}")
    return nodes


def table(rows: list[dict[str, Any]], version: str, day: str = "") -> str:
    """Return the reStructuredText table of *rows* (measured on *day*, ``YYYY-MM-DD``)."""
    works = [r["driver"] for r in rows if r["passed"] == len(STEPS)]
    when = f" on {day}" if day else ""
    head = (
        f"Measured{when} with Salt {version} by ``python tools/salt_drivers.py --write`` "
        "(``nox -s salt_drivers``): "
        f"**{len(works)} of {len(rows)}** drivers run ``-p``, ``-Q``, ``-F``, ``-a "
        f"show_instance`` and ``-d`` unmodified from a documented providers file"
        + (f" ({', '.join(works)})." if works else ".")
    )
    lines = [head, "", ".. list-table::", "   :header-rows: 1", "   :widths: 14 5 5 5 5 5 61", ""]
    lines += [
        "   * - driver",
        *(f"     - ``{s}``" for s in STEPS),
        "     - why not / baseline conformance",
    ]
    for r in rows:
        lines.append(f"   * - {r['driver']}")
        lines += [f"     - {r['steps'][s]}" for s in STEPS]
        text = r["why"] or r.get("conformance", "")
        why = text.replace("`", "'").replace("*", "\\*").replace("|", "\\|") or "\\-"
        lines.append(f"     - {why}")
    return "\n".join(lines)


def write_doc(text: str) -> None:
    """Replace the measured table in docs/cloud-drivers.rst."""
    doc = DOC.read_text(encoding="utf-8")
    start, end = doc.index(START), doc.index(END)
    DOC.write_text(doc[: start + len(START)] + "\n\n" + text + "\n\n" + doc[end:], "utf-8")


def main(argv: list[str] | None = None) -> int:
    """Measure every driver; print the table (or JSON) and optionally write the docs."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--write", action="store_true", help="write the table into the docs")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    parser.add_argument("drivers", nargs="*", help="only these drivers")
    args = parser.parse_args(argv)
    os.environ["PLUGSIM_SALT_MODE"] = "1"
    from simulator.drivers.salt_mode import salt_unavailable_reason, salt_version

    reason = salt_unavailable_reason()
    if reason is not None:
        print(f"salt_drivers: {reason}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="plugsim-salt-drivers-") as tmp:
        key = Path(tmp) / "id_documented"
        key.write_text("not a real key\n", encoding="utf-8")
        key.chmod(0o600)
        chosen = args.drivers or salt_drivers()
        if not args.json:
            print("Providers and profiles used (ssh_key_file: a throw-away file):\n")
            print(show_configs(chosen, str(key)))
        rows = [measure(d, str(key)) for d in chosen]
    day = datetime.datetime.now(datetime.UTC).date().isoformat()
    text = table(rows, salt_version() or "?", day)
    print(json.dumps(rows, indent=2, sort_keys=True) if args.json else text)
    if args.write:
        write_doc(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
