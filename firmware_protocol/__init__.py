"""The open wire protocol for dealing machines: pure, standard library only (see PROTOCOL.md)."""
