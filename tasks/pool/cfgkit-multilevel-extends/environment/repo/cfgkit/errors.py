class ConfigError(Exception):
    """Raised for malformed or inconsistent configuration."""
