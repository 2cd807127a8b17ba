import { Type, type Static } from "@sinclair/typebox";
import { malformed } from "../../errors.ts";
import { isUlid } from "../../ids.ts";
import { parseEnum } from "../conventions/fields.ts";
import { RULE_LEVELS, RULE_OPERATIONS, RULE_STATUSES, type Rule } from "./rule.ts";
import { findBySlug, resolveProject } from "../conventions/resolve-project.ts";
import { matchRule } from "./rule-matcher.ts";
import { RULE_LIMITS, archiveRule, deriveRule, describeChange, enrichRule, findApplicableRules, findRule, reenrichRule, ruleView } from "./rules.ts";
import { TRIGGER_LIMITS, checkRelativePath } from "./rule-triggers.ts";
import { defineOperation } from "../../operation.ts";
import { defineSessionStateWrite } from "../conventions/define-session-state-write.ts";
import { defineSessionStateRead } from "../conventions/define-session-state-read.ts";
import { offsetPage } from "../../cursors/paged-list.ts";
import { CreatedBySchema, CursorField, IdField, LimitField, Nullable, PageOf, ProjectIdField, SESSION_STATE_READ, Timestamp } from "../conventions/operation-fields.ts";

const OperationName = Type.Union(RULE_OPERATIONS.map((o) => Type.Literal(o)));
const TriggersShape = {
  paths: Type.Array(Type.String({ minLength: 1, maxLength: TRIGGER_LIMITS.globMax }), { maxItems: TRIGGER_LIMITS.paths, description: "Globs (picomatch syntax, at most 16 wildcards of which 8 single-character; matched in linear time; dot files included; relative POSIX)." }),
  operations: Type.Array(OperationName, { maxItems: 4 }),
  languages: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: TRIGGER_LIMITS.languages, description: "Lower-case Linguist names (typescript, python, c++)." }),
  code_patterns: Type.Array(Type.String({ minLength: 1, maxLength: TRIGGER_LIMITS.patternMax }), { maxItems: TRIGGER_LIMITS.patterns, description: "RE2 regular expressions (linear time)." }),
  project_attributes: Type.Record(Type.String(), Type.Array(Type.String({ maxLength: 200 }), { minItems: 1, maxItems: TRIGGER_LIMITS.attributeValues }), { description: "key: allowed values; every key must be present with an allowed value." }),
};
/** Triggers as they arrive (every dimension optional). */
const TriggersInputSchema = Type.Partial(Type.Object(TriggersShape, { additionalProperties: false }), { additionalProperties: false, description: "When the rule applies: every populated dimension must match." });
const TriggersSchema = Type.Object(TriggersShape);
const RelatedSchema = Type.Object({ rule_id: Type.String(), slug: Type.String(), similarity: Type.Number() });

/** The wire schema of a rule. */
export const RuleSchema = Type.Object(
  {
    id: Type.String({ description: "ULID of the rule." }),
    project_id: Type.String(),
    slug: Type.String({ description: "Unique among the project's active rules." }),
    title: Type.String(),
    body_md: Type.String(),
    level: Type.Union(RULE_LEVELS.map((l) => Type.Literal(l))),
    source_lesson_id: Type.String(),
    supersedes_rule_id: Nullable(Type.String()),
    always_apply: Type.Boolean(),
    triggers: TriggersSchema,
    status: Type.Union(RULE_STATUSES.map((s) => Type.Literal(s))),
    archived_reason: Nullable(Type.String()),
    archived_at: Nullable(Timestamp()),
    enrichment: Nullable(
      Type.Object({
        keywords: Type.Array(Type.String()),
        suggested_triggers: TriggersSchema,
        related: Type.Array(RelatedSchema, { description: "Active rules of the project sharing words (Jaccard >= 0.3)." }),
        duplicates: Type.Array(RelatedSchema, { description: "Active rules saying the same thing (Jaccard >= 0.6)." }),
        conflicts: Type.Array(Type.Object({ ...RelatedSchema.properties, reason: Type.String() })),
        token_estimate: Type.Integer(),
        input_sha256: Type.String(),
        enricher: Type.String(),
        computed_at: Timestamp(),
      }),
    ),
    version: Type.Integer(),
    created_at: Timestamp(),
    updated_at: Timestamp(),
    created_by: CreatedBySchema,
  },
  { description: "A rule (immutable: change one by deriving again with supersedes_rule_id)." },
);
/** A rule as the operations answer it (derived from `RuleSchema`). */
export type RuleWire = Static<typeof RuleSchema>;
const RulePath = { rule_id: IdField("ULID of the rule.") };

const deriveOp = defineSessionStateWrite({
  name: "derive_rule",
  summary: "Derive an active rule from an active lesson: triggers as given, else read from the lesson's text (backticked paths and globs, extensions, create/modify/delete/rename, /regex/); none and not always_apply gives 400 no_trigger with suggested_triggers. supersedes_rule_id archives that rule in the same transaction.",
  http: { method: "POST", path: "/v1/rules/derive" },
  input: Type.Object({
    lesson_id: IdField("The active lesson the rule derives from."),
    slug: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "Default: the superseded rule's slug, else the lesson's slug (derived from title when a title is given)." })),
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "Default: the lesson's title." })),
    body_md: Type.Optional(Type.String({ minLength: 1, maxLength: RULE_LIMITS.bodyMax, description: "Default: the lesson's body. Up to 12,000 characters." })),
    level: Type.Optional(Type.Union(RULE_LEVELS.map((l) => Type.Literal(l)), { description: "Default should." })),
    triggers: Type.Optional(TriggersInputSchema),
    always_apply: Type.Optional(Type.Boolean({ description: "Applies to every change (default false)." })),
    supersedes_rule_id: Type.Optional(IdField("An active rule of the project this one replaces (archived in the same transaction).")),
  }),
  output: RuleSchema,
  successStatus: 201,
  run: async (deps, ctx, input, stores) => ({ body: ruleView((await deriveRule(deps, stores, ctx, input)).rule) }),
});

const ApplicableMatch = Type.Object({
  paths: Type.Array(Type.Object({ path: Type.String(), glob: Type.String() })),
  operations: Type.Array(Type.String()),
  languages: Type.Array(Type.String()),
  code_patterns: Type.Array(Type.Object({ pattern: Type.String(), snippet_index: Type.Integer() })),
  project_attributes: Type.Record(Type.String(), Type.String()),
});

const applicableOp = defineOperation({
  name: "find_applicable_rules",
  summary: "Before changing files: the project's active rules that apply to the change (paths, operations, languages or inferred from extensions, code snippets, project attributes), must first, with what matched. A dimension a rule populates and the change leaves empty does not match.",
  http: { method: "POST", path: "/v1/rules/applicable" },
  auth: SESSION_STATE_READ,
  idempotency: "none",
  mutates: false,
  input: Type.Object({
    project_id: ProjectIdField,
    paths: Type.Array(Type.String({ minLength: 1, maxLength: 1_000 }), { maxItems: RULE_LIMITS.changePaths, description: "Relative POSIX paths the change touches ('..' or absolute: 400; 64 KB in all)." }),
    operations: Type.Array(OperationName, { maxItems: 4, description: "What the change does to them." }),
    languages: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: RULE_LIMITS.requestLanguages, description: "Default: inferred from the paths' extensions." })),
    code: Type.Optional(Type.Array(Type.String(), { maxItems: 200, description: "Code snippets of the change (128 KB in all)." })),
    project_attributes: Type.Optional(Type.Record(Type.String(), Type.String(), { description: "Override the project's stored attributes." })),
  }),
  output: Type.Object({ rules: Type.Array(Type.Object({ rule: RuleSchema, matched: ApplicableMatch })), evaluated: Type.Integer({ description: "Active rules looked at." }) }),
  successStatus: 200,
  async handler(deps, ctx, input) {
    const r = await findApplicableRules(deps.stores, ctx, input);
    return { body: { rules: r.matches.map((m) => ({ rule: ruleView(m.rule), matched: m.matched })), evaluated: r.evaluated } };
  },
});

const listOp = defineSessionStateRead({
  name: "list_rules",
  summary: "A project's rules by slug: status (default active, or any), level, language, path (rules whose globs match it), source_lesson_id.",
  http: { path: "/v1/rules", query: ["project_id", "status", "level", "language", "path", "source_lesson_id", "limit", "cursor"] },
  input: Type.Object({
    project_id: ProjectIdField,
    status: Type.Optional(Type.String({ description: "active (default), archived, or any." })),
    level: Type.Optional(Type.String()),
    language: Type.Optional(Type.String({ maxLength: 100 })),
    path: Type.Optional(Type.String({ maxLength: 1_000, description: "Only rules with a path glob matching this path." })),
    source_lesson_id: Type.Optional(IdField("Only rules derived from this lesson.")),
    limit: LimitField,
    cursor: CursorField,
  }),
  output: PageOf(RuleSchema, "A page of rules."),
  async handler(deps, ctx, input) {
    const project = await resolveProject(deps.stores, ctx, input.project_id, { forWrite: false });
    if (input.source_lesson_id !== undefined && !isUlid(input.source_lesson_id)) throw malformed("source_lesson_id must be a ULID.", { field: "source_lesson_id" });
    const filters = {
      status: input.status === "any" ? null : (parseEnum(input.status, RULE_STATUSES, "status") ?? "active"),
      level: parseEnum(input.level, RULE_LEVELS, "level"),
      language: input.language === undefined || input.language === "" ? null : input.language.toLowerCase(),
      sourceLessonId: input.source_lesson_id ?? null,
    };
    const path = input.path === undefined || input.path === "" ? null : checkRelativePath(input.path, "path", 1_000);
    const at = { workspaceId: project.workspaceId, projectId: project.id };
    const fetch = async (offset: number, limit: number): Promise<Rule[]> => {
      if (path === null) return deps.stores.rules.list({ ...at, filters, offset, limit });
      // Globs are matched here: every rule of the filters is read, then paged.
      const change = describeChange(project, { paths: [path], operations: [] });
      const all = (await deps.stores.rules.list({ ...at, filters, offset: 0, limit: null })).filter((r) => matchRule({ ...r, alwaysApply: false, triggers: { ...r.triggers, operations: [], languages: [], code_patterns: [], project_attributes: {} } }, change) !== null);
      return all.slice(offset, offset + limit + 1);
    };
    const body = await offsetPage(deps, ctx, { resource: "rules", filters: { project: project.id, path, ...filters }, limit: input.limit, cursor: input.cursor }, fetch, ruleView);
    return { body };
  },
});

const bySlugOp = defineSessionStateRead({
  name: "get_rule_by_slug",
  summary: "Read a project's active rule by slug (else its newest archived one).",
  http: { path: "/v1/rules/by-slug", query: ["project_id", "slug"] },
  input: Type.Object({ project_id: ProjectIdField, slug: Type.String({ minLength: 1, maxLength: 64 }) }),
  output: RuleSchema,
  handler: async (deps, ctx, input) => ({ body: ruleView(await findBySlug(deps.stores, ctx, input, "Rule", (p) => deps.stores.rules.findBySlug(p))) }),
});

const getOp = defineSessionStateRead({
  name: "get_rule",
  summary: "Read a rule with its triggers and enrichment.",
  http: { path: "/v1/rules/{rule_id}" },
  input: Type.Object(RulePath),
  output: RuleSchema,
  handler: async (deps, ctx, input) => ({ body: ruleView((await findRule(deps.stores, ctx, input.rule_id)).record) }),
});

const enrichOp = defineSessionStateWrite({
  name: "enrich_rule",
  summary: "Compute an active rule's enrichment (keywords, suggested triggers, related, duplicates, conflicts, token estimate; the heuristic enricher): the same input again is unchanged; a changed input gives 409 (use reenrich).",
  http: { method: "POST", path: "/v1/rules/{rule_id}/enrich" },
  input: Type.Object(RulePath),
  output: Type.Object({ rule: RuleSchema, changed: Type.Boolean() }),
  successStatus: 200,
  run: async (deps, ctx, input, stores) => {
    const r = await enrichRule(deps, stores, ctx, input.rule_id);
    return { body: { rule: ruleView(r.rule), changed: r.changed } };
  },
});

const reenrichOp = defineSessionStateWrite({
  name: "reenrich_rule",
  summary: "Recompute an active rule's enrichment (version + 1) and say which of its parts changed.",
  http: { method: "POST", path: "/v1/rules/{rule_id}/reenrich" },
  input: Type.Object(RulePath),
  output: Type.Object({ rule: RuleSchema, changed: Type.Boolean(), changes: Type.Array(Type.String()) }),
  successStatus: 200,
  run: async (deps, ctx, input, stores) => {
    const r = await reenrichRule(deps, stores, ctx, input.rule_id);
    return { body: { rule: ruleView(r.rule), changed: r.changes.length > 0, changes: r.changes } };
  },
});

const archiveOp = defineSessionStateWrite({
  name: "archive_rule",
  summary: "Archive an active rule with a reason (terminal).",
  http: { method: "POST", path: "/v1/rules/{rule_id}/archive" },
  input: Type.Object({ ...RulePath, reason: Type.String({ minLength: 1, maxLength: RULE_LIMITS.reasonMax }) }),
  output: RuleSchema,
  successStatus: 200,
  run: async (deps, ctx, input, stores) => ({ body: ruleView((await archiveRule(deps, stores, ctx, input.rule_id, input)).rule) }),
});

/** The rule operations (SESSION-STATE §8); fixed paths before `{rule_id}`. */
export const RULE_OPERATIONS_LIST = [deriveOp, applicableOp, listOp, bySlugOp, getOp, enrichOp, reenrichOp, archiveOp];
