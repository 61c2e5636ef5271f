"""The bot as a program: settings, start-up, packaging, and the documentation."""
