"""A Heat-style plug-in using the oslo libraries as Heat's in-tree plug-ins do."""

from heat.common.i18n import _
from heat.engine import attributes, properties, resource
from oslo_config import cfg
from oslo_serialization import jsonutils
from oslo_utils import encodeutils, netutils, timeutils, uuidutils

cfg.CONF.import_opt("max_server_name_length", "heat.common.config")


class Recorder(resource.Resource):
    """Records what the oslo helpers say about its properties, and when it was made."""

    properties_schema = {
        "address": properties.Schema(properties.Schema.STRING, _("An IP address."), default=""),
        "payload": properties.Schema(properties.Schema.MAP, _("Data."), default={}),
    }
    attributes_schema = {
        "record": attributes.Schema(_("What was recorded."), type=attributes.Schema.MAP),
    }

    def handle_create(self):
        record = {
            "payload": jsonutils.dumps(self.properties["payload"], sort_keys=True),
            "is_ip": netutils.is_valid_ip(self.properties["address"]),
            "name_limit": cfg.CONF.max_server_name_length,
            "made_at": timeutils.utcnow().isoformat(),
            "made_ts": timeutils.utcnow_ts(),
            "text": encodeutils.safe_decode(b"caf\xc3\xa9"),
            "uuid_like": uuidutils.is_uuid_like("0f8fad5b-d9cb-469f-a165-70867728950e"),
        }
        self.data_set("record", jsonutils.dumps(record))
        self.resource_id_set(self.physical_resource_name())

    def _resolve_attribute(self, name):
        if name == "record":
            return jsonutils.loads(self.data().get("record", "{}"))
        return None


def resource_mapping():
    return {"Test::Heat::Recorder": Recorder}
