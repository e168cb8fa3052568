"""The device side: a simulated dealing machine, fault plans and scenarios (independent of the host)."""
