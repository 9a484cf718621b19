"""``python -m dcbsim``: the ``dcbsim`` command (see :mod:`dcbsim.cli`)."""

import sys

from dcbsim.cli import main

sys.exit(main())
