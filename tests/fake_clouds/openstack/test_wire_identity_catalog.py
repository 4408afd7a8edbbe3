"""Keystone services and endpoints on the wire: registered ones join the fake's own catalog."""

from __future__ import annotations

import pytest

openstack = pytest.importorskip("openstack")


def test_the_fakes_own_services_are_listed_and_cannot_be_changed(openstack_connection):
    identity = openstack_connection.identity
    types = {s.type for s in identity.services()}
    assert {"identity", "compute", "network", "block-storage", "image", "object-store"} <= types
    nova = identity.find_service("nova", ignore_missing=False)
    assert identity.get_service(nova.id).type == "compute"
    with pytest.raises(openstack.exceptions.ForbiddenException, match="cannot be changed"):
        identity.delete_service(nova.id)


def test_a_registered_service_and_endpoint_join_the_catalog(openstack_connection, fake_cloud):
    identity = openstack_connection.identity
    service = identity.create_service(name="dns", type="dns", description="d", enabled=True)
    assert identity.find_service("dns", ignore_missing=False).id == service.id
    endpoint = identity.create_endpoint(
        service_id=service.id,
        interface="public",
        url="http://dns.example/v2",
        region_id="RegionOne",
    )
    assert identity.get_endpoint(endpoint.id).url == "http://dns.example/v2"
    assert [e.id for e in identity.endpoints(service_id=service.id)] == [endpoint.id]
    # a token issued now carries the registered endpoint in its catalog
    fresh = openstack.connection.Connection(
        auth_url=openstack_connection.plugsim_wire.auth_url,
        username="admin",
        password="plugsim",
        project_name="admin",
        user_domain_id="default",
        project_domain_id="default",
    )
    catalog = fresh.session.auth.get_access(fresh.session).service_catalog
    assert catalog.url_for(service_type="dns", interface="public") == "http://dns.example/v2"
    # the entities are the identity service's
    assert fake_cloud.service("identity").get_service(service.id)["type"] == "dns"
    updated = identity.update_service(service.id, description="new", enabled=False)
    assert (updated.description, updated.is_enabled) == ("new", False)
    identity.delete_service(service.id)
    with pytest.raises(openstack.exceptions.NotFoundException):
        identity.get_endpoint(endpoint.id)


def test_bad_endpoints_are_keystone_400s(openstack_connection):
    identity = openstack_connection.identity
    with pytest.raises(openstack.exceptions.BadRequestException, match="Could not find service"):
        identity.create_endpoint(service_id="nope", interface="public", url="http://x")
    service = identity.create_service(name="s", type="t")
    with pytest.raises(openstack.exceptions.BadRequestException, match="interface"):
        identity.create_endpoint(service_id=service.id, interface="sideways", url="http://x")


def test_unified_limits_registered_then_per_project(openstack_connection, fake_cloud):
    identity = openstack_connection.identity
    service = identity.create_service(name="vol", type="volumev9")
    registered = identity.create_registered_limit(
        resource_name="volumes", service_id=service.id, default_limit=10
    )
    assert (registered.default_limit, registered.description) == (10, None)
    with pytest.raises(openstack.exceptions.ConflictException, match="Duplicate"):
        identity.create_registered_limit(
            resource_name="volumes", service_id=service.id, default_limit=5
        )
    updated = identity.update_registered_limit(registered, description="default volumes")
    assert identity.get_registered_limit(updated.id).description == "default volumes"
    project = identity.create_project(name="limited", domain_id="default")
    limit = identity.create_limit(
        resource_name="volumes", service_id=service.id, project_id=project.id, resource_limit=3
    )
    assert identity.get_limit(limit.id).resource_limit == 3
    assert [lim.id for lim in identity.limits()] == [limit.id]
    stored = fake_cloud.service("identity").get_limit(limit.id)
    assert (stored["project_id"], stored["resource_limit"]) == (project.id, 3)
    with pytest.raises(openstack.exceptions.BadRequestException, match="no registered limit"):
        identity.create_limit(
            resource_name="gigabytes",
            service_id=service.id,
            project_id=project.id,
            resource_limit=1,
        )
    with pytest.raises(openstack.exceptions.BadRequestException, match="integer"):
        identity.update_limit(limit, resource_limit="lots")
    identity.delete_limit(limit)
    identity.delete_registered_limit(registered)
    assert list(identity.registered_limits()) == []


def test_access_rules_of_application_credentials(openstack_connection, fake_cloud):
    identity = openstack_connection.identity
    user_id = openstack_connection.current_user_id
    rule = {"path": "/v2.0/metrics", "service": "monitoring", "method": "GET"}
    cred = identity.create_application_credential(user=user_id, name="ac", access_rules=[rule])
    rule_id = cred["access_rules"][0]["id"]
    again = identity.create_application_credential(user=user_id, name="ac2", access_rules=[rule])
    assert again["access_rules"][0]["id"] == rule_id  # the same rule keeps its id
    assert identity.get_access_rule(user=user_id, access_rule=rule_id)["user_id"] == user_id
    assert [r["id"] for r in identity.access_rules(user=user_id)] == [rule_id]
    with pytest.raises(openstack.exceptions.HttpException, match="in use"):
        identity.delete_access_rule(user=user_id, access_rule=rule_id)
    identity.delete_application_credential(user=user_id, application_credential=cred["id"])
    identity.delete_application_credential(user=user_id, application_credential=again["id"])
    identity.delete_access_rule(user=user_id, access_rule=rule_id)
    assert list(identity.access_rules(user=user_id)) == []
    assert fake_cloud.service("identity").list_access_rules(user_id) == []


def test_endpoint_groups_select_endpoints_and_take_projects(openstack_connection, fake_cloud):
    identity = openstack_connection.identity
    service = identity.create_service(name="eg", type="egtype")
    public = identity.create_endpoint(service_id=service.id, interface="public", url="http://p")
    internal = identity.create_endpoint(service_id=service.id, interface="internal", url="http://i")
    group = identity.create_endpoint_group(name="g", filters={"interface": "internal"})
    assert group.description is None
    group = identity.update_endpoint_group(
        group, description="d", filters={"interface": "public", "service_id": service.id}
    )
    assert identity.get_endpoint_group(group.id).filters == {
        "interface": "public",
        "service_id": service.id,
    }
    ids = {e.id for e in identity.endpoint_group_endpoints(group)}
    assert public.id in ids and internal.id not in ids
    assert [g.id for g in identity.endpoint_groups(name="g")] == [group.id]
    project = identity.create_project(name="egp", domain_id="default")
    identity.associate_project_with_endpoint_group(group, project)
    assert [g.id for g in identity.project_endpoint_groups(project)] == [group.id]
    assert fake_cloud.service("identity").get_endpoint_group(group.id)["projects"] == [project.id]
    identity.disassociate_project_from_endpoint_group(group, project)
    assert list(identity.project_endpoint_groups(project)) == []
    with pytest.raises(openstack.exceptions.BadRequestException, match="filter"):
        identity.create_endpoint_group(name="bad", filters={"colour": "red"})
    identity.delete_endpoint_group(group)
    assert list(identity.endpoint_groups()) == []


def test_domain_config_is_created_merged_read_and_deleted(openstack_connection, fake_cloud):
    identity = openstack_connection.identity
    domain = identity.create_domain(name="configured")
    identity.create_domain_config(domain, identity={"driver": "ldap"}, ldap={"url": "ldap://a"})
    identity.update_domain_config(domain, ldap={"user_tree_dn": "ou=u"})
    config = identity.get_domain_config(domain)
    assert (config.ldap.url, config.ldap.user_tree_dn) == ("ldap://a", "ou=u")
    stored = fake_cloud.service("identity").get_domain(domain.id)["config"]
    assert stored["identity"] == {"driver": "ldap"}
    assert "config" not in identity.get_domain(domain.id).to_dict(computed=False)
    refused = identity.patch(
        f"/domains/{domain.id}/config", json={"config": {"assignment": {"driver": "sql"}}}
    )
    assert refused.status_code == 403
    assert "not supported" in refused.json()["error"]["message"]
    identity.delete_domain_config(domain, ignore_missing=False)
    with pytest.raises(openstack.exceptions.NotFoundException):
        identity.get_domain_config(domain)


def test_service_providers_name_the_router_provider(openstack_connection):
    providers = list(openstack_connection.network.service_providers())
    assert [(p.service_type, p.name, p.is_default) for p in providers] == [
        ("L3_ROUTER_NAT", "default", True)
    ]
