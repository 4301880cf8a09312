"""`python -m ledger.cli` = `metaledger`."""

from ledger.cli import main

main()
