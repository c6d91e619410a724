"""agentkit."""
