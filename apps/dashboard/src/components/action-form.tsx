/** @jsxRuntime automatic @jsxImportSource hono/jsx */
/**
 * A one-button form that posts an action (freeze, revoke, release...). It works without
 * JavaScript (a POST answered with a redirect back to the page); htmx, which the page boosts,
 * swaps only the page's body. Operations that honour an Idempotency-Key get a fresh one per
 * rendering, so a double click or a resubmitted form replays instead of acting twice.
 */
export function ActionForm(props: { action: string; label: string; idempotencyKey?: string | undefined; tone?: "danger" | "secondary" | undefined; hidden?: Record<string, string> | undefined; describedBy?: string | undefined }) {
  return (
    <form method="post" action={props.action}>
      {props.idempotencyKey === undefined ? null : <input type="hidden" name="idempotency_key" value={props.idempotencyKey} />}
      {Object.entries(props.hidden ?? {}).map(([name, value]) => (
        <input type="hidden" name={name} value={value} />
      ))}
      <button type="submit" class={props.tone} aria-describedby={props.describedBy}>
        {props.label}
      </button>
    </form>
  );
}
