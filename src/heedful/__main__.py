import sys

from heedful.cli import main

sys.exit(main())
