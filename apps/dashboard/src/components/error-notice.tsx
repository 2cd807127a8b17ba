/** @jsxRuntime automatic @jsxImportSource hono/jsx */
/** An error as the dashboard shows it: the SVC_ code first (what a person quotes to support), then the message. */
export interface ShownError {
  code: string;
  message: string;
  details?: Record<string, unknown> | undefined;
}

/** The error box at the top of a page or form: the code, the message and the request id to quote. */
export function ErrorNotice(props: { error: ShownError; requestId?: string | undefined }) {
  const field = typeof props.error.details?.field === "string" ? props.error.details.field : null;
  return (
    <div class="notice error" role="alert" data-error-code={props.error.code}>
      <strong class="error-code">{props.error.code}</strong>
      <p>{props.error.message}</p>
      {field === null ? null : <p>Field: <code>{field}</code></p>}
      {props.requestId === undefined ? null : <p class="hint">Request id: <code>{props.requestId}</code></p>}
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
