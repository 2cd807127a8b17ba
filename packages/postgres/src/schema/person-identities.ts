import { pgTable, primaryKey, index, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";

/**
 * Identities at an OpenID Connect provider linked to people (DESIGN §2c): signing in through the
 * provider as (issuer, subject) signs in that person. The pair is unique across the service (it
 * is looked up before the workspace is known, like a credential's hash: a reference table under
 * Citus). Deleted with the person.
 */
export const personIdentities = pgTable(
  "person_identities",
  {
    workspaceId: text("workspace_id").notNull(),
    id: text("id").notNull(),
    personId: text("person_id").notNull(),
    issuer: text("issuer").notNull(),
    subject: text("subject").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull(),
  },
  (t) => [
    primaryKey({ name: "person_identities_pkey", columns: [t.workspaceId, t.id] }),
    uniqueIndex("person_identities_issuer_subject_key").on(t.issuer, t.subject),
    index("person_identities_person_idx").on(t.workspaceId, t.personId, t.createdAt),
  ],
);
