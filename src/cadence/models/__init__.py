"""Models: the provider factory, the embedded local model, retries and the one call path."""
