"""The chain: one JSON-RPC transport, the deployment file, and bindings of the deployed contracts read from their shipped artifacts."""
