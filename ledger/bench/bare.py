"""The baseline of `metaledger bench api`: a bare FastAPI app with one endpoint that takes and
returns a small JSON body (`uvicorn ledger.bench.bare:app`), served like the API and driven by
the same load generator, so that the cost of a move is measured against an empty request."""

from __future__ import annotations

from fastapi import FastAPI
from pydantic import BaseModel

app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)


class Echo(BaseModel):
    """A body shaped like a small move submission."""

    action: list[str | int]
    version: int


@app.post("/echo")
async def echo(body: Echo) -> Echo:
    """The body back."""
    return body


@app.get("/healthz")
async def healthz() -> dict[str, bool]:
    """Answers once the process serves."""
    return {"ok": True}
