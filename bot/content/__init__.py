"""Quiz content: the pack schema, loading and validation, and the plain-text importer."""

from bot.content.loader import Catalog, load_catalog, load_pack, validate_paths
from bot.content.schema import PackModel, pack_json_schema

__all__ = ["Catalog", "PackModel", "load_catalog", "load_pack", "pack_json_schema", "validate_paths"]
