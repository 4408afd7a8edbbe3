"""Physical resource names: unique per resource instance, stable across runs and reloads."""

from simulator.world import World

TR = "OS::Heat::TestResource"


def tmpl(value, replace=False):
    props = {"value": value, "update_replace": replace}
    return {
        "heat_template_version": "2018-08-31",
        "resources": {"r": {"type": TR, "properties": props}},
    }


def physical_id(world, name="s"):
    return world.get_stack(name).resources["r"].resource_id


def test_a_replacement_gets_a_new_physical_name(tmp_path):
    world = World()
    try:
        world.create_stack("s", tmpl("a"))
        old = physical_id(world)
        assert old.startswith("s-r-")
        stack = world.update_stack("s", tmpl("b", replace=True))
        assert stack.state == "UPDATE_COMPLETE", stack.status_reason
        new = physical_id(world)
        assert new.startswith("s-r-")
        assert new != old
        stack = world.update_stack("s", tmpl("c"))
        assert physical_id(world) == new, "an in-place update kept the name"
    finally:
        world.close()


def test_physical_names_are_the_same_in_every_run_and_survive_a_reload(tmp_path):
    names = []
    for run in range(2):
        db = tmp_path / f"w{run}.db"
        world = World.open(str(db), seed=3)
        try:
            world.create_stack("s", tmpl("a"))
            world.update_stack("s", tmpl("b", replace=True))
            names.append(physical_id(world))
        finally:
            world.close()
        world = World.open(str(db), seed=3)
        try:
            res = world.get_stack("s").resources["r"]
            assert res.physical_resource_name() == names[-1]
            assert res.uuid
        finally:
            world.close()
    assert names[0] == names[1]
