// Calls to the MetaLedger API (same origin) and its RFC 9457 problem+json errors, turned into
// one clear message a person can act on.

import { session } from "./session";

/** An API error: the problem+json body and a readable message. */
export class Problem extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(describeProblem(status, body));
  }

  get slug(): string {
    return String(this.body.type ?? "").split("/").pop() ?? "";
  }
}

type Row = Record<string, unknown>;

/** One line per fact: the title and detail, then what the problem lists (violations, cards,
 * fields, limits). */
export function describeProblem(status: number, body: Row): string {
  const lines = [String(body.title ?? `HTTP ${status}`) + (body.detail ? `: ${body.detail}` : "")];
  for (const v of (body.violations as Row[] | undefined) ?? []) lines.push(`• ${v.message}`);
  for (const c of (body.cards as Row[] | undefined) ?? []) {
    if (c.needed !== undefined) {
      lines.push(
        `• ${c.card}: needed ${c.needed}, held ${c.held}, in other live matches ${c.committed_elsewhere ?? 0}`,
      );
    }
  }
  for (const e of (body.errors as Row[] | undefined) ?? []) {
    const loc = Array.isArray(e.loc) ? e.loc.join(".") : String(e.loc ?? "");
    lines.push(`• ${loc}: ${e.message ?? e.msg ?? ""}`);
  }
  if (body.reason) lines.push(`reason: ${body.reason}`);
  if (body.limit) lines.push(`limit: ${body.limit}${body.max !== undefined ? ` (max ${body.max})` : ""}`);
  if (body.rule && !body.violations) lines.push(`rule: ${body.rule}`);
  return lines.join("\n");
}

type Reviver = (key: string, value: unknown, context?: { source?: string }) => unknown;
const rawJSON = (JSON as unknown as { rawJSON?: (text: string) => unknown }).rawJSON;

/** JSON.parse that keeps integers beyond 2^53 exact (as raw JSON, written back as they came),
 * so a bundle sent on to the API is the bundle that was read, digit for digit. */
export function parseExact(text: string): any {
  const keep: Reviver = (_key, value, context) =>
    typeof value === "number" && !Number.isSafeInteger(value) && rawJSON && context?.source && /^-?\d+$/.test(context.source)
      ? rawJSON(context.source)
      : value;
  return JSON.parse(text, keep as Parameters<typeof JSON.parse>[1]);
}

/** Call the API; the parsed JSON answer, or a Problem. */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: "application/json" };
  const token = session.token();
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (exc) {
    throw new Problem(0, { title: "The API does not answer", detail: String(exc) });
  }
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text ? parseExact(text) : null;
  } catch {
    parsed = { title: `HTTP ${response.status}`, detail: text.slice(0, 200) };
  }
  if (!response.ok) {
    if (response.status === 401 && token) session.clear();
    throw new Problem(response.status, (parsed ?? {}) as Row);
  }
  return parsed as T;
}
