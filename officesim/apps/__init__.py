"""The office apps.  Importing this package registers every app's tables and tools.

Each app is a package with fixed file roles: ``models.py`` (SQLModel tables, names prefixed by the
app), ``tools.py`` (the operations, registered with ``@tool``) and ``generate.py`` (faker data for
the world generator).  Apps share the ``directory`` of people and the world clock, nothing else.
"""

from officesim.apps.chat import models as chat_models
from officesim.apps.chat import tools as chat_tools
from officesim.apps.crm import models as crm_models
from officesim.apps.crm import tools as crm_tools
from officesim.apps.directory import models as directory_models
from officesim.apps.directory import tools as directory_tools
from officesim.apps.drive import models as drive_models
from officesim.apps.drive import tools as drive_tools
from officesim.apps.mail import models as mail_models
from officesim.apps.mail import tools as mail_tools

__all__ = [
    "chat_models", "chat_tools", "crm_models", "crm_tools", "directory_models", "directory_tools",
    "drive_models", "drive_tools", "mail_models", "mail_tools",
]
