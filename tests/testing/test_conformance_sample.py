"""The conformance suite run on the sample plug-ins: everything they declare passes."""

from sample_plugins import SampleServer

from sdk.testing import ResourceConformance


class TestSampleServer(ResourceConformance):
    resource_class = SampleServer
    valid_properties = {"image": "cirros", "name": "web", "key_name": "default"}
    update_in_place = {"name": "web2", "metadata": {"role": "db"}}
    update_replace = {"flavor": "m1.tiny"}
    immutable_update = {"key_name": "other"}
    expected_attributes = {"status": "ACTIVE", "flavor_id": lambda v: v == "2"}
    cloud_states = {"suspend": "SUSPENDED", "resume": "ACTIVE"}
    survives = ("throttle", "conflict", "eventual_consistency")


def test_paths_a_plugin_does_not_declare_are_skipped_with_a_reason(scratch):
    scratch.makepyfile(
        test_zone="""
from sample_plugins import SampleZone
from sdk.testing import ResourceConformance

class TestSampleZone(ResourceConformance):
    resource_class = SampleZone
    valid_properties = {"domain": "abc.example", "ttl": 600}
    update_in_place = {"ttl": 1200}
"""
    )
    result = scratch.runpytest("-rs")
    # 14 skips: the zone has no suspend, snapshot, snapshot-delete, check or create-cancel
    # handler, declares no replacing or immutable update, no upgrade and no drift or eventual
    # consistency to survive; of the oracle tests, test_restore_uses_snapshot needs a
    # handle_snapshot and test_status_attribute_reads_cloud a status attribute (it has neither)
    result.assert_outcomes(passed=21, skipped=14)
    result.stdout.fnmatch_lines_random(
        [
            "*SampleZone has no status attribute",
            "*no update_replace declared for SampleZone",
            "*no immutable_update declared for SampleZone",
            "*SampleZone does not implement handle_suspend",
            "*SampleZone does not implement handle_snapshot",
            "*SampleZone does not implement handle_snapshot_delete",
            "*SampleZone does not implement handle_check",
            "*SampleZone does not claim to survive drift",
            "*SampleZone does not implement handle_create_cancel",
            "*SampleZone does not claim to survive eventual_consistency",
            "*no upgrade_from declared (the previous version's plug-in file or directory)",
        ]
    )
