/** @jsxRuntime automatic @jsxImportSource hono/jsx */
const TONES: Record<string, "ok" | "warn" | "bad" | "neutral"> = {
  active: "ok",
  healthy: "ok",
  delivered: "ok",
  acknowledged: "ok",
  valid: "ok",
  pending: "neutral",
  idle: "neutral",
  held: "warn",
  held_for_approval: "warn",
  retrying: "warn",
  frozen: "warn",
  expired: "neutral",
  failing: "bad",
  dead: "bad",
  dead_lettered: "bad",
  revoked: "bad",
  closed: "bad",
  invalid: "bad",
  // Notices (DESIGN §2b): the workspace's side of them.
  received: "neutral",
  under_review: "neutral",
  needs_information: "neutral",
  action_taken: "warn",
  contested: "warn",
  restored: "ok",
  upheld: "bad",
  no_action: "neutral",
  dismissed: "neutral",
  withdrawn: "neutral",
  // Lessons, candidates and rules (SESSION-STATE §6-8).
  promoted: "ok",
  retired: "neutral",
  superseded: "neutral",
  rejected: "neutral",
  archived: "neutral",
};

/** A state as a labelled badge (the word itself, never colour alone). */
export function StateBadge(props: { state: string }) {
  return <span class={`badge ${TONES[props.state] ?? "neutral"}`}>{props.state.replaceAll("_", " ")}</span>;
}
