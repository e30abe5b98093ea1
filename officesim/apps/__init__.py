"""The office apps.  Importing this package registers every app's tables and tools.

Each app is a package with fixed file roles: ``__init__.py`` (its ``APP`` descriptor, see
``officesim.apps.descriptor``), ``models.py`` (SQLModel tables, names prefixed by the app),
``tools.py`` (the operations, registered with ``@tool``) and ``generate.py`` (faker data for the
world generator).  Apps share the ``directory`` of people and the world clock, nothing else.

To add an app, write its package and add one line below (after the apps it generates from);
see ``docs/adding-an-app.md``.  Apps that live outside officesim are named, as importable modules
whose ``APP`` is their descriptor, in the ``OFFICESIM_APPS`` environment variable (comma
separated); they register after the built-in ones, before anything reads the registry.
"""

import importlib
import os

from officesim.apps import calendar, chat, crm, directory, drive, mail
from officesim.apps.registry import app_names, apps, get_app, register_app

register_app(directory.APP)
register_app(crm.APP)
register_app(drive.APP)
register_app(chat.APP)
register_app(mail.APP)
register_app(calendar.APP)

for _module in filter(None, (name.strip() for name in os.environ.get("OFFICESIM_APPS", "").split(","))):
    register_app(importlib.import_module(_module).APP)

__all__ = ["app_names", "apps", "get_app", "register_app"]
