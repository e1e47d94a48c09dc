"""Dashboard screens (the main screen, help; the action flows add theirs here)."""
