"""The computer players: their play, and that they see only what their seat may."""
