import { Type, type TSchema } from "@sinclair/typebox";

// TypeBox schemas shared by the session-state operations (SESSION-STATE.md).

/** A ULID naming a record (the core checks the ULID form and answers 404 for one that names nothing). */
export const IdField = (description: string) => Type.String({ minLength: 1, maxLength: 64, description });
/** A nullable value. */
export const Nullable = <T extends TSchema>(t: T, description?: string) => Type.Union([t, Type.Null()], description === undefined ? {} : { description });
/** A timestamp on the wire. */
export const Timestamp = (description?: string) => Type.String({ format: "date-time", ...(description === undefined ? {} : { description }) });
/** Page size (query strings arrive as text). */
export const LimitField = Type.Optional(Type.Union([Type.Integer(), Type.String()], { description: "Page size: default 50, clamped to 1..100; not an integer gives 400." }));
/** Paging cursor. */
export const CursorField = Type.Optional(Type.String({ maxLength: 2048, description: "next_cursor of the previous page (bound to this query; expires after 24 hours)." }));
/** A project selector (SESSION-STATE §1 "Which project"). */
export const ProjectIdField = Type.Optional(
  IdField("The project; absent: the credential's project, else the workspace's default project, else 400 (details.reason no_project). A project-restricted credential naming another project gets 404."),
);
/** A boolean flag that also arrives as a query string. */
export const FlagField = (description: string) => Type.Optional(Type.Union([Type.Boolean(), Type.Literal("true"), Type.Literal("false")], { description }));
/** The optional version guard of a write. */
export const ExpectedVersionField = Type.Optional(Type.Integer({ minimum: 1, description: "The version you read; a stale one gives 409 with details.current_version." }));
/** Tags or labels. */
export const TagsField = (description = "Up to 20 tags, each ^[a-z0-9][a-z0-9._-]{0,39}$.") => Type.Array(Type.String({ minLength: 1, maxLength: 40 }), { maxItems: 20, description });
/** Markdown up to 16 KB. */
export const MarkdownField = (description: string) => Type.String({ maxLength: 16_384, description: `${description} Markdown, up to 16 KB.` });
/** `created_by` of every record. */
export const CreatedBySchema = Type.Object({ ai_account_id: Type.String(), friendly_name: Type.String() }, { description: "The AI account that created the record (from the credential)." });
/** A page of items. */
export const PageOf = <T extends TSchema>(item: T, description: string) =>
  Type.Object({ items: Type.Array(item), next_cursor: Type.Union([Type.String(), Type.Null()], { description: "Cursor of the next page; null on the last page." }) }, { description });

/** The read rule of session-state records: any authenticated caller of the workspace (spec §Scopes rule 1). */
export const SESSION_STATE_READ = { kind: "credential" as const, tier: "operational" as const, scope: null };
/** Writes of session-state records. */
export const SESSION_STATE_WRITE = { kind: "credential" as const, tier: "operational" as const, scope: "write_session_state" as const };
/** The project write plane. */
export const PROJECT_WRITE = { kind: "credential" as const, tier: "operational" as const, scope: "manage_projects" as const };
