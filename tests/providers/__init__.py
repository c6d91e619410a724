"""The provider conformance suite: one module run against every provider the registry knows."""
