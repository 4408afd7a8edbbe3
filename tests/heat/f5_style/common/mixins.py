"""Reaching the BIG-IP of a device resource in the same stack, as F5's Heat plug-ins do.

Imported by its neighbours as a top-level ``common.mixins``: a test fixture of
plugsim, written for it, with the Heat APIs F5's plug-ins use
(``self.stack.resource_by_refid(refid).get_bigip()``).
"""


def with_bigip(handler):
    """Decorate a handler so that ``self.bigip`` is the device's client when it runs."""

    def run(self, *args, **kwargs):
        self.connect_bigip()
        return handler(self, *args, **kwargs)

    run.__name__ = handler.__name__
    return run


class BigIPUser:
    """A resource that names a ``Test::BigIP::Device`` in its ``bigip_server`` property."""

    def connect_bigip(self):
        """Set ``self.bigip`` to a client of the device the property refers to."""
        device = self.stack.resource_by_refid(self.properties[self.BIGIP_SERVER])
        self.bigip = device.get_bigip()
