from ctx_tui.cli import main

raise SystemExit(main())
