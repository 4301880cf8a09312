// What every page shares: the message line (errors as clear text), busy buttons, sign-in guard.

import { Problem } from "./api";
import { h } from "./dom";
import { session } from "./session";

/** Show `error` (a Problem from the API, or any other failure) in the message line. */
export function showError(error: unknown): void {
  const box = document.getElementById("message");
  if (!box) return;
  const text = error instanceof Problem || error instanceof Error ? error.message : String(error);
  box.textContent = text;
  box.className = "message error";
  box.hidden = false;
}

/** Show a neutral notice in the message line (kept across the next change of page). */
export function notify(text: string): void {
  const box = document.getElementById("message");
  if (!box) return;
  box.textContent = text;
  box.className = "message info";
  box.dataset.keep = "1";
  box.hidden = false;
}

/** Hide the message line (`onNavigation`: unless a notice asked to outlive the page change). */
export function clearMessage(onNavigation = false): void {
  const box = document.getElementById("message");
  if (!box) return;
  if (onNavigation && box.dataset.keep === "1") {
    delete box.dataset.keep;
    return;
  }
  delete box.dataset.keep;
  box.hidden = true;
}

/** Run `work` for a button: disabled while it runs, errors shown in the message line. */
export async function busy(button: HTMLButtonElement | null, work: () => Promise<void>): Promise<void> {
  if (button) button.disabled = true;
  try {
    clearMessage();
    await work();
  } catch (exc) {
    showError(exc);
  } finally {
    if (button) button.disabled = false;
  }
}

/** A button that runs `work` (busy while it runs). */
export function action(label: string, work: () => Promise<void>, attrs: Record<string, string> = {}): HTMLButtonElement {
  const button: HTMLButtonElement = h("button", { type: "button", ...attrs }, label);
  button.addEventListener("click", () => void busy(button, work));
  return button;
}

/** The signed-in address, or a note asking to sign in (rendered into `main`) and null. */
export function requireSignIn(main: HTMLElement, what: string): string | null {
  const address = session.address();
  if (address) return address;
  main.append(h("p", { class: "note" }, `Sign in with your wallet (top right) to ${what}.`));
  return null;
}
