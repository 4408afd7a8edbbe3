"""``OS::Aodh::Gnocchi*Alarm``: Aodh's Gnocchi threshold alarms, kept in the entity service.

No fake serves Aodh's wire API; an alarm is an entity of kind ``aodh_alarm``
holding what Heat 27's plug-ins send Aodh (read in Heat's ``aodh`` plug-ins
and Aodh's API reference, written anew): the alarm ``type``
(``gnocchi_resources_threshold``, ``gnocchi_aggregation_by_metrics_threshold``,
``gnocchi_aggregation_by_resources_threshold``), its rule
(``<type>_rule``: the Gnocchi properties), the actions, ``enabled``,
``repeat_actions``, ``severity`` and ``state`` (``insufficient data`` until
Aodh has measures: no fake evaluates metrics, so an alarm never fires here).
Suspend disables the alarm and resume enables it, as Heat does. The
``*_queues`` properties name Zaqar queues: each becomes a
``trust+zaqar://?queue_name=...`` URL after the actions of that state, as
Heat sends them (no fake Zaqar receives them). Like Heat's, the types have no
attribute of their own: ``show`` gives the stored alarm, ``state`` included.
"""

from __future__ import annotations

from typing import Any, ClassVar
from urllib.parse import urlencode

from sdk import constraints, exception, properties, support
from sdk.resource import Resource
from simulator.resources.openstack._base import SINCE, gone, prop_path, status_done

__all__ = [
    "GnocchiAggregationByMetricsAlarm",
    "GnocchiAggregationByResourcesAlarm",
    "GnocchiResourcesAlarm",
]

OPERATORS = ["le", "ge", "eq", "lt", "gt", "ne"]

#: the Gnocchi properties every kind shares (its rule), then the alarm's own
_RULE = (
    "comparison_operator",
    "evaluation_periods",
    "granularity",
    "aggregation_method",
    "threshold",
)
_ALARM = (
    "alarm_actions",
    "ok_actions",
    "insufficient_data_actions",
    "repeat_actions",
    "description",
    "enabled",
    "severity",
    "time_constraints",
)
#: each action list and the Zaqar queues whose URLs Heat appends to it
_QUEUES = {
    "alarm_actions": "alarm_queues",
    "ok_actions": "ok_queues",
    "insufficient_data_actions": "insufficient_data_queues",
}


def _common() -> dict[str, properties.Schema]:
    actions = "URLs (or resources of the stack) called when the state becomes {}."
    return {
        "comparison_operator": properties.Schema(
            properties.Schema.STRING,
            "Operator comparing the statistic with the threshold.",
            update_allowed=True,
            constraints=[constraints.AllowedValues(OPERATORS)],
        ),
        "evaluation_periods": properties.Schema(
            properties.Schema.INTEGER, "Periods to evaluate over.", update_allowed=True
        ),
        "aggregation_method": properties.Schema(
            properties.Schema.STRING, "Aggregation compared to the threshold.", update_allowed=True
        ),
        "granularity": properties.Schema(
            properties.Schema.INTEGER, "Time range in seconds.", update_allowed=True
        ),
        "threshold": properties.Schema(
            properties.Schema.NUMBER, "Threshold.", required=True, update_allowed=True
        ),
        "description": properties.Schema(
            properties.Schema.STRING, "Description.", update_allowed=True
        ),
        "enabled": properties.Schema(
            properties.Schema.BOOLEAN, "Evaluate the alarm.", default=True, update_allowed=True
        ),
        "alarm_actions": properties.Schema(
            properties.Schema.LIST, actions.format("alarm"), update_allowed=True
        ),
        "ok_actions": properties.Schema(
            properties.Schema.LIST, actions.format("ok"), update_allowed=True
        ),
        "insufficient_data_actions": properties.Schema(
            properties.Schema.LIST, actions.format("insufficient data"), update_allowed=True
        ),
        **{
            queues: properties.Schema(
                properties.Schema.LIST,
                f"Zaqar queues a message is posted to when the state becomes {state}.",
                default=[],
                update_allowed=True,
                schema=properties.Schema(properties.Schema.STRING),
            )
            for queues, state in (
                ("alarm_queues", "alarm"),
                ("ok_queues", "ok"),
                ("insufficient_data_queues", "insufficient data"),
            )
        },
        "repeat_actions": properties.Schema(
            properties.Schema.BOOLEAN,
            "Repeat the actions while the state stays.",
            default=True,
            update_allowed=True,
        ),
        "severity": properties.Schema(
            properties.Schema.STRING,
            "Severity.",
            default="low",
            update_allowed=True,
            constraints=[constraints.AllowedValues(["low", "moderate", "critical"])],
        ),
        "time_constraints": properties.Schema(
            properties.Schema.LIST, "When the alarm is evaluated.", default=[]
        ),
    }


class _GnocchiAlarm(Resource):  # plugsim: ignore[PS301] - see the package
    """An Aodh alarm of :attr:`alarm_type`, kept as an ``aodh_alarm`` entity."""

    support_status = support.SupportStatus(version=SINCE)
    default_client_name = "entity"
    entity = "entities"
    alarm_type: ClassVar[str] = ""
    #: the properties of this kind's rule besides the shared Gnocchi ones
    own: ClassVar[tuple[str, ...]] = ()

    def body(self, changed: dict[str, Any] | None = None) -> dict[str, Any]:
        """What Heat sends Aodh: the type, ``<type>_rule`` and the alarm's own fields.

        *changed*: the new values of an update (the properties are still the old ones).
        """
        values = {k: self.properties[k] for k in self.properties_schema}
        for key, value in (changed or {}).items():
            values[key] = value if value is not None else self.properties_schema[key].default
        rule = {k: values[k] for k in (*self.own, *_RULE)}
        alarm = {k: values[k] for k in _ALARM}
        for key, queues in _QUEUES.items():
            alarm[key] = [self._action(a) for a in alarm[key] or []] + [
                "trust+zaqar://?" + urlencode({"queue_name": q}) for q in values[queues] or []
            ]
        return {
            **alarm,
            "type": self.alarm_type,
            f"{self.alarm_type}_rule": rule,
            "state": "insufficient data",
        }

    def _action(self, action: Any) -> str:
        """A resource of the stack named as an action stands for its signal URL (as in Heat)."""
        named = self.context.resource_by_reference(str(action))
        if named is None or named is self:
            return str(action)
        if "signal_url" in getattr(named, "attributes_schema", {}):
            return str(named.get_attribute("signal_url"))
        return str(named.get_reference_id())

    def validate(self) -> None:
        """Each action is a URL or a resource of the stack (Aodh takes only those)."""
        super().validate()
        for key in ("alarm_actions", "ok_actions", "insufficient_data_actions"):
            for i, action in enumerate(self.properties[key] or []):
                if not isinstance(action, str) or not action:
                    raise exception.StackValidationFailed(
                        error_message=f"an action must be a URL or a resource name, not {action!r}",
                        path=prop_path(self, key, i),
                    )

    def handle_create(self) -> str:
        """Create the alarm."""
        created = self.client().entities.create(
            "aodh_alarm", self.body(), name=self.physical_resource_name()
        )
        self.resource_id_set(created.id)
        return created.id

    def check_create_complete(self, entity_id: str) -> bool:
        """Done when the alarm is stored."""
        status = self.client().entities.get(entity_id).status
        return status_done(f"alarm {entity_id}", status, ["ACTIVE"], pending=["CREATING"])

    def handle_update(  # plugsim: ignore[PS106] - the subclasses allow updates
        self, json_snippet: Any = None, tmpl_diff: Any = None, prop_diff: Any = None
    ) -> None:
        """Send the alarm's new definition."""
        if prop_diff:
            self.client().entities.update(self.resource_id, self.body(dict(prop_diff)))

    def handle_suspend(self) -> None:
        """Disable the alarm (Heat's suspend)."""
        if self.resource_id is not None:
            self.client().entities.update(self.resource_id, {"enabled": False})

    def handle_resume(self) -> None:
        """Enable the alarm again."""
        if self.resource_id is not None:
            self.client().entities.update(self.resource_id, {"enabled": True})

    def _settled(self) -> bool:
        if self.resource_id is None:
            return True
        status = self.client().entities.get(self.resource_id).status
        return status_done(f"alarm {self.resource_id}", status, ["ACTIVE"], pending=["UPDATING"])

    def check_suspend_complete(self, token: Any = None) -> bool:
        """Done when Aodh has stored the disabled alarm."""
        return self._settled()

    def check_resume_complete(self, token: Any = None) -> bool:
        """Done when Aodh has stored the enabled alarm."""
        return self._settled()

    def check_update_complete(self, token: Any = None) -> bool:
        """Done when Aodh has stored the new definition."""
        return self._settled()

    def check_delete_complete(self, entity_id: str | None) -> bool:
        """Done when the alarm is gone."""
        if entity_id is None:
            return True
        return gone(self, "entity", lambda: self.client().entities.get(entity_id))

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        return self.client().entities.get(self.resource_id).to_dict().get(name)


class GnocchiResourcesAlarm(_GnocchiAlarm):
    """``OS::Aodh::GnocchiResourcesAlarm``: a threshold on one metric of one resource."""

    alarm_type = "gnocchi_resources_threshold"
    own = ("metric", "resource_id", "resource_type")
    properties_schema = {
        "metric": properties.Schema(
            properties.Schema.STRING, "Metric watched.", required=True, update_allowed=True
        ),
        "resource_id": properties.Schema(
            properties.Schema.STRING, "Id of the resource.", required=True, update_allowed=True
        ),
        "resource_type": properties.Schema(
            properties.Schema.STRING, "Resource type.", required=True, update_allowed=True
        ),
        **_common(),
    }


class GnocchiAggregationByMetricsAlarm(_GnocchiAlarm):
    """``OS::Aodh::GnocchiAggregationByMetricsAlarm``: a threshold on an aggregation of metrics."""

    alarm_type = "gnocchi_aggregation_by_metrics_threshold"
    own = ("metrics",)
    properties_schema = {
        "metrics": properties.Schema(
            properties.Schema.LIST, "Metric ids.", required=True, update_allowed=True
        ),
        **_common(),
    }


class GnocchiAggregationByResourcesAlarm(_GnocchiAlarm):
    """``OS::Aodh::GnocchiAggregationByResourcesAlarm``: a metric over the resources a query finds."""

    alarm_type = "gnocchi_aggregation_by_resources_threshold"
    own = ("metric", "query", "resource_type")
    properties_schema = {
        "metric": properties.Schema(
            properties.Schema.STRING, "Metric watched.", required=True, update_allowed=True
        ),
        "query": properties.Schema(
            properties.Schema.STRING,
            "Query selecting the resources.",
            required=True,
            update_allowed=True,
        ),
        "resource_type": properties.Schema(
            properties.Schema.STRING, "Resource type.", required=True, update_allowed=True
        ),
        **_common(),
    }
