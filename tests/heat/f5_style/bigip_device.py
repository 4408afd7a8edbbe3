"""A BIG-IP device handle: a plugsim test fixture in the manner of F5's Heat plug-ins.

Its create proves the device answers by building f5-sdk's ``ManagementRoot``
(which asks the device for its TMOS version); other resources reach the
device through :meth:`BigIPDevice.get_bigip`.
"""

from f5.bigip import ManagementRoot
from heat.common.i18n import _
from heat.engine import properties, resource
from requests import HTTPError


class DeviceRefused(HTTPError):
    """The device answered the probe with an HTTP error."""


class BigIPDevice(resource.Resource):
    """Address and credentials of one BIG-IP."""

    PROPERTIES = (IP, USERNAME, PASSWORD) = ("ip", "username", "password")

    properties_schema = {
        IP: properties.Schema(
            properties.Schema.STRING, _("Management address of the device."), required=True
        ),
        USERNAME: properties.Schema(
            properties.Schema.STRING, _("User of the iControl REST API."), required=True
        ),
        PASSWORD: properties.Schema(
            properties.Schema.STRING, _("That user's password."), required=True
        ),
    }

    def get_bigip(self):
        """A new f5-sdk client of the device."""
        return ManagementRoot(
            self.properties[self.IP], self.properties[self.USERNAME], self.properties[self.PASSWORD]
        )

    def handle_create(self):
        try:
            self.get_bigip()
        except HTTPError as ex:
            raise DeviceRefused(ex) from ex
        self.resource_id_set(self.physical_resource_name())

    def handle_delete(self):
        return True


def resource_mapping():
    return {"Test::BigIP::Device": BigIPDevice}
