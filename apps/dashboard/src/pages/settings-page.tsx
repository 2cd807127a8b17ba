/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { ShownError } from "../components/error-notice.tsx";
import { ConfirmLink } from "../components/confirm.tsx";
import { PageHeading } from "../components/page-heading.tsx";
import { Facts } from "../components/facts.tsx";
import { LocalTime } from "../components/local-time.tsx";
import { StateBadge } from "../components/state-badge.tsx";
import { StepUpForm } from "../components/step-up-form.tsx";

/** GET /v1/me with a session. */
export interface PersonMeWire {
  kind: "person";
  person: { id: string; email: string; display_name: string | null; role: string; mfa_enabled: boolean; created_at: string };
  workspace: { id: string; name: string; state: string; plan: string };
}

/** An identity at the identity provider linked to the person, as list_linked_identities answers it. */
export interface LinkedIdentityWire {
  id: string;
  issuer: string;
  created_at: string;
}

/** The identity provider of the service and the identities at it linked to the person (null: OIDC not configured). */
export interface OidcSettings {
  label: string;
  identities: readonly LinkedIdentityWire[];
}

/** The signed-in person's settings: who they are, their workspace and plan, their sign-in's second factor, their linked identity. */
export function SettingsPage(props: { me: PersonMeWire; stepUpUntil: Date | null; oidc?: OidcSettings | null | undefined; error?: ShownError | undefined; done?: string | undefined }) {
  const { person, workspace } = props.me;
  return (
    <>
      <PageHeading title="Settings" done={props.done} error={props.error} />
      <section class="panel">
        <h2>You</h2>
        <Facts
          facts={[
            { term: "Email", value: person.email },
            { term: "Name", value: person.display_name ?? "—" },
            { term: "Role", value: person.role },
            { term: "Since", value: <LocalTime at={person.created_at} /> },
            { term: "Two-step verification", value: person.mfa_enabled ? "on (an authenticator app)" : "off", attrs: { "data-mfa": String(person.mfa_enabled) } },
          ]}
        />
      </section>
      <section class="panel">
        <h2>Two-step verification</h2>
        {person.mfa_enabled ? (
          <>
            <p>
              {props.stepUpUntil === null ? (
                "Closing the workspace, erasing your data and filing a counter-notice need a fresh confirmation with a code."
              ) : (
                <>
                  Confirmed until <LocalTime at={props.stepUpUntil.toISOString()} />.
                </>
              )}
            </p>
            <StepUpForm />
            <h3>Recovery codes and turning it off</h3>
            <p>Each asks first, and needs a fresh confirmation with a code: without one, you are asked for it first and brought back.</p>
            <div class="actions">
              <ConfirmLink href="/settings/mfa/recovery-codes" label="Get new recovery codes" tone="secondary" />
              <ConfirmLink href="/settings/mfa/disable" label="Turn two-step verification off" />
            </div>
          </>
        ) : (
          <>
            <p>Protect your sign-in with a code from an authenticator app. Some actions (closing the workspace, erasing your data) need it.</p>
            <form method="post" action="/settings/mfa/enroll">
              <button type="submit">Set up two-step verification</button>
            </form>
          </>
        )}
      </section>
      {props.oidc == null ? null : <LinkedIdentitySection oidc={props.oidc} />}
      <section class="panel">
        <h2>Workspace</h2>
        <Facts
          facts={[
            { term: "Name", value: workspace.name },
            { term: "Id", value: <code>{workspace.id}</code> },
            { term: "State", value: <StateBadge state={workspace.state} /> },
            { term: "Plan", value: workspace.plan },
          ]}
        />
      </section>
      <section class="panel">
        <h2>Your data</h2>
        <ul class="link-list">
          <li>
            <a href="/settings/export">Export my data</a>: one JSON document with you and everything of the workspace.
          </li>
          {person.role === "owner" && workspace.state !== "closed" ? (
            <li>
              <a href="/settings/close">Close the workspace</a>: revokes every AI account and credential; payloads are deleted 30 days later.
            </li>
          ) : null}
          <li>
            <a href="/settings/erase">Erase me</a>: deletes your personal data and signs you out.
          </li>
        </ul>
      </section>
    </>
  );
}

/** Sign-in with the identity provider: the linked identities, and a link to link (another) one. */
function LinkedIdentitySection(props: { oidc: OidcSettings }) {
  const { label, identities } = props.oidc;
  const start = `/v1/auth/oidc/start?${new URLSearchParams({ link: "1", return_to: "/settings?done=linked" }).toString()}`;
  return (
    <section class="panel" data-linked-identities={String(identities.length)}>
      <h2>Sign in with {label}</h2>
      {identities.length === 0 ? (
        <p>Link your {label} account to sign in with it. An account there whose email matches yours is not enough: it signs you in only once linked here.</p>
      ) : (
        <ul class="link-list">
          {identities.map((identity) => (
            <li>
              Linked <LocalTime at={identity.created_at} /> (<code>{identity.issuer}</code>)
            </li>
          ))}
        </ul>
      )}
      <p>
        {/* A plain link, not boosted: the start answers with a redirect to the identity provider. */}
        <a class="button secondary" href={start} hx-boost="false">
          {identities.length === 0 ? `Link ${label}` : `Link another ${label} account`}
        </a>
      </p>
    </section>
  );
}
