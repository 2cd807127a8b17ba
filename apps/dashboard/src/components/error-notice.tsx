/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { ERROR_CATALOGUE } from "@agentq/core";
import { detailLines, fieldProblem, plainSentence } from "../error-words.ts";

/** An error as the dashboard shows it: a plain sentence, the service's message and details, the SVC_ code for support. */
export interface ShownError {
  code: string;
  message: string;
  details?: Record<string, unknown> | undefined;
}

/**
 * The error box at the top of a page or form: what went wrong in a plain sentence, the service's
 * own message, the fields at fault and the other details (a webhook's verification failure
 * among them), then the SVC_ code and the request id to quote to support.
 */
export function ErrorNotice(props: { error: ShownError; requestId?: string | undefined }) {
  const e = props.error;
  const summary = (ERROR_CATALOGUE as Record<string, { summary?: string } | undefined>)[e.code]?.summary;
  const problems = Array.isArray(e.details?.errors) ? (e.details.errors as { path?: unknown; message?: unknown }[]).map(fieldProblem) : [];
  const lines = detailLines(e.details);
  return (
    <div class="notice error" role="alert" data-error-code={e.code}>
      <strong>{plainSentence(e.code, summary)}</strong>
      {problems.length > 0 ? null : <p>{e.message}</p>}
      {problems.length === 0 ? null : (
        <ul class="problems">
          {problems.map((p) => (
            <li>{p}</li>
          ))}
        </ul>
      )}
      {lines.length === 0 ? null : (
        <dl class="facts error-details">
          {lines.map((l) => (
            <>
              <dt>{l.term}</dt>
              <dd>{l.term === "field" ? <code>{l.text}</code> : l.text}</dd>
            </>
          ))}
        </dl>
      )}
      <p class="hint">
        Code <code class="error-code">{e.code}</code>
        {props.requestId === undefined ? null : (
          <>
            {" "}
            · request id <code>{props.requestId}</code>
          </>
        )}
      </p>
    </div>
  );
}

/** A confirmation that an action worked (after a redirect, from the `done` query parameter). */
export function DoneNotice(props: { text: string }) {
  return (
    <div class="notice ok" role="status">
      {props.text}
    </div>
  );
}
