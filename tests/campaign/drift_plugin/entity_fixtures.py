"""Entity-service plug-ins: one that survives every drift, two with a bug only one drift shows.

``Test::Campaign::Patient`` makes one ``widget`` of the generic entity service (it goes ``CREATING`` ->
``ACTIVE``), checks it is ``ACTIVE`` and deletes it whatever its status. ``Test::Campaign::Impatient``
refuses to delete a widget that has not settled: only a widget left stuck in ``CREATING`` out of band
shows it. ``Test::Campaign::Forgetful`` keeps the first client it was given for the rest of the
world's life instead of asking its client plug-in each time: only a rotated credential shows it.
"""

import weakref

from sdk import exception, properties
from sdk.resource import Resource

KIND = "widget"


class Patient(Resource):
    """One widget, checked and deleted right whatever happened to it."""

    default_client_name = "entity"
    properties_schema = {
        "name": properties.Schema(properties.Schema.STRING, "Widget name.", required=True),
    }

    def widgets(self):
        return self.client().entities

    def handle_create(self):
        widget = self.widgets().create(KIND, {}, name=self.properties["name"])
        self.resource_id_set(widget.id)
        return widget.id

    def check_create_complete(self, widget_id):
        return self.widgets().get(widget_id).status == "ACTIVE"

    def handle_check(self):
        status = self.widgets().get(self.resource_id).status
        if status != "ACTIVE":
            raise exception.ResourceFailure(f"widget {self.resource_id} is {status}")

    def handle_delete(self):
        if self.resource_id is None:
            return None
        try:
            self.widgets().delete(self.resource_id)
        except Exception as ex:
            self.client_plugin().ignore_not_found(ex)
        return self.resource_id

    def check_delete_complete(self, widget_id):
        if widget_id is None:
            return True
        try:
            self.widgets().get(widget_id)
        except Exception as ex:
            if self.client_plugin().is_not_found(ex):
                return True
            raise
        return False


class Impatient(Patient):
    """Its delete refuses a widget still being made (the bug: only a stuck widget is seen so)."""

    def handle_delete(self):
        if self.resource_id is not None:
            try:
                status = self.widgets().get(self.resource_id).status
            except Exception as ex:
                self.client_plugin().ignore_not_found(ex)
            else:
                if status == "CREATING":  # the bug: waits for nothing, fails at once
                    raise exception.ResourceFailure(f"widget {self.resource_id} is still {status}")
        return super().handle_delete()


#: the first client each world's client plug-in gave (the bug: kept across a credential rotation)
_KEPT = weakref.WeakKeyDictionary()


class Forgetful(Patient):
    """It keeps the first client it got for good (the bug)."""

    def widgets(self):
        plugin = self.client_plugin()
        if plugin not in _KEPT:
            _KEPT[plugin] = self.client()
        return _KEPT[plugin].entities


def resource_mapping():
    return {
        "Test::Campaign::Forgetful": Forgetful,
        "Test::Campaign::Impatient": Impatient,
        "Test::Campaign::Patient": Patient,
    }
