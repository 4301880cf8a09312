"""The games and their card designs (with ERC-1155 token ids), and wallet collections."""
