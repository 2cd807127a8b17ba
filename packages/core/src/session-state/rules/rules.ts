import type { CoreDeps } from "../../deps.ts";
import { DomainError, malformed } from "../../errors.ts";
import type { OperationContext } from "../../operation.ts";
import type { Stores } from "../../ports.ts";
import { sessionOfChange } from "../conventions/session-of-change.ts";
import { checkMarkdown, checkTitle } from "../conventions/fields.ts";
import { HEURISTIC_ENRICHER, enrichmentInputSha256 } from "./heuristic-enricher.ts";
import { RULE_LEVELS, RULE_OPERATIONS, type Enrichment, type Rule, type RuleLevel, type RuleOperation } from "./rule.ts";
import { languagesOfPath } from "./languages.ts";
import { checkSlug, findLesson } from "../lessons/lessons.ts";
import type { Project } from "../projects/project.ts";
import { mutateWithProject } from "../conventions/record-mutation.ts";
import { findInProject, projectArchived, resolveProject } from "../conventions/resolve-project.ts";
import { applicableRules, type ChangeDescription } from "./rule-matcher.ts";
import { checkRelativePath, checkTriggers, inferTriggers, populatedDimensions, type TriggersInput } from "./rule-triggers.ts";
import { actorOf, recordChange } from "../conventions/record-history.ts";

/** Limits of rules (SESSION-STATE §8). */
export const RULE_LIMITS = { bodyMax: 12_000, reasonMax: 2_000, changePaths: 500, changePathBytes: 64 * 1024, codeBytes: 128 * 1024, requestLanguages: 50 } as const;

/**
 * The rule as the caller may see it, with its project.
 * @throws DomainError SVC_RESOURCE_NOT_FOUND.
 */
export async function findRule(stores: Stores, ctx: Pick<OperationContext, "principal">, id: string): Promise<{ record: Rule; project: Project }> {
  return findInProject(stores, ctx, id, "Rule", (p) => stores.rules.find(p));
}

/** What POST /rules/derive takes. */
export interface DeriveRuleInput {
  lesson_id: string;
  slug?: string;
  title?: string;
  body_md?: string;
  level?: string;
  triggers?: TriggersInput;
  always_apply?: boolean;
  supersedes_rule_id?: string;
}

function checkLevel(level: string | undefined): RuleLevel {
  if (level === undefined) return "should";
  if (!(RULE_LEVELS as readonly string[]).includes(level)) throw malformed(`level must be one of ${RULE_LEVELS.join(", ")}.`, { field: "level" });
  return level as RuleLevel;
}

/**
 * Derives an active rule from an active lesson (`rule.derived`). Triggers: as given, else read
 * from the lesson's text; none populated and not always_apply: 400 no_trigger with
 * suggested_triggers. With supersedes_rule_id, that active rule of the project is archived in
 * the same transaction (`rule.archived`), and the new rule may take its slug.
 * @throws DomainError SVC_MALFORMED_REQUEST, SVC_RESOURCE_NOT_FOUND, SVC_RESOURCE_CONFLICT.
 */
export async function deriveRule(deps: CoreDeps, stores: Stores, ctx: OperationContext, input: DeriveRuleInput): Promise<{ rule: Rule; project: Project }> {
  const { record: lesson, project } = await findLesson(stores, ctx, input.lesson_id);
  if (project.state === "archived") throw projectArchived(project.id);
  if (lesson.status !== "active") throw new DomainError("SVC_RESOURCE_CONFLICT", "Rules derive from active lessons only.", { reason: "lesson_not_active", status: lesson.status });
  const title = input.title === undefined ? lesson.title : checkTitle(input.title);
  const bodyMd = checkMarkdown(input.body_md ?? lesson.bodyMd, "body_md", { required: true, maxBytes: RULE_LIMITS.bodyMax });
  if ([...bodyMd].length > RULE_LIMITS.bodyMax) throw malformed(`body_md must be at most ${RULE_LIMITS.bodyMax} characters.`, { field: "body_md" });
  const lessonText = `${lesson.title}\n${lesson.bodyMd}\n${lesson.whyMd}`;
  const triggers = input.triggers === undefined ? inferTriggers(`${lessonText}\n${input.body_md ?? ""}`) : checkTriggers(input.triggers);
  const alwaysApply = input.always_apply ?? false;
  if (!alwaysApply && populatedDimensions(triggers) === 0) {
    throw malformed("The rule has no trigger: name triggers (or always_apply); details.suggested_triggers holds what the lesson's text suggests.", { field: "triggers", reason: "no_trigger", suggested_triggers: inferTriggers(`${lessonText}\n${bodyMd}`) });
  }
  const now = deps.clock.now();
  let superseded: Rule | null = null;
  if (input.supersedes_rule_id !== undefined) {
    const old = (await findRule(stores, ctx, input.supersedes_rule_id)).record;
    if (old.projectId !== project.id) throw new DomainError("SVC_RESOURCE_NOT_FOUND", "supersedes_rule_id names no rule of the lesson's project.", { resource: "Rule", field: "supersedes_rule_id" });
    if (old.status !== "active") throw new DomainError("SVC_RESOURCE_CONFLICT", "Only an active rule can be superseded.", { reason: "rule_archived" });
    superseded = old;
  }
  const rule: Rule = {
    workspaceId: project.workspaceId,
    id: deps.ids.next(),
    projectId: project.id,
    slug: checkSlug(input.slug ?? superseded?.slug ?? (input.title === undefined ? lesson.slug : undefined), title),
    title,
    bodyMd,
    level: checkLevel(input.level),
    sourceLessonId: lesson.id,
    supersedesRuleId: superseded?.id ?? null,
    alwaysApply,
    triggers,
    status: "active",
    archivedReason: null,
    archivedAt: null,
    enrichment: null,
    version: 1,
    createdAt: now,
    updatedAt: now,
    createdBy: actorOf(ctx),
  };
  const buildSessionId = await sessionOfChange(stores, ctx, project.id, null);
  if (superseded !== null) {
    const archived = { ...superseded, status: "archived" as const, archivedReason: `superseded by ${rule.id}`, archivedAt: now, version: superseded.version + 1, updatedAt: now };
    if ((await stores.rules.replace({ rule: archived, expectedVersion: superseded.version })).kind === "conflict") throw new DomainError("SVC_RESOURCE_CONFLICT", "The superseded rule changed meanwhile; read it again.", { reason: "concurrent_write" });
    await recordChange(deps, stores, ctx, { projectId: project.id, subjectType: "rule", subjectId: superseded.id, eventType: "archived", oldValue: { status: "active" }, newValue: { status: "archived", superseded_by_id: rule.id }, buildSessionId, at: now });
  }
  const inserted = await stores.rules.insert({ rule });
  if (inserted.kind === "slug_taken") throw new DomainError("SVC_RESOURCE_CONFLICT", "An active rule of the project has that slug; supersede it or choose another slug.", { reason: "slug_taken", existing_id: inserted.existingId });
  await recordChange(deps, stores, ctx, { projectId: project.id, subjectType: "rule", subjectId: rule.id, eventType: "derived", oldValue: null, newValue: { slug: rule.slug, source_lesson_id: lesson.id, supersedes_rule_id: rule.supersedesRuleId }, buildSessionId, at: now });
  return { rule, project };
}

const mutate = (stores: Stores, ctx: OperationContext, id: string, decide: (r: Rule, p: Project) => Rule | Promise<Rule>) =>
  mutateWithProject(() => findRule(stores, ctx, id), decide, (next, expectedVersion) => stores.rules.replace({ rule: next, expectedVersion }));

function activeOnly(rule: Rule, project: Project): void {
  if (project.state === "archived") throw projectArchived(project.id);
  if (rule.status !== "active") throw new DomainError("SVC_RESOURCE_CONFLICT", "The rule is archived (terminal).", { reason: "rule_archived" });
}

async function computeEnrichment(deps: CoreDeps, stores: Stores, rule: Rule): Promise<Enrichment> {
  const enricher = deps.enricher ?? HEURISTIC_ENRICHER;
  const lesson = await stores.lessons.find({ workspaceId: rule.workspaceId, id: rule.sourceLessonId });
  const others = await stores.rules.active({ workspaceId: rule.workspaceId, projectId: rule.projectId });
  return enricher.enrich({ rule, lesson: lesson?.deletedAt === null ? lesson : null, others }, deps.clock.now());
}

async function inputSha(deps: CoreDeps, stores: Stores, rule: Rule): Promise<string> {
  const enricher = deps.enricher ?? HEURISTIC_ENRICHER;
  const lesson = await stores.lessons.find({ workspaceId: rule.workspaceId, id: rule.sourceLessonId });
  const others = await stores.rules.active({ workspaceId: rule.workspaceId, projectId: rule.projectId });
  return enrichmentInputSha256({ rule, lesson: lesson?.deletedAt === null ? lesson : null, others }, enricher.name);
}

/**
 * Computes an active rule's enrichment the first time (`rule.enriched`, version + 1). Again with
 * the same input: unchanged (`changed: false`); with a changed input (the rule's lesson or the
 * project's other rules changed): 409 enrichment_stale, use reenrich.
 */
export async function enrichRule(deps: CoreDeps, stores: Stores, ctx: OperationContext, id: string): Promise<{ rule: Rule; project: Project; changed: boolean }> {
  const { record } = await findRule(stores, ctx, id);
  if (record.enrichment !== null) {
    const found = await findRule(stores, ctx, id);
    activeOnly(found.record, found.project);
    const sha = await inputSha(deps, stores, record);
    if (sha === record.enrichment.input_sha256) return { rule: found.record, project: found.project, changed: false };
    throw new DomainError("SVC_RESOURCE_CONFLICT", "The enrichment's input changed since it was computed; call reenrich.", { reason: "enrichment_stale", input_sha256: sha, enriched_sha256: record.enrichment.input_sha256 });
  }
  return reenrich(deps, stores, ctx, id, "enriched");
}

/** Recomputes an active rule's enrichment (`rule.reenriched`, version + 1) and tells what changed. */
export async function reenrichRule(deps: CoreDeps, stores: Stores, ctx: OperationContext, id: string): Promise<{ rule: Rule; project: Project; changed: boolean; changes: string[] }> {
  return reenrich(deps, stores, ctx, id, "reenriched");
}

const ENRICHMENT_FIELDS = ["keywords", "suggested_triggers", "related", "duplicates", "conflicts", "token_estimate", "input_sha256"] as const;

async function reenrich(deps: CoreDeps, stores: Stores, ctx: OperationContext, id: string, eventType: string): Promise<{ rule: Rule; project: Project; changed: boolean; changes: string[] }> {
  const now = deps.clock.now();
  let changes: string[] = [];
  const r = await mutate(stores, ctx, id, async (rule, project) => {
    activeOnly(rule, project);
    const enrichment = await computeEnrichment(deps, stores, rule);
    const before = rule.enrichment;
    changes = ENRICHMENT_FIELDS.filter((f) => before === null || JSON.stringify(before[f]) !== JSON.stringify(enrichment[f]));
    return { ...rule, enrichment, updatedAt: now };
  });
  await recordChange(deps, stores, ctx, { projectId: r.after.projectId, subjectType: "rule", subjectId: r.after.id, eventType, oldValue: { input_sha256: r.before.enrichment?.input_sha256 ?? null }, newValue: { input_sha256: r.after.enrichment?.input_sha256 ?? null, changes }, at: now });
  return { rule: r.after, project: r.project, changed: true, changes };
}

/** Archives an active rule (terminal; `rule.archived`). */
export async function archiveRule(deps: CoreDeps, stores: Stores, ctx: OperationContext, id: string, input: { reason: string }): Promise<{ rule: Rule; project: Project }> {
  const reason = checkTitle(input.reason, "reason", RULE_LIMITS.reasonMax);
  const now = deps.clock.now();
  const r = await mutate(stores, ctx, id, (rule, project) => {
    activeOnly(rule, project);
    return { ...rule, status: "archived", archivedReason: reason, archivedAt: now, updatedAt: now };
  });
  await recordChange(deps, stores, ctx, { projectId: r.after.projectId, subjectType: "rule", subjectId: r.after.id, eventType: "archived", oldValue: { status: "active" }, newValue: { status: "archived", reason }, at: now });
  return { rule: r.after, project: r.project };
}

/** What POST /rules/applicable takes. */
export interface ApplicableInput {
  paths: string[];
  operations: string[];
  languages?: string[];
  code?: string[];
  project_attributes?: Record<string, string>;
}

/**
 * A change checked and completed: relative paths (`..` or absolute: 400; 64 KB in all), known
 * operations, languages lower-case (inferred from the paths' extensions when none are named), code
 * up to 128 KB in all, attributes over the project's own.
 * @throws DomainError SVC_MALFORMED_REQUEST.
 */
export function describeChange(project: Pick<Project, "attributes">, input: ApplicableInput): ChangeDescription {
  if (input.paths.length > RULE_LIMITS.changePaths) throw malformed(`paths holds at most ${RULE_LIMITS.changePaths} entries.`, { field: "paths" });
  const paths = input.paths.map((p) => checkRelativePath(p, "paths", 1_000));
  // Every glob of every rule reads every path: the paths' total is bounded like the code's (DESIGN §2c).
  const pathBytes = paths.reduce((n, p) => n + new TextEncoder().encode(p).length, 0);
  if (pathBytes > RULE_LIMITS.changePathBytes) throw malformed(`paths hold at most ${RULE_LIMITS.changePathBytes} bytes in all.`, { field: "paths", max_bytes: RULE_LIMITS.changePathBytes });
  for (const op of input.operations) if (!(RULE_OPERATIONS as readonly string[]).includes(op)) throw malformed(`operations must be a subset of ${RULE_OPERATIONS.join(", ")}.`, { field: "operations", value: op });
  const code = input.code ?? [];
  const bytes = code.reduce((n, s) => n + new TextEncoder().encode(s).length, 0);
  if (bytes > RULE_LIMITS.codeBytes) throw malformed(`code holds at most ${RULE_LIMITS.codeBytes} bytes in all.`, { field: "code", max_bytes: RULE_LIMITS.codeBytes });
  const named = (input.languages ?? []).map((l) => l.toLowerCase());
  const languages = named.length > 0 ? named : [...new Set(paths.flatMap(languagesOfPath))];
  const attrs = input.project_attributes ?? {};
  for (const [k, v] of Object.entries(attrs)) if (typeof v !== "string") throw malformed("project_attributes values must be strings.", { field: "project_attributes", key: k });
  return { paths, operations: [...new Set(input.operations)] as RuleOperation[], languages, code, projectAttributes: { ...project.attributes, ...attrs } };
}

/** POST /rules/applicable: the project's active rules that apply to the change, ordered, with what matched; `evaluated` counts the rules looked at. */
export async function findApplicableRules(stores: Stores, ctx: OperationContext, input: ApplicableInput & { project_id?: string }) {
  const project = await resolveProject(stores, ctx, input.project_id, { forWrite: false });
  const change = describeChange(project, input);
  const rules = await stores.rules.active({ workspaceId: project.workspaceId, projectId: project.id });
  return { project, change, evaluated: rules.length, matches: applicableRules(rules, change) };
}

/** The wire form of a rule. */
export function ruleView(r: Rule) {
  return {
    id: r.id,
    project_id: r.projectId,
    slug: r.slug,
    title: r.title,
    body_md: r.bodyMd,
    level: r.level,
    source_lesson_id: r.sourceLessonId,
    supersedes_rule_id: r.supersedesRuleId,
    always_apply: r.alwaysApply,
    triggers: r.triggers,
    status: r.status,
    archived_reason: r.archivedReason,
    archived_at: r.archivedAt?.toISOString() ?? null,
    enrichment: r.enrichment,
    version: r.version,
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
    created_by: { ai_account_id: r.createdBy.aiAccountId, friendly_name: r.createdBy.friendlyName },
  };
}
