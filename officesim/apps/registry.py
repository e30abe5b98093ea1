"""The registered apps, in generation order, and everything derived from their descriptors."""

from __future__ import annotations

from officesim.apps.descriptor import AppDescriptor, SizeKnob

_APPS: dict[str, AppDescriptor] = {}
_version = 0  # bumped on every change, so caches of derived data (the world DDL) can key on it


def register_app(app: AppDescriptor) -> AppDescriptor:
    """Register ``app`` and import its models and tools (which registers its tables and tools)."""
    if app.name in _APPS:
        if _APPS[app.name] == app:
            return app
        raise TypeError(f"app {app.name!r} is registered twice")
    for other in app.after:
        if other not in _APPS:
            raise TypeError(f"app {app.name!r} generates after {other!r}, which is not registered (list it first)")
    for table in app.id_prefixes:
        if not table.startswith(app.table_prefix):
            raise TypeError(f"table {table!r} of app {app.name!r} must start with {app.table_prefix!r}")
    global _version
    _APPS[app.name] = app
    _version += 1
    app.module("models")
    app.module("tools")
    return app


def registry_version() -> int:
    return _version


def apps() -> tuple[AppDescriptor, ...]:
    """Every registered app in generation order (each after the apps it reads)."""
    return tuple(_APPS.values())  # registration checks ``after``, so this order already respects it


def app_names() -> tuple[str, ...]:
    return tuple(_APPS)


def get_app(name: str) -> AppDescriptor:
    try:
        return _APPS[name]
    except KeyError:
        raise KeyError(f"no app named {name!r}; the apps are {', '.join(_APPS)}") from None


def table_prefixes() -> tuple[str, ...]:
    return tuple(app.table_prefix for app in _APPS.values())


def id_prefixes() -> dict[str, str]:
    """Table -> id prefix over every app."""
    return {table: prefix for app in _APPS.values() for table, prefix in app.id_prefixes.items()}


def size_knobs() -> dict[str, SizeKnob]:
    """Every app's size knobs (a knob name is unique across apps)."""
    knobs: dict[str, SizeKnob] = {}
    for app in _APPS.values():
        for name, knob in app.size.items():
            if name in knobs:
                raise TypeError(f"size knob {name!r} of app {app.name!r} is declared by another app too")
            knobs[name] = knob
    return knobs
