"""``python -m robustpca``: the command line, as the ``robustpca`` script."""

from .cli import main

raise SystemExit(main())
