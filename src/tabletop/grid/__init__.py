"""Board geometry shared by the games: hex (cube/axial) and square grids."""
