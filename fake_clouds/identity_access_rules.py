"""Access rules of application credentials (keystone), a mixin of
:class:`fake_clouds.identity.IdentityService`.

An application credential created with ``access_rules`` (``service``,
``method``, ``path``) gets an id for each rule; a rule the same user already
has keeps its id. A user's rules outlive their credentials until deleted, and
deleting one still used by a credential is refused (403), as keystone does.
The rules are kept in the service's state (``counters["access_rules"]``).
"""

from __future__ import annotations

from typing import Any

from fake_clouds.core.service import operation
from sdk import exception

_FIELDS = ("service", "method", "path")
_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")


def _error(cls: type[exception.ClientError], code: int, message: str) -> exception.ClientError:
    return cls(message, code=code, body={"error": {"code": code, "message": message}})


class AccessRuleOperations:
    """Identifying, listing and deleting the access rules of a user's credentials."""

    def _rules(self: Any) -> dict[str, dict[str, Any]]:
        return self.counters.setdefault("access_rules", {})  # type: ignore[no-any-return]

    def _check_application_credential(self: Any, attrs: dict[str, Any]) -> None:
        """Give each access rule of a new credential its id (reused per user and rule)."""
        rules = attrs.get("access_rules") or []
        if not isinstance(rules, list):
            raise _error(exception.BadRequest, 400, "access_rules must be a list")
        out = []
        for rule in rules:
            if not isinstance(rule, dict) or not all(
                isinstance(rule.get(f), str) and rule.get(f) for f in _FIELDS
            ):
                raise _error(
                    exception.BadRequest, 400, "An access rule needs service, method and path"
                )
            if rule["method"] not in _METHODS:
                raise _error(
                    exception.BadRequest, 400, f"Invalid access rule method {rule['method']!r}"
                )
            wanted = {f: rule[f] for f in _FIELDS}
            known = [
                rid
                for rid, r in sorted(self._rules().items())
                if r["user_id"] == attrs["user_id"] and {f: r[f] for f in _FIELDS} == wanted
            ]
            rid = known[0] if known else self.world.rng.hex_id(32)
            self._rules()[rid] = {**wanted, "user_id": attrs["user_id"]}
            out.append({"id": rid, **wanted})
        attrs["access_rules"] = out

    def _rule(self: Any, user_id: str, rule_id: str) -> dict[str, Any]:
        rule = self._rules().get(rule_id)
        if rule is None or rule["user_id"] != user_id:
            raise _error(exception.NotFound, 404, f"Could not find access rule: {rule_id}.")
        return {"id": rule_id, **rule}

    @operation("access_rules.list", kind="application_credential")
    def list_access_rules(self: Any, user_id: str) -> list[dict[str, Any]]:
        """Return a user's access rules."""
        return [
            self._rule(user_id, rid)
            for rid, r in sorted(self._rules().items())
            if r["user_id"] == user_id
        ]

    @operation("access_rules.get", kind="application_credential")
    def get_access_rule(self: Any, user_id: str, rule_id: str) -> dict[str, Any]:
        """Return one access rule of a user."""
        return self._rule(user_id, rule_id)

    @operation("access_rules.delete", kind="application_credential")
    def delete_access_rule(self: Any, user_id: str, rule_id: str) -> None:
        """Delete an access rule no application credential uses (403 otherwise)."""
        self._rule(user_id, rule_id)
        for cred in self._live("application_credential"):
            if any(r.get("id") == rule_id for r in cred.attrs.get("access_rules") or []):
                raise _error(
                    exception.ClientError,
                    403,
                    f"Access rule {rule_id} is in use by application credential {cred.id}.",
                )
        del self._rules()[rule_id]
