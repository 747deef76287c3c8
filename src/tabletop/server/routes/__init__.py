"""HTTP routers: ``games`` (metadata), ``matches`` (play) and ``records`` (replay)."""
