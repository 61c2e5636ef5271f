"""Words: the catalogs, hand names, and no visible word outside the catalog."""
