"""Platform adapters: each turns one platform's payloads into core calls and core results into messages."""
