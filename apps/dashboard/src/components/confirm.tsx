/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { Child } from "hono/jsx";
import type { FormInput } from "../form-input.ts";
import { ErrorNotice, type ShownError } from "./error-notice.tsx";

/** What a destructive action's confirmation page says and posts. */
export interface Confirmation {
  /** The question, as the page's heading ("Revoke worker-1?"). */
  title: string;
  /** What will happen, in plain words (what stops working, whether it can be undone). */
  consequences: Child;
  /** Where the confirmed form posts. */
  action: string;
  /** The confirming button's label. */
  button: string;
  /** Where "Cancel" goes (the page the action was started from). */
  cancel: string;
  /** Fields the action needs (the page to return to, the ids of a bulk action). */
  hidden?: Record<string, string | readonly string[]> | undefined;
  /** A fresh Idempotency-Key, for operations that honour one. */
  idempotencyKey?: string | undefined;
}

/**
 * The link that starts a destructive action: a GET to its confirmation page (a page of its own,
 * with no JavaScript needed), styled as a button.
 */
export function ConfirmLink(props: { href: string; label: string; tone?: "danger" | "secondary" | undefined }) {
  return (
    <a class={`button ${props.tone ?? "danger"}`} href={props.href}>
      {props.label}
    </a>
  );
}

/** The confirmation page of a destructive action: the question, its consequences, confirm or cancel. */
export function ConfirmPage(props: { confirmation: Confirmation; error?: ShownError | undefined }) {
  const c = props.confirmation;
  return (
    <>
      <h1>{c.title}</h1>
      {props.error === undefined ? null : <ErrorNotice error={props.error} />}
      <section class="panel confirm" data-confirm={c.action}>
        <div class="consequences">{c.consequences}</div>
        <form method="post" action={c.action} class="actions">
          <input type="hidden" name="confirm" value="yes" />
          {c.idempotencyKey === undefined ? null : <input type="hidden" name="idempotency_key" value={c.idempotencyKey} />}
          {Object.entries(c.hidden ?? {}).flatMap(([name, value]) => (typeof value === "string" ? [value] : value).map((v) => <input type="hidden" name={name} value={v} />))}
          <button type="submit" class="danger">
            {c.button}
          </button>
          <a class="button secondary" href={c.cancel}>
            Cancel
          </a>
        </form>
      </section>
    </>
  );
}

/** True when a posted form comes from a confirmation page (a bare POST is answered with the page instead). */
export function confirmed(form: FormInput): boolean {
  return form.text("confirm") === "yes";
}
