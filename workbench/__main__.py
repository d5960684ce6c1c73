from .view.cli import main

raise SystemExit(main())
