"""A plug-in written against Heat's API (as an out-of-tree Heat plug-in would be)."""

import time

from heat.common import exception
from heat.common.i18n import _
from heat.engine import attributes, constraints, properties, resource, support, translation
from oslo_utils import timeutils


class Widget(resource.Resource):
    """Stores a size, waits ``wait`` seconds with time.sleep, exposes what it saw."""

    support_status = support.SupportStatus(version="2024.1")
    PROPERTIES = (SIZE, OLD_SIZE, TAGS, WAIT) = ("size", "old_size", "tags", "wait")
    properties_schema = {
        SIZE: properties.Schema(
            properties.Schema.INTEGER,
            _("Size."),
            default=1,
            constraints=[constraints.Range(1, 10)],
            update_allowed=True,
        ),
        OLD_SIZE: properties.Schema(
            properties.Schema.INTEGER,
            _("Deprecated name of size."),
            support_status=support.SupportStatus(status=support.HIDDEN),
        ),
        TAGS: properties.Schema(properties.Schema.LIST, _("Tags."), default=[]),
        WAIT: properties.Schema(properties.Schema.NUMBER, _("Seconds to sleep."), default=0),
    }
    attributes_schema = {
        "size": attributes.Schema(_("The size."), type=attributes.Schema.INTEGER),
        "started": attributes.Schema(_("When create started.")),
        "tags": attributes.Schema(_("Tags."), cache_mode=attributes.Schema.CACHE_NONE),
    }

    def translation_rules(self, props):
        return [
            translation.TranslationRule(
                props,
                translation.TranslationRule.REPLACE,
                [self.SIZE],
                value_path=[self.OLD_SIZE],
            ),
            translation.TranslationRule(
                props, translation.TranslationRule.ADD, [self.TAGS], ["widget"]
            ),
        ]

    def validate(self):
        super().validate()
        if self.properties[self.SIZE] == 7:
            raise exception.StackValidationFailed(message=_("Seven is not a size."))

    def handle_create(self):
        self.data_set("started", timeutils.utcnow().isoformat(), redact=True)
        time.sleep(self.properties[self.WAIT])
        self.resource_id_set(self.physical_resource_name())

    def handle_update(self, json_snippet, tmpl_diff, prop_diff):
        self.properties = json_snippet.properties(self.properties_schema, self.context)

    def _resolve_attribute(self, name):
        if name == "started":
            return self.data().get("started")
        return self.properties[name]


def resource_mapping():
    return {"Test::Heat::Widget": Widget}
