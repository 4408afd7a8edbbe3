"""``plugsim conformance`` over each of Heat's in-tree types that runs create → delete.

For each module of ``heat/engine/resources/openstack/{heat,nova,neutron,cinder}``
with a type that runs create → delete (``tools/heat_inventory.py``), runs
``plugsim conformance heat.engine.resources.openstack.<module>`` -- the SDK's
conformance kit, as a plug-in author runs it -- with the same property map,
prerequisite resources and given update changes the inventory and
``tools/heat_lifecycle.py`` use (``--properties``, ``--companions``,
``--updates``), and reads each test's result (``--junitxml``).

A failure is *plugsim's* unless :data:`NOT_PLUGSIM` explains it as the
behaviour of the plug-in or of Heat itself (each entry says why, having been
read in Heat's source). The output is one line per type (passed, failed,
skipped; failures split into plugsim's and the plug-in's), each failure's
first line, then the totals.

Usage::

    PLUGSIM_HEAT_PYTHON=... python tools/heat_inventory.py --conformance [--json]
        [--only TYPE_OR_MODULE ...] [-k EXPRESSION] [--keep DIR]

``--only`` measures the named types (``OS::Heat::Delay``) or modules
(``heat.delay``) alone; ``-k`` narrows each module's run to the tests a
pytest expression selects (``-k test_suspend_resume``), so one failure is
replayed by itself; ``--keep`` writes the generated property, companion and
update files (and the JUnit XML) to DIR instead of a temporary directory.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import heat_inventory  # noqa: E402 - sibling scripts, found through the line above
import heat_lifecycle  # noqa: E402

#: ``(type or "*", test or "*", text in the failure, why it is not plugsim's)``:
#: failures that are the plug-in's or Heat's own behaviour.
NOT_PLUGSIM: list[tuple[str, str, str, str]] = [
    (
        "OS::Heat::AccessPolicy",
        "test_create",
        "has no physical id",
        "Heat's AccessPolicy sets no resource id; Heat allows that, the kit asks for one",
    ),
    (
        "OS::Heat::Delay",
        "test_create",
        "has no physical id",
        "Heat's Delay sets no resource id; Heat allows that, the kit asks for one",
    ),
    (
        "*",
        "test_abandon_adopt",
        "Resource ID was not provided",
        "Heat's adopt refuses a resource without a resource id (Resource.handle_adopt), "
        "and this type never sets one",
    ),
    (
        "OS::Heat::Delay",
        "*",  # test_suspend_resume and the oracle's test_suspend_resume_change_cloud
        "HeatLacksName",
        "Heat's Delay calls _check_status_complete on resume (delay.py:166), which only "
        "Heat's StackResource has: resuming it fails in Heat too",
    ),
    (
        "OS::Cinder::Volume",
        "test_create_fails_at_each_cloud_call",
        "status must be available",
        "a create failing while the volume is still 'creating': Heat's delete asks cinder "
        "to delete it at once, which cinder (as the fake) refuses until it settles",
    ),
    (
        "OS::Cinder::VolumeType",
        "test_update_failure_rolls_back",
        "already exists",
        "Heat replaces a failed resource on rollback, making the new one before deleting "
        "the old: cinder refuses a second type of the same name",
    ),
    (
        "*",
        "test_update_failure_rolls_back",
        "already exists",
        "Heat replaces a failed resource on rollback, making the new one before deleting "
        "the old: the cloud refuses a second object of the same unique name or owner "
        "(cinder's QoS specs and encryption types, nova's aggregates)",
    ),
    (
        "*",
        "test_update_replace",
        "already exists in QoS policy",
        "Heat's replacement makes the new rule before deleting the old (Resource."
        "_needs_update -> UpdateReplace, create first): neutron allows one rule of a kind "
        "and direction per policy",
    ),
    (
        "*",
        "test_update_replace",
        "is already connected to l2 gateway",
        "Heat makes the replacement connection before deleting the old one, and neutron "
        "allows one connection per network and gateway",
    ),
    (
        "*",
        "test_update_replace",
        "Port Pair with ingress port",
        "Heat makes the replacement port pair before deleting the old one, and "
        "networking-sfc allows one pair per ingress/egress ports",
    ),
    (
        "*",
        "test_update_replace",
        "is already used by port_chain",
        "Heat makes the replacement port chain before deleting the old one, and "
        "networking-sfc lets a port pair group serve one chain",
    ),
    # Found by the kit in Heat 27.0.1 (docs/heat-findings.rst gives each one's replay).
    (
        "OS::Heat::WaitCondition",
        "test_create",
        "has no physical id",
        "Heat's WaitCondition sets no resource id (wait_condition.py HeatWaitCondition."
        "handle_create); Heat allows that, the kit asks for one",
    ),
    (
        "OS::Cinder::QoSSpecs",
        "test_delete_when_already_gone",
        "No such QoS spec",
        "Heat defect: QoSSpecs.handle_delete calls qos_specs.disassociate_all outside "
        "ignore_not_found, so specs deleted behind Heat's back fail the delete (cinder "
        "answers 404 there too)",
    ),
    *[
        (
            kind,
            "test_create_fails_at_each_cloud_call",
            "entity/software_config",
            "Heat defect: SoftwareDeployment._handle_action makes the derived config before "
            "create_software_deployment; when that fails, _delete_resource finds derived "
            "configs only through the deployment, so the config is left",
        )
        for kind in (
            "OS::Heat::SoftwareDeployment",
            "OS::Heat::SoftwareDeploymentGroup",
            "OS::Heat::StructuredDeployment",
            "OS::Heat::StructuredDeploymentGroup",
        )
    ],
    *[
        (
            kind,
            "test_update_failure_rolls_back",
            'can only concatenate str (not "NoneType") to str',
            "Heat defect: a failed resource's update asks needs_replace_failed, whose "
            "NeutronResource version builds 'show_' + self.entity; this type has no entity "
            "(it uses openstacksdk or quota calls), so rollback raises TypeError",
        )
        for kind in ("OS::Neutron::FloatingIPPortForward", "OS::Neutron::Quota")
    ],
    (
        "OS::Heat::DeployedServer",
        "test_deletion_policy_snapshot",
        "HeatClientPlugin.client",
        "Heat defect: DeployedServer (default client 'heat') inherits BaseServer."
        "handle_snapshot_delete, which calls self.client().servers.create_image: "
        "heatclient has no servers, so a Snapshot deletion policy fails the delete",
    ),
    (
        "OS::Heat::SwiftSignalHandle",
        "test_abandon_adopt",
        "object_storage/container",
        "Heat defect: SwiftSignalHandle.handle_delete names the container by self.stack.id "
        "and the object by physical_resource_name(), not by its resource id: after "
        "adopt (a new stack) the adopted handle's delete leaves the old container",
    ),
    # -- the oracles' findings in Heat's own code (sdk/testing/oracles.py) --
    (
        "OS::Cinder::Volume",
        "test_restore_brings_back_snapshot",
        "description is",
        "a Heat defect: CinderVolume.handle_update (cinder/volume.py:457) sends "
        "prop_diff.get('description') or self.properties['description'], the old value, "
        "so a description the restored template no longer has is never cleared",
    ),
    (
        "OS::Heat::RandomString",
        "test_schema_no_looser_than_cloud",
        "IndexError: Cannot choose from an empty sequence",
        "a Heat defect: the schema takes an empty character sequence (heat/random_string.py:131, "
        "no Length), and password_gen.generate_password (common/password_gen.py:98) then "
        "calls random.choice on it",
    ),
    (
        "OS::Heat::InstanceGroup",
        "test_schema_no_looser_than_cloud",
        "instance_group.py:190) crashed with KeyError",
        "a Heat defect: LoadBalancerNames is a list of anything (heat/instance_group.py:97, "
        "no item schema, no validate() check), and check_create_complete's _lb_reload "
        "(instance_group.py:430) looks each name up as self.stack[name] (engine/stack.py:865, "
        "a dict lookup): a name that is no resource of the stack fails the create with KeyError "
        "after every instance was made",
    ),
    (
        "OS::Heat::ResourceGroup",
        "test_schema_no_looser_than_cloud",
        "HandlerBlocked: handler ResourceGroup.handle_create",
        "Heat's count has no maximum (resource_group.py:131, Range(min=0)) and handle_create "
        "builds every member's definition (_assemble_nested, resource_group.py:665) before "
        "create_with_template counts them against max_resources_per_stack (stack_resource.py"
        ":296): a drawn count of 48,446 keeps Heat's own code busy past the kit's 10 s wall "
        "limit, and would block Heat's engine the same way",
    ),
    (
        "OS::Neutron::FirewallRule",
        "test_schema_no_looser_than_cloud",
        "need protocol tcp or udp",
        "Heat's schema takes a source/destination port with the default protocol 'any' "
        "(neutron/firewall.py:352-395), which handle_create sends as no protocol (line 477); "
        "neutron-fwaas refuses a port without a protocol (validators."
        "validate_fwr_protocol_parameters: FirewallRuleWithPortWithoutProtocolInvalid)",
    ),
    (
        "OS::Heat::UpdateWaitConditionHandle",
        "test_repeated_update_is_noop",
        "identity.users.create",
        "Heat's UpdateWaitConditionHandle is replaced on every update, even to the same "
        "template (wait_condition_handle.py:236-238, _needs_update raises UpdateReplace): a new "
        "handle with a new stack user, by design, so a repeated update writes",
    ),
    (
        "OS::Neutron::ProviderNet",
        "test_schema_no_looser_than_cloud",
        "Invalid input for provider:segmentation_id",
        "Heat's segmentation_id is a free string (neutron/provider_net.py:79, no constraint) "
        "passed on as provider:segmentation_id (line 192); neutron converts it with "
        "convert_to_int (neutron-lib's providernet definition), which refuses '' or any "
        "non-number",
    ),
    (
        "OS::Nova::ServerGroup",
        "test_schema_no_looser_than_cloud",
        "server_group.py:103 while creating with {'policies': []}",
        "a Heat defect: policies is a list with no Length (nova/server_group.py:50, 'a list of "
        "exactly one policy' only in its description), and handle_create sends policies[0] "
        "(line 103, nova microversion 2.64 and later): an empty list fails with IndexError",
    ),
    (
        "OS::Neutron::FlowClassifier",
        "test_schema_no_looser_than_cloud",
        "port ranges need protocol tcp or udp",
        "Heat's schema takes a port range without a protocol (neutron/sfc/flow_classifier.py:59"
        ", protocol optional); networking-sfc refuses it (FlowClassifierProtocolRequiredWithPorts)",
    ),
    *[
        (
            "OS::Nova::Quota",
            "test_schema_no_looser_than_cloud",
            f"Bad key '{key}' in the quota set",
            f"Heat's NovaQuota still offers {key} (nova/quota.py), a quota nova's quota-set API "
            "no longer takes at current microversions (the network proxies went in 2.36, "
            "injected files in 2.57; nova/conf/quota.py has no such option)",
        )
        for key in (
            "fixed_ips",
            "floating_ips",
            "security_groups",
            "security_group_rules",
            "injected_files",
            "injected_file_content_bytes",
            "injected_file_path_bytes",
        )
    ],
    (
        "OS::Neutron::Subnet",
        "test_schema_no_looser_than_cloud",
        "is not an IPv6 subnet",
        "Heat's Subnet takes ip_version 6 with an IPv4 cidr (neutron/subnet.py: the two are "
        "independent properties, and validate() does not compare them); neutron refuses a "
        "cidr of the other IP version (_validate_ip_version)",
    ),
    (
        "OS::Nova::HostAggregate",
        "test_schema_no_looser_than_cloud",
        "Invalid input for field/attribute availability_zone",
        "Heat's availability_zone is a string without Length (nova/host_aggregate.py); nova's "
        "aggregate schema takes 1 to 255 characters (schemas/aggregates.py, minLength 1)",
    ),
    (
        "OS::Nova::Flavor",
        "test_schema_no_looser_than_cloud",
        "Invalid input for field/attribute disk",
        "Heat's disk is an integer without a lower bound (nova/flavor.py:93); nova's flavor "
        "schema takes a disk of 0 or more (schemas/flavor_manage.py, minimum 0)",
    ),
    (
        "OS::Neutron::SecurityGroup",
        "test_schema_no_looser_than_cloud",
        "port_range_min must be <= port_range_max",
        "Heat's rules bound port_range_min and port_range_max each alone (neutron/"
        "security_group.py, Range 0-65535); neutron refuses a TCP/UDP rule whose minimum "
        "exceeds its maximum (SecurityGroupInvalidPortRange)",
    ),
    (
        "OS::Neutron::SubnetPool",
        "test_schema_no_looser_than_cloud",
        "prefix lengths must satisfy",
        "a Heat defect: SubnetPool.validate compares default_prefixlen with the others only "
        "when it is truthy (neutron/subnetpool.py:151, 'if default_prefixlen:'), so 0 passes; "
        "neutron refuses a default below the minimum prefix length",
    ),
    (
        "OS::Neutron::Port",
        "test_schema_no_looser_than_cloud",
        "each entry needs a subnet_id",
        "Heat's schema takes a fixed_ips entry with neither subnet nor ip_address "
        "(neutron/port.py:145-169, all optional), which Neutron refuses (IP allocation "
        "requires subnet_id or ip_address)",
    ),
]

#: Update changes for the kit where ``tools/heat_lifecycle.CHANGES`` names the
#: resource under test, which the kit calls ``resource`` (the lifecycle ``r``).
KIT_CHANGES: dict[str, dict[str, dict[str, Any]]] = {
    "OS::Heat::AccessPolicy": {"update_replace": {"AllowedResources": ["resource"]}},
}

_RUN = (
    "import sys; from sdk.testing.cli import conformance; "
    "conformance(sys.argv[1:], prog_name='plugsim conformance')"
)


def _class_name(type_name: str) -> str:
    return "Test_" + "".join(ch if ch.isalnum() else "_" for ch in type_name)


def running_types(
    package: Path, only: tuple[str, ...] = ()
) -> dict[str, dict[str, dict[str, Any]]]:
    """``{module: {type: template}}`` of the types that run create → delete.

    With *only*, just the types named there or belonging to a module named there.
    """
    from simulator.heat_compat import load_heat_plugin

    base = package / "engine" / "resources" / "openstack"
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for path in heat_inventory.heat_modules(package):
        module = ".".join(path.relative_to(base).with_suffix("").parts)
        if only and module not in only and not _may_define(path, only):
            continue
        report = load_heat_plugin(path)
        if report.errors:
            continue

        world_factory = heat_inventory.module_world_factory(path, module)

        for type_name in sorted(report.mapping):
            if only and module not in only and type_name not in only:
                continue
            plugin = report.mapping[type_name]
            if heat_inventory.run_type(type_name, plugin, world_factory) is None:
                template = heat_inventory.type_template(type_name, plugin)
                out.setdefault(module, {})[type_name] = template
    return out


def _may_define(path: Path, only: tuple[str, ...]) -> bool:
    """Whether the module's source mentions a type named in *only* (loading is not free)."""
    text = path.read_text(encoding="utf-8", errors="replace")
    return any(name in text for name in only if "::" in name)


def classify(type_name: str, test: str, message: str) -> str:
    """``"plugsim"``, or why the failure is the plug-in's or Heat's behaviour."""
    for kind, name, text, why in NOT_PLUGSIM:
        if kind in ("*", type_name) and name in ("*", test) and text in message:
            return why
    return "plugsim"


#: How much of a failure's message a row keeps (the whole message is classified first).
MESSAGE_CHARS = 600


def judge(type_name: str, tests: list[dict[str, str]]) -> None:
    """Give each failed test its ``cause``, read in its whole message, then shorten the message.

    A verdict's message leads with the state it expected, so the text a :data:`NOT_PLUGSIM`
    entry looks for (the cloud's refusal) can come late in it.
    """
    for test in tests:
        if test["outcome"] == "failed":
            test["cause"] = classify(type_name, test["test"], test["message"])
        test["message"] = test["message"][:MESSAGE_CHARS]


def _results(xml: Path) -> dict[str, list[dict[str, str]]]:
    """``{class name: [{test, outcome, message}]}`` from pytest's JUnit XML."""
    out: dict[str, list[dict[str, str]]] = {}
    for case in ET.parse(xml).getroot().iter("testcase"):
        cls = case.get("classname", "").rsplit(".", 1)[-1]
        outcome, message = "passed", ""
        for child in case:
            if child.tag in ("failure", "error"):
                outcome = "failed"
                message = " ".join(str(child.get("message") or child.text or "").split())
            elif child.tag == "skipped":
                outcome = "skipped"
        out.setdefault(cls, []).append(
            {"test": case.get("name", ""), "outcome": outcome, "message": message}
        )
    return out


def _companion_module(folder: str, relative: str) -> str:
    """The dotted name of a :data:`heat_inventory.COMPANIONS` file given beside *folder*."""
    parts = folder.split(".")
    for step in Path(relative).with_suffix("").parts:
        parts = parts[:-1] if step == ".." else [*parts, step]
    return ".".join(parts)


def run_module(
    module: str, templates: dict[str, dict[str, Any]], work: Path, select: str = ""
) -> dict[str, Any]:
    """Run ``plugsim conformance`` on one module's running types; rows by type."""
    import yaml

    props = {t: tpl["resources"]["r"]["properties"] for t, tpl in templates.items()}
    companions = {
        t: {k: v for k, v in tpl["resources"].items() if k != "r"} for t, tpl in templates.items()
    }
    stem = module.replace(".", "_")
    (work / f"{stem}.props.yaml").write_text(yaml.safe_dump(props), encoding="utf-8")
    (work / f"{stem}.companions.yaml").write_text(
        yaml.safe_dump({t: c for t, c in companions.items() if c}), encoding="utf-8"
    )
    given = {**heat_lifecycle.CHANGES, **KIT_CHANGES}
    updates = {t: given[t] for t in templates if t in given}
    (work / f"{stem}.updates.yaml").write_text(yaml.safe_dump(updates), encoding="utf-8")
    needed = sorted(
        {m for tpl in templates.values() for m in heat_inventory.prerequisite_modules(tpl)}
        - {module}
    )
    also = [arg for m in needed for arg in ("--also", f"heat.engine.resources.openstack.{m}")]
    folder = f"heat.engine.resources.openstack.{module}".rsplit(".", 1)[0]
    for companion in heat_inventory.COMPANIONS.get(module, ()):  # files beside the module
        also += ["--also", _companion_module(folder, companion)]
    xml = work / f"{stem}.xml"
    keyword = " or ".join(_class_name(t) for t in sorted(templates))
    if select:
        keyword = f"({keyword}) and ({select})"
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            _RUN,
            f"heat.engine.resources.openstack.{module}",
            "--properties",
            str(work / f"{stem}.props.yaml"),
            "--companions",
            str(work / f"{stem}.companions.yaml"),
            "--updates",
            str(work / f"{stem}.updates.yaml"),
            *also,
            "--junitxml",
            str(xml),
            "-k",
            keyword,
            "-q",
        ],
        capture_output=True,
        text=True,
        cwd=work,
        env=dict(os.environ),
        timeout=1800,
    )
    results = _results(xml) if xml.is_file() else {}
    rows = {}
    for type_name in sorted(templates):
        tests = results.get(_class_name(type_name), [])
        if not tests:
            tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
            tests = [{"test": "(collection)", "outcome": "failed", "message": tail[0]}]
        judge(type_name, tests)
        rows[type_name] = {"module": module, "type": type_name, "tests": tests}
    return rows


def conformance_rows(
    package: Path, only: tuple[str, ...] = (), select: str = "", keep: Path | None = None
) -> list[dict[str, Any]]:
    """One row per running type: ``module``, ``type``, ``tests`` (each with outcome, cause)."""
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="heat-conformance-") as tmp:
        work = Path(tmp) if keep is None else keep
        work.mkdir(parents=True, exist_ok=True)
        for module, templates in sorted(running_types(package, only).items()):
            rows.extend(run_module(module, templates, work.resolve(), select).values())
    return sorted(rows, key=lambda r: str(r["type"]))


def counts(row: dict[str, Any]) -> dict[str, int]:
    """``passed``, ``skipped``, ``plugsim`` (failures) and ``plugin`` (failures) of a row."""
    tests = row["tests"]
    failed = [t for t in tests if t["outcome"] == "failed"]
    return {
        "passed": sum(t["outcome"] == "passed" for t in tests),
        "skipped": sum(t["outcome"] == "skipped" for t in tests),
        "plugsim": sum(t["cause"] == "plugsim" for t in failed),
        "plugin": sum(t["cause"] != "plugsim" for t in failed),
    }


def print_rows(rows: list[dict[str, Any]]) -> None:
    """One line per type and each failure's first line, then the totals."""
    print(f"{'type':<38} passed  skipped  failed(plugsim)  failed(plug-in/Heat)")
    total = {"passed": 0, "skipped": 0, "plugsim": 0, "plugin": 0}
    for row in rows:
        c = counts(row)
        for key in total:
            total[key] += c[key]
        print(
            f"{row['type']:<38} {c['passed']:>6}  {c['skipped']:>7}  {c['plugsim']:>15}  "
            f"{c['plugin']:>20}"
        )
        for test in row["tests"]:
            if test["outcome"] == "failed":
                cause = "plugsim" if test["cause"] == "plugsim" else f"not plugsim: {test['cause']}"
                print(f"    {test['test']} [{cause}]: {test['message'][:200]}")
    clean = sum(counts(r)["plugsim"] == 0 for r in rows)
    print(
        f"{len(rows)} types: {total['passed']} tests passed, {total['skipped']} skipped, "
        f"{total['plugsim']} failed by plugsim, {total['plugin']} by the plug-in or Heat; "
        f"{clean} types with no failure caused by plugsim"
    )


def main(
    package: Path,
    *,
    as_json: bool = False,
    only: tuple[str, ...] = (),
    select: str = "",
    keep: Path | None = None,
) -> int:
    """Print the conformance table of Heat's running types (or the rows as JSON)."""
    import json

    rows = conformance_rows(package, only, select, keep)
    if as_json:
        print(json.dumps(rows, indent=1, sort_keys=True))
    else:
        print_rows(rows)
    return 0
