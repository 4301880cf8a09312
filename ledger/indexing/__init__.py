"""The CardToken transfer index: transfers and balances read from the chain, healed across reorgs."""
