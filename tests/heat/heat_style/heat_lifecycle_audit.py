"""A stack lifecycle plug-in written against Heat."""

from heat.engine import lifecycle_plugin

SEEN = []


class Audit(lifecycle_plugin.LifecyclePlugin):
    """Records what Heat's engine hands it; refuses stacks tagged 'forbidden'."""

    def do_pre_op(self, cnxt, stack, current_stack=None, action=None):
        SEEN.append(
            {
                "action": action,
                "tenant": cnxt.tenant_id,
                "user": bool(cnxt.user_id),
                "roles": list(cnxt.roles),
                "ctx_keys": sorted(k for k in cnxt.to_dict() if k in ("tenant", "user_id")),
                "stack_tenant": stack.tenant_id,
                "stack_ctx_tenant": stack.context.tenant_id,
                "t_resources": sorted(stack.t["resources"]),
                "params": dict(stack.env.params),
                "outputs": sorted(stack.outputs),
                "identifier": stack.identifier()["stack_name"],
                "types": sorted(res.type() for res in stack.resources.values()),
                "names": sorted(stack),
            }
        )
        if "forbidden" in (stack.tags or []):
            raise ValueError("forbidden stack")

    def do_post_op(self, cnxt, stack, current_stack=None, action=None, is_stack_failure=False):
        SEEN.append({"post": action, "failed": is_stack_failure})

    def get_ordinal(self):
        return 50
