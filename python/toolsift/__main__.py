"""`python -m toolsift`: the command line (see `toolsift.cli`)."""

import sys

from toolsift.cli import main

sys.exit(main())
