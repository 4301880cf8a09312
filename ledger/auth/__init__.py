"""Sign-in with Ethereum: nonces, signature checks (EOA and EIP-1271) and bearer sessions."""
