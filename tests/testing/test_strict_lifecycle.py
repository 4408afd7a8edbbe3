"""Under the pytest plugin every world checks that lifecycle plug-ins do not change stacks."""


def test_plugin_worlds_are_strict(plugsim_world):
    assert plugsim_world.lifecycle.strict is True
