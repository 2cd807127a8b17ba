/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { EmptyState } from "../components/empty-state.tsx";
import type { ShownError } from "../components/error-notice.tsx";
import { PageHeading } from "../components/page-heading.tsx";
import { LocalTime } from "../components/local-time.tsx";
import { Pagination } from "../components/pagination.tsx";
import type { PolicyWire, Page } from "../wire.ts";

/** Who acknowledged which version of a policy (GET /v1/policies/{id}/acknowledgements). */
export interface PolicyAcknowledgementWire {
  ai_account_id: string;
  friendly_name: string;
  version: number;
  acknowledged_at: string;
}

/** The values a publish form is shown again with after a refusal. */
export interface PolicyValues {
  name?: string | undefined;
  body?: string | undefined;
  required?: boolean | undefined;
}

/** The policies: each current version with who acknowledged it, and the form that publishes a version. */
export function PoliciesPage(props: { policies: Page<PolicyWire>; acknowledgements: Map<string, PolicyAcknowledgementWire[]>; query: Record<string, string | undefined>; values: PolicyValues; idempotencyKey: string; error?: ShownError | undefined; done?: string | undefined }) {
  const v = props.values;
  return (
    <>
      <PageHeading title="Policies" done={props.done} error={props.error} />
      {props.policies.items.length === 0 ? (
        <EmptyState title="No policies yet.">
          <p>A required policy must be acknowledged by an AI account before it may send.</p>
        </EmptyState>
      ) : (
        props.policies.items.map((p) => {
          const acks = props.acknowledgements.get(p.id) ?? [];
          return (
            <section class="panel" data-policy={p.name}>
              <h2>
                {p.name} <span class="badge neutral">version {p.version}</span> {p.required ? <span class="badge warn">required</span> : null}
              </h2>
              <p class="hint">
                Published <LocalTime at={p.published_at} />
              </p>
              <pre>{p.body}</pre>
              <h3>Acknowledged by</h3>
              {acks.length === 0 ? (
                <p>Nobody yet.</p>
              ) : (
                <ul>
                  {acks.map((a) => (
                    <li>
                      {a.friendly_name}: version {a.version}
                      {a.version === p.version ? " (current)" : " (an older version)"}, <LocalTime at={a.acknowledged_at} />
                    </li>
                  ))}
                </ul>
              )}
            </section>
          );
        })
      )}
      <Pagination path="/policies" query={props.query} nextCursor={props.policies.next_cursor} />
      <h2>Publish a version</h2>
      <form class="panel stack" method="post" action="/policies">
        <input type="hidden" name="idempotency_key" value={props.idempotencyKey} />
        <div>
          <label for="policy-name">Name</label>
          <input id="policy-name" name="name" type="text" required maxlength={63} value={v.name ?? ""} aria-describedby="policy-name-hint" />
          <p class="hint" id="policy-name-hint">
            An existing name gets a new version.
          </p>
        </div>
        <div>
          <label for="policy-body">Text</label>
          <textarea id="policy-body" name="body" required maxlength={65536}>
            {v.body ?? ""}
          </textarea>
        </div>
        <div class="checks">
          <label>
            <input type="checkbox" name="required" value="true" checked={v.required ?? false} /> Required: AI accounts must acknowledge this version before they send
          </label>
        </div>
        <div class="actions">
          <button type="submit">Publish</button>
        </div>
      </form>
    </>
  );
}
