"""The rules engine: rankings, the rules of RULES.md, random play, records and replay."""
