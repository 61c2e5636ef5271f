"""The fake Discord moved to the ``fakediscord`` package (issue 22); this name stays for
old imports and links."""

from fakediscord.harness import *  # noqa: F403
from fakediscord.harness import __all__  # noqa: F401
