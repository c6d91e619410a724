"""Parse ``host:port`` specifications."""

from portspec.parse import Endpoint, parse_endpoint, parse_port

__all__ = ["Endpoint", "parse_endpoint", "parse_port"]
