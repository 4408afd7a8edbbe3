"""The default policies of the served OpenStack APIs, one table per service.

Each :class:`Rule` names a route (the service's URL prefix, the method and the werkzeug
rule exactly as the route declares it), the name the real service gives the policy
(shown in its 403), a *check* and, optionally, a *when* condition. For a request, the
first rule of its route whose *when* holds applies; a route without rules only needs a
valid token (and the project scoping of :mod:`fake_clouds.core.scope`).

Checks (``caller`` is the token's user and project, roles expanded by keystone's implied
roles ``admin`` -> ``member`` -> ``reader``):

``@``                     any valid token
``admin``                 the ``admin`` role (on any project: cloud admin)
``member`` / ``reader``   that role or ``admin``
``admin_or_user:P``       ``admin``, or the route's parameter ``P`` is the caller's user
``admin_or_project:P``    ``admin``, or ``P`` is the caller's project
``admin_or_domain:P``     ``admin``, or ``P`` is the domain of the caller's project
``own_account:P``         ``P`` is ``AUTH_`` + the caller's project (swift: not even admin)

Conditions: ``arg:NAME`` (the query names ``NAME``), ``body:OBJ.KEY`` (the JSON body's
object ``OBJ`` sets ``KEY`` to a true value; ``OBJ.KEY=VALUE`` compares), ``param:P=A|B``
(the route parameter ``P`` is one of the values) and ``patch:PATH=VALUE`` (a JSON patch
sets ``PATH`` to ``VALUE``).

The tables were written from the policy defaults of the current releases (2025.x) of
keystone, nova, neutron, cinder and glance, and swift's keystoneauth middleware; see
``docs/policy.rst``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    """One policy of one route."""

    method: str
    path: str
    name: str
    check: str
    when: str | None = None
    #: how a refusal looks when it is not the service's 403: ``empty:KEY`` (a list with
    #: nothing the caller may see) or ``missing:LABEL:PARAM`` (neutron's "LABEL <id>
    #: could not be found.", as it pretends an entity the caller may not see is absent)
    refusal: str | None = None


def _rules(method: str, paths: tuple[str, ...], name: str, check: str) -> list[Rule]:
    return [Rule(method, p, name, check) for p in paths]


_K = "/v3/<collection>"
_KI = "/v3/<collection>/<ident>"
_GRANT = "/v3/<scope>/<sid>/<actors>/<aid>/roles"
_EG = "/v3/OS-EP-FILTER/endpoint_groups"
_APP = "/v3/users/<uid>/application_credentials"
_RULES = "/v3/users/<uid>/access_rules"
IDENTITY = [
    # keystone: regions and limits are readable by any token; the rest is the admin's
    Rule("GET", _K, "identity:list_{kind}s", "@", "param:collection=regions|registered_limits"),
    Rule("GET", _K, "identity:list_{kind}s", "@", "param:collection=limits"),
    Rule("GET", _K, "identity:list_{kind}s", "admin"),
    Rule("GET", _KI, "identity:get_project", "admin_or_project:ident", "param:collection=projects"),
    Rule("GET", _KI, "identity:get_user", "admin_or_user:ident", "param:collection=users"),
    Rule("GET", _KI, "identity:get_domain", "admin_or_domain:ident", "param:collection=domains"),
    Rule("GET", _KI, "identity:get_{kind}", "@", "param:collection=regions|registered_limits"),
    Rule("GET", _KI, "identity:get_{kind}", "@", "param:collection=limits"),
    Rule("GET", _KI, "identity:get_{kind}", "admin"),
    Rule("POST", _K, "identity:create_{kind}", "admin"),
    Rule("PATCH", _KI, "identity:update_{kind}", "admin"),
    Rule("DELETE", _KI, "identity:delete_{kind}", "admin"),
    Rule("GET", "/v3/services", "identity:list_services", "admin"),
    Rule("GET", "/v3/endpoints", "identity:list_endpoints", "admin"),
    Rule("POST", "/v3/limits", "identity:create_limits", "admin"),
    Rule("PUT", f"{_GRANT}/<rid>", "identity:create_grant", "admin"),
    Rule("DELETE", f"{_GRANT}/<rid>", "identity:revoke_grant", "admin"),
    Rule("GET", f"{_GRANT}/<rid>", "identity:check_grant", "admin"),
    Rule("HEAD", f"{_GRANT}/<rid>", "identity:check_grant", "admin"),
    Rule("GET", _GRANT, "identity:list_grants", "admin"),
    Rule("GET", "/v3/role_assignments", "identity:list_role_assignments", "admin"),
    Rule("GET", "/v3/users/<uid>/projects", "identity:list_user_projects", "admin_or_user:uid"),
    Rule("GET", "/v3/users/<uid>/groups", "identity:list_groups_for_user", "admin_or_user:uid"),
    Rule("GET", "/v3/groups/<gid>/users", "identity:list_users_in_group", "admin"),
    Rule("GET", "/v3/groups/<gid>/users/<uid>", "identity:check_user_in_group", "admin"),
    Rule("HEAD", "/v3/groups/<gid>/users/<uid>", "identity:check_user_in_group", "admin"),
    Rule("PUT", "/v3/groups/<gid>/users/<uid>", "identity:add_user_to_group", "admin"),
    Rule("DELETE", "/v3/groups/<gid>/users/<uid>", "identity:remove_user_from_group", "admin"),
    Rule("POST", _APP, "identity:create_application_credential", "admin_or_user:uid"),
    Rule("GET", _APP, "identity:list_application_credentials", "admin_or_user:uid"),
    Rule("GET", f"{_APP}/<cid>", "identity:get_application_credential", "admin_or_user:uid"),
    Rule("DELETE", f"{_APP}/<cid>", "identity:delete_application_credential", "admin_or_user:uid"),
    Rule("GET", _RULES, "identity:list_access_rules", "admin_or_user:uid"),
    Rule("GET", f"{_RULES}/<rid>", "identity:get_access_rule", "admin_or_user:uid"),
    Rule("DELETE", f"{_RULES}/<rid>", "identity:delete_access_rule", "admin_or_user:uid"),
    *_rules("GET", (_EG, f"{_EG}/<gid>"), "identity:get_endpoint_group", "admin"),
    Rule("POST", _EG, "identity:create_endpoint_group", "admin"),
    Rule("PATCH", f"{_EG}/<gid>", "identity:update_endpoint_group", "admin"),
    Rule("DELETE", f"{_EG}/<gid>", "identity:delete_endpoint_group", "admin"),
    *_rules(
        "GET",
        (f"{_EG}/<gid>/projects", f"{_EG}/<gid>/projects/<pid>", f"{_EG}/<gid>/endpoints"),
        "identity:list_projects_associated_with_endpoint_group",
        "admin",
    ),
    *_rules(
        "PUT", (f"{_EG}/<gid>/projects/<pid>",), "identity:add_endpoint_group_to_project", "admin"
    ),
    *_rules(
        "DELETE",
        (f"{_EG}/<gid>/projects/<pid>",),
        "identity:remove_endpoint_group_from_project",
        "admin",
    ),
    Rule(
        "GET",
        "/v3/OS-EP-FILTER/projects/<pid>/endpoint_groups",
        "identity:list_endpoint_groups_for_project",
        "admin",
    ),
    *_rules(
        "GET",
        ("/v3/domains/<did>/config", "/v3/domains/<did>/config/<group>"),
        "identity:get_domain_config",
        "admin",
    ),
    Rule("PUT", "/v3/domains/<did>/config", "identity:create_domain_config", "admin"),
    Rule("PATCH", "/v3/domains/<did>/config", "identity:update_domain_config", "admin"),
    Rule("DELETE", "/v3/domains/<did>/config", "identity:delete_domain_config", "admin"),
]

_N = "os_compute_api:"
_F = "/v2.1/flavors/<fid>"
_AG = "/v2.1/os-aggregates"
_QS = "/v2.1/os-quota-sets/<project>"
_HV = "/v2.1/os-hypervisors"
COMPUTE = [
    Rule("GET", "/v2.1/servers", _N + "servers:index:get_all_tenants", "admin", "arg:all_tenants"),
    Rule(
        "GET",
        "/v2.1/servers/detail",
        _N + "servers:detail:get_all_tenants",
        "admin",
        "arg:all_tenants",
    ),
    Rule("POST", "/v2.1/flavors", _N + "os-flavor-manage:create", "admin"),
    Rule("PUT", _F, _N + "os-flavor-manage:update", "admin"),
    Rule("DELETE", _F, _N + "os-flavor-manage:delete", "admin"),
    Rule("GET", f"{_F}/os-flavor-access", _N + "os-flavor-access", "admin"),
    Rule(
        "POST",
        f"{_F}/action",
        _N + "os-flavor-access:add_tenant_access",
        "admin",
        "body:addTenantAccess",
    ),
    Rule(
        "POST",
        f"{_F}/action",
        _N + "os-flavor-access:remove_tenant_access",
        "admin",
        "body:removeTenantAccess",
    ),
    Rule("POST", f"{_F}/os-extra_specs", _N + "os-flavor-extra-specs:create", "admin"),
    Rule("PUT", f"{_F}/os-extra_specs/<key>", _N + "os-flavor-extra-specs:update", "admin"),
    Rule("DELETE", f"{_F}/os-extra_specs/<key>", _N + "os-flavor-extra-specs:delete", "admin"),
    Rule("GET", _AG, _N + "os-aggregates:index", "admin"),
    Rule("POST", _AG, _N + "os-aggregates:create", "admin"),
    Rule("GET", f"{_AG}/<aid>", _N + "os-aggregates:show", "admin"),
    Rule("PUT", f"{_AG}/<aid>", _N + "os-aggregates:update", "admin"),
    Rule("DELETE", f"{_AG}/<aid>", _N + "os-aggregates:delete", "admin"),
    Rule("POST", f"{_AG}/<aid>/action", _N + "os-aggregates:add_host", "admin", "body:add_host"),
    Rule(
        "POST", f"{_AG}/<aid>/action", _N + "os-aggregates:remove_host", "admin", "body:remove_host"
    ),
    Rule("POST", f"{_AG}/<aid>/action", _N + "os-aggregates:set_metadata", "admin"),
    Rule("PUT", _QS, _N + "os-quota-sets:update", "admin"),
    Rule("DELETE", _QS, _N + "os-quota-sets:delete", "admin"),
    Rule("GET", _QS, _N + "os-quota-sets:show", "admin_or_project:project"),
    Rule("GET", f"{_QS}/detail", _N + "os-quota-sets:detail", "admin_or_project:project"),
    Rule("GET", _HV, _N + "os-hypervisors:list", "admin"),
    Rule("GET", f"{_HV}/detail", _N + "os-hypervisors:list-detail", "admin"),
    Rule("GET", f"{_HV}/<hid>", _N + "os-hypervisors:show", "admin"),
    Rule("GET", "/v2.1/os-services", _N + "os-services:list", "admin"),
    Rule("PUT", "/v2.1/os-services/<target>", _N + "os-services:update", "admin"),
    Rule("POST", "/v2.1/servers", _N + "servers:create", "member"),
    Rule("PUT", "/v2.1/servers/<sid>", _N + "servers:update", "member"),
    Rule("DELETE", "/v2.1/servers/<sid>", _N + "servers:delete", "member"),
]

_NR = "/v2.0/<collection>/<ident>"
_AGENT = "/v2.0/agents/<aid>"
NETWORK = [
    Rule(
        "POST",
        "/v2.0/<collection>",
        "(rule:create_network and rule:create_network:shared)",
        "admin",
        "body:network.shared",
    ),
    Rule(
        "POST",
        "/v2.0/<collection>",
        "(rule:create_network and rule:create_network:router:external)",
        "admin",
        "body:network.router:external",
    ),
    Rule(
        "POST",
        "/v2.0/<collection>",
        "(rule:create_network and rule:create_network:provider:network_type)",
        "admin",
        "body:network.provider:network_type",
    ),
    Rule(
        "PUT",
        _NR,
        "(rule:update_network and rule:update_network:shared)",
        "admin",
        "body:network.shared",
    ),
    Rule(
        "PUT",
        _NR,
        "(rule:update_network and rule:update_network:router:external)",
        "admin",
        "body:network.router:external",
    ),
    Rule("PUT", "/v2.0/quotas/<project>", "rule:update_quota", "admin"),
    Rule("DELETE", "/v2.0/quotas/<project>", "rule:delete_quota", "admin"),
    Rule("GET", "/v2.0/quotas", "rule:get_quota", "admin"),
    Rule("GET", "/v2.0/quotas/<project>", "rule:get_quota", "admin_or_project:project"),
    Rule("GET", "/v2.0/quotas/<project>/detail", "rule:get_quota", "admin_or_project:project"),
    # neutron lists only what the caller may see, and pretends the rest is absent
    Rule("GET", "/v2.0/agents", "rule:get_agent", "admin", refusal="empty:agents"),
    *[
        Rule(method, path, name, "admin", refusal="missing:Agent:aid")
        for method, path, name in (
            ("GET", _AGENT, "rule:get_agent"),
            ("PUT", _AGENT, "rule:update_agent"),
            ("GET", f"{_AGENT}/dhcp-networks", "rule:get_agent"),
            ("GET", f"{_AGENT}/l3-routers", "rule:get_agent"),
            ("POST", f"{_AGENT}/dhcp-networks", "rule:create_dhcp-network"),
            ("DELETE", f"{_AGENT}/dhcp-networks/<nid>", "rule:delete_dhcp-network"),
            ("POST", f"{_AGENT}/l3-routers", "rule:create_l3-router"),
            ("DELETE", f"{_AGENT}/l3-routers/<rid>", "rule:delete_l3-router"),
        )
    ],
    Rule("POST", "/v2.0/<collection>", "rule:create_{kind}", "member"),
    Rule("PUT", _NR, "rule:update_{kind}", "member"),
    Rule("DELETE", _NR, "rule:delete_{kind}", "member"),
]

_C = "volume_extension:"
_P = "/v3/<project>"
_T = f"{_P}/types/<tid>"
_Q = f"{_P}/qos-specs"
BLOCK_STORAGE = [
    Rule("POST", f"{_P}/types", _C + "types_manage", "admin"),
    Rule("PUT", _T, _C + "types_manage", "admin"),
    Rule("DELETE", _T, _C + "types_manage", "admin"),
    *_rules("POST", (f"{_T}/extra_specs",), _C + "types_extra_specs:create", "admin"),
    *_rules("DELETE", (f"{_T}/extra_specs/<key>",), _C + "types_extra_specs:delete", "admin"),
    *_rules("POST", (f"{_T}/encryption",), _C + "volume_type_encryption:create", "admin"),
    *_rules("PUT", (f"{_T}/encryption/<eid>",), _C + "volume_type_encryption:update", "admin"),
    *_rules("DELETE", (f"{_T}/encryption/<eid>",), _C + "volume_type_encryption:delete", "admin"),
    Rule("GET", _Q, _C + "qos_specs_manage:get_all", "admin"),
    Rule("POST", _Q, _C + "qos_specs_manage:create", "admin"),
    Rule("GET", f"{_Q}/<qid>", _C + "qos_specs_manage:get", "admin"),
    Rule("PUT", f"{_Q}/<qid>", _C + "qos_specs_manage:update", "admin"),
    Rule("DELETE", f"{_Q}/<qid>", _C + "qos_specs_manage:delete", "admin"),
    *_rules(
        "GET",
        (f"{_Q}/<qid>/associate", f"{_Q}/<qid>/disassociate", f"{_Q}/<qid>/disassociate_all"),
        _C + "qos_specs_manage:update",
        "admin",
    ),
    Rule("GET", f"{_Q}/<qid>/associations", _C + "qos_specs_manage:get", "admin"),
    Rule("PUT", f"{_Q}/<qid>/delete_keys", _C + "qos_specs_manage:update", "admin"),
    Rule("PUT", f"{_P}/os-quota-sets/<target>", _C + "quotas:update", "admin"),
    Rule("DELETE", f"{_P}/os-quota-sets/<target>", _C + "quotas:delete", "admin"),
    Rule("GET", f"{_P}/os-quota-sets/<target>", _C + "quotas:show", "admin_or_project:target"),
    Rule("GET", f"{_P}/os-services", _C + "services:index", "admin"),
    Rule("PUT", f"{_P}/os-services/<action>", _C + "services:update", "admin"),
    Rule("GET", f"{_P}/capabilities/<path:host>", _C + "capabilities", "admin"),
    Rule("PUT", f"{_P}/default-types/<target>", "volume_extension:default_set_or_update", "admin"),
    Rule("DELETE", f"{_P}/default-types/<target>", "volume_extension:default_unset", "admin"),
    Rule("GET", f"{_P}/default-types", "volume_extension:default_get_all", "admin"),
    Rule("GET", f"{_P}/default-types/<target>", "volume_extension:default_get", "admin"),
    Rule("POST", f"{_P}/volumes", "volume:create", "member"),
    Rule("PUT", f"{_P}/volumes/<vid>", "volume:update", "member"),
    Rule("DELETE", f"{_P}/volumes/<vid>", "volume:delete", "member"),
]

IMAGE = [
    Rule("POST", "/v2/images", "publicize_image", "admin", "body:.visibility=public"),
    Rule("PATCH", "/v2/images/<iid>", "publicize_image", "admin", "patch:/visibility=public"),
    Rule("POST", "/v2/images", "add_image", "member"),
    Rule("PATCH", "/v2/images/<iid>", "modify_image", "member"),
    Rule("DELETE", "/v2/images/<iid>", "delete_image", "member"),
]

_ACCOUNT = "/v1/<account>"
OBJECT_STORE = [
    Rule(method, path, "swift_owner", "own_account:account")
    for method in ("GET", "HEAD", "POST", "PUT", "DELETE")
    for path in (_ACCOUNT, f"{_ACCOUNT}/<container>", f"{_ACCOUNT}/<container>/<path:obj>")
    if (method, path) not in (("PUT", _ACCOUNT), ("DELETE", _ACCOUNT))
]

#: URL prefix of a service -> its rules.
TABLES: dict[str, list[Rule]] = {
    "identity": IDENTITY,
    "compute": COMPUTE,
    "network": NETWORK,
    "volume": BLOCK_STORAGE,
    "image": IMAGE,
    "object-store": OBJECT_STORE,
}
