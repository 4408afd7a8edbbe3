"""The conformance suite run on the sample plug-ins: everything they declare passes."""

from sample_plugins import SampleServer, SampleZone

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


class TestSampleZone(ResourceConformance):
    resource_class = SampleZone
    valid_properties = {"domain": "abc.example", "ttl": 600}
    update_in_place = {"ttl": 1200}
