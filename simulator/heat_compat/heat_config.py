"""The engine options Heat's plug-ins read from ``cfg.CONF``, registered for them.

Heat registers its configuration options in ``heat.common.config``, a module
that pulls in Heat's API server, database and profiler options. Plug-ins
only read a handful of them (``cfg.CONF.max_server_name_length``,
``cfg.CONF.volumes.backups_enabled`` ...) and announce it with
``cfg.CONF.import_opt(name, 'heat.common.config')``. The compat layer serves
``heat.common.config`` as a module that registers just these options, with
the defaults of an unconfigured Heat, on the compat namespace's own
``oslo_config`` (never the process's).
"""

from __future__ import annotations

from typing import Any

#: ``(group or None, name, kind, default)`` of each option, kind naming an oslo_config Opt class.
OPTIONS: tuple[tuple[str | None, str, str, Any], ...] = (
    (None, "client_retry_limit", "IntOpt", 2),
    (None, "convergence_engine", "BoolOpt", True),
    (None, "default_deployment_signal_transport", "StrOpt", "CFN_SIGNAL"),
    (None, "default_software_config_transport", "StrOpt", "POLL_SERVER_CFN"),
    (None, "default_user_data_format", "StrOpt", "HEAT_CFNTOOLS"),
    (None, "encrypt_parameters_and_properties", "BoolOpt", False),
    (None, "heat_metadata_server_url", "StrOpt", None),
    (None, "heat_waitcondition_server_url", "StrOpt", None),
    (None, "instance_connection_https_validate_certificates", "StrOpt", "1"),
    (None, "instance_connection_is_secure", "StrOpt", "0"),
    (None, "max_nested_stack_depth", "IntOpt", 5),
    (None, "max_resources_per_stack", "IntOpt", 1000),
    (None, "max_server_name_length", "IntOpt", 53),
    (None, "max_template_size", "IntOpt", 524288),
    (None, "stack_action_timeout", "IntOpt", 3600),
    (None, "stack_scheduler_hints", "BoolOpt", False),
    ("profiler", "enabled", "BoolOpt", False),
    ("volumes", "backups_enabled", "BoolOpt", True),
)


def register(cfg: Any) -> list[str]:
    """Register :data:`OPTIONS` on ``cfg.CONF`` (once; later calls do nothing).

    *cfg* is the ``oslo_config.cfg`` module of the compat namespace. Returns
    the dotted names registered by this call.
    """
    done = []
    for group, name, kind, default in OPTIONS:
        opt = getattr(cfg, kind)(name, default=default)
        try:
            cfg.CONF.register_opt(opt, group=group)
        except cfg.DuplicateOptError:
            continue
        done.append(f"{group}.{name}" if group else name)
    return done


def module_names() -> dict[str, Any]:
    """The names of the ``heat.common.config`` module served to plug-ins (registers the options).

    Without an ``oslo_config`` to import, the module is served empty and
    ``cfg.CONF.import_opt`` fails naming the option, as it would in Heat.
    """
    try:
        from oslo_config import cfg  # the compat namespace's copy while shims are served
    except ImportError:
        return {}
    register(cfg)
    return {"cfg": cfg}


__all__ = ["OPTIONS", "module_names", "register"]
