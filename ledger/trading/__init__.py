"""The offer book: signed CardExchange offers checked, stored, listed, filled and withdrawn."""
