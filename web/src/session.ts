// The signed-in session (the API's bearer token), kept in localStorage so it survives a reload.

const KEY = "metaledger.session";

export interface Session {
  token: string;
  address: string;
  expires_at: string;
  wallet?: string;
}

type Listener = (s: Session | null) => void;
const listeners: Listener[] = [];

function read(): Session | null {
  try {
    const raw = localStorage.getItem(KEY);
    if (!raw) return null;
    const s = JSON.parse(raw) as Session;
    if (!s.token || Date.parse(s.expires_at) <= Date.now()) return null;
    return s;
  } catch {
    return null;
  }
}

export const session = {
  /** The current session, if any and not expired. */
  current(): Session | null {
    return read();
  },
  /** The bearer token ("" when signed out). */
  token(): string {
    return read()?.token ?? "";
  },
  /** The signed-in address, if any. */
  address(): string | null {
    return read()?.address ?? null;
  },
  /** Keep a new session. */
  save(s: Session): void {
    localStorage.setItem(KEY, JSON.stringify(s));
    for (const l of listeners) l(s);
  },
  /** Forget the session (signed out, or the API says it is gone). */
  clear(): void {
    const had = localStorage.getItem(KEY) !== null;
    localStorage.removeItem(KEY);
    if (had) for (const l of listeners) l(null);
  },
  /** Be told when the session changes. */
  onChange(l: Listener): void {
    listeners.push(l);
  },
};
