"""Adapters for agent frameworks: a framework's tools made honest in one call."""
