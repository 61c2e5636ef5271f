"""Hands looked at again: replay steps, exports and statistics, from stored hand records.

Pure code, like the engine: every function here takes a parsed record (or rows already
read) and computes from it through the engine's views, so what a viewer gets is what
that viewer saw at the table, never the record itself.
"""
