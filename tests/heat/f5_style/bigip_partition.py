"""A BIG-IP partition (folder): a plugsim test fixture in the manner of F5's Heat plug-ins.

It imports its helpers from the ``common`` package beside it, reaches the
device through ``self.stack.resource_by_refid`` and manages the folder with
f5-sdk's ``tm.sys.folders.folder`` calls; ``Common`` always exists on a
BIG-IP, so it is neither created nor deleted.
"""

from common.mixins import BigIPUser, with_bigip
from heat.common import exception
from heat.common.i18n import _
from heat.engine import properties, resource

SYSTEM_PARTITION = "Common"


class BigIPPartition(resource.Resource, BigIPUser):
    """A partition on the device named by ``bigip_server``."""

    PROPERTIES = (NAME, BIGIP_SERVER, SUBPATH) = ("name", "bigip_server", "subpath")

    properties_schema = {
        NAME: properties.Schema(
            properties.Schema.STRING, _("Name of the partition."), required=True
        ),
        BIGIP_SERVER: properties.Schema(
            properties.Schema.STRING, _("The device resource."), required=True
        ),
        SUBPATH: properties.Schema(
            properties.Schema.STRING, _("Where the folder is created."), default="/"
        ),
    }

    @with_bigip
    def handle_create(self):
        name = self.properties[self.NAME]
        if name == SYSTEM_PARTITION:
            return
        try:
            self.bigip.tm.sys.folders.folder.create(
                name=name, subPath=self.properties[self.SUBPATH]
            )
        except Exception as ex:
            raise exception.ResourceFailure(ex, None, action="CREATE") from ex

    @with_bigip
    def handle_delete(self):
        name = self.properties[self.NAME]
        folders = self.bigip.tm.sys.folders
        if name == SYSTEM_PARTITION or not folders.folder.exists(name=name):
            return True
        try:
            folders.folder.load(name=name).delete()
        except Exception as ex:
            raise exception.ResourceFailure(ex, None, action="DELETE") from ex
        return True


def resource_mapping():
    return {"Test::BigIP::Partition": BigIPPartition}
