"""Card images and the fonts they are drawn with."""
